#include "btl-rdma/rcache/page_frames.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <vector>

namespace mpr::btl::rcache {

namespace {
// pagemap entry layout (Documentation/admin-guide/mm/pagemap.rst).
constexpr uint64_t kPresent = 1ull << 63;
constexpr uint64_t kFrameMask = (1ull << 55) - 1;
// Entries read per pread: bounds the stack/heap scratch for huge ranges.
constexpr size_t kBatch = 4096;
}  // namespace

size_t page_size() {
  static const size_t size = static_cast<size_t>(sysconf(_SC_PAGESIZE));
  return size;
}

PagemapFrames& PagemapFrames::instance() {
  static PagemapFrames frames;
  return frames;
}

PagemapFrames::PagemapFrames() {
  fd_ = open("/proc/self/pagemap", O_RDONLY | O_CLOEXEC);
  if (fd_ < 0) return;
  // Probe with a page we own and have just written, so it is present.
  std::vector<char> probe(2 * page_size());
  uintptr_t page =
      (reinterpret_cast<uintptr_t>(probe.data()) + page_size() - 1) & ~(page_size() - 1);
  *reinterpret_cast<volatile char*>(page) = 1;
  uint64_t frame = 0;
  visible_ = read(page, 1, &frame) && frame != 0;
}

PagemapFrames::~PagemapFrames() {
  if (fd_ >= 0) close(fd_);
}

bool PagemapFrames::read(uintptr_t start, size_t npages, uint64_t* out) {
  if (fd_ < 0) return false;
  uint64_t buf[kBatch];
  size_t done = 0;
  while (done < npages) {
    size_t n = npages - done < kBatch ? npages - done : kBatch;
    off_t off = static_cast<off_t>((start / page_size() + done) * sizeof(uint64_t));
    ssize_t got = pread(fd_, buf, n * sizeof(uint64_t), off);
    if (got < 0 && errno == EINTR) continue;
    if (got <= 0 || got % sizeof(uint64_t) != 0) return false;
    size_t entries = static_cast<size_t>(got) / sizeof(uint64_t);
    for (size_t i = 0; i < entries; ++i)
      out[done + i] = (buf[i] & kPresent) ? (buf[i] & kFrameMask) : 0;
    done += entries;
  }
  return true;
}

}  // namespace mpr::btl::rcache
