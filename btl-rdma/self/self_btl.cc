// The loopback backend: messages a rank sends to itself. Active messages are copied into a
// local queue and delivered from progress(), never from inside send_am(), so the pml sees the
// same call pattern as with a real transport. get/put are plain memcpy.
#include <cstring>
#include <deque>
#include <memory>
#include <string>
#include <vector>

#include "btl-rdma/btl.h"
#include "common/params.h"

namespace mpr::btl {

namespace {

class SelfBtl final : public Btl {
 public:
  explicit SelfBtl(int rank) : rank_(rank) {
    caps_.name = "self";
    caps_.rank = 0;
    caps_.rkey_size = 0;  // get/put are memcpy in this process
    caps_.max_am_size = kMaxAmSize;
    caps_.eager_limit = static_cast<size_t>(common::param_int("MPR_SELF_EAGER_LIMIT"));
    caps_.native_get = true;
    caps_.native_put = true;
    caps_.needs_registration = false;
    // No atomic(): on its own memory the caller uses CPU atomics, unless a device-atomics
    // backend also serves the word (then it must go through that device: see btl.h).
    caps_.native_atomics = false;
  }

  const Caps& caps() const override { return caps_; }
  void wire_up(common::Bootstrap&) override {}
  bool reachable(int peer) const override { return peer == rank_; }

  Status send_am(int peer, int am_id, const void* hdr, size_t hdr_len, const struct iovec* iov,
                 int iovcnt) override {
    (void)peer;
    size_t total = hdr_len;
    for (int i = 0; i < iovcnt; ++i) total += iov[i].iov_len;
    Queued q;
    q.am_id = am_id;
    q.hdr_len = hdr_len;
    q.bytes.resize(total);
    if (hdr_len) std::memcpy(q.bytes.data(), hdr, hdr_len);
    size_t off = hdr_len;
    for (int i = 0; i < iovcnt; ++i) {
      if (iov[i].iov_len) std::memcpy(q.bytes.data() + off, iov[i].iov_base, iov[i].iov_len);
      off += iov[i].iov_len;
    }
    queue_.push_back(std::move(q));
    return Status::kDone;
  }

  void reg(void* addr, size_t len, Registration* out) override {
    *out = Registration{};
    out->addr = addr;
    out->len = len;
  }
  void dereg(Registration* reg) override { *reg = Registration{}; }

  Status get(int, void* local, const Registration*, uint64_t remote_addr, const RemoteKey&,
             size_t len, Completion*) override {
    if (len) std::memmove(local, reinterpret_cast<const void*>(remote_addr), len);
    return Status::kDone;
  }
  Status put(int, const void* local, const Registration*, uint64_t remote_addr, const RemoteKey&,
             size_t len, Completion*) override {
    if (len) std::memmove(reinterpret_cast<void*>(remote_addr), local, len);
    return Status::kDone;
  }

  int progress() override {
    // Only what was queued before this call: a handler that sends to itself again is served
    // by the next progress(), so one call always terminates.
    size_t n = queue_.size();
    for (size_t i = 0; i < n; ++i) {
      Queued q = std::move(queue_.front());
      queue_.pop_front();
      const uint8_t* base = q.bytes.data();
      dispatch(q.am_id, rank_, base, q.hdr_len, base + q.hdr_len, q.bytes.size() - q.hdr_len);
    }
    return static_cast<int>(n);
  }

  std::string describe() const override {
    return "self: loopback to rank " + std::to_string(rank_) +
           ", eager <= " + std::to_string(caps_.eager_limit) + " B, get/put = memcpy";
  }

 private:
  // Bounds one queued copy; large self messages go by rendezvous (a single memcpy).
  static constexpr size_t kMaxAmSize = size_t{64} << 10;

  struct Queued {
    int am_id = 0;
    size_t hdr_len = 0;
    std::vector<uint8_t> bytes;
  };

  int rank_;
  Caps caps_;
  std::deque<Queued> queue_;
};

}  // namespace

std::unique_ptr<Btl> make_self_btl(common::Bootstrap& bs) {
  return std::make_unique<SelfBtl>(bs.rank());
}

}  // namespace mpr::btl
