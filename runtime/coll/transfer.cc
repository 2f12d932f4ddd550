#include "runtime/coll/transfer.h"

#include "pml/pml.h"
#include "runtime/errors.h"
#include "runtime/state.h"

namespace mpr::runtime::coll {

namespace {

int finish(const char* fn, pml::Request* r, Comm* comm) {
  the_pml().wait(r);
  pml::Status s = r->status;
  the_pml().release(r);
  if (s.error == pml::kOk) return MPI_SUCCESS;
  int peer = s.source >= 0 && s.source < comm->size() ? s.source : -1;
  if (s.error == pml::kErrTruncate)
    return make_error(MPI_ERR_TRUNCATE, fn,
                      "message from rank %d longer than expected: ranks called collectives "
                      "with mismatched counts or datatypes",
                      peer);
  return make_error(MPI_ERR_OTHER, fn, "transport failure with rank %d", peer);
}

pml::Request* post_send(Comm* comm, const void* buf, size_t bytes, int dst, int tag) {
  return the_pml().isend(buf, bytes, comm->peer(dst), comm->rank(), tag, comm->ctx_coll(),
                         pml::SendMode::kStandard);
}

pml::Request* post_recv(Comm* comm, void* buf, size_t bytes, int src, int tag) {
  return the_pml().irecv(buf, bytes, src, tag, comm->ctx_coll());
}

}  // namespace

int send(const char* fn, Comm* comm, const void* buf, size_t bytes, int dst, int tag) {
  return finish(fn, post_send(comm, buf, bytes, dst, tag), comm);
}

int recv(const char* fn, Comm* comm, void* buf, size_t bytes, int src, int tag) {
  return finish(fn, post_recv(comm, buf, bytes, src, tag), comm);
}

int sendrecv(const char* fn, Comm* comm, const void* sbuf, size_t sbytes, int dst, void* rbuf,
             size_t rbytes, int src, int tag) {
  pml::Request* r = post_recv(comm, rbuf, rbytes, src, tag);
  pml::Request* s = post_send(comm, sbuf, sbytes, dst, tag);
  int rc_recv = finish(fn, r, comm);
  int rc_send = finish(fn, s, comm);
  return rc_recv != MPI_SUCCESS ? rc_recv : rc_send;
}

int send_many(const char* fn, Comm* comm, const void* buf, size_t bytes, const int* dsts, int n,
              int tag) {
  constexpr int kMaxFanout = 64;  // a binomial tree has at most log2(size) children
  pml::Request* reqs[kMaxFanout];
  int rc = MPI_SUCCESS;
  for (int done = 0; done < n; done += kMaxFanout) {
    int batch = n - done < kMaxFanout ? n - done : kMaxFanout;
    for (int i = 0; i < batch; ++i) reqs[i] = post_send(comm, buf, bytes, dsts[done + i], tag);
    for (int i = 0; i < batch; ++i) {
      int one = finish(fn, reqs[i], comm);
      if (rc == MPI_SUCCESS) rc = one;
    }
  }
  return rc;
}

}  // namespace mpr::runtime::coll
