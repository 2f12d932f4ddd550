// Data path of the shm backend: active messages through the rings, get/put through CMA.
#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <stdexcept>
#include <string>
#include <system_error>

#include "btl-rdma/shm/shm_btl.h"
#include "common/copy.h"
#include "common/log.h"

namespace mpr::btl::shm {

void ShmBtl::unreachable(int peer, const char* call) const {
  throw std::invalid_argument("shm: rank " + std::to_string(rank_) + ": " + call + " to rank " +
                              std::to_string(peer) + ": peer is not reachable through shm");
}

Status ShmBtl::send_am(int peer, int am_id, const void* hdr, size_t hdr_len,
                       const struct iovec* iov, int iovcnt) {
  int li = local_index(peer, "send_am");
  size_t payload = 0;
  for (int i = 0; i < iovcnt; ++i) payload += iov[i].iov_len;
  if (am_id < 0 || am_id >= kMaxAmIds || hdr_len > kMaxRecordHdr ||
      hdr_len + payload > caps_.max_am_size)
    throw std::invalid_argument("shm: rank " + std::to_string(rank_) + ": send_am to rank " +
                                std::to_string(peer) + ": am_id " + std::to_string(am_id) +
                                " with " + std::to_string(hdr_len) + "+" + std::to_string(payload) +
                                " bytes (max_am_size " + std::to_string(caps_.max_am_size) +
                                ", header at most " + std::to_string(kMaxRecordHdr) + ")");

  RingProducer& ring = out_[size_t(li)];
  const size_t body = hdr_len + payload;
  uint8_t* p = ring.try_reserve(body);
  if (!p) return Status::kRetry;
  common::copy_small(p, hdr, hdr_len);
  p += hdr_len;
  for (int i = 0; i < iovcnt; ++i) {
    common::copy_small(p, iov[i].iov_base, iov[i].iov_len);
    p += iov[i].iov_len;
  }
  ring.publish(body, RecordMeta::pack(am_id, hdr_len, payload));
  return Status::kDone;
}

int ShmBtl::poll_rings() {
  size_t n = poll_order_.size();
  if (n == 0) return 0;
  int delivered = 0;
  // Rounds of at most one message per peer: a chatty peer cannot starve a quiet one, and
  // per-peer FIFO holds because each ring is consumed strictly in order.
  for (bool more = true; more && delivered < kMaxMessagesPerProgress;) {
    more = false;
    size_t next = poll_start_;
    for (size_t k = 0; k < n && delivered < kMaxMessagesPerProgress; ++k) {
      int li = poll_order_[next];
      if (++next == n) next = 0;
      RingConsumer& ring = in_[size_t(li)];
      uint64_t word;
      const uint8_t* h = ring.front(&word);
      if (!h) continue;
      const RecordMeta meta = RecordMeta::unpack(word);
      int src = local_peers_[size_t(li)];
      const size_t body = meta.hdr_len + meta.payload_len;
      if (meta.am_id >= unsigned(kMaxAmIds) || body > caps_.max_am_size) {
        common::log_error(
            "shm: rank %d: corrupt message from rank %d in the shared segment "
            "(am_id %u, %u+%u bytes); aborting",
            rank_, src, meta.am_id, meta.hdr_len, meta.payload_len);
        std::abort();
      }
      // Ask for every line of a message of a few lines at once: they then cross from the
      // sender's cache together instead of one after another as the handler reads them.
      if (body > 2 * kCacheLine && body <= kPrefetchBytes)
        for (size_t off = 2 * kCacheLine; off < body + kStampBytes; off += kCacheLine)
          __builtin_prefetch(h + off);
      if (handlers_[meta.am_id].fn)
        dispatch(int(meta.am_id), src, h, meta.hdr_len, h + meta.hdr_len, meta.payload_len);
      else
        common::log_error("shm: rank %d: dropped a message from rank %d: no handler for am_id %u",
                          rank_, src, meta.am_id);
      // Only now may the sender reuse the record: the handler read straight from it.
      ring.pop(body);
      ++delivered;
      more = true;
      if (yield_) {
        yield_ = false;
        more = false;
        break;
      }
    }
  }
  if (++poll_start_ == n) poll_start_ = 0;
  return delivered;
}

void ShmBtl::reg(void* addr, size_t len, Registration* out) {
  // CMA reaches any mapped page of the owner, so registering is only handing out the pid.
  out->addr = addr;
  out->len = len;
  out->rkey.words[0] = uint64_t(pid_);
  out->rkey.words[1] = kRkeyTag;
  out->lkey = 0;
  out->backend_data = nullptr;
}

void ShmBtl::dereg(Registration* reg) { *reg = Registration{}; }

void ShmBtl::fail_later(const char* call, int peer, uint64_t remote, size_t len, Completion* c,
                        int err) {
  char what[320];
  std::snprintf(what, sizeof what,
                "shm: rank %d: %s of %zu bytes at 0x%llx in rank %d failed: %s%s%s", rank_, call,
                len, static_cast<unsigned long long>(remote), peer, std::strerror(err),
                err == ENOTSUP ? "; get=" : "", err == ENOTSUP ? cma_state_.c_str() : "");
  if (!c) throw std::system_error(err, std::generic_category(), what);
  common::log_error("%s", what);
  PendingCopy op;
  op.c = c;
  op.error = err;
  op.peer = peer;
  op.call = call;
  copies_.push_back(op);
}

Status ShmBtl::start_copy(const char* call, int peer, void* local, uint64_t remote,
                          const RemoteKey& rkey, size_t len, Completion* c, CmaDir dir) {
  local_index(peer, call);
  if (len > kCmaStepBytes && !c)
    throw std::invalid_argument("shm: rank " + std::to_string(rank_) + ": " + call + " of " +
                                std::to_string(len) + " bytes needs a completion");
  if (!caps_.native_get) {
    fail_later(call, peer, remote, len, c, ENOTSUP);
    return Status::kPosted;
  }
  if (rkey.words[1] != kRkeyTag || rkey.words[0] == 0) {
    fail_later(call, peer, remote, len, c, EINVAL);
    return Status::kPosted;
  }
  PendingCopy op;
  op.pid = pid_t(rkey.words[0]);
  op.dir = dir;
  op.local = static_cast<uint8_t*>(local);
  op.remote = remote;
  op.left = len;
  op.c = c;
  op.peer = peer;
  op.call = call;
  size_t first = len < kCmaStepBytes ? len : kCmaStepBytes;
  if (int err = cma_copy(op.pid, op.local, op.remote, first, dir); err != 0) {
    fail_later(call, peer, remote, len, c, err);
    return Status::kPosted;
  }
  if (first == len) return Status::kDone;
  op.local += first;
  op.remote += first;
  op.left -= first;
  copies_.push_back(op);
  return Status::kPosted;
}

Status ShmBtl::get(int peer, void* local, const Registration*, uint64_t remote_addr,
                   const RemoteKey& rkey, size_t len, Completion* c) {
  return start_copy("get", peer, local, remote_addr, rkey, len, c, CmaDir::kRead);
}

Status ShmBtl::put(int peer, const void* local, const Registration*, uint64_t remote_addr,
                   const RemoteKey& rkey, size_t len, Completion* c) {
  // process_vm_writev only reads the local buffer; the iovec type is what forces non-const.
  return start_copy("put", peer, const_cast<void*>(local), remote_addr, rkey, len, c,
                    CmaDir::kWrite);
}

int ShmBtl::advance_copies() {
  int completed = 0;
  // Only the operations queued before this call: completions may start new ones.
  for (size_t n = copies_.size(); n > 0; --n) {
    PendingCopy op = copies_.front();
    copies_.pop_front();
    if (op.error == 0) {
      size_t step = op.left < kCmaStepBytes ? op.left : kCmaStepBytes;
      if (int err = cma_copy(op.pid, op.local, op.remote, step, op.dir); err != 0) {
        common::log_error("shm: rank %d: %s with rank %d (pid %d) failed with %zu bytes left: %s",
                          rank_, op.call, op.peer, int(op.pid), op.left, std::strerror(err));
        op.error = err;
      } else {
        op.local += step;
        op.remote += step;
        op.left -= step;
      }
    }
    if (op.error != 0 || op.left == 0) {
      op.c->fn(op.c, op.error);
      ++completed;
    } else {
      copies_.push_back(op);
    }
  }
  return completed;
}

int ShmBtl::progress() {
  // A handler or completion that calls progress() again must not see the message it is
  // handling a second time, nor the next one before it returns.
  if (in_progress_) return 0;
  in_progress_ = true;
  struct Reset {
    bool& flag;
    ~Reset() { flag = false; }
  } reset{in_progress_};
  return advance_copies() + poll_rings();
}

}  // namespace mpr::btl::shm
