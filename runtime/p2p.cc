#include "runtime/p2p.h"

#include <memory>

#include "runtime/request.h"
#include "runtime/state.h"

namespace mpr::runtime {

pml::Request* start_send(Comm* comm, const void* buf, int count, const Datatype* type, int dest,
                         int tag, pml::SendMode mode) {
  if (dest == MPI_PROC_NULL) return completed_request(comm, MPI_PROC_NULL, MPI_ANY_TAG);
  size_t bytes = static_cast<size_t>(count) * type->size;
  int peer = comm->peer(dest);
  if (type->contiguous || count == 0)
    return adopt(the_pml().isend(buf, bytes, peer, comm->rank(), tag, comm->ctx_p2p(), mode),
                 comm);
  auto staging = std::make_unique<char[]>(bytes);
  type->pack(buf, static_cast<size_t>(count), staging.get());
  pml::Request* inner =
      the_pml().isend(staging.get(), bytes, peer, comm->rank(), tag, comm->ctx_p2p(), mode);
  RtRequest* w = wrapper_request(comm, inner);
  w->staging = std::move(staging);
  return w;
}

namespace {

// Receives of non-contiguous types land in a packed staging buffer and are unpacked at
// completion.
template <class Post>
pml::Request* recv_common(Comm* comm, void* buf, int count, const Datatype* type, Post post) {
  size_t bytes = static_cast<size_t>(count) * type->size;
  if (type->contiguous || count == 0) return adopt(post(buf, bytes), comm);
  auto staging = std::make_unique<char[]>(bytes);
  pml::Request* inner = post(staging.get(), bytes);
  RtRequest* w = wrapper_request(comm, inner);
  w->staging = std::move(staging);
  w->unpack_type = type;
  w->user_buf = buf;
  return w;
}

}  // namespace

pml::Request* start_recv(Comm* comm, void* buf, int count, const Datatype* type, int source,
                         int tag) {
  if (source == MPI_PROC_NULL) return completed_request(comm, MPI_PROC_NULL, MPI_ANY_TAG);
  return recv_common(comm, buf, count, type, [&](void* b, size_t n) {
    return the_pml().irecv(b, n, source, tag, comm->ctx_p2p());
  });
}

pml::Request* start_mrecv(Comm* comm, void* buf, int count, const Datatype* type,
                          pml::Message* msg) {
  return recv_common(comm, buf, count, type,
                     [&](void* b, size_t n) { return the_pml().imrecv(b, n, msg); });
}

int wait_and_finish(const char* fn, pml::Request* r, MPI_Status* st) {
  request_wait(r);
  return request_finish(fn, r, st);
}

}  // namespace mpr::runtime
