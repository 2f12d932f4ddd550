// The per-job, per-node shared-memory segment: a header followed by one SPSC ring per ordered
// pair of local ranks. Local rank 0 creates it; the others attach; the last attacher unlinks the
// name so nothing is left in /dev/shm once everybody has it mapped, whatever happens later.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <string>

#include "btl-rdma/shm/spsc_ring.h"
#include "common/shm_object.h"

namespace mpr::btl::shm {

/// First bytes of the segment. Written by the creator before it publishes the name.
struct SegmentHeader {
  std::atomic<uint64_t> magic;  ///< kSegmentMagic once the header is complete
  uint32_t version;
  uint32_t nlocal;
  RingGeometry geometry;
  uint64_t rings_offset;  ///< from the segment start; page aligned
  uint64_t total_bytes;
  alignas(kCacheLine) std::atomic<uint32_t> attached;  ///< non-creators that have mapped it
  std::atomic<uint32_t> unlinked;                      ///< 1 once someone removed the name
};
static_assert(std::atomic<uint32_t>::is_always_lock_free);

constexpr uint64_t kSegmentMagic = 0x6d70722e73686d31ULL;  // "mpr.shm1"
constexpr uint32_t kSegmentVersion = 1;

/// The job id as the segment's name carries it (common/shm_object.h owns the scheme).
using common::sanitize_job_id;

/// Bytes of a segment for `nlocal` ranks: the header page plus nlocal*(nlocal-1) rings.
size_t segment_bytes(uint32_t nlocal, const RingGeometry& g);

/// A process's mapping of the segment. Move-only; the destructor unmaps (and, for the creator,
/// removes the name if nobody did yet).
class Segment {
 public:
  Segment() = default;
  ~Segment();
  Segment(Segment&& o) noexcept;
  Segment& operator=(Segment&& o) noexcept;
  Segment(const Segment&) = delete;
  Segment& operator=(const Segment&) = delete;

  /// Creates "/mpr.<sanitized job id>.<random hex>" through common::ShmObject (O_EXCL, mode
  /// 0600, memory reserved so a full /dev/shm fails here, not as SIGBUS later) and writes the
  /// header.
  /// Throws std::runtime_error naming the syscall and cause.
  static Segment create(const std::string& job_id, uint32_t nlocal, const RingGeometry& g);

  /// Maps an existing segment, checks its header against `nlocal`, counts this process as
  /// attached and unlinks the name if this was the last expected attacher.
  /// Throws std::runtime_error naming the syscall or the mismatch.
  static Segment attach(const std::string& name, uint32_t nlocal);

  /// Removes the name unless somebody already did. Safe to call from any attached process.
  void unlink_name();
  /// Unmaps (and unlinks if this process created it and the name is still there). Idempotent.
  void release();

  bool mapped() const { return obj_.base() != nullptr; }
  const std::string& name() const { return obj_.name(); }
  const SegmentHeader& header() const { return *static_cast<const SegmentHeader*>(obj_.base()); }
  /// Base of the ring carrying messages from local rank `sender` to local rank `receiver`.
  void* ring(int sender, int receiver) const;

 private:
  common::ShmObject obj_;
  bool creator_ = false;
};

}  // namespace mpr::btl::shm
