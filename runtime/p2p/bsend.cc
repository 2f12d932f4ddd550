#include "runtime/p2p/bsend.h"

#include <algorithm>
#include <cstdint>

#include "runtime/core/errors.h"
#include "runtime/core/state.h"

namespace mpr::runtime {

void BsendBuffer::attach(void* buf, size_t size) {
  base_ = static_cast<char*>(buf);
  size_ = size;
}

void BsendBuffer::detach(void** buf, size_t* size) {
  drain();
  *buf = base_;
  *size = size_;
  base_ = nullptr;
  size_ = 0;
}

void BsendBuffer::drain() {
  for (Segment& s : segs_) {
    the_pml().wait(s.req);
    the_pml().release(s.req);
  }
  segs_.clear();
}

void BsendBuffer::reclaim() {
  the_pml().progress();
  auto done = [](const Segment& s) {
    if (!s.req->complete) return false;
    the_pml().release(s.req);
    return true;
  };
  segs_.erase(std::remove_if(segs_.begin(), segs_.end(), done), segs_.end());
}

bool BsendBuffer::alloc(size_t len, size_t* off) const {
  // First fit; a slot starts 16-byte aligned when the gap has room for the padding, else where
  // the gap starts, so a buffer sized exactly as MPI says (MPI_Pack_size + MPI_BSEND_OVERHEAD
  // per message) always holds its messages.
  auto fits = [&](size_t at, size_t end) {
    const size_t base = reinterpret_cast<uintptr_t>(base_);
    const size_t aligned = ((base + at + 15) & ~size_t{15}) - base;
    if (aligned + len <= end) return *off = aligned, true;
    if (at + len <= end) return *off = at, true;
    return false;
  };
  size_t at = 0;
  for (const Segment& s : segs_) {
    if (fits(at, s.off)) return true;
    at = s.off + s.len;
  }
  return fits(at, size_);
}

int BsendBuffer::send(const char* fn, Comm* comm, const void* buf, MPI_Count count,
                      const Datatype* type, int dest, int tag) {
  size_t bytes = static_cast<size_t>(count) * type->size;
  // MPI_BSEND_OVERHEAD is what users reserve per message; charging exactly it keeps their
  // sizing arithmetic valid.
  size_t len = bytes + MPI_BSEND_OVERHEAD;
  if (!attached())
    return make_error(MPI_ERR_BUFFER, fn, "no buffer attached (call MPI_Buffer_attach first)");
  size_t off = 0;
  if (!alloc(len, &off)) {
    reclaim();
    if (!alloc(len, &off)) {
      size_t used = 0;
      for (const Segment& s : segs_) used += s.len;
      return make_error(MPI_ERR_BUFFER, fn,
                        "attached buffer too small: message needs %zu bytes (including "
                        "MPI_BSEND_OVERHEAD), %zu of %zu bytes are in use",
                        len, used, size_);
    }
  }
  char* slot = base_ + off;
  type->pack(buf, static_cast<size_t>(count), slot);
  pml::Request* r = the_pml().isend(slot, bytes, comm->peer(dest), comm->rank(), tag,
                                    comm->ctx_p2p(), pml::SendMode::kStandard);
  Segment seg{off, len, r};
  segs_.insert(std::upper_bound(segs_.begin(), segs_.end(), seg,
                                [](const Segment& a, const Segment& b) { return a.off < b.off; }),
               seg);
  return MPI_SUCCESS;
}

}  // namespace mpr::runtime
