// The shared file pointer of an open file (MPI_File_*_shared, *_ordered), kept consistent
// across processes without a server: an 8-byte counter in a small hidden file beside the data
// file (".<name>.mpr-shfp.<token>", the token chosen by rank 0 at open), read and advanced under
// an exclusive byte-range lock. Any process can move it at any time, whatever the others are
// doing, on one node or across nodes of a file system with working fcntl locks, and it costs
// nothing until first used: the counter file is created by the first process that needs it.
// When the data file's directory is not writable and the file's processes share one node, the
// counter lives in /dev/shm instead. Rank 0 removes it when the file is closed.
#pragma once

#include <cstdint>
#include <string>

#include "io/posix.h"

namespace mpr::io {

class SharedFp {
 public:
  SharedFp() = default;
  ~SharedFp();
  SharedFp(const SharedFp&) = delete;
  SharedFp& operator=(const SharedFp&) = delete;

  /// Name the counter for the data file at `path`; `token` is the same in every process.
  void init(const std::string& path, uint64_t token, bool one_node);

  /// *old = counter, then counter += delta; atomic across processes.
  SysError fetch_add(int64_t delta, int64_t* old);
  SysError read(int64_t* value);
  SysError write(int64_t value);
  /// MPI_File_set_view resets the pointer: every process that has the counter open writes 0
  /// (one that never opened it has nothing to reset: a counter nobody opened is 0).
  SysError reset_if_open();
  /// Close the counter (MPI_File_close); remove() unlinks it (rank 0, after a barrier).
  void close();
  void remove();

 private:
  SysError open_counter();

  std::string path_;      // beside the data file
  std::string fallback_;  // in /dev/shm, for single-node files in read-only directories
  bool one_node_ = false;
  int fd_ = -1;
};

}  // namespace mpr::io
