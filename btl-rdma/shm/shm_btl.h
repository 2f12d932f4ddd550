// The shared-memory backend: active messages through SPSC rings in a per-node segment,
// get/put through cross-memory attach. Setup lives in shm_setup.cc, the data path in
// shm_data.cc.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <deque>
#include <string>
#include <vector>

#include "btl-rdma/btl.h"
#include "btl-rdma/shm/cma.h"
#include "btl-rdma/shm/segment.h"
#include "btl-rdma/shm/spsc_ring.h"

namespace mpr::btl::shm {

/// Framing of one active message in a ring record: the record's meta bits say which handler
/// and how long the header is and the payload; the body is the header, then the payload.
struct RecordMeta {
  unsigned am_id;
  unsigned hdr_len;
  unsigned payload_len;
  static uint64_t pack(int am_id, size_t hdr_len, size_t payload_len) {
    return uint64_t(am_id) | uint64_t(hdr_len) << 8 | uint64_t(payload_len) << 16;
  }
  static RecordMeta unpack(uint64_t m) {
    return {unsigned(m & 0xff), unsigned((m >> 8) & 0xff), unsigned(m >> 16)};
  }
};
/// Largest active-message header (the meta has 8 bits for its length).
constexpr size_t kMaxRecordHdr = 255;
static_assert(kMetaBits - 16 >= 32, "payload length needs 32 meta bits");

/// Room kept below max_am_size when clamping the eager limit, so an eager message of exactly
/// eager_limit payload bytes plus the pml's matching header still fits one slot.
constexpr size_t kProtocolHeaderReserve = 128;
/// get/put up to this size complete inside the call (kDone). Larger ones copy this much per
/// step (the first step inside the call, one step per progress()), so a 1 GiB transfer does
/// not keep the process away from its rings for ~100 ms.
constexpr size_t kCmaStepBytes = size_t{4} << 20;
/// Messages progress() hands to handlers per call at most, so completions and the caller's
/// own work are not starved by a flood.
constexpr int kMaxMessagesPerProgress = 64;
/// Messages up to this size are prefetched whole before their handler runs (poll_rings).
constexpr size_t kPrefetchBytes = 1024;
/// rkey.words[1] of shm registrations: catches a key from another backend handed to us.
constexpr uint64_t kRkeyTag = 0x73686d2d726b6579ULL;  // "shm-rkey"

/// Tunables after validation (geometry legal, eager limit fits).
struct ShmConfig {
  RingGeometry geometry;
  size_t eager_limit = 0;
  bool cma_enabled = true;
  size_t cma_min = 0;         ///< smallest rendezvous message read with CMA
  size_t cma_duplex_min = 0;  ///< below cma_min: CMA from here while both directions are busy
  size_t cma_duplex_max = 0;  ///< ... up to here
  std::string notes;          ///< what was adjusted, for verbose mode
};
ShmConfig read_config();

/// What each local rank publishes under "mpr.shm": its pid and probe word address; the local
/// leader adds the segment name.
struct ModexEntry {
  uint64_t magic;
  uint64_t pid;
  uint64_t probe_addr;
  uint32_t name_len;
  uint32_t reserved;
};
static_assert(sizeof(ModexEntry) == 32);
constexpr uint64_t kModexMagic = 0x6d70722d73686d78ULL;  // "mpr-shmx"

class ShmBtl final : public Btl {
 public:
  ShmBtl(common::Bootstrap& bs, ShmConfig cfg, Segment seg);
  ~ShmBtl() override;

  const Caps& caps() const override { return caps_; }
  void wire_up(common::Bootstrap& bs) override;
  void finalize() override;
  bool reachable(int peer) const override;
  Status send_am(int peer, int am_id, const void* hdr, size_t hdr_len, const struct iovec* iov,
                 int iovcnt) override;
  void reg(void* addr, size_t len, Registration* out) override;
  void dereg(Registration* reg) override;
  Status get(int peer, void* local, const Registration* local_reg, uint64_t remote_addr,
             const RemoteKey& rkey, size_t len, Completion* c) override;
  Status put(int peer, const void* local, const Registration* local_reg, uint64_t remote_addr,
             const RemoteKey& rkey, size_t len, Completion* c) override;
  int progress() override;
  std::string describe() const override;

 private:
  /// A get/put larger than kCmaStepBytes, or one that failed and owes its completion.
  struct PendingCopy {
    pid_t pid = 0;
    CmaDir dir = CmaDir::kRead;
    uint8_t* local = nullptr;
    uint64_t remote = 0;
    size_t left = 0;
    Completion* c = nullptr;
    int error = 0;
    int peer = -1;
    const char* call = "";
  };

  void set_caps(bool cma_ok);
  void probe_cma(const std::vector<ModexEntry>& entries, const std::vector<bool>& present);
  void release();
  /// The local index of `peer`; throws std::invalid_argument naming `call` if shm does not
  /// reach it. Inline: every active message asks.
  int local_index(int peer, const char* call) const {
    if (size_t(peer) < local_of_rank_.size() && peer != rank_) {
      const int li = local_of_rank_[size_t(peer)];
      if (li >= 0 && size_t(li) < out_.size() && out_[size_t(li)].attached()) return li;
    }
    unreachable(peer, call);
  }
  [[noreturn]] void unreachable(int peer, const char* call) const;
  Status start_copy(const char* call, int peer, void* local, uint64_t remote, const RemoteKey& rkey,
                    size_t len, Completion* c, CmaDir dir);
  void fail_later(const char* call, int peer, uint64_t remote, size_t len, Completion* c, int err);
  int advance_copies();
  int poll_rings();

  int rank_;
  int local_rank_;
  pid_t pid_;
  std::vector<int> local_peers_;    ///< job ranks on this node, by local index
  std::vector<int> local_of_rank_;  ///< job rank -> local index, -1 off-node
  ShmConfig cfg_;
  Segment seg_;
  Caps caps_;
  std::string cma_state_;  ///< "CMA" or why not, for describe()
  bool wired_ = false;

  std::vector<RingProducer> out_;  ///< by local index of the receiver
  std::vector<RingConsumer> in_;   ///< by local index of the sender
  std::vector<int> poll_order_;    ///< local indices with an attached inbound ring
  size_t poll_start_ = 0;          ///< round-robin cursor into poll_order_
  bool in_progress_ = false;
  std::deque<PendingCopy> copies_;
};

}  // namespace mpr::btl::shm
