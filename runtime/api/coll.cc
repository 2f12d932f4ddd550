// Collectives: barrier, bcast, reduce, allreduce, reduce_local.
#include "runtime/api/check.h"
#include "runtime/coll/coll.h"

using namespace mpr::runtime;
using namespace mpr::runtime::api;

namespace {

// The op must be defined on the type, and MPI_REPLACE / MPI_NO_OP belong to one-sided
// accumulates only.
int check_op_for(const char* fn, Comm* comm, const Op* op, const Datatype* dt) {
  if (op->predefined && (op->id == OpId::kReplace || op->id == OpId::kNoOp))
    return raise_error(comm, MPI_ERR_OP, fn, "%s is only valid in one-sided accumulates",
                       op->name);
  if (!op_valid_for(op, dt))
    return raise_error(comm, MPI_ERR_OP, fn, "%s is not defined for datatype %s", op->name,
                       dt->name);
  return MPI_SUCCESS;
}

int check_reduction(const char* fn, MPI_Comm h, const void* sendbuf, const void* recvbuf,
                    int count, MPI_Datatype type, MPI_Op op, bool recv_here, Comm** comm,
                    Datatype** dt, Op** o) {
  MPR_TRY(check_running(fn));
  MPR_TRY(check_comm(fn, h, comm));
  MPR_TRY(check_count(fn, *comm, count));
  MPR_TRY(check_type(fn, *comm, type, dt));
  MPR_TRY(check_op(fn, *comm, op, o));
  MPR_TRY(check_op_for(fn, *comm, *o, *dt));
  if (sendbuf != MPI_IN_PLACE) MPR_TRY(check_buffer(fn, *comm, sendbuf, count, *dt));
  if (recv_here) {
    MPR_TRY(check_buffer(fn, *comm, recvbuf, count, *dt));
    if (sendbuf == recvbuf && count > 0)
      return raise_error(*comm, MPI_ERR_BUFFER, fn,
                         "sendbuf and recvbuf are the same buffer (use MPI_IN_PLACE)");
  }
  return MPI_SUCCESS;
}

}  // namespace

extern "C" int PMPI_Barrier(MPI_Comm h) {
  constexpr const char* fn = "MPI_Barrier";
  Comm* comm;
  MPR_TRY(check_running(fn));
  MPR_TRY(check_comm(fn, h, &comm));
  return raise(comm, coll::barrier(fn, comm));
}
MPR_WEAK_ALIAS(Barrier);

extern "C" int PMPI_Bcast(void* buffer, int count, MPI_Datatype datatype, int root, MPI_Comm h) {
  constexpr const char* fn = "MPI_Bcast";
  Comm* comm;
  Datatype* dt;
  MPR_TRY(check_running(fn));
  MPR_TRY(check_comm(fn, h, &comm));
  MPR_TRY(check_count(fn, comm, count));
  MPR_TRY(check_type(fn, comm, datatype, &dt));
  MPR_TRY(check_buffer(fn, comm, buffer, count, dt));
  MPR_TRY(check_root(fn, comm, root));
  size_t bytes = static_cast<size_t>(count) * dt->extent;
  return raise(comm, coll::bcast(fn, comm, buffer, bytes, root));
}
MPR_WEAK_ALIAS(Bcast);

extern "C" int PMPI_Reduce(const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype,
                           MPI_Op op, int root, MPI_Comm h) {
  constexpr const char* fn = "MPI_Reduce";
  Comm* comm;
  Datatype* dt;
  Op* o;
  MPR_TRY(check_running(fn));
  MPR_TRY(check_comm(fn, h, &comm));
  MPR_TRY(check_root(fn, comm, root));
  bool is_root = comm->rank() == root;
  MPR_TRY(check_reduction(fn, h, sendbuf, recvbuf, count, datatype, op, is_root, &comm, &dt, &o));
  if (sendbuf == MPI_IN_PLACE) {
    if (!is_root)
      return raise_error(comm, MPI_ERR_BUFFER, fn,
                         "MPI_IN_PLACE as sendbuf is only valid at the root (rank %d)", root);
    sendbuf = recvbuf;
  }
  return raise(comm, coll::reduce(fn, comm, sendbuf, recvbuf, count, dt, o, root));
}
MPR_WEAK_ALIAS(Reduce);

extern "C" int PMPI_Allreduce(const void* sendbuf, void* recvbuf, int count,
                              MPI_Datatype datatype, MPI_Op op, MPI_Comm h) {
  constexpr const char* fn = "MPI_Allreduce";
  Comm* comm;
  Datatype* dt;
  Op* o;
  MPR_TRY(check_reduction(fn, h, sendbuf, recvbuf, count, datatype, op, true, &comm, &dt, &o));
  if (sendbuf == MPI_IN_PLACE) sendbuf = recvbuf;
  return raise(comm, coll::allreduce(fn, comm, sendbuf, recvbuf, count, dt, o));
}
MPR_WEAK_ALIAS(Allreduce);

extern "C" int PMPI_Reduce_local(const void* inbuf, void* inoutbuf, int count,
                                 MPI_Datatype datatype, MPI_Op op) {
  constexpr const char* fn = "MPI_Reduce_local";
  Datatype* dt;
  Op* o;
  MPR_TRY(check_running(fn));
  MPR_TRY(check_count(fn, nullptr, count));
  MPR_TRY(check_type(fn, nullptr, datatype, &dt));
  MPR_TRY(check_op(fn, nullptr, op, &o));
  MPR_TRY(check_op_for(fn, nullptr, o, dt));
  MPR_TRY(check_buffer(fn, nullptr, inbuf, count, dt));
  MPR_TRY(check_buffer(fn, nullptr, inoutbuf, count, dt));
  op_apply(o, inbuf, inoutbuf, count, dt);
  return MPI_SUCCESS;
}
MPR_WEAK_ALIAS(Reduce_local);
