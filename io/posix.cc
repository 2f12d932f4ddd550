#include "io/posix.h"

#include <fcntl.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstring>

#include "mpi.h"

namespace mpr::io {

int error_class_for_errno(int err) {
  switch (err) {
    case ENOENT:
      return MPI_ERR_NO_SUCH_FILE;
    case EACCES:
    case EPERM:
      return MPI_ERR_ACCESS;
    case ENOSPC:
    case EFBIG:
      return MPI_ERR_NO_SPACE;
    case EDQUOT:
      return MPI_ERR_QUOTA;
    case EROFS:
    case ETXTBSY:
      return MPI_ERR_READ_ONLY;
    case EEXIST:
      return MPI_ERR_FILE_EXISTS;
    case EISDIR:
    case ENOTDIR:
    case ENAMETOOLONG:
    case ELOOP:
      return MPI_ERR_BAD_FILE;
    case EBUSY:
      return MPI_ERR_FILE_IN_USE;
    case ENOMEM:
      return MPI_ERR_NO_MEM;
    default:
      return MPI_ERR_IO;
  }
}

size_t pread_full(int fd, void* buf, size_t len, uint64_t off, SysError* e) {
  size_t done = 0;
  auto* p = static_cast<char*>(buf);
  while (done < len) {
    ssize_t n = ::pread(fd, p + done, len - done, static_cast<off_t>(off + done));
    if (n > 0) {
      done += static_cast<size_t>(n);
      continue;
    }
    if (n == 0) break;  // end of file
    if (errno == EINTR) continue;
    *e = {errno, "pread", off + done};
    break;
  }
  return done;
}

size_t pwrite_full(int fd, const void* buf, size_t len, uint64_t off, SysError* e) {
  size_t done = 0;
  const auto* p = static_cast<const char*>(buf);
  while (done < len) {
    ssize_t n = ::pwrite(fd, p + done, len - done, static_cast<off_t>(off + done));
    if (n > 0) {
      done += static_cast<size_t>(n);
      continue;
    }
    if (n < 0 && errno == EINTR) continue;
    // A pwrite that moves nothing without an error cannot make progress: report it as the
    // full device it practically is rather than spinning.
    *e = {n < 0 ? errno : ENOSPC, "pwrite", off + done};
    break;
  }
  return done;
}

namespace {

int set_lock(int fd, short type, uint64_t off, uint64_t len) {
  struct flock fl;
  std::memset(&fl, 0, sizeof fl);
  fl.l_type = type;
  fl.l_whence = SEEK_SET;
  fl.l_start = static_cast<off_t>(off);
  fl.l_len = static_cast<off_t>(len);
  // Kernels before 3.15 do not know open file description locks: classic locks then.
  static std::atomic<bool> ofd{true};  // the I/O thread locks too
  for (;;) {
    int rc = ::fcntl(fd, ofd ? F_OFD_SETLKW : F_SETLKW, &fl);
    if (rc == 0) return 0;
    if (errno == EINTR) continue;
    if (errno == EINVAL && ofd) {
      ofd = false;
      continue;
    }
    return errno;
  }
}

}  // namespace

RangeLock::RangeLock(int fd, uint64_t off, uint64_t len, bool exclusive) {
  if (len == 0) return;
  if (int err = set_lock(fd, exclusive ? F_WRLCK : F_RDLCK, off, len)) {
    err_ = {err, "fcntl(lock)", off};
    return;
  }
  fd_ = fd;
  off_ = off;
  len_ = len;
}

RangeLock::~RangeLock() {
  if (fd_ >= 0) set_lock(fd_, F_UNLCK, off_, len_);
}

std::string strip_fs_prefix(const char* name) {
  static const char* const kPrefixes[] = {"ufs:",  "nfs:",    "lustre:", "gpfs:", "pvfs2:",
                                          "xfs:",  "panfs:",  "daos:",   "testfs:",
                                          "gfs:",  "beegfs:", "romio:"};
  for (const char* p : kPrefixes) {
    size_t n = std::strlen(p);
    if (std::strncmp(name, p, n) == 0) return name + n;
  }
  return name;
}

std::string dir_of(const std::string& path) {
  size_t slash = path.rfind('/');
  if (slash == std::string::npos) return ".";
  if (slash == 0) return "/";
  return path.substr(0, slash);
}

std::string base_of(const std::string& path) {
  size_t slash = path.rfind('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

}  // namespace mpr::io
