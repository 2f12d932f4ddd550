// Small POSIX helpers shared by mprun's parts: an owning file descriptor and full writes.
#pragma once

#include <unistd.h>

#include <cstddef>
#include <string_view>
#include <utility>

namespace mpr::launch {

/// Owns one file descriptor; closes it on destruction. Move-only.
class UniqueFd {
 public:
  UniqueFd() = default;
  explicit UniqueFd(int fd) : fd_(fd) {}
  UniqueFd(UniqueFd&& other) noexcept : fd_(std::exchange(other.fd_, -1)) {}
  UniqueFd& operator=(UniqueFd&& other) noexcept {
    if (this != &other) reset(std::exchange(other.fd_, -1));
    return *this;
  }
  UniqueFd(const UniqueFd&) = delete;
  UniqueFd& operator=(const UniqueFd&) = delete;
  ~UniqueFd() { reset(); }

  int get() const { return fd_; }
  bool valid() const { return fd_ >= 0; }
  int release() { return std::exchange(fd_, -1); }
  void reset(int fd = -1) {
    if (fd_ >= 0) ::close(fd_);
    fd_ = fd;
  }

 private:
  int fd_ = -1;
};

/// Writes all of `data` to `fd`, waiting out EINTR and EAGAIN (a non-blocking stdout inherited
/// from the caller). Returns false if the fd is gone (EPIPE and friends); the rest is dropped.
bool write_all(int fd, std::string_view data);

/// Sets O_NONBLOCK on fd. Returns false on failure (errno set).
bool set_nonblocking(int fd);

}  // namespace mpr::launch
