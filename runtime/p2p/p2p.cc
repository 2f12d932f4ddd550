#include "runtime/p2p/p2p.h"

#include <cstdint>
#include <memory>

#include "runtime/core/state.h"
#include "runtime/dt/convertor.h"
#include "runtime/p2p/request.h"

namespace mpr::runtime {

// Contiguous data (predefined or derived) goes to the pml as it is. Anything else travels as
// its packed bytes through a TypeConvertor: the pml packs and unpacks as the protocol moves
// data, so a large message is never staged whole. The wrapper request owns the convertor.

namespace {
// buf + off as an integer sum: with MPI_BOTTOM (null) the offset is an absolute address.
void* offset_ptr(const void* buf, ptrdiff_t off) {
  return reinterpret_cast<void*>(reinterpret_cast<uintptr_t>(buf) + static_cast<uintptr_t>(off));
}
}  // namespace

pml::Request* start_send(Comm* comm, const void* buf, MPI_Count count, const Datatype* type,
                         int dest, int tag, pml::SendMode mode) {
  if (dest == MPI_PROC_NULL) return completed_request(comm, MPI_PROC_NULL, MPI_ANY_TAG);
  const size_t bytes = static_cast<size_t>(count) * type->size;
  const int peer = comm->peer(dest);
  ptrdiff_t off;
  if (type->dense(static_cast<size_t>(count), &off))
    return adopt(the_pml().isend(offset_ptr(buf, off), bytes, peer, comm->rank(), tag,
                                 comm->ctx_p2p(), mode),
                 comm);
  auto cv = std::make_unique<dt::TypeConvertor>(type, buf, static_cast<size_t>(count));
  pml::Request* inner =
      the_pml().isend_conv(cv.get(), bytes, peer, comm->rank(), tag, comm->ctx_p2p(), mode);
  RtRequest* w = wrapper_request(comm, inner);
  w->conv = std::move(cv);
  return w;
}

namespace {

template <class Post, class PostConv>
pml::Request* recv_common(Comm* comm, void* buf, MPI_Count count, const Datatype* type, Post post,
                          PostConv post_conv) {
  const size_t bytes = static_cast<size_t>(count) * type->size;
  ptrdiff_t off;
  if (type->dense(static_cast<size_t>(count), &off))
    return adopt(post(offset_ptr(buf, off), bytes), comm);
  auto cv = std::make_unique<dt::TypeConvertor>(type, buf, static_cast<size_t>(count));
  pml::Request* inner = post_conv(cv.get(), bytes);
  RtRequest* w = wrapper_request(comm, inner);
  w->conv = std::move(cv);
  return w;
}

}  // namespace

pml::Request* start_recv(Comm* comm, void* buf, MPI_Count count, const Datatype* type, int source,
                         int tag) {
  if (source == MPI_PROC_NULL) return completed_request(comm, MPI_PROC_NULL, MPI_ANY_TAG);
  const uint32_t ctx = comm->ctx_p2p();
  return recv_common(
      comm, buf, count, type,
      [&](void* b, size_t n) { return the_pml().irecv(b, n, source, tag, ctx); },
      [&](pml::Convertor* cv, size_t n) { return the_pml().irecv_conv(cv, n, source, tag, ctx); });
}

pml::Request* start_mrecv(Comm* comm, void* buf, MPI_Count count, const Datatype* type,
                          pml::Message* msg) {
  return recv_common(
      comm, buf, count, type, [&](void* b, size_t n) { return the_pml().imrecv(b, n, msg); },
      [&](pml::Convertor* cv, size_t n) { return the_pml().imrecv_conv(cv, n, msg); });
}

int wait_and_finish(const char* fn, pml::Request* r, MPI_Status* st) {
  request_wait(r);
  return request_finish(fn, r, st);
}

int send_blocking(const char* fn, Comm* comm, const void* buf, MPI_Count count,
                  const Datatype* type, int dest, int tag, pml::SendMode mode) {
  ptrdiff_t off;
  if (mode == pml::SendMode::kStandard && dest != MPI_PROC_NULL &&
      type->dense(static_cast<size_t>(count), &off) &&
      the_pml().send_now(offset_ptr(buf, off), static_cast<size_t>(count) * type->size,
                         comm->peer(dest), comm->rank(), tag, comm->ctx_p2p()))
    return MPI_SUCCESS;
  return wait_and_finish(fn, start_send(comm, buf, count, type, dest, tag, mode), nullptr);
}

int recv_blocking(const char* fn, Comm* comm, void* buf, MPI_Count count, const Datatype* type,
                  int source, int tag, MPI_Status* st) {
  ptrdiff_t off;
  pml::Status ps;
  if (source != MPI_PROC_NULL && type->dense(static_cast<size_t>(count), &off) &&
      the_pml().recv_now(offset_ptr(buf, off), static_cast<size_t>(count) * type->size, source, tag,
                         comm->ctx_p2p(), &ps))
    return pml_status(fn, ps, st);
  return wait_and_finish(fn, start_recv(comm, buf, count, type, source, tag), st);
}

}  // namespace mpr::runtime
