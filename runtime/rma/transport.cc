// The four primitives on a target's memory (put, get, fetch-add, compare-swap) over the
// direct, backend and active-message paths (see win.h).
#include <sched.h>

#include <algorithm>
#include <cstring>
#include <stdexcept>

#include "runtime/core/state.h"
#include "runtime/p2p/request.h"
#include "runtime/rma/win.h"

namespace mpr::runtime::rma {

namespace {

// ---- active messages ------------------------------------------------------------------------

enum class AmType : uint8_t {
  kPut = 1,          ///< payload -> addr; answer kAck(token) once stored
  kGet = 2,          ///< answer kGetReply chunks of [addr, addr + len)
  kAtomic = 3,       ///< 64-bit op at addr; answer kAtomicReply(token, old value)
  kAck = 4,          ///< *(uint64_t*)token -= 1
  kGetReply = 5,     ///< payload -> GetWait(token) at offset `addr`
  kAtomicReply = 6,  ///< AtomicWait(token) done with `operand` = old value
};

struct AmHdr {
  AmType type;
  uint8_t op;  ///< btl::AtomicOp for kAtomic
  uint16_t reserved;
  uint32_t reserved2;
  uint64_t addr;
  uint64_t len;
  uint64_t operand;
  uint64_t compare;
  uint64_t token;
};
static_assert(sizeof(AmHdr) == 48);

struct GetWait {
  char* dst;
  uint64_t* pending;
  size_t remaining;
};

struct AtomicWait {
  bool done = false;
  uint64_t value = 0;
};

size_t chunk_payload(int peer) {
  return the_btls().backend(peer)->caps().max_am_size - sizeof(AmHdr);
}

// Sent now, or from the registry's per-peer backlog (which the pml's progress drains) when
// the backend has no room. Payloads point into window memory or the origin's buffer, which
// stay valid until the operation is acknowledged (flush), after the message left.
void send_am(int peer, const AmHdr& h, const void* data, size_t len) {
  static_assert(sizeof(AmHdr) <= btl::kMaxQueuedHdr);
  the_btls().send_or_queue(peer, btl::kAmIdRma, &h, sizeof h, data, len);
}

uint64_t cpu_atomic(uint64_t* word, btl::AtomicOp op, uint64_t operand, uint64_t compare) {
  if (op == btl::AtomicOp::kFetchAdd) return __atomic_fetch_add(word, operand, __ATOMIC_SEQ_CST);
  uint64_t expected = compare;
  __atomic_compare_exchange_n(word, &expected, operand, false, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);
  return expected;
}

void on_am(void*, int src, const void* hdr_bytes, size_t hdr_len, const void* payload,
           size_t payload_len) {
  if (hdr_len != sizeof(AmHdr))
    throw std::runtime_error("rma: malformed active message from rank " + std::to_string(src));
  AmHdr h;
  std::memcpy(&h, hdr_bytes, sizeof h);
  switch (h.type) {
    case AmType::kPut: {
      std::memcpy(reinterpret_cast<void*>(h.addr), payload, payload_len);
      AmHdr r{};
      r.type = AmType::kAck;
      r.token = h.token;
      send_am(src, r, nullptr, 0);
      break;
    }
    case AmType::kGet: {
      // Memory of a window stays valid until MPI_Win_free, which no rank passes while an
      // operation on it is pending, so replies may point into it.
      const size_t chunk = chunk_payload(src);
      for (size_t off = 0; off < h.len; off += chunk) {
        AmHdr r{};
        r.type = AmType::kGetReply;
        r.token = h.token;
        r.addr = off;
        size_t n = std::min(chunk, h.len - off);
        send_am(src, r, reinterpret_cast<const char*>(h.addr) + off, n);
      }
      break;
    }
    case AmType::kAtomic: {
      AmHdr r{};
      r.type = AmType::kAtomicReply;
      r.token = h.token;
      r.operand = cpu_atomic(reinterpret_cast<uint64_t*>(h.addr), btl::AtomicOp(h.op), h.operand,
                             h.compare);
      send_am(src, r, nullptr, 0);
      break;
    }
    case AmType::kAck:
      --*reinterpret_cast<uint64_t*>(h.token);
      break;
    case AmType::kGetReply: {
      auto* g = reinterpret_cast<GetWait*>(h.token);
      std::memcpy(g->dst + h.addr, payload, payload_len);
      g->remaining -= payload_len;
      if (g->remaining == 0) {
        --*g->pending;
        delete g;
      }
      break;
    }
    case AmType::kAtomicReply: {
      auto* a = reinterpret_cast<AtomicWait*>(h.token);
      a->value = h.operand;
      a->done = true;
      break;
    }
  }
}

// ---- backend one-sided operations -----------------------------------------------------------

struct BtlOp {
  btl::Completion c;  // first member: the completion pointer converts back
  Win* w;
  int target;
};

void on_btl_done(btl::Completion* c, int status) {
  auto* op = reinterpret_cast<BtlOp*>(c);
  Target& t = op->w->targets[op->target];
  --t.pending;
  if (status != 0 && op->w->error == MPI_SUCCESS)
    op->w->error = make_error(MPI_ERR_OTHER, nullptr,
                              "window %s: a transfer to rank %d failed in the %s backend "
                              "(status %d); the target process may have died",
                              op->w->label().c_str(), op->target, t.btl->caps().name, status);
  delete op;
}

// Start one backend get/put; kDone means finished now.
void btl_xfer(Win* w, int target, bool is_get, uint64_t remote, const btl::RemoteKey& key,
              void* local, size_t len) {
  Target& t = w->targets[target];
  auto* op = new BtlOp{{&on_btl_done}, w, target};
  Poller p;
  for (;;) {
    btl::Status st;
    try {
      st = is_get ? t.btl->get(t.job_rank, local, nullptr, remote, key, len, &op->c)
                  : t.btl->put(t.job_rank, local, nullptr, remote, key, len, &op->c);
    } catch (const std::exception& e) {
      delete op;
      if (w->error == MPI_SUCCESS)
        w->error = make_error(MPI_ERR_OTHER, nullptr, "window %s: %s to rank %d failed: %s",
                              w->label().c_str(), is_get ? "get" : "put", target, e.what());
      return;
    }
    if (st == btl::Status::kDone) {
      delete op;
      return;
    }
    if (st == btl::Status::kPosted) {
      ++t.pending;
      return;
    }
    p.poll();
  }
}

void am_put(Win* w, int target, uint64_t remote, const void* src, size_t len) {
  Target& t = w->targets[target];
  const size_t chunk = chunk_payload(t.job_rank);
  for (size_t off = 0; off < len; off += chunk) {
    AmHdr h{};
    h.type = AmType::kPut;
    h.addr = remote + off;
    h.token = reinterpret_cast<uint64_t>(&t.pending);
    size_t n = std::min(chunk, len - off);
    ++t.pending;
    send_am(t.job_rank, h, static_cast<const char*>(src) + off, n);
  }
}

void am_get(Win* w, int target, uint64_t remote, void* dst, size_t len) {
  Target& t = w->targets[target];
  if (len == 0) return;
  auto* g = new GetWait{static_cast<char*>(dst), &t.pending, len};
  AmHdr h{};
  h.type = AmType::kGet;
  h.addr = remote;
  h.len = len;
  h.token = reinterpret_cast<uint64_t>(g);
  ++t.pending;
  send_am(t.job_rank, h, nullptr, 0);
}

const btl::RemoteKey& data_key(Win* w, Target& t, uint64_t addr) {
  int slot = the_btls().slot(t.btl);
  if (w->flavor != MPI_WIN_FLAVOR_DYNAMIC) return t.info.data_keys[slot];
  for (const DynRegion& r : t.dyn)
    if (addr >= r.base && addr < r.base + r.len) return r.keys[slot];
  return t.info.data_keys[slot];  // not reached: ops.cc resolved the region first
}

void xfer(Win* w, int target, bool is_get, uint64_t off, void* local, size_t len) {
  if (len == 0) return;
  Target& t = w->targets[target];
  uint64_t remote = w->flavor == MPI_WIN_FLAVOR_DYNAMIC ? off : t.info.base + off;
  if (t.direct || (w->flavor == MPI_WIN_FLAVOR_DYNAMIC && target == w->rank)) {
    char* mem = t.direct ? t.direct + off : reinterpret_cast<char*>(off);
    if (is_get)
      std::memcpy(local, mem, len);
    else
      std::memcpy(mem, local, len);
    return;
  }
  if (t.btl && w->flavor == MPI_WIN_FLAVOR_DYNAMIC) {
    // One registration per attached region: a range over adjacent regions goes in pieces.
    char* at = static_cast<char*>(local);
    while (len > 0) {
      size_t piece = len;
      for (const DynRegion& r : t.dyn)
        if (remote >= r.base && remote < r.base + r.len)
          piece = std::min<size_t>(len, r.base + r.len - remote);
      btl_xfer(w, target, is_get, remote, data_key(w, t, remote), at, piece);
      remote += piece;
      at += piece;
      len -= piece;
    }
  } else if (t.btl) {
    btl_xfer(w, target, is_get, remote, data_key(w, t, remote), local, len);
  } else if (is_get)
    am_get(w, target, remote, local, len);
  else
    am_put(w, target, remote, local, len);
}

}  // namespace

void transport_init() { the_btls().set_handler(btl::kAmIdRma, &on_am, nullptr); }

void raw_put(Win* w, int target, uint64_t off, const void* src, size_t len) {
  xfer(w, target, false, off, const_cast<void*>(src), len);
}

void raw_get(Win* w, int target, uint64_t off, void* dst, size_t len) {
  xfer(w, target, true, off, dst, len);
}

uint64_t ctrl_atomic(Win* w, int target, size_t word_off, btl::AtomicOp op, uint64_t operand,
                     uint64_t compare) {
  Target& t = w->targets[target];
  switch (w->ctrl_path) {
    case CtrlPath::kShared:
      return cpu_atomic(
          reinterpret_cast<uint64_t*>(reinterpret_cast<char*>(t.ctrl_direct) + word_off), op,
          operand, compare);
    case CtrlPath::kDevice: {
      struct Done {
        btl::Completion c;
        bool done;
        int status;
      } d{{[](btl::Completion* c, int status) {
            auto* self = reinterpret_cast<Done*>(c);
            self->done = true;
            self->status = status;
          }},
          false,
          0};
      Poller p;
      // The result slot is the window's: under MPI_THREAD_MULTIPLE another thread's atomic
      // may be in flight (its wait lets this thread in), and must read its result first.
      while (w->atomic_busy) p.poll();
      w->atomic_busy = true;
      btl::Status st;
      const int slot = the_btls().slot(w->atomic_btl);
      try {
        while ((st = w->atomic_btl->atomic(
                    t.job_rank, op, t.info.ctrl_addr + word_off, t.info.ctrl_keys[slot], operand,
                    compare, w->atomic_result, &w->atomic_result_reg, &d.c)) == btl::Status::kRetry)
          p.poll();
      } catch (const std::exception& e) {
        std::string why = "window " + w->label() + ": atomic on the control word of rank " +
                          std::to_string(target) + " failed: " + e.what();
        abort_job(MPI_ERR_OTHER, why.c_str());
      }
      if (st == btl::Status::kPosted)
        while (!d.done) p.poll();
      if (d.status != 0) {
        // A lock or accumulate word we cannot update: the target is gone, and waiting for it
        // would hang. The launcher reports which rank died.
        std::string why = "window " + w->label() + ": atomic on the control word of rank " +
                          std::to_string(target) + " failed in the " + w->atomic_btl->caps().name +
                          " backend (status " + std::to_string(d.status) + ")";
        abort_job(MPI_ERR_OTHER, why.c_str());
      }
      w->atomic_busy = false;
      return *w->atomic_result;
    }
    case CtrlPath::kAm:
      break;
  }
  if (target == w->rank) {  // the handler would run in this process anyway
    // Other ranks' requests are served only when this process drives progress; a loop of
    // operations on its own window (spinning on a lock word, say) must not starve them.
    the_pml().progress();
    return cpu_atomic(reinterpret_cast<uint64_t*>(reinterpret_cast<char*>(w->ctrl) + word_off), op,
                      operand, compare);
  }
  AtomicWait a;
  AmHdr h{};
  h.type = AmType::kAtomic;
  h.op = static_cast<uint8_t>(op);
  h.addr = t.info.ctrl_addr + word_off;
  h.operand = operand;
  h.compare = compare;
  h.token = reinterpret_cast<uint64_t>(&a);
  send_am(t.job_rank, h, nullptr, 0);
  Poller p;
  while (!a.done) p.poll();
  return a.value;
}

void ctrl_read(Win* w, int target, size_t off, void* dst, size_t len) {
  Target& t = w->targets[target];
  if (t.ctrl_direct) {  // this rank's own words, or the node-wide mapping
    std::memcpy(dst, reinterpret_cast<char*>(t.ctrl_direct) + off, len);
    return;
  }
  const uint64_t remote = t.info.ctrl_addr + off;
  if (t.btl)
    btl_xfer(w, target, true, remote, t.info.ctrl_keys[the_btls().slot(t.btl)], dst, len);
  else
    am_get(w, target, remote, dst, len);
  wait_pending(w, target);
}

int wait_pending(Win* w, int target) {
  Poller p;
  // Requests of other ranks may be waiting for this one (active-message paths).
  if (w->uses_am) the_pml().progress();
  auto busy = [&] {
    if (target >= 0) return w->targets[target].pending != 0;
    for (const Target& t : w->targets)
      if (t.pending) return true;
    return false;
  };
  while (busy()) p.poll();
  __atomic_thread_fence(__ATOMIC_SEQ_CST);
  int rc = w->error;
  w->error = MPI_SUCCESS;
  return rc;
}

}  // namespace mpr::runtime::rma
