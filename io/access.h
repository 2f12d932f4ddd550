// One data access call (every MPI_File_read*/write* form) from its arguments to its end:
// argument checks, where in the view it starts (explicit offset, individual or shared file
// pointer, ordered), then independent I/O (io/engine.h) or a collective operation (io/coll.h),
// blocking, nonblocking (a request) or split (begin/end).
#pragma once

#include <cstdint>

#include "io/engine.h"
#include "io/file.h"
#include "mpi.h"

namespace mpr::io {

enum class Dir : uint8_t { kRead, kWrite };
/// Where an access starts: explicit offset, individual pointer, shared pointer, and the
/// collective shared-pointer form (ordered by rank).
enum class Where : uint8_t { kAt, kIndividual, kShared, kOrdered };
enum class How : uint8_t { kBlocking, kNonblocking, kSplit };

struct Call {
  const char* fn = "";
  MPI_File fh = MPI_FILE_NULL;
  Dir dir = Dir::kRead;
  Where where = Where::kAt;
  How how = How::kBlocking;
  bool collective = false;
  MPI_Offset offset = 0;  ///< kAt: in etypes of the view
  void* buf = nullptr;
  MPI_Count count = 0;
  MPI_Datatype type = MPI_DATATYPE_NULL;
  MPI_Status* status = nullptr;   ///< kBlocking
  MPI_Request* request = nullptr;  ///< kNonblocking
};

/// The whole call; returns its MPI error code, raised on the file's error handler.
int access(const Call& c);
/// MPI_File_*_end: completes the split collective `begin_fn` started.
int split_end(const char* fn, MPI_File fh, const void* buf, MPI_Status* status,
              const char* begin_fn);

/// An independent access of `m` at stream offset `s` of `v`, as one unit: under the file's
/// I/O mutex (the I/O thread and the calling thread take turns) and, in atomic mode, a byte
/// range lock over all of it (shared for reads, exclusive for writes). Any thread.
AccessResult run_access(File* f, const View& v, bool atomic, Dir dir, uint64_t s,
                        const MemSide& m);

/// The MPI error code of a failed access result (made with `fn`'s name, not raised); the
/// conversion's class or the system call's.
int access_error(File* f, const char* fn, const AccessResult& r);

}  // namespace mpr::io
