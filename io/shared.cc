#include "io/shared.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cinttypes>
#include <cstdio>
#include <cstring>

namespace mpr::io {

SharedFp::~SharedFp() { close(); }

void SharedFp::init(const std::string& path, uint64_t token, bool one_node) {
  char tail[64];
  std::snprintf(tail, sizeof tail, ".mpr-shfp.%016" PRIx64, token);
  std::string dir = dir_of(path);
  path_ = (dir == "/" ? "" : dir) + "/." + base_of(path) + tail;
  fallback_ = std::string("/dev/shm/mpr-shfp") + tail;
  one_node_ = one_node;
}

SysError SharedFp::open_counter() {
  if (fd_ >= 0) return {};
  fd_ = ::open(path_.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0600);
  if (fd_ >= 0) return {};
  const int err = errno;
  if (one_node_ && (err == EACCES || err == EPERM || err == EROFS)) {
    fd_ = ::open(fallback_.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0600);
    if (fd_ >= 0) return {};
  }
  return {err, "open(shared file pointer)", 0};
}

namespace {

SysError get(int fd, int64_t* v) {
  unsigned char b[8] = {};
  SysError e;
  pread_full(fd, b, 8, 0, &e);  // a short (new) counter file reads as 0
  uint64_t x = 0;
  for (int i = 7; i >= 0; --i) x = x << 8 | b[i];
  *v = static_cast<int64_t>(x);
  return e;
}

SysError put(int fd, int64_t v) {
  unsigned char b[8];
  auto x = static_cast<uint64_t>(v);
  for (int i = 0; i < 8; ++i) b[i] = static_cast<unsigned char>(x >> (8 * i));
  SysError e;
  pwrite_full(fd, b, 8, 0, &e);
  return e;
}

}  // namespace

SysError SharedFp::fetch_add(int64_t delta, int64_t* old) {
  if (SysError e = open_counter()) return e;
  RangeLock lock(fd_, 0, 8, true);
  if (lock.error()) return lock.error();
  if (SysError e = get(fd_, old)) return e;
  if (delta == 0) return {};
  return put(fd_, *old + delta);
}

SysError SharedFp::read(int64_t* value) {
  if (SysError e = open_counter()) return e;
  RangeLock lock(fd_, 0, 8, false);
  if (lock.error()) return lock.error();
  return get(fd_, value);
}

SysError SharedFp::write(int64_t value) {
  if (SysError e = open_counter()) return e;
  RangeLock lock(fd_, 0, 8, true);
  if (lock.error()) return lock.error();
  return put(fd_, value);
}

SysError SharedFp::reset_if_open() {
  if (fd_ < 0) return {};
  return write(0);
}

void SharedFp::close() {
  if (fd_ >= 0) ::close(fd_);
  fd_ = -1;
}

void SharedFp::remove() {
  if (!path_.empty()) ::unlink(path_.c_str());
  if (one_node_ && !fallback_.empty()) ::unlink(fallback_.c_str());
}

}  // namespace mpr::io
