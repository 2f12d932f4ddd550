#include "btl-rdma/shm/segment.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cinttypes>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <new>
#include <stdexcept>
#include <utility>

namespace mpr::btl::shm {

namespace {

constexpr size_t kPage = 4096;
// NAME_MAX is 255 for /dev/shm entries; "mpr." + id + "." + 16 hex digits must fit.
constexpr size_t kMaxIdChars = 200;
constexpr int kCreateAttempts = 8;

size_t round_up(size_t n, size_t to) { return (n + to - 1) / to * to; }

std::runtime_error sys_error(const std::string& what, int err) {
  return std::runtime_error(what + ": " + std::strerror(err));
}

uint64_t random_word() {
  uint64_t v = 0;
  if (getrandom(&v, sizeof v, 0) == sizeof v) return v;
  // getrandom only fails on ancient kernels or seccomp filters; O_EXCL still protects us.
  return (uint64_t(getpid()) << 32) ^ uint64_t(time(nullptr)) ^ uint64_t(uintptr_t(&v));
}

size_t rings_offset() { return round_up(sizeof(SegmentHeader), kPage); }
size_t ring_stride(const RingGeometry& g) { return round_up(g.bytes(), kCacheLine); }

}  // namespace

std::string sanitize_job_id(const std::string& job_id) {
  std::string out = job_id.substr(0, kMaxIdChars);
  for (char& c : out) {
    bool keep = (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ||
                c == '_' || c == '-';
    if (!keep) c = '_';
  }
  return out;
}

size_t segment_bytes(uint32_t nlocal, const RingGeometry& g) {
  size_t rings = size_t{nlocal} * (nlocal - 1);
  return round_up(rings_offset() + rings * ring_stride(g), kPage);
}

Segment::~Segment() { release(); }

Segment::Segment(Segment&& o) noexcept
    : base_(std::exchange(o.base_, nullptr)),
      bytes_(std::exchange(o.bytes_, 0)),
      name_(std::move(o.name_)),
      creator_(std::exchange(o.creator_, false)) {}

Segment& Segment::operator=(Segment&& o) noexcept {
  if (this != &o) {
    release();
    base_ = std::exchange(o.base_, nullptr);
    bytes_ = std::exchange(o.bytes_, 0);
    name_ = std::move(o.name_);
    creator_ = std::exchange(o.creator_, false);
  }
  return *this;
}

Segment Segment::create(const std::string& job_id, uint32_t nlocal, const RingGeometry& g) {
  size_t bytes = segment_bytes(nlocal, g);
  std::string prefix = "/mpr." + sanitize_job_id(job_id) + ".";
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
  // Reserve tmpfs pages now: a full /dev/shm becomes a clean error here instead of a SIGBUS on
  // some later first touch in the middle of a message.
  if (int err = posix_fallocate(fd, 0, off_t(bytes)); err != 0) throw fail("posix_fallocate", err);
  void* base = mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  if (base == MAP_FAILED) throw fail("mmap", errno);
  close(fd);

  // The file is zero-filled, which is what every RingControl and counter starts as.
  auto* h = new (base) SegmentHeader;
  h->version = kSegmentVersion;
  h->nlocal = nlocal;
  h->geometry = g;
  h->rings_offset = rings_offset();
  h->total_bytes = bytes;
  h->attached.store(0, std::memory_order_relaxed);
  h->unlinked.store(0, std::memory_order_relaxed);
  h->magic.store(kSegmentMagic, std::memory_order_release);

  Segment s;
  s.base_ = base;
  s.bytes_ = bytes;
  s.name_ = std::move(name);
  s.creator_ = true;
  return s;
}

Segment Segment::attach(const std::string& name, uint32_t nlocal) {
  int fd = shm_open(name.c_str(), O_RDWR | O_CLOEXEC, 0);
  if (fd < 0) throw sys_error("shm_open(" + name + ")", errno);
  struct stat st;
  if (fstat(fd, &st) != 0) {
    int err = errno;
    close(fd);
    throw sys_error("fstat(" + name + ")", err);
  }
  size_t bytes = size_t(st.st_size);
  if (bytes < sizeof(SegmentHeader)) {
    close(fd);
    throw std::runtime_error("segment " + name + " is too small (" + std::to_string(bytes) +
                             " bytes) to be an mpr shm segment");
  }
  void* base = mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  int err = errno;
  close(fd);
  if (base == MAP_FAILED) throw sys_error("mmap(" + name + ")", err);

  Segment s;
  s.base_ = base;
  s.bytes_ = bytes;
  s.name_ = name;
  const SegmentHeader& h = s.header();
  if (h.magic.load(std::memory_order_acquire) != kSegmentMagic || h.version != kSegmentVersion)
    throw std::runtime_error("segment " + name + " has no valid mpr shm header (version " +
                             std::to_string(h.version) + ")");
  if (h.nlocal != nlocal || h.total_bytes != bytes || !h.geometry.valid() ||
      segment_bytes(nlocal, h.geometry) != bytes)
    throw std::runtime_error("segment " + name + " was made for " + std::to_string(h.nlocal) +
                             " local ranks and " + std::to_string(h.total_bytes) +
                             " bytes; this rank expects " + std::to_string(nlocal) +
                             " local ranks and found " + std::to_string(bytes) + " bytes");
  auto* mh = static_cast<SegmentHeader*>(base);
  if (mh->attached.fetch_add(1, std::memory_order_acq_rel) + 1 == nlocal - 1) s.unlink_name();
  return s;
}

void Segment::unlink_name() {
  if (!base_) return;
  auto* h = static_cast<SegmentHeader*>(base_);
  if (h->unlinked.exchange(1, std::memory_order_acq_rel) == 0) shm_unlink(name_.c_str());
}

void Segment::release() {
  if (!base_) return;
  if (creator_) unlink_name();
  munmap(base_, bytes_);
  base_ = nullptr;
  bytes_ = 0;
  creator_ = false;
}

void* Segment::ring(int sender, int receiver) const {
  const SegmentHeader& h = header();
  // A receiver's inbound rings are contiguous, so its polling loop walks one region.
  size_t index =
      size_t(receiver) * (h.nlocal - 1) + size_t(sender < receiver ? sender : sender - 1);
  return static_cast<uint8_t*>(base_) + h.rings_offset + index * ring_stride(h.geometry);
}

}  // namespace mpr::btl::shm
