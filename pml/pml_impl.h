// Internal declarations of the pml: request objects, per-peer state and the PmlImpl class.
// Only pml/*.cc and the pml's own tests include this; the runtime sees pml.h alone.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <deque>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "btl-rdma/btl.h"
#include "common/copy.h"
#include "pml/headers.h"
#include "pml/match.h"
#include "pml/pml.h"
#include "pml/pml_testing.h"
#include "pml/recycler.h"

namespace mpr::pml {

struct ActiveTag {};  // hook for the lists of requests that progress() drives
struct AllTag {};     // hook for the owner lists freed at destruction

/// Base of every request the pml creates.
struct ReqBase : Request, Hook<AllTag> {
  uint64_t id = 0;        ///< wire id while a peer may address this request (key of live_)
  bool released = false;  ///< the runtime called release(); delete when complete
  int peer = -1;          ///< job rank of the other side, once known
};

struct SendReq : ReqBase, Hook<ActiveTag> {
  const uint8_t* buf = nullptr;
  size_t len = 0;
  Convertor* conv = nullptr;           ///< non-contiguous data: packed per fragment
  std::unique_ptr<uint8_t[]> staging;  ///< an eager non-contiguous message, packed whole
  SendMode mode = SendMode::kStandard;
  bool rndv = false;          ///< sent as RTS (completes on FIN or after the last fragment)
  bool rndv_counted = false;  ///< counted in its Peer's rndv_out until complete
  bool registered = false;    ///< reg is live and must be dereg()ed
  btl::Btl* reg_btl = nullptr;
  btl::Registration reg;
  // Copy pipeline state, after the receiver answered CTS.
  uint64_t rreq = 0;
  size_t frag_offset = 0;
  size_t frag_limit = 0;
  // What identifies the message at the receiver, for MPI_Cancel.
  uint32_t ctx = 0;
  int32_t src_rank = 0;
  uint16_t seq = 0;
  bool cancelling = false;  ///< kCancel sent, no answer yet: completion waits for it
  bool finished = false;    ///< the transfer ended while cancelling
};

struct RecvReq;

/// One outstanding get() of a rendezvous receive. The backend hands `c` back to on_get_done.
struct GetChunk {
  btl::Completion c;  // first member: the completion pointer converts back to the chunk
  RecvReq* req = nullptr;
  size_t len = 0;
  size_t pos = 0;          ///< message offset of the chunk (unpacked from dst when done)
  uint8_t* dst = nullptr;  ///< bounce buffer of a receive with a Convertor
  bool busy = false;
};
static_assert(std::is_standard_layout_v<GetChunk>);
static_assert(kMaxHdrLen <= btl::kMaxQueuedHdr);

struct RecvReq : ReqBase, PostedEntry, Hook<ActiveTag> {
  uint8_t* buf = nullptr;
  size_t cap = 0;
  Convertor* conv = nullptr;          ///< non-contiguous data: unpacked as bytes arrive
  std::unique_ptr<uint8_t[]> bounce;  ///< get() targets of a receive with a Convertor
  size_t bounce_chunk = 0;
  // Rendezvous state, once matched with an RTS.
  uint64_t sreq = 0;
  uint64_t remote_addr = 0;
  btl::RemoteKey rkey;
  size_t want = 0;      ///< bytes to transfer: min(message length, cap)
  size_t next_get = 0;  ///< first byte not yet asked for
  size_t done = 0;      ///< bytes landed in buf
  int inflight = 0;
  bool get_failed = false;
  bool registered = false;
  btl::Btl* reg_btl = nullptr;
  btl::Registration reg;
  std::unique_ptr<GetChunk[]> chunks;
};

/// memcpy for eager payloads: most are a few words.
inline void copy_payload(void* dst, const void* src, size_t n) { common::copy_small(dst, src, n); }

/// An arrived message that found no posted receive (or that improbe took out of the queue).
/// The header is kept as an RtsHdr whatever the type: eager-sync keeps its sreq there.
struct Message : ArrivedEntry, Hook<AllTag> {
  int peer = -1;  ///< job rank of the sender
  RtsHdr hdr{};
  std::unique_ptr<uint8_t[]> data;  ///< eager payload, hdr.len bytes
  size_t data_cap = 0;              ///< bytes allocated at data (kept when recycled)
  bool taken = false;               ///< taken out of the queues by improbe: listed in taken_msgs_
};

/// A kAmMatch message that arrived ahead of its sequence number.
struct ParkedAm {
  std::vector<uint8_t> hdr;
  std::vector<uint8_t> payload;
};

struct Peer {
  btl::Btl* btl = nullptr;
  size_t eager_limit = 0;   ///< largest payload sent eagerly
  size_t frag_payload = 0;  ///< payload bytes per copy-pipeline fragment
  uint16_t send_seq = 0;
  uint16_t recv_seq = 0;
  int rndv_out = 0;  ///< our rendezvous sends to this peer not complete yet
  std::unordered_map<uint32_t, ParkedAm> parked;
};

class PmlImpl final : public Pml {
 public:
  /// Over `reg` (owned by the caller), or over `owned` when given (tests).
  PmlImpl(common::Bootstrap& bs, btl::Registry& reg, std::unique_ptr<btl::Registry> owned,
          const PmlConfig& cfg);
  ~PmlImpl() override;

