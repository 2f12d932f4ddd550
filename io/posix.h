// The POSIX calls under MPI-IO: whole-buffer pread/pwrite, byte-range locks, and what an errno
// means as an MPI error class. Nothing here knows MPI objects; io/engine.h builds on it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

namespace mpr::io {

/// The outcome of a POSIX call that failed: its errno, the call's name and the file offset it
/// worked at, so the API layer can say "pwrite at offset 4096 of "out.dat": No space left".
struct SysError {
  int err = 0;  ///< errno, 0 for success
  const char* op = "";
  uint64_t off = 0;
  explicit operator bool() const { return err != 0; }
};

/// The MPI error class for an errno of open/pread/pwrite/ftruncate/...: MPI_ERR_NO_SUCH_FILE,
/// MPI_ERR_ACCESS, MPI_ERR_NO_SPACE, MPI_ERR_QUOTA, MPI_ERR_READ_ONLY, MPI_ERR_FILE_EXISTS,
/// MPI_ERR_BAD_FILE (a name that cannot be a file), MPI_ERR_IO for the rest.
int error_class_for_errno(int err);

/// pread until `len` bytes are in, end of file, or an error (EINTR retried). Returns the bytes
/// read; *e is set only on error.
size_t pread_full(int fd, void* buf, size_t len, uint64_t off, SysError* e);
/// pwrite until all `len` bytes are out or an error. Returns the bytes written.
size_t pwrite_full(int fd, const void* buf, size_t len, uint64_t off, SysError* e);

/// A byte-range lock on [off, off + len) held for the object's life. Open file description
/// locks (F_OFD_SETLKW): they exclude other open files of the same file, also within one
/// process (two MPI_File handles of one file), and closing an unrelated descriptor never drops
/// them, as it would drop a process's classic fcntl locks. Kernels without them get classic
/// fcntl locks. len == 0 does nothing.
class RangeLock {
 public:
  RangeLock(int fd, uint64_t off, uint64_t len, bool exclusive);
  ~RangeLock();
  RangeLock(const RangeLock&) = delete;
  RangeLock& operator=(const RangeLock&) = delete;
  /// Set when the lock could not be taken (ENOLCK on a file system without locks...).
  const SysError& error() const { return err_; }

 private:
  int fd_ = -1;
  uint64_t off_ = 0, len_ = 0;
  SysError err_;
};

/// The path a file name stands for: ROMIO-style prefixes naming a file system ("ufs:",
/// "nfs:", "lustre:", ...) are dropped, as the peers accept them.
std::string strip_fs_prefix(const char* name);

/// The directory part of `path` ("." when it has none) and its last component.
std::string dir_of(const std::string& path);
std::string base_of(const std::string& path);

}  // namespace mpr::io
