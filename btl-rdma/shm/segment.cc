#include "btl-rdma/shm/segment.h"

#include <new>
#include <stdexcept>
#include <utility>

namespace mpr::btl::shm {

namespace {

constexpr size_t kPage = 4096;

size_t round_up(size_t n, size_t to) { return (n + to - 1) / to * to; }

size_t rings_offset() { return round_up(sizeof(SegmentHeader), kPage); }
size_t ring_stride(const RingGeometry& g) { return round_up(g.bytes(), kCacheLine); }

}  // namespace

size_t segment_bytes(uint32_t nlocal, const RingGeometry& g) {
  size_t rings = size_t{nlocal} * (nlocal - 1);
  return round_up(rings_offset() + rings * ring_stride(g), kPage);
}

Segment::~Segment() { release(); }

Segment::Segment(Segment&& o) noexcept
    : obj_(std::move(o.obj_)), creator_(std::exchange(o.creator_, false)) {}

Segment& Segment::operator=(Segment&& o) noexcept {
  if (this != &o) {
    release();
    obj_ = std::move(o.obj_);
    creator_ = std::exchange(o.creator_, false);
  }
  return *this;
}

Segment Segment::create(const std::string& job_id, uint32_t nlocal, const RingGeometry& g) {
  Segment s;
  s.obj_ = common::ShmObject::create(job_id, "", segment_bytes(nlocal, g));
  s.creator_ = true;

  // The object is zero-filled, which is what every RingControl and counter starts as.
  auto* h = new (s.obj_.base()) SegmentHeader;
  h->version = kSegmentVersion;
  h->nlocal = nlocal;
  h->geometry = g;
  h->rings_offset = rings_offset();
  h->total_bytes = s.obj_.bytes();
  h->attached.store(0, std::memory_order_relaxed);
  h->unlinked.store(0, std::memory_order_relaxed);
  h->magic.store(kSegmentMagic, std::memory_order_release);
  return s;
}

Segment Segment::attach(const std::string& name, uint32_t nlocal) {
  Segment s;
  s.obj_ = common::ShmObject::attach(name);
  const size_t bytes = s.obj_.bytes();
  if (bytes < sizeof(SegmentHeader))
    throw std::runtime_error("segment " + name + " is too small (" + std::to_string(bytes) +
                             " bytes) to be an mpr shm segment");
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
  auto* mh = static_cast<SegmentHeader*>(s.obj_.base());
  if (mh->attached.fetch_add(1, std::memory_order_acq_rel) + 1 == nlocal - 1) s.unlink_name();
  return s;
}

void Segment::unlink_name() {
  if (!obj_.base()) return;
  auto* h = static_cast<SegmentHeader*>(obj_.base());
  if (h->unlinked.exchange(1, std::memory_order_acq_rel) == 0) obj_.unlink();
}

void Segment::release() {
  if (!obj_.base()) return;
  if (creator_) unlink_name();
  obj_.unmap();
  creator_ = false;
}

void* Segment::ring(int sender, int receiver) const {
  const SegmentHeader& h = header();
  // A receiver's inbound rings are contiguous, so its polling loop walks one region.
  size_t index =
      size_t(receiver) * (h.nlocal - 1) + size_t(sender < receiver ? sender : sender - 1);
  return static_cast<uint8_t*>(obj_.base()) + h.rings_offset + index * ring_stride(h.geometry);
}

}  // namespace mpr::btl::shm