  Request* isend(const void* buf, size_t bytes, int dst_peer, int src_rank, int tag, uint32_t ctx,
                 SendMode mode) override;
  Request* irecv(void* buf, size_t bytes, int src, int tag, uint32_t ctx) override;
  bool send_now(const void* buf, size_t bytes, int dst_peer, int src_rank, int tag,
                uint32_t ctx) override;
  bool recv_now(void* buf, size_t bytes, int src, int tag, uint32_t ctx, Status* st) override;
  Request* isend_conv(Convertor* cv, size_t bytes, int dst_peer, int src_rank, int tag,
                      uint32_t ctx, SendMode mode) override;
  Request* irecv_conv(Convertor* cv, size_t bytes, int src, int tag, uint32_t ctx) override;
  Request* imrecv_conv(Convertor* cv, size_t bytes, Message* msg) override;
  bool iprobe(int src, int tag, uint32_t ctx, Status* st) override;
  Message* improbe(int src, int tag, uint32_t ctx, Status* st) override;
  Request* imrecv(void* buf, size_t bytes, Message* msg) override;
  bool cancel(Request* req) override;
  void add_peers() override;
  void release(Request* req) override;
  int progress() override;
  void wait(Request* req) override;
  void finalize() override;
  const Stats& stats() const override { return stats_; }
  std::string describe() const override;

  PmlDebug debug() const;
  const char* backend_name(int peer) const;

 private:
  // setup (pml.cc)
  void select_backends(int first = 0);

  // progress machinery (progress.cc)
  void send_ctl(int peer, const void* hdr, size_t hdr_len, SendReq* done_on_send = nullptr,
                int am_id = kAmCtl, const void* data = nullptr, size_t len = 0);
  static void on_sent(void* ctx, void* req);
  void complete(ReqBase* r);
  uint64_t assign_id(ReqBase* r);
  ReqBase* lookup(uint64_t id, const char* what, int peer);
  void on_match_am(int peer, const void* hdr, size_t hdr_len, const void* payload,
                   size_t payload_len);
  void drain_parked(int peer);
  static void am_match(void* ctx, int src, const void* hdr, size_t hdr_len, const void* payload,
                       size_t payload_len);
  static void am_ctl(void* ctx, int src, const void* hdr, size_t hdr_len, const void* payload,
                     size_t payload_len);
  static void am_frag(void* ctx, int src, const void* hdr, size_t hdr_len, const void* payload,
                      size_t payload_len);
  bool idle() const;

