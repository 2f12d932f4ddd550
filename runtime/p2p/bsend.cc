#include "runtime/p2p/bsend.h"

#include <algorithm>
#include <climits>
#include <cstdint>
#include <cstring>

#include "runtime/core/errors.h"
#include "runtime/core/state.h"
#include "runtime/p2p/request.h"

namespace mpr::runtime {

namespace {
std::vector<BsendBuffer*>& all_buffers() {
  static std::vector<BsendBuffer*> v;
  return v;
}
}  // namespace

BsendBuffer::BsendBuffer() { all_buffers().push_back(this); }

BsendBuffer::~BsendBuffer() {
  auto& v = all_buffers();
  v.erase(std::remove(v.begin(), v.end(), this), v.end());
}

void BsendBuffer::drain_all() {
  for (BsendBuffer* b : all_buffers()) b->drain();
}

void BsendBuffer::attach(void* buf, size_t size) {
  base_ = static_cast<char*>(buf);
  size_ = size;
}

void BsendBuffer::detach(void** buf, size_t* size) {
  drain();
  *buf = automatic_ ? MPI_BUFFER_AUTOMATIC : base_;
  *size = size_;
  base_ = nullptr;
  size_ = 0;
  automatic_ = false;
}

bool BsendBuffer::flushed() {
  reclaim();
  return segs_.empty();
}

void BsendBuffer::drain() {
  for (Segment& s : segs_) {
    the_pml().wait(s.req);
    if (s.cancelling) answers_[s.ticket] = s.req->status.cancelled;
    the_pml().release(s.req);
  }
  segs_.clear();
}

void BsendBuffer::reclaim() {
  the_pml().progress();
  auto done = [this](const Segment& s) {
    if (!s.req->complete) return false;
    if (s.cancelling) answers_[s.ticket] = s.req->status.cancelled;
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
                      const Datatype* type, int dest, int tag, uint64_t* ticket) {
  const uint64_t id = next_ticket_++;
  if (ticket) *ticket = id;
  size_t bytes = static_cast<size_t>(count) * type->size;
  // MPI_BSEND_OVERHEAD is what users reserve per message; charging exactly it keeps their
  // sizing arithmetic valid.
  size_t len = bytes + MPI_BSEND_OVERHEAD;
  if (!attached())
    return make_error(MPI_ERR_BUFFER, fn,
                      "no buffer attached (call MPI_Buffer_attach, MPI_Comm_attach_buffer or "
                      "MPI_Session_attach_buffer first)");
  if (automatic_) {
    auto copy = std::make_unique<char[]>(bytes ? bytes : 1);
    type->pack(buf, static_cast<size_t>(count), copy.get());
    pml::Request* r = the_pml().isend(copy.get(), bytes, comm->peer(dest), comm->rank(), tag,
                                      comm->ctx_p2p(), pml::SendMode::kStandard);
    segs_.push_back(Segment{0, 0, r, std::move(copy), id});
    return MPI_SUCCESS;
  }
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
  Segment seg{off, len, r, nullptr, id};
  auto at = std::upper_bound(segs_.begin(), segs_.end(), seg,
                             [](const Segment& a, const Segment& b) { return a.off < b.off; });
  segs_.insert(at, std::move(seg));
  return MPI_SUCCESS;
}

int buffer_attach(const char* fn, BsendBuffer* b, void* buffer, MPI_Count size) {
  if (b->attached())
    return make_error(MPI_ERR_BUFFER, fn, "a buffer is already attached (detach it first)");
  if (buffer == MPI_BUFFER_AUTOMATIC) {
    b->attach_automatic();
    return MPI_SUCCESS;
  }
  if (size < 0)
    return make_error(MPI_ERR_ARG, fn, "invalid size %lld", static_cast<long long>(size));
  if (!buffer && size > 0)
    return make_error(MPI_ERR_BUFFER, fn, "NULL buffer with size %lld",
                      static_cast<long long>(size));
  b->attach(buffer, static_cast<size_t>(size));
  return MPI_SUCCESS;
}

int buffer_detach(const char* fn, BsendBuffer* b, void* buffer_addr, size_t* size, bool int_size) {
  if (!buffer_addr || !size) return make_error(MPI_ERR_ARG, fn, "buffer_addr or size is NULL");
  if (!b->attached()) return make_error(MPI_ERR_BUFFER, fn, "no buffer is attached");
  if (int_size && b->capacity() > static_cast<size_t>(INT_MAX))
    return make_error(MPI_ERR_VALUE_TOO_LARGE, fn,
                      "the attached buffer's size %zu does not fit an int (use the _c form)",
                      b->capacity());
  void* buf = nullptr;
  b->detach(&buf, size);
  // buffer_addr is really a void** (C binding quirk of MPI).
  std::memcpy(buffer_addr, &buf, sizeof buf);
  return MPI_SUCCESS;
}

BsendBuffer* bsend_for(Comm* comm) {
  if (comm->bsend && comm->bsend->attached()) return comm->bsend.get();
  if (comm->session_bsend && comm->session_bsend->attached()) return comm->session_bsend;
  return g_state.bsend.get();
}

namespace {

struct FlushRequest : RtRequest {
  BsendBuffer* buffer = nullptr;
};

bool poll_flush(pml::Request* self) {
  auto* f = static_cast<FlushRequest*>(self);
  if (!f->buffer->flushed()) return false;
  f->complete = true;
  return true;
}

}  // namespace

pml::Request* flush_request(Comm* comm, BsendBuffer* b) {
  auto* f = new FlushRequest;
  adopt(f, comm);
  f->buffer = b;
  f->poll = poll_flush;
  poll_flush(f);
  return f;
}

bool BsendBuffer::cancel(uint64_t ticket) {
  for (Segment& s : segs_) {
    if (s.ticket != ticket) continue;
    if (!s.cancelling) {
      s.cancelling = true;
      the_pml().cancel(s.req);
    }
    return true;
  }
  return false;
}

bool BsendBuffer::cancel_result(uint64_t ticket, bool* cancelled) {
  reclaim();
  auto it = answers_.find(ticket);
  if (it == answers_.end()) return false;
  *cancelled = it->second;
  answers_.erase(it);
  return true;
}

namespace {

struct BufferedRequest : RtRequest {
  BsendBuffer* buffer = nullptr;
  uint64_t ticket = 0;
};

bool poll_buffered(pml::Request* self) {
  auto* r = static_cast<BufferedRequest*>(self);
  bool cancelled = false;
  if (!r->buffer->cancel_result(r->ticket, &cancelled)) return false;
  r->status.cancelled = cancelled;
  r->complete = true;
  return true;
}

}  // namespace

RtRequest* buffered_request(Comm* comm, BsendBuffer* b, uint64_t ticket) {
  auto* r = new BufferedRequest;
  adopt(r, comm);
  r->sub = RtRequest::Sub::kBuffered;
  r->buffer = b;
  r->ticket = ticket;
  r->status.source = MPI_PROC_NULL;
  r->status.tag = MPI_ANY_TAG;
  r->complete = true;
  return r;
}

void buffered_cancel(RtRequest* rt) {
  auto* r = static_cast<BufferedRequest*>(rt);
  // Asked once; a message already gone for good leaves the request as it is (not cancelled).
  if (!r->complete || r->poll || !r->buffer->cancel(r->ticket)) return;
  r->complete = false;
  r->poll = &poll_buffered;
}

}  // namespace mpr::runtime
