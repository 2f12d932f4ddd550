#include "runtime/api/check.h"

#include <cstdint>

namespace mpr::runtime::api {

int check_comm(const char* fn, MPI_Comm h, Comm** out) {
  *out = to_comm(h);
  if (*out) return MPI_SUCCESS;
  if (h == MPI_COMM_NULL)
    return raise_error(nullptr, MPI_ERR_COMM, fn, "invalid communicator MPI_COMM_NULL");
  return raise_error(nullptr, MPI_ERR_COMM, fn, "invalid communicator handle %p",
                     static_cast<void*>(h));
}

int check_any_type(const char* fn, Comm* comm, MPI_Datatype h, Datatype** out) {
  *out = to_datatype(h);
  if (!*out) {
    if (h == MPI_DATATYPE_NULL)
      return raise_error(comm, MPI_ERR_TYPE, fn, "invalid datatype MPI_DATATYPE_NULL");
    return raise_error(comm, MPI_ERR_TYPE, fn, "invalid datatype handle %p", static_cast<void*>(h));
  }
  if (!(*out)->committed)
    return raise_error(comm, MPI_ERR_TYPE, fn, "datatype %s is not committed",
                       (*out)->label().c_str());
  return MPI_SUCCESS;
}

int check_any_op(const char* fn, Comm* comm, MPI_Op h, Op** out) {
  *out = to_op(h);
  if (*out) return MPI_SUCCESS;
  if (h == MPI_OP_NULL) return raise_error(comm, MPI_ERR_OP, fn, "invalid op MPI_OP_NULL");
  return raise_error(comm, MPI_ERR_OP, fn, "invalid op handle %p", static_cast<void*>(h));
}

int check_send(const char* fn, MPI_Comm h, const void* buf, MPI_Count count, MPI_Datatype type,
               int dest, int tag, Comm** comm, Datatype** dt) {
  MPR_TRY(check_running(fn));
  MPR_TRY(check_comm(fn, h, comm));
  MPR_TRY(check_count(fn, *comm, count));
  MPR_TRY(check_type(fn, *comm, type, dt));
  MPR_TRY(check_buffer(fn, *comm, buf, count, *dt));
  MPR_TRY(check_dest(fn, *comm, dest));
  return check_send_tag(fn, *comm, tag);
}

int check_recv(const char* fn, MPI_Comm h, const void* buf, MPI_Count count, MPI_Datatype type,
               int source, int tag, Comm** comm, Datatype** dt) {
  MPR_TRY(check_running(fn));
  MPR_TRY(check_comm(fn, h, comm));
  MPR_TRY(check_count(fn, *comm, count));
  MPR_TRY(check_type(fn, *comm, type, dt));
  MPR_TRY(check_buffer(fn, *comm, buf, count, *dt));
  MPR_TRY(check_source(fn, *comm, source));
  return check_recv_tag(fn, *comm, tag);
}

}  // namespace mpr::runtime::api
