// What the C API entry points of the collectives share: one Call per MPI call holds the
// schedule (on the stack for a blocking call, inside a request for a nonblocking one), turns
// user buffers into the contiguous bytes the algorithms work on, and finishes the call.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>

#include "mpi.h"
#include "runtime/coll/coll.h"
#include "runtime/coll/schedule.h"
#include "runtime/comm/comm.h"
#include "runtime/dt/datatype.h"
#include "runtime/dt/op.h"

namespace mpr::runtime::coll {

/// buf + off as an integer sum (MPI_BOTTOM with absolute displacements starts at address 0).
inline char* shifted(const void* buf, ptrdiff_t off) {
  return reinterpret_cast<char*>(reinterpret_cast<uintptr_t>(buf) + static_cast<uintptr_t>(off));
}

class Call {
 public:
  /// `req` == nullptr: a blocking call. Otherwise the call is nonblocking and finish() stores
  /// the new request there.
  Call(const char* fn, Comm* comm, MPI_Request* req);
  ~Call();
  Call(const Call&) = delete;
  Call& operator=(const Call&) = delete;

  Schedule& s() { return *sched_; }

  /// `count` elements of `type` at `buf` as contiguous bytes to read: the buffer itself, or a
  /// packed copy made now.
  const char* in(const void* buf, size_t count, const Datatype* type);
  /// ... to write: the buffer itself, or scratch memory unpacked into `buf` once the
  /// collective is done.
  char* out(void* buf, size_t count, const Datatype* type);
  /// Both (bcast): packed now if `read`, unpacked at the end if `write`.
  char* inout(void* buf, size_t count, const Datatype* type, bool read, bool write);
  /// Bytes `count` elements occupy once contiguous.
  static size_t bytes(size_t count, const Datatype* type) { return count * type->size; }

  /// Set the schedule's reducer for buffers of up to `count` elements of `type` (predefined
  /// and dense types in their memory layout, so op kernels see C structs; others packed).
  void set_reducer(const Op* op, const Datatype* type, size_t count);
  /// A reduction buffer: the user's memory for types whose layout the kernels take directly,
  /// else a packed copy (read) and/or scratch unpacked at the end (write).
  char* red(void* buf, size_t count, const Datatype* type, bool read, bool write);

  /// Blocking: run the schedule, return its MPI error code raised on the communicator.
  /// Nonblocking: start it and store the request. Returns MPI_SUCCESS or a raised error.
  int finish();

 private:
  const char* fn_;
  Comm* comm_;
  MPI_Request* req_;
  std::optional<Schedule> local_;
  NbcRequest* nbc_ = nullptr;
  Schedule* sched_;
};

}  // namespace mpr::runtime::coll
