// Put, get, accumulate and the atomics: the target's datatype is walked here (the origin
// knows it, as MPI requires) and each contiguous piece of target memory becomes one put or
// get. Accumulates hold the target's accumulate mutex while they read, combine and write back,
// which makes them atomic per element with respect to every other accumulate.
#include <algorithm>
#include <cstring>
#include <memory>

#include "runtime/core/state.h"
#include "runtime/dt/cursor.h"
#include "runtime/p2p/request.h"
#include "runtime/rma/win.h"

namespace mpr::runtime::rma {

namespace {

constexpr size_t kAccWord = offsetof(Ctrl, acc_lock);

/// Calls f(displacement, length) for each contiguous piece of `count` elements of `type`
/// relative to the buffer start, merging adjacent pieces.
template <class F>
void for_each_block(const Datatype* type, size_t count, F f) {
  const size_t total = count * type->size;
  if (total == 0) return;
  ptrdiff_t off;
  if (type->dense(count, &off)) {
    f(off, total);
    return;
  }
  dt::Cursor c(*type, nullptr, count);
  uintptr_t at = 0, run_at = 0;
  size_t run = 0;
  while (size_t n = c.next_block(&at, total)) {
    if (run && at == run_at + run) {
      run += n;
      continue;
    }
    if (run) f(static_cast<ptrdiff_t>(run_at), run);
    run_at = at;
    run = n;
  }
  if (run) f(static_cast<ptrdiff_t>(run_at), run);
}

/// Look up [addr, addr + len) among the regions `target` attached to a dynamic window,
/// re-reading its table once if the cached copy does not have it.
bool find_region(Win* w, int target, uint64_t addr, uint64_t len) {
  Target& t = w->targets[target];
  // Covered by one region or by a chain of adjacent ones (attached separately, they may
  // still be one array to the origin).
  auto covered = [&] {
    uint64_t at = addr;
    const uint64_t end = addr + len;
    do {
      auto r = std::find_if(t.dyn.begin(), t.dyn.end(), [&](const DynRegion& d) {
        return at >= d.base && (at < d.base + d.len || (len == 0 && at == d.base + d.len));
      });
      if (r == t.dyn.end()) return false;
      at = r->base + r->len;
    } while (at < end);
    return true;
  };
  if (covered()) return true;
  for (;;) {  // seqlock read of the target's table
    uint64_t g1, g2, n;
    ctrl_read(w, target, offsetof(Ctrl, dyn_gen), &g1, sizeof g1);
    if (g1 & 1) continue;
    ctrl_read(w, target, offsetof(Ctrl, ndyn), &n, sizeof n);
    n = std::min<uint64_t>(n, kMaxDynRegions);
    t.dyn.resize(n);
    if (n) ctrl_read(w, target, kDynTableOffset, t.dyn.data(), n * sizeof(DynRegion));
    ctrl_read(w, target, offsetof(Ctrl, dyn_gen), &g2, sizeof g2);
    if (g1 == g2) break;
  }
  return covered();
}

/// Where the target buffer starts (window offset, or address in a dynamic window), after
/// checking that all of it lies inside the target's window.
int locate(const char* fn, Win* w, int target, MPI_Aint disp, const Buf& tgt, uint64_t* out) {
  ptrdiff_t lo;
  size_t bytes;
  tgt.type->span(size_t(tgt.count), &lo, &bytes);
  Target& t = w->targets[target];
  if (w->flavor == MPI_WIN_FLAVOR_DYNAMIC) {
    const uint64_t a = uint64_t(disp);
    if (!find_region(w, target, a + uint64_t(lo), bytes))
      return win_error(w, MPI_ERR_RMA_RANGE, fn,
                       "window %s: address %p (+%zu bytes of %lld x %s) is not inside a region "
                       "rank %d attached",
                       w->label().c_str(), reinterpret_cast<void*>(a + uint64_t(lo)), bytes,
                       static_cast<long long>(tgt.count), tgt.type->label().c_str(), target);
    *out = a;
    return MPI_SUCCESS;
  }
  const __int128 start = __int128(disp) * t.info.disp_unit + lo;
  if (disp < 0 || start < 0 || start + __int128(bytes) > __int128(t.info.size))
    return win_error(w, MPI_ERR_RMA_RANGE, fn,
                     "window %s: target_disp %zd (disp_unit %d) with %lld x %s reaches bytes "
                     "%lld..%lld of rank %d's window, which has %llu bytes",
                     w->label().c_str(), size_t(disp), t.info.disp_unit,
                     static_cast<long long>(tgt.count), tgt.type->label().c_str(),
                     static_cast<long long>(start), static_cast<long long>(start + bytes), target,
                     static_cast<unsigned long long>(t.info.size));
  *out = uint64_t(disp) * uint64_t(t.info.disp_unit);
  return MPI_SUCCESS;
}

int check_match(const char* fn, Win* w, const Buf& origin, const Buf& tgt) {
  const size_t ob = size_t(origin.count) * origin.type->size;
  const size_t tb = size_t(tgt.count) * tgt.type->size;
  if (ob == tb) return MPI_SUCCESS;
  return win_error(w, MPI_ERR_TYPE, fn,
                   "window %s: origin %lld x %s (%zu bytes) does not match target %lld x %s (%zu "
                   "bytes)",
                   w->label().c_str(), static_cast<long long>(origin.count),
                   origin.type->label().c_str(), ob, static_cast<long long>(tgt.count),
                   tgt.type->label().c_str(), tb);
}

/// The origin data as contiguous bytes: the user's buffer if it is dense, else a packed copy
/// kept alive until the target's operations complete.
const char* packed_source(Win* w, int target, const Buf& b) {
  ptrdiff_t off;
  if (b.type->dense(size_t(b.count), &off)) return static_cast<const char*>(b.addr) + off;
  auto d = std::make_unique<Deferred>();
  d->target = target;
  d->bytes = size_t(b.count) * b.type->size;
  d->tmp.reset(new char[d->bytes]);
  b.type->pack(b.addr, size_t(b.count), d->tmp.get());
  const char* p = d->tmp.get();
  w->deferred.push_back(std::move(d));
  return p;
}

/// Where got bytes should land: the user's buffer if dense, else a staging buffer unpacked
/// into it when the target's operations complete.
char* packed_dest(Win* w, int target, const Buf& b) {
  ptrdiff_t off;
  if (b.type->dense(size_t(b.count), &off)) return static_cast<char*>(b.addr) + off;
  auto d = std::make_unique<Deferred>();
  d->target = target;
  d->bytes = size_t(b.count) * b.type->size;
  d->tmp.reset(new char[d->bytes]);
  d->type = b.type;
  d->type->retain();
  d->buf = b.addr;
  char* p = d->tmp.get();
  w->deferred.push_back(std::move(d));
  return p;
}

/// inout = in op inout over `bytes` packed bytes of basic type `basic`.
void apply_packed(const Op* op, Basic basic, const char* in, char* inout, size_t bytes) {
  const Datatype* bt = predefined_datatype(basic);
  const size_t n = bytes / bt->size;
  Kernel k = op_kernel(op->id, basic);
  if (size_t(bt->extent) == bt->size) {
    k(in, inout, n);
    return;
  }
  // Pair types (MPI_DOUBLE_INT, ...) have padding in memory but not when packed.
  std::unique_ptr<char[]> a(new char[n * size_t(bt->extent)]);
  std::unique_ptr<char[]> b(new char[n * size_t(bt->extent)]);
  bt->unpack(in, bytes, a.get());
  bt->unpack(inout, bytes, b.get());
  k(a.get(), b.get(), n);
  bt->pack(b.get(), n, inout);
}

class AccMutex {
 public:
  AccMutex(Win* w, int target) : w_(w), target_(target) {
    const uint64_t me = 1 + uint64_t(g_state.bootstrap->rank());
    Poller p;
    while (ctrl_atomic(w, target, kAccWord, btl::AtomicOp::kCompareSwap, me, 0) != 0) p.poll();
    held_ = me;
  }
  ~AccMutex() {
    ctrl_atomic(w_, target_, kAccWord, btl::AtomicOp::kFetchAdd, uint64_t(0) - held_, 0);
  }
  AccMutex(const AccMutex&) = delete;
  AccMutex& operator=(const AccMutex&) = delete;

