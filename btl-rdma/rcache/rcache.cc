#include "btl-rdma/rcache/rcache.h"

#include <algorithm>
#include <cerrno>
#include <string>
#include <system_error>

namespace mpr::btl::rcache {

namespace {
uintptr_t page_floor(uintptr_t a) { return a & ~(page_size() - 1); }
uintptr_t page_ceil(uintptr_t a) { return (a + page_size() - 1) & ~(page_size() - 1); }
}  // namespace

Rcache::Rcache(Registrar& registrar, const Options& opts, FrameSource* frames)
    : registrar_(registrar), opts_(opts), frames_(frames) {
  if (opts_.validation == Validation::kPageFrames && !frames_)
    opts_.validation = Validation::kInUseOnly;
}

Rcache::~Rcache() {
  for (const auto& iv : map_.all()) destroy(iv.value);
  for (Region* r : std::vector<Region*>(detached_held_)) destroy(r);
}

Region* Rcache::acquire(const void* addr, size_t len) {
  const uintptr_t a = reinterpret_cast<uintptr_t>(addr);
  const uintptr_t lo = page_floor(a);
  const uintptr_t hi = std::max(page_ceil(a + len), lo + page_size());
  if (opts_.enabled) {
    if (Region** found = map_.find_containing(lo, hi)) {
      Region* r = *found;
      if (still_valid(r, lo, hi)) {
        ++stats_.hits;
        lru_remove(r);
        ++r->refs;
        return r;
      }
      ++stats_.invalidations;
      detach(r);
    }
  }
  ++stats_.misses;
  Region* r = register_range(lo, hi);
  r->refs = 1;
  if (opts_.enabled) {
    // Keep the map disjoint: whatever the new registration overlaps is no longer findable.
    // Holders of those regions keep using them; they are deregistered on their last release.
    for (const auto& iv : map_.overlapping(lo, hi)) detach(iv.value);
    map_.insert(lo, hi, r);
    r->cached = true;
  } else {
    detached_held_.push_back(r);
  }
  return r;
}

void Rcache::release(Region* r) {
  if (--r->refs > 0) return;
  const bool keep = r->cached && opts_.enabled && opts_.validation != Validation::kInUseOnly;
  if (!keep) {
    if (r->cached) map_.erase(r->start);
    destroy(r);
    return;
  }
  lru_.push_front(r);
  r->lru_pos = lru_.begin();
  r->in_lru = true;
  stats_.unused_bytes += r->end - r->start;
  trim();
  if (opts_.sweep_every && ++releases_ % opts_.sweep_every == 0) sweep();
}

size_t Rcache::flush() {
  while (evict_one()) {
  }
  size_t held = detached_held_.size();
  for (const auto& iv : map_.all())
    if (iv.value->refs > 0) ++held;
  return held;
}

// A region nobody holds may describe memory that was freed and re-mapped since; one that is
// held cannot (the holder's operation is still pending on it).
bool Rcache::still_valid(const Region* r, uintptr_t lo, uintptr_t hi) {
  switch (opts_.validation) {
    case Validation::kNone:
      return true;
    case Validation::kInUseOnly:
      return r->refs > 0;
    case Validation::kPageFrames:
      break;
  }
  const size_t first = (lo - r->start) / page_size();
  const size_t n = (hi - lo) / page_size();
  scratch_.resize(n);
  if (!frames_->read(lo, n, scratch_.data())) return false;
  for (size_t i = 0; i < n; ++i)
    if (scratch_[i] == 0 || scratch_[i] != r->frames[first + i]) return false;
  return true;
}

Region* Rcache::register_range(uintptr_t lo, uintptr_t hi) {
  int err = 0;
  void* handle = registrar_.reg(reinterpret_cast<void*>(lo), hi - lo, &err);
  // The pinned-memory limit (RLIMIT_MEMLOCK, or the device's translation table) is full:
  // registrations nobody holds are the ones to give back.
  while (!handle && (err == ENOMEM || err == EAGAIN) && evict_one()) {
    ++stats_.enomem_retries;
    handle = registrar_.reg(reinterpret_cast<void*>(lo), hi - lo, &err);
  }
  if (!handle)
    throw std::system_error(err, std::generic_category(),
                            "memory registration of " + std::to_string(hi - lo) + " bytes at " +
                                std::to_string(lo) + " failed");
  auto* r = new Region;
  r->start = lo;
  r->end = hi;
  r->handle = handle;
  ++stats_.live_regions;
  if (opts_.validation == Validation::kPageFrames) {
    // Frames read after registration are the pinned ones. An unreadable table leaves zeros,
    // which never validate, so the entry simply never hits.
    r->frames.assign((hi - lo) / page_size(), 0);
    if (!frames_->read(lo, r->frames.size(), r->frames.data()))
      std::fill(r->frames.begin(), r->frames.end(), 0);
  }
  return r;
}

// Takes r out of the map (and the LRU). Unheld: deregistered now; held: on its last release.
void Rcache::detach(Region* r) {
  if (!r->cached) return;
  map_.erase(r->start);
  r->cached = false;
  if (r->refs == 0) {
    destroy(r);
  } else {
    detached_held_.push_back(r);
  }
}

void Rcache::lru_remove(Region* r) {
  if (!r->in_lru) return;
  lru_.erase(r->lru_pos);
  r->in_lru = false;
  stats_.unused_bytes -= r->end - r->start;
}

void Rcache::destroy(Region* r) {
  lru_remove(r);
  auto it = std::find(detached_held_.begin(), detached_held_.end(), r);
  if (it != detached_held_.end()) detached_held_.erase(it);
  registrar_.deregister(r->handle);
  --stats_.live_regions;
  delete r;
}

bool Rcache::evict_one() {
  if (lru_.empty()) return false;
  Region* victim = lru_.back();
  ++stats_.evictions;
  map_.erase(victim->start);
  victim->cached = false;
  destroy(victim);
  return true;
}

// A cheap partial check (two pages per entry) is enough to drop an entry: a mismatch proves it
// stale. A match proves nothing, which is fine: hits are still checked in full.
void Rcache::sweep() {
  if (opts_.validation != Validation::kPageFrames) return;
  constexpr size_t kBatch = 8;
  std::vector<Region*> stale;
  size_t n = 0;
  for (auto it = lru_.rbegin(); it != lru_.rend() && n < kBatch; ++it, ++n) {
    Region* r = *it;
    const size_t last = r->frames.size() - 1;
    uint64_t f[2] = {0, 0};
    const bool ok =
        frames_->read(r->start, 1, &f[0]) && frames_->read(r->start + last * page_size(), 1, &f[1]);
    if (!ok || f[0] != r->frames[0] || f[1] != r->frames[last]) stale.push_back(r);
  }
  for (Region* r : stale) {
    ++stats_.invalidations;
    ++stats_.swept;
    detach(r);
  }
}

void Rcache::trim() {
  while (stats_.unused_bytes > opts_.max_unused_bytes || lru_.size() > opts_.max_unused_regions)
    if (!evict_one()) break;
}

}  // namespace mpr::btl::rcache
