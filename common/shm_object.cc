#include "common/shm_object.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cinttypes>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <stdexcept>
#include <utility>
#include <vector>

namespace mpr::common {

namespace {

// NAME_MAX is 255 for /dev/shm entries; "mpr." + id + "." + kind + 16 hex digits must fit.
constexpr size_t kMaxIdChars = 200;
constexpr int kCreateAttempts = 8;

std::runtime_error sys_error(const std::string& what, int err) {
  return std::runtime_error(what + ": " + std::strerror(err));
}

uint64_t random_word() {
  uint64_t v = 0;
  if (getrandom(&v, sizeof v, 0) == sizeof v) return v;
  // getrandom only fails on ancient kernels or seccomp filters; O_EXCL still protects us.
  static uint64_t counter = 0;
  return (uint64_t(getpid()) << 32) ^ uint64_t(time(nullptr)) ^ uint64_t(uintptr_t(&v)) ^
         (++counter * 0x9e3779b97f4a7c15ULL);
}

}  // namespace

std::string sanitize_job_id(std::string_view job_id) {
  std::string out(job_id.substr(0, kMaxIdChars));
  for (char& c : out) {
    bool keep = (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ||
                c == '_' || c == '-';
    if (!keep) c = '_';
  }
  return out;
}

std::string shm_job_prefix(std::string_view job_id) {
  return "mpr." + sanitize_job_id(job_id) + ".";
}

bool shm_entry_of_job(std::string_view entry, std::string_view job_id) {
  return entry.starts_with(shm_job_prefix(job_id));
}

int remove_job_shm_objects(std::string_view job_id, const char* dir, bool with_spawned) {
  DIR* d = ::opendir(dir);
  if (!d) return 0;
  const std::string prefix = shm_job_prefix(job_id);
  const std::string spawned = "mpr." + sanitize_job_id(job_id) + "_";
  std::vector<std::string> doomed;
  while (dirent* e = ::readdir(d)) {
    const std::string_view name(e->d_name);
    if (name.starts_with(prefix) || (with_spawned && name.starts_with(spawned)))
      doomed.emplace_back(e->d_name);
  }
  ::closedir(d);
  int removed = 0;
  for (const std::string& name : doomed)
    if (::unlink((std::string(dir) + "/" + name).c_str()) == 0) ++removed;
  return removed;
}

ShmObject::ShmObject(ShmObject&& o) noexcept
    : base_(std::exchange(o.base_, nullptr)),
      bytes_(std::exchange(o.bytes_, 0)),
      name_(std::move(o.name_)) {}

ShmObject& ShmObject::operator=(ShmObject&& o) noexcept {
  if (this != &o) {
    unmap();
    base_ = std::exchange(o.base_, nullptr);
    bytes_ = std::exchange(o.bytes_, 0);
    name_ = std::move(o.name_);
  }
  return *this;
}

ShmObject ShmObject::create(std::string_view job_id, std::string_view kind, size_t bytes) {
  const std::string prefix = "/" + shm_job_prefix(job_id) + std::string(kind);
  std::string name;
  int fd = -1;
  for (int attempt = 0; fd < 0 && attempt < kCreateAttempts; ++attempt) {
    char hex[17];
    std::snprintf(hex, sizeof hex, "%016" PRIx64, random_word());
    name = prefix + hex;
    fd = shm_open(name.c_str(), O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
    if (fd < 0 && errno != EEXIST) throw sys_error("shm_open(" + name + ", O_CREAT|O_EXCL)", errno);
  }
  if (fd < 0) throw sys_error("shm_open(" + prefix + "*): no free random name", EEXIST);

  auto fail = [&](const std::string& call, int err) {
    close(fd);
    shm_unlink(name.c_str());
    return sys_error(call + " on " + name + " (" + std::to_string(bytes >> 10) + " KiB)", err);
  };
  if (ftruncate(fd, off_t(bytes)) != 0) throw fail("ftruncate", errno);
  if (int err = posix_fallocate(fd, 0, off_t(bytes)); err != 0) throw fail("posix_fallocate", err);
  void* base = mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  if (base == MAP_FAILED) throw fail("mmap", errno);
  close(fd);

  ShmObject s;
  s.base_ = base;
  s.bytes_ = bytes;
  s.name_ = std::move(name);
  return s;
}

ShmObject ShmObject::attach(const std::string& name, size_t bytes) {
  int fd = shm_open(name.c_str(), O_RDWR | O_CLOEXEC, 0);
  if (fd < 0) throw sys_error("shm_open(" + name + ")", errno);
  if (bytes == 0) {
    struct stat st;
    if (fstat(fd, &st) != 0) {
      int err = errno;
      close(fd);
      throw sys_error("fstat(" + name + ")", err);
    }
    bytes = size_t(st.st_size);
    if (bytes == 0) {
      close(fd);
      throw std::runtime_error("shared-memory object " + name + " is empty (0 bytes)");
    }
  }
  void* base = mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  int err = errno;
  close(fd);
  if (base == MAP_FAILED) throw sys_error("mmap(" + name + ")", err);
  ShmObject s;
  s.base_ = base;
  s.bytes_ = bytes;
  s.name_ = name;
  return s;
}

bool ShmObject::unlink() const { return !name_.empty() && shm_unlink(name_.c_str()) == 0; }

void ShmObject::unmap() {
  if (base_) munmap(base_, bytes_);
  base_ = nullptr;
  bytes_ = 0;
}

void* ShmObject::release() {
  bytes_ = 0;
  return std::exchange(base_, nullptr);
}

}  // namespace mpr::common
