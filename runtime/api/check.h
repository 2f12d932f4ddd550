// Argument checks shared by the entry points. Each returns MPI_SUCCESS or an error code that
// has already been handed to the right error handler; entry points return it with MPR_TRY.
#pragma once

#include <climits>

#include "common/entry_lock.h"
#include "mpi.h"
#include "runtime/comm/comm.h"
#include "runtime/core/errors.h"
#include "runtime/core/state.h"
#include "runtime/dt/datatype.h"
#include "runtime/dt/op.h"

/// Every entry point is defined as PMPI_<name>; MPI_<name> is a weak alias, so a profiling
/// library can define MPI_<name> and reach the implementation through PMPI_<name>.
#define MPR_WEAK_ALIAS(name) \
  extern "C" decltype(PMPI_##name) MPI_##name __attribute__((weak, alias("PMPI_" #name)))

#define MPR_TRY(expr)                           \
  do {                                          \
    int mpr_rc_ = (expr);                       \
    if (mpr_rc_ != MPI_SUCCESS) return mpr_rc_; \
  } while (0)

namespace mpr::runtime::api {

/// MPI_TAG_UB: tags travel as int32 in the pml's match header.
constexpr int kTagUb = INT_MAX;

inline int check_running(const char* fn) {
  if (running()) return MPI_SUCCESS;
  return raise_error(nullptr, MPI_ERR_OTHER, nullptr,
                     g_state.phase == Phase::kBefore ? "%s called before MPI_Init"
                                                     : "%s called after MPI_Finalize",
                     fn);
}

int check_comm(const char* fn, MPI_Comm h, Comm** out);
/// check_type() for handles that are not predefined.
int check_any_type(const char* fn, Comm* comm, MPI_Datatype h, Datatype** out);
/// A committed datatype: predefined ones (always committed) without a call.
inline int check_type(const char* fn, Comm* comm, MPI_Datatype h, Datatype** out) {
  if ((*out = predefined_from_handle(h))) return MPI_SUCCESS;
  return check_any_type(fn, comm, h, out);
}
/// check_op() for handles that are not predefined.
int check_any_op(const char* fn, Comm* comm, MPI_Op h, Op** out);
inline int check_op(const char* fn, Comm* comm, MPI_Op h, Op** out) {
  if ((*out = predefined_op_from_handle(h))) return MPI_SUCCESS;
  return check_any_op(fn, comm, h, out);
}

/// Attributes of datatypes (api/attr.cc), raised on error: MPI_Type_dup's copy callbacks onto
/// `to`; MPI_Type_free's delete callbacks, most recent first.
int type_attrs_copy(const char* fn, Datatype* from, Datatype* to);
int type_attrs_delete_all(const char* fn, Datatype* t);

inline int check_count(const char* fn, Comm* comm, MPI_Count count) {
  if (count >= 0) return MPI_SUCCESS;
  return raise_error(comm, MPI_ERR_COUNT, fn, "invalid count %lld (must be >= 0)",
                     static_cast<long long>(count));
}

inline int check_buffer(const char* fn, Comm* comm, const void* buf, MPI_Count count,
                        const Datatype* type) {
  // Derived types may hold absolute addresses (MPI_Get_address) used with MPI_BOTTOM (NULL).
  if (buf || count == 0 || type->size == 0 || !type->predefined) return MPI_SUCCESS;
  return raise_error(comm, MPI_ERR_BUFFER, fn, "NULL buffer with count %lld of %s",
                     static_cast<long long>(count), type->name);
}

/// dest of a send: a rank of the communicator (of the remote group of an intercommunicator)
/// or MPI_PROC_NULL.
inline int check_dest(const char* fn, Comm* comm, int dest) {
  if ((dest >= 0 && dest < comm->p2p_size()) || dest == MPI_PROC_NULL) return MPI_SUCCESS;
  return raise_error(comm, MPI_ERR_RANK, fn, "invalid rank %d (%s size %d)", dest,
                     comm->is_inter() ? "remote group" : "communicator", comm->p2p_size());
}

/// source of a receive or probe: also MPI_ANY_SOURCE.
inline int check_source(const char* fn, Comm* comm, int source) {
  if (source == MPI_ANY_SOURCE) return MPI_SUCCESS;
  return check_dest(fn, comm, source);
}

inline int check_send_tag(const char* fn, Comm* comm, int tag) {
  if (tag >= 0) return MPI_SUCCESS;  // every non-negative int is <= kTagUb
  return raise_error(comm, MPI_ERR_TAG, fn, "invalid tag %d (valid tags are 0..%d)", tag, kTagUb);
}

inline int check_recv_tag(const char* fn, Comm* comm, int tag) {
  if (tag >= 0 || tag == MPI_ANY_TAG) return MPI_SUCCESS;
  return raise_error(comm, MPI_ERR_TAG, fn, "invalid tag %d (valid tags are 0..%d and MPI_ANY_TAG)",
                     tag, kTagUb);
}

inline int check_root(const char* fn, Comm* comm, int root) {
  if (root >= 0 && root < comm->size()) return MPI_SUCCESS;
  return raise_error(comm, MPI_ERR_ROOT, fn, "invalid root %d (communicator size %d)", root,
                     comm->size());
}

inline int check_arg(const char* fn, Comm* comm, bool ok, const char* what) {
  if (ok) return MPI_SUCCESS;
  return raise_error(comm, MPI_ERR_ARG, fn, "%s", what);
}

/// The common checks of a send: communicator, count, datatype, buffer, destination, tag.
int check_send(const char* fn, MPI_Comm h, const void* buf, MPI_Count count, MPI_Datatype type,
               int dest, int tag, Comm** comm, Datatype** dt);
/// Same for a receive (source may be MPI_ANY_SOURCE, tag MPI_ANY_TAG).
int check_recv(const char* fn, MPI_Comm h, const void* buf, MPI_Count count, MPI_Datatype type,
               int source, int tag, Comm** comm, Datatype** dt);

}  // namespace mpr::runtime::api
