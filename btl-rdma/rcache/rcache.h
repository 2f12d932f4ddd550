// Registration cache: reuses memory registrations across reg()/dereg() pairs on the same buffer,
// because registering (pinning + programming the NIC's translation table) costs far more than a
// transfer of a few KiB.
//
// Soundness: a cached registration is handed out again only if it provably still describes the
// memory at its address (see Validation and page_frames.h). Backend-neutral: the backend
// supplies a Registrar (ibv_reg_mr / ibv_dereg_mr for verbs) so tests can run without a device.
#pragma once

#include <cstddef>
#include <cstdint>
#include <list>
#include <vector>

#include "btl-rdma/rcache/interval_map.h"
#include "btl-rdma/rcache/page_frames.h"

namespace mpr::btl::rcache {

/// What the backend registers and deregisters.
class Registrar {
 public:
  virtual ~Registrar() = default;
  /// Registers [start, start+len). Returns the backend's handle, or nullptr with *err set to
  /// the errno (ENOMEM makes the cache evict unused entries and retry).
  virtual void* reg(void* start, size_t len, int* err) = 0;
  virtual void deregister(void* handle) = 0;
};

/// How a cache hit on an entry nobody currently holds is proven safe.
enum class Validation : uint8_t {
  /// The registration follows the page tables (on-demand paging): always current.
  kNone,
  /// Compare page frames with those recorded at registration (needs frame numbers).
  kPageFrames,
  /// Nothing can be proven: an entry is reused only while somebody holds it (MPI forbids freeing
  /// a buffer with a pending operation), and deregistered as soon as the last holder releases.
  kInUseOnly,
};

struct Options {
  bool enabled = true;  ///< false: every acquire registers, every release drops
  Validation validation = Validation::kPageFrames;
  size_t max_unused_bytes = 256u << 20;  ///< LRU keeps at most this many unheld bytes registered
  size_t max_unused_regions = 1024;
  /// Every this many releases, check the oldest unheld entries' first and last pages and drop
  /// the ones whose memory is gone: a freed buffer that is never looked up again would otherwise
  /// stay pinned until the LRU limits push it out. 0 disables.
  unsigned sweep_every = 64;
};

struct Stats {
  uint64_t hits = 0;
  uint64_t misses = 0;
  uint64_t evictions = 0;       ///< unheld entries dropped by the LRU limits or for ENOMEM
  uint64_t invalidations = 0;   ///< entries found stale (memory re-mapped) and dropped
  uint64_t swept = 0;           ///< of those, found by the periodic sweep of unheld entries
  uint64_t enomem_retries = 0;  ///< registrations retried after evicting for ENOMEM
  size_t live_regions = 0;      ///< registrations that exist now (held, cached or detached)
  size_t unused_bytes = 0;      ///< bytes registered but held by nobody (LRU)
};

/// One registration. The backend reads `handle`; the cache owns everything else.
struct Region {
  uintptr_t start = 0;  ///< page-aligned
  uintptr_t end = 0;
  void* handle = nullptr;
  int refs = 0;
  bool cached = false;  ///< findable in the map; false once replaced or invalidated
  bool in_lru = false;
  std::list<Region*>::iterator lru_pos;
  std::vector<uint64_t> frames;  ///< Validation::kPageFrames: frame of each page at reg time
};

class Rcache {
 public:
  /// `frames` is used only with Validation::kPageFrames; it must outlive the cache.
  Rcache(Registrar& registrar, const Options& opts, FrameSource* frames);
  /// Deregisters everything still registered (held regions included: the backend is going).
  ~Rcache();
  Rcache(const Rcache&) = delete;
  Rcache& operator=(const Rcache&) = delete;

  /// A registration covering [addr, addr+len), held until release(). Throws std::system_error
  /// (errno of the failed registration) if the memory cannot be registered.
  Region* acquire(const void* addr, size_t len);
  /// Drops one hold. The region may stay registered (LRU) for a later acquire.
  void release(Region* region);

  /// Deregisters every unheld region. Returns the number still held (leaks at teardown).
  size_t flush();

  const Stats& stats() const { return stats_; }
  const Options& options() const { return opts_; }

 private:
  bool still_valid(const Region* r, uintptr_t lo, uintptr_t hi);
  Region* register_range(uintptr_t lo, uintptr_t hi);
  void detach(Region* r);
  void lru_remove(Region* r);
  void destroy(Region* r);
  bool evict_one();
  void trim();
  void sweep();

  Registrar& registrar_;
  Options opts_;
  FrameSource* frames_;
  IntervalMap<Region*> map_;
  std::list<Region*> lru_;              ///< unheld cached regions, most recently released first
  std::vector<Region*> detached_held_;  ///< out of the map but still held
  std::vector<uint64_t> scratch_;
  unsigned releases_ = 0;
  Stats stats_;
};

}  // namespace mpr::btl::rcache