  // matching and eager (eager.cc)
  MatchHdr make_match_hdr(HdrType type, int dst, int src_rank, int tag, uint32_t ctx);
  void send_eager(SendReq* s, int dst, int src_rank, int tag, uint32_t ctx);
  void process_match(int peer, const MatchHdr& mh, const void* hdr, size_t hdr_len,
                     const void* payload, size_t payload_len);
  void deliver(RecvReq* r, int peer, const RtsHdr& h, const void* payload);
  void deliver_eager(RecvReq* r, int peer, const RtsHdr& h, const void* payload);
  /// Copy an eager payload into a contiguous buffer of `cap` bytes and fill *st; answers FIN
  /// to a synchronous sender. Returns the status error.
  void eager_into(void* buf, size_t cap, int peer, const RtsHdr& h, const void* payload,
                  Status* st);
  void send_fin(int peer, uint64_t sreq);
  RecvReq* new_recv(void* buf, size_t bytes);
  /// Free a request the runtime is done with (memory goes back to its free list).
  void free_req(ReqBase* r);
  /// An unexpected message with room for `payload` bytes; free_message gives it back.
  Message* new_message(size_t payload);
  void free_message(Message* m);
  SendReq* post_send(const void* buf, Convertor* cv, size_t bytes, int dst_peer, int src_rank,
                     int tag, uint32_t ctx, SendMode mode);
  RecvReq* post_recv(RecvReq* r, int src, int tag, uint32_t ctx);
  RecvReq* post_mrecv(RecvReq* r, Message* msg);

  // rendezvous (rndv.cc)
  void send_rts(SendReq* s, int dst, int src_rank, int tag, uint32_t ctx);
  /// `key`: the RTS payload, Caps::rkey_size bytes of the sender's RemoteKey.
  void start_rndv_recv(RecvReq* r, int peer, const RtsHdr& h, const void* key);
  void request_cts(RecvReq* r);
  void drive_get(RecvReq* r);
  bool finish_get(RecvReq* r);
  int drive_gets();
  int drive_pipelines();
  void on_ctl(int peer, const void* hdr, size_t hdr_len);
  /// MPI_Cancel of a send: asks the receiver to withdraw the message (kCancel).
  void cancel_send(SendReq* s);
  /// The receiver's side of kCancel: withdraw the message if it is still unexpected, answer.
  void on_cancel(int peer, const CtlHdr& c);
  /// A send's transfer ended: complete it, unless a cancellation waits for its answer.
  void finish_send(SendReq* s);
  void on_frag(int peer, const void* hdr, size_t hdr_len, const void* payload, size_t payload_len);
  void drop_send_reg(SendReq* s);
  static void on_get_done(btl::Completion* c, int status);

  common::Bootstrap& bs_;
  std::unique_ptr<btl::Registry> owned_reg_;  // first member: destroyed last (tests only)
  btl::Registry& reg_;
  PmlConfig cfg_;
  int rank_;
  std::vector<Peer> peers_;
  MatchEngine match_;
  Stats stats_;
  std::unordered_map<uint64_t, ReqBase*> live_;
  uint64_t next_id_ = 1;
  size_t incomplete_ = 0;  // requests created and not complete yet
  IList<SendReq, ActiveTag> pipelines_;
  IList<RecvReq, ActiveTag> getters_;
  IList<ReqBase, AllTag> all_reqs_;
  // Queued unexpected messages are reached through match_; those improbe took out are listed
  // here, so the destructor frees both.
  IList<Message, AllTag> taken_msgs_;
  Recycler<SendReq> send_reqs_{kKeptRequests};
  Recycler<RecvReq> recv_reqs_{kKeptRequests};
  std::vector<Message*> spare_msgs_;  // recycled messages, payload buffers kept
  static constexpr size_t kKeptRequests = 256;
  static constexpr size_t kYieldAfterBytes = 4096;  // see process_match
  static constexpr size_t kKeptMessages = 128;
  static constexpr size_t kKeptPayload = 16384;  // larger buffers are freed with their message
  std::vector<uint8_t> frag_scratch_;  // one fragment of a non-contiguous send, being packed
  uint64_t out_of_sequence_ = 0;
  uint64_t protocol_errors_ = 0;
  bool finalized_ = false;
};

}  // namespace mpr::pml
