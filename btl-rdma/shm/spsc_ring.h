// Single-producer/single-consumer ring of fixed-size slots in memory shared by two processes.
//
// The shared part (RingControl + slot array) holds only two monotonically increasing 64-bit
// counters and raw slot bytes: no pointers, because every process maps the segment at its own
// address. Each side keeps a private copy of the other side's counter and re-reads the shared
// one only when the ring looks full (producer) or empty (consumer), so the common case touches
// only the producer's own cache line plus the slot.
//
// Ordering: the producer fills a slot, then publishes tail with release; the consumer reads
// tail with acquire before touching the slot, and releases head only after it is done with the
// slot, so the producer (acquire on head) never overwrites a slot still being read.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>

namespace mpr::btl::shm {

constexpr size_t kCacheLine = 64;

/// Lives at the start of each ring in shared memory; zero-filled memory is an empty ring.
/// head and tail sit on separate cache lines so the two sides do not false-share.
struct RingControl {
  alignas(kCacheLine) std::atomic<uint64_t> head;  ///< slots consumed; written by the consumer
  alignas(kCacheLine) std::atomic<uint64_t> tail;  ///< slots published; written by the producer
};
static_assert(sizeof(RingControl) == 2 * kCacheLine);
// Cross-process atomics must not fall back to a process-local lock.
static_assert(std::atomic<uint64_t>::is_always_lock_free);

/// Shape of one ring. slots is a power of two (index masking); slot_size a multiple of the
/// cache line so consecutive slots never share a line.
struct RingGeometry {
  uint32_t slots = 0;
  uint32_t slot_size = 0;

  size_t bytes() const { return sizeof(RingControl) + size_t{slots} * slot_size; }
  bool valid() const {
    return slots >= 2 && (slots & (slots - 1)) == 0 && slot_size >= kCacheLine &&
           slot_size % kCacheLine == 0;
  }
};

namespace detail {
inline RingControl* control(void* base) { return static_cast<RingControl*>(base); }
inline uint8_t* slot_at(void* base, const RingGeometry& g, uint64_t index) {
  return static_cast<uint8_t*>(base) + sizeof(RingControl) +
         size_t(index & (g.slots - 1)) * g.slot_size;
}
}  // namespace detail

/// The producer's private view of a ring. One per (ring, producing process).
class RingProducer {
 public:
  RingProducer() = default;
  /// `base` points to the ring's RingControl (cache-line aligned) in shared memory.
  RingProducer(void* base, RingGeometry g)
      : base_(base),
        geo_(g),
        tail_(detail::control(base)->tail.load(std::memory_order_relaxed)),
        head_cache_(detail::control(base)->head.load(std::memory_order_acquire)) {}

  /// A free slot of geometry().slot_size bytes to fill, or nullptr when the ring is full.
  /// The slot becomes visible to the consumer only at publish(); reserving twice without
  /// publishing returns the same slot.
  uint8_t* try_reserve() {
    if (tail_ - head_cache_ == geo_.slots) {
      head_cache_ = detail::control(base_)->head.load(std::memory_order_acquire);
      if (tail_ - head_cache_ == geo_.slots) return nullptr;
    }
    return detail::slot_at(base_, geo_, tail_);
  }

  /// Hand the slot from the last successful try_reserve() to the consumer.
  void publish() { detail::control(base_)->tail.store(++tail_, std::memory_order_release); }

  const RingGeometry& geometry() const { return geo_; }
  bool attached() const { return base_ != nullptr; }

 private:
  void* base_ = nullptr;
  RingGeometry geo_;
  uint64_t tail_ = 0;
  uint64_t head_cache_ = 0;
};

/// The consumer's private view of a ring. One per (ring, consuming process).
class RingConsumer {
 public:
  RingConsumer() = default;
  RingConsumer(void* base, RingGeometry g)
      : base_(base),
        geo_(g),
        head_(detail::control(base)->head.load(std::memory_order_relaxed)),
        tail_cache_(detail::control(base)->tail.load(std::memory_order_acquire)) {}

  /// The oldest published slot, or nullptr when the ring is empty. Stays valid (and is
  /// returned again) until pop().
  const uint8_t* front() {
    if (head_ == tail_cache_) {
      tail_cache_ = detail::control(base_)->tail.load(std::memory_order_acquire);
      if (head_ == tail_cache_) return nullptr;
    }
    return detail::slot_at(base_, geo_, head_);
  }

  /// Return the front slot to the producer. Only after front() returned non-null.
  void pop() { detail::control(base_)->head.store(++head_, std::memory_order_release); }

  const RingGeometry& geometry() const { return geo_; }
  bool attached() const { return base_ != nullptr; }

 private:
  void* base_ = nullptr;
  RingGeometry geo_;
  uint64_t head_ = 0;
  uint64_t tail_cache_ = 0;
};

}  // namespace mpr::btl::shm
