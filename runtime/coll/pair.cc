// Collectives on two-rank intracommunicators without a schedule. Each is one message (bcast)
// or one exchange (allreduce, alltoall), the messages a schedule's algorithm would send on two
// ranks, with the same tag; at small sizes most of a blocking collective's cost was building
// and tearing down its schedule (runtime/coll/README.md).
#include <cstring>

#include "runtime/coll/coll.h"
#include "runtime/core/state.h"
#include "runtime/dt/op.h"

namespace mpr::runtime::coll {

namespace {

// The halves of the one message: a send under the call's tag that returns the request still
// to finish (nullptr if it went out at once), a receive of `bytes`, and the send's finish.
pml::Request* send_to_other(Comm* comm, const void* buf, size_t bytes, int tag) {
  pml::Pml& p = the_pml();
  const int me = comm->rank(), to = comm->peer(1 - me);
  const uint32_t ctx = comm->ctx_coll();
  if (p.send_now(buf, bytes, to, me, tag, ctx)) return nullptr;
  return p.isend(buf, bytes, to, me, tag, ctx, pml::SendMode::kStandard);
}

int receive(const char* fn, Comm* comm, void* buf, size_t bytes, int tag, common::WaitKind kind) {
  pml::Pml& p = the_pml();
  const int from = 1 - comm->rank();
  const uint32_t ctx = comm->ctx_coll();
  pml::Status st;
  if (p.recv_now(buf, bytes, from, tag, ctx, &st)) return message_error(fn, comm, st, bytes);
  pml::Request* r = p.irecv(buf, bytes, from, tag, ctx);
  block_until(kind, [r] { return r->complete; });
  const int code = message_error(fn, comm, r->status, bytes);
  p.release(r);
  return code;
}

int finish_send(const char* fn, Comm* comm, pml::Request* s) {
  if (!s) return MPI_SUCCESS;
  block_until(common::WaitKind::kTimed, [s] { return s->complete; });
  const int code = message_error(fn, comm, s->status, ~size_t{0});
  the_pml().release(s);
  return code;
}

// One message each way with the other rank: `sbuf` out, `bytes` of it into `rbuf`.
int exchange(const char* fn, Comm* comm, const void* sbuf, void* rbuf, size_t bytes) {
  const int tag = call_tag(comm);
  pml::Request* s = send_to_other(comm, sbuf, bytes, tag);
  const int code = receive(fn, comm, rbuf, bytes, tag,
                           s ? common::WaitKind::kTimed : common::WaitKind::kExchange);
  const int sent = finish_send(fn, comm, s);
  return code != MPI_SUCCESS ? code : sent;
}

}  // namespace

int bcast_pair(const char* fn, Comm* comm, void* buf, size_t bytes, int root) {
  const int tag = call_tag(comm);
  if (comm->rank() == root) return finish_send(fn, comm, send_to_other(comm, buf, bytes, tag));
  return receive(fn, comm, buf, bytes, tag, common::WaitKind::kTimed);
}

int allreduce_pair(const char* fn, Comm* comm, const void* sendbuf, void* recvbuf, size_t count,
                   const Datatype* type, const Op* op) {
  const size_t bytes = count * static_cast<size_t>(type->extent);
  const bool lower = comm->rank() == 0;
  const int n = static_cast<int>(count);
  if (sendbuf && (lower || op->commute)) {
    // The peer's vector straight into recvbuf, then recvbuf = ours op it (the lower rank's
    // first, or either way round when the op commutes).
    if (int code = exchange(fn, comm, sendbuf, recvbuf, bytes); code != MPI_SUCCESS) return code;
    op_apply(op, sendbuf, recvbuf, n, type);
    return MPI_SUCCESS;
  }
  alignas(16) char theirs[kPairReduceMax];
  const void* ours = sendbuf ? sendbuf : recvbuf;
  if (int code = exchange(fn, comm, ours, theirs, bytes); code != MPI_SUCCESS) return code;
  if (!lower) {
    if (sendbuf) std::memcpy(recvbuf, sendbuf, bytes);
    op_apply(op, theirs, recvbuf, n, type);  // the lower rank's vector first
  } else if (op->commute) {
    op_apply(op, theirs, recvbuf, n, type);
  } else {
    op_apply(op, recvbuf, theirs, n, type);
    std::memcpy(recvbuf, theirs, bytes);
  }
  return MPI_SUCCESS;
}

int alltoall_pair(const char* fn, Comm* comm, const char* sendbuf, char* recvbuf, size_t bytes) {
  const int me = comm->rank(), other = 1 - me;
  if (int code = exchange(fn, comm, sendbuf + other * bytes, recvbuf + other * bytes, bytes);
      code != MPI_SUCCESS)
    return code;
  std::memcpy(recvbuf + me * bytes, sendbuf + me * bytes, bytes);
  return MPI_SUCCESS;
}

}  // namespace mpr::runtime::coll
