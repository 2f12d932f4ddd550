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

constexpr size_t kAnyLength = ~size_t{0};

// Wait for `r` as a schedule waits in a blocking collective (Schedule::block_until).
void wait_for(pml::Pml& p, pml::Request* r, common::WaitKind kind) {
  common::Waiter waiter(p.wait_policy(), kind);
  while (!r->complete) {
    if (p.progress() > 0)
      waiter.busy();
    else if (!r->complete)
      waiter.idle();
  }
}

// The outcome of a completed transfer (`expected` bytes for a receive), and `r` released.
int finish(const char* fn, const Comm* comm, pml::Request* r, size_t expected) {
  const int code = message_error(fn, comm, r->status, expected);
  the_pml().release(r);
  return code;
}

// One message each way with the other rank: `sbuf` out, `bytes` of it into `rbuf`.
int exchange(const char* fn, Comm* comm, const void* sbuf, void* rbuf, size_t bytes) {
  pml::Pml& p = the_pml();
  const int tag = call_tag(comm);
  const uint32_t ctx = comm->ctx_coll();
  const int me = comm->rank(), other = 1 - me;
  pml::Request* s = nullptr;
  const bool sent = p.send_now(sbuf, bytes, comm->peer(other), me, tag, ctx);
  if (!sent) s = p.isend(sbuf, bytes, comm->peer(other), me, tag, ctx, pml::SendMode::kStandard);
  int code;
  pml::Status st;
  if (p.recv_now(rbuf, bytes, other, tag, ctx, &st)) {
    code = message_error(fn, comm, st, bytes);
  } else {
    pml::Request* r = p.irecv(rbuf, bytes, other, tag, ctx);
    wait_for(p, r, sent ? common::WaitKind::kExchange : common::WaitKind::kTimed);
    code = finish(fn, comm, r, bytes);
  }
  if (s) {
    wait_for(p, s, common::WaitKind::kTimed);
    const int sc = finish(fn, comm, s, kAnyLength);
    if (code == MPI_SUCCESS) code = sc;
  }
  return code;
}

}  // namespace

int bcast_pair(const char* fn, Comm* comm, void* buf, size_t bytes, int root) {
  pml::Pml& p = the_pml();
  const int tag = call_tag(comm);
  const uint32_t ctx = comm->ctx_coll();
  const int me = comm->rank(), other = 1 - me;
  if (me == root) {
    if (p.send_now(buf, bytes, comm->peer(other), me, tag, ctx)) return MPI_SUCCESS;
    pml::Request* r =
        p.isend(buf, bytes, comm->peer(other), me, tag, ctx, pml::SendMode::kStandard);
    wait_for(p, r, common::WaitKind::kTimed);
    return finish(fn, comm, r, kAnyLength);
  }
  pml::Status st;
  if (p.recv_now(buf, bytes, other, tag, ctx, &st)) return message_error(fn, comm, st, bytes);
  pml::Request* r = p.irecv(buf, bytes, other, tag, ctx);
  wait_for(p, r, common::WaitKind::kTimed);
  return finish(fn, comm, r, bytes);
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
