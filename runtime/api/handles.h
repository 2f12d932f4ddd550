// Argument checks for the handle types of the communicator family (groups, info, keyvals) and
// for communicator kinds. Same contract as check.h: the error is already raised.
#pragma once

#include "runtime/api/check.h"
#include "runtime/comm/group.h"
#include "runtime/core/info.h"

namespace mpr::runtime::api {

inline int check_group(const char* fn, Comm* comm, MPI_Group h, Group** out) {
  *out = to_group(h);
  if (*out) return MPI_SUCCESS;
  if (h == MPI_GROUP_NULL)
    return raise_error(comm, MPI_ERR_GROUP, fn, "invalid group MPI_GROUP_NULL");
  return raise_error(comm, MPI_ERR_GROUP, fn, "invalid group handle %p", static_cast<void*>(h));
}

/// MPI_INFO_NULL is accepted where the caller allows it (`*out` is then nullptr).
inline int check_info(const char* fn, Comm* comm, MPI_Info h, bool null_ok, Info** out) {
  *out = nullptr;
  if (h == MPI_INFO_NULL) {
    if (null_ok) return MPI_SUCCESS;
    return raise_error(comm, MPI_ERR_INFO, fn, "invalid info MPI_INFO_NULL");
  }
  *out = to_info(h);
  if (*out) return MPI_SUCCESS;
  return raise_error(comm, MPI_ERR_INFO, fn, "invalid info handle %p", static_cast<void*>(h));
}

inline int check_intra(const char* fn, Comm* comm) {
  if (!comm->is_inter()) return MPI_SUCCESS;
  return raise_error(comm, MPI_ERR_COMM, fn,
                     "%s is an intercommunicator (an intracommunicator is required)",
                     comm->name().empty() ? "the communicator" : comm->name().c_str());
}

/// For calls MPR does not implement: MPI_ERR_UNSUPPORTED_OPERATION through the handler.
inline int unsupported(const char* fn, Comm* comm, const char* what) {
  return raise_error(comm, MPI_ERR_UNSUPPORTED_OPERATION, fn, "not supported by MPR: %s", what);
}

}  // namespace mpr::runtime::api
