// Which physical page frame backs each virtual page, read from /proc/self/pagemap.
//
// The registration cache uses this to prove that a cached registration still describes the
// memory at its address. A registration pins its page frames: while it exists, none of them can
// be handed to another mapping. So if every page of a range is present and maps the same frame
// it mapped when the registration was made, the range was not freed/unmapped and re-mapped in
// between (a re-mapping gets fresh frames, since the old ones are still pinned), and it was not
// copied on write (fork) or zapped (MADV_DONTNEED) either.
#pragma once

#include <cstddef>
#include <cstdint>

namespace mpr::btl::rcache {

/// Source of page-frame numbers. An interface so cache tests can fake it.
class FrameSource {
 public:
  virtual ~FrameSource() = default;
  /// Frame numbers of the `npages` pages starting at page-aligned `start` into out[0..npages).
  /// A page that is not present (never touched, swapped, unmapped) reads as 0.
  /// Returns false if the table cannot be read (then nothing can be proved).
  virtual bool read(uintptr_t start, size_t npages, uint64_t* out) = 0;
};

/// The real thing: /proc/self/pagemap. Frame numbers are only visible with CAP_SYS_ADMIN;
/// without it the kernel reports 0 for every frame and frames_visible() is false.
class PagemapFrames final : public FrameSource {
 public:
  /// The process-wide instance (opens /proc/self/pagemap once, keeps it open).
  static PagemapFrames& instance();

  bool read(uintptr_t start, size_t npages, uint64_t* out) override;
  /// True if frame numbers are readable, so the cache can validate entries with them.
  bool frames_visible() const { return visible_; }

 private:
  PagemapFrames();
  ~PagemapFrames() override;
  int fd_ = -1;
  bool visible_ = false;
};

/// Page size of this process (sysconf, read once).
size_t page_size();

}  // namespace mpr::btl::rcache