 private:
  Win* w_;
  int target_;
  uint64_t held_ = 0;
};

}  // namespace

int complete_ops(Win* w, int target) {
  int rc = wait_pending(w, target);
  auto& ds = w->deferred;
  for (auto it = ds.begin(); it != ds.end();) {
    Deferred& d = **it;
    if (target >= 0 && d.target != target) {
      ++it;
      continue;
    }
    if (d.type) {
      d.type->unpack(d.tmp.get(), d.bytes, d.buf);
      d.type->release();
    }
    it = ds.erase(it);
  }
  return rc;
}

namespace {
// Put or get: one raw transfer per contiguous piece of the target layout, in packed order.
int transfer(const char* fn, Win* w, Buf origin, int target, MPI_Aint disp, Buf tgt, bool is_get) {
  if (target == MPI_PROC_NULL) return MPI_SUCCESS;
  MPR_RMA_TRY(check_access(fn, w, target));
  MPR_RMA_TRY(check_match(fn, w, origin, tgt));
  if (size_t(tgt.count) * tgt.type->size == 0) return MPI_SUCCESS;
  uint64_t at;
  MPR_RMA_TRY(locate(fn, w, target, disp, tgt, &at));
  char* local =
      is_get ? packed_dest(w, target, origin) : const_cast<char*>(packed_source(w, target, origin));
  size_t pos = 0;
  for_each_block(tgt.type, size_t(tgt.count), [&](ptrdiff_t off, size_t len) {
    if (is_get)
      raw_get(w, target, at + uint64_t(off), local + pos, len);
    else
      raw_put(w, target, at + uint64_t(off), local + pos, len);
    pos += len;
  });
  return MPI_SUCCESS;
}
}  // namespace

int put(const char* fn, Win* w, Buf origin, int target, MPI_Aint disp, Buf tgt) {
  return transfer(fn, w, origin, target, disp, tgt, false);
}

int get(const char* fn, Win* w, Buf origin, int target, MPI_Aint disp, Buf tgt) {
  return transfer(fn, w, origin, target, disp, tgt, true);
}

int accumulate(const char* fn, Win* w, Buf origin, Buf result, int target, MPI_Aint disp, Buf tgt,
               const Op* op) {
  if (target == MPI_PROC_NULL) return MPI_SUCCESS;
  MPR_RMA_TRY(check_access(fn, w, target));
  const bool no_op = op->id == OpId::kNoOp;
  const bool replace = op->id == OpId::kReplace;
  if (!op->predefined)
    return win_error(w, MPI_ERR_OP, fn,
                     "window %s: user-defined operations cannot be used in one-sided "
                     "accumulates (only predefined ops, MPI_REPLACE and MPI_NO_OP)",
                     w->label().c_str());
  // Nothing moves: no element needs an op defined on it, so the type rules have nothing to
  // check (the peers accept such calls too).
  if (size_t(tgt.count) * tgt.type->size == 0 &&
      (no_op || size_t(origin.count) * origin.type->size == 0) &&
      (!result.addr || size_t(result.count) * result.type->size == 0))
    return MPI_SUCCESS;
  const Basic basic = tgt.type->basic;
  if (basic == Basic::kNone || (!no_op && origin.type->basic != basic))
    return win_error(w, MPI_ERR_TYPE, fn,
                     "window %s: accumulate needs origin and target types built from one "
                     "predefined type (origin %s, target %s)",
                     w->label().c_str(), origin.type->label().c_str(), tgt.type->label().c_str());
  if (!no_op && !replace && !op_kernel(op->id, basic))
    return win_error(w, MPI_ERR_OP, fn, "window %s: %s is not defined on %s", w->label().c_str(),
                     op->name, predefined_datatype(basic)->name);
  if (!no_op) MPR_RMA_TRY(check_match(fn, w, origin, tgt));
  const size_t bytes = size_t(tgt.count) * tgt.type->size;
  if (result.addr && size_t(result.count) * result.type->size != bytes)
    return win_error(
        w, MPI_ERR_TYPE, fn, "window %s: result buffer %lld x %s does not match target %lld x %s",
        w->label().c_str(), static_cast<long long>(result.count), result.type->label().c_str(),
        static_cast<long long>(tgt.count), tgt.type->label().c_str());
  if (bytes == 0) return MPI_SUCCESS;
  uint64_t at;
  MPR_RMA_TRY(locate(fn, w, target, disp, tgt, &at));

  // Target memory mapped here (own window, node-wide mapping), contiguous, aligned for the
  // kernel, result (if any) contiguous: combine in place, one pass over the data.
  const Datatype* bt = predefined_datatype(basic);
  Target& t = w->targets[target];
  ptrdiff_t toff = 0, roff = 0, ooff = 0;
  if (t.direct && size_t(bt->extent) == bt->size && tgt.type->dense(size_t(tgt.count), &toff) &&
      (!result.addr || result.type->dense(size_t(result.count), &roff)) &&
      (no_op || origin.type->dense(size_t(origin.count), &ooff))) {
    char* mem = t.direct + at + toff;
    if (reinterpret_cast<uintptr_t>(mem) % bt->align == 0) {
      const char* src = no_op ? nullptr : static_cast<const char*>(origin.addr) + ooff;
      AccMutex m(w, target);
      if (result.addr) std::memcpy(static_cast<char*>(result.addr) + roff, mem, bytes);
      if (replace)
        std::memmove(mem, src, bytes);
      else if (!no_op)
        op_kernel(op->id, basic)(src, mem, bytes / bt->size);
      return MPI_SUCCESS;
    }
  }

  // Small accumulates (the atomics, counters) stay off the heap.
  alignas(16) char small[256];
  std::unique_ptr<char[]> big(bytes > sizeof small ? new char[bytes] : nullptr);
  char* const cur = big ? big.get() : small;
  int rc;
  {
    AccMutex m(w, target);
    size_t pos = 0;
    if (result.addr || !replace) {
      for_each_block(tgt.type, size_t(tgt.count), [&](ptrdiff_t off, size_t len) {
        raw_get(w, target, at + uint64_t(off), cur + pos, len);
        pos += len;
      });
      rc = wait_pending(w, target);
      if (rc != MPI_SUCCESS) return raise_win(w, rc);
    }
    if (result.addr) {
      ptrdiff_t off;
      if (result.type->dense(size_t(result.count), &off))
        std::memcpy(static_cast<char*>(result.addr) + off, cur, bytes);
      else
        result.type->unpack(cur, bytes, result.addr);
    }
    if (!no_op) {
      std::unique_ptr<char[]> packed;
      const char* src;
      ptrdiff_t off;
      if (origin.type->dense(size_t(origin.count), &off)) {
        src = static_cast<const char*>(origin.addr) + off;
      } else {
        packed.reset(new char[bytes]);
        origin.type->pack(origin.addr, size_t(origin.count), packed.get());
        src = packed.get();
      }
      if (replace)
        std::memcpy(cur, src, bytes);
      else
        apply_packed(op, basic, src, cur, bytes);
      pos = 0;
      for_each_block(tgt.type, size_t(tgt.count), [&](ptrdiff_t o, size_t len) {
        raw_put(w, target, at + uint64_t(o), cur + pos, len);
        pos += len;
      });
      rc = wait_pending(w, target);
      if (rc != MPI_SUCCESS) return raise_win(w, rc);
    }
  }
  return MPI_SUCCESS;
}

int compare_and_swap(const char* fn, Win* w, const void* origin, const void* compare, void* result,
                     const Datatype* type, int target, MPI_Aint disp) {
  if (target == MPI_PROC_NULL) return MPI_SUCCESS;
  MPR_RMA_TRY(check_access(fn, w, target));
  if (!type->predefined || type->basic == Basic::kNone || type->size > 16)
    return win_error(w, MPI_ERR_TYPE, fn,
                     "window %s: MPI_Compare_and_swap needs a predefined integer, logical or "
                     "byte type, not %s",
                     w->label().c_str(), type->label().c_str());
  uint64_t at;
  MPR_RMA_TRY(locate(fn, w, target, disp, Buf{nullptr, 1, type}, &at));
  char cur[16];
  AccMutex m(w, target);
  raw_get(w, target, at, cur, type->size);
  int rc = wait_pending(w, target);
  if (rc != MPI_SUCCESS) return raise_win(w, rc);
  std::memcpy(result, cur, type->size);
  if (std::memcmp(cur, compare, type->size) == 0) {
    raw_put(w, target, at, origin, type->size);
    rc = wait_pending(w, target);
    if (rc != MPI_SUCCESS) return raise_win(w, rc);
  }
  return MPI_SUCCESS;
}

}  // namespace mpr::runtime::rma
