// Nonblocking file operations as MPI requests. An I/O request is a generalized request of the
// runtime (runtime/p2p/request_ext.h): its poll hook watches the work and its query callback
// reports the status and error, so MPI_Wait/Test/Waitall/... complete it beside point-to-point
// and collective requests, and errors reach the file's error handler (the request belongs to
// the file's communicator, whose handler forwards to the file's).
//
// Independent operations run on one I/O thread per process (started on first use): the data
// moves while the caller computes, without calls into MPI. Its jobs touch only the file's
// descriptor, the user's buffer and the datatype engine (never MPI state); the caller keeps the
// datatype and the view alive for them. Operations on a data representation with user
// callbacks run in the calling thread instead (the callbacks may call MPI). Collective ones
// are nonblocking collectives (io/coll.h) watched by the request.
#pragma once

#include <atomic>
#include <functional>
#include <memory>

#include "io/access.h"
#include "io/coll.h"
#include "runtime/p2p/request_ext.h"

namespace mpr::io {

struct IoRequest : runtime::GeneralizedRequest {
  File* file = nullptr;  ///< retained
  int code = MPI_SUCCESS;
  uint64_t bytes = 0;  ///< the status's byte count (memory's representation)
  // An independent job: what it moves and its result, written by the I/O thread.
  std::shared_ptr<const View> view;
  MemSide mem;
  Dir dir = Dir::kRead;
  uint64_t stream = 0;
  bool atomic = false;
  const char* fn = "";
  AccessResult result;
  // A collective one: the nonblocking collective running it.
  pml::Request* inner = nullptr;
  std::shared_ptr<CollOp> op;
  ~IoRequest() override;
};

/// A request already complete with `code` and `bytes` (an operation done in place).
IoRequest* completed_io(File* f, int code, uint64_t bytes);
/// Hand an independent access to the I/O thread; the request completes when it is done.
IoRequest* submit_io(const char* fn, File* f, std::shared_ptr<const View> v, Dir dir,
                     uint64_t s, const MemSide& m, bool atomic);
/// Watch a collective operation started by start_coll.
IoRequest* watch_coll(File* f, std::shared_ptr<CollOp> op, pml::Request* inner);

}  // namespace mpr::io
