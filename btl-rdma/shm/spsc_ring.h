// Single-producer/single-consumer ring of fixed-size slots in memory shared by two processes.
//
// The shared part (RingControl + slot array) holds two monotonically increasing 64-bit counters
// and the slots: no pointers, because every process maps the segment at its own address. Each
// slot starts with a stamp word; the bytes after it are the caller's.
//
// The consumer polls the stamp of the slot it expects next: the producer writes n + 1 there
// (release) when it publishes message n, after filling the slot. So a poll, and the arrival of
// a small message, touch one cache line: the slot's first. (Polling the tail counter instead
// costs a second line transferred between the cores per message: an 8-byte half round trip
// took 0.135 us that way, 0.114 us this way, examples-style ping-pong on 2 cores.) The producer re-reads the consumer's head counter only when the ring
// looks full, and the consumer releases head only after it is done with the slot, so the
// producer (acquire on head) never overwrites a slot still being read. tail is still kept for
// tools and tests that look at a ring's fill level.
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
  /// Bytes of each slot that are the caller's (after the stamp).
  size_t payload_bytes() const;
  bool valid() const {
    return slots >= 2 && (slots & (slots - 1)) == 0 && slot_size >= kCacheLine &&
           slot_size % kCacheLine == 0;
  }
};

/// The stamp at the start of every slot: n + 1 once message n (counting from 0) is in it.
constexpr size_t kStampBytes = 8;
inline size_t RingGeometry::payload_bytes() const { return slot_size - kStampBytes; }

namespace detail {
inline RingControl* control(void* base) { return static_cast<RingControl*>(base); }
inline uint8_t* slot_at(void* base, const RingGeometry& g, uint64_t index) {
  return static_cast<uint8_t*>(base) + sizeof(RingControl) +
         size_t(index & (g.slots - 1)) * g.slot_size;
}
inline std::atomic<uint64_t>* stamp(uint8_t* slot) {
  return reinterpret_cast<std::atomic<uint64_t>*>(slot);
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

  /// A free slot of geometry().payload_bytes() bytes to fill, or nullptr when the ring is full.
  /// The slot becomes visible to the consumer only at publish(); reserving twice without
  /// publishing returns the same slot.
  uint8_t* try_reserve() {
    if (tail_ - head_cache_ == geo_.slots) {
      head_cache_ = detail::control(base_)->head.load(std::memory_order_acquire);
      if (tail_ - head_cache_ == geo_.slots) return nullptr;
    }
    return detail::slot_at(base_, geo_, tail_) + kStampBytes;
  }

  /// Hand the slot from the last successful try_reserve() to the consumer.
  void publish() {
    detail::stamp(detail::slot_at(base_, geo_, tail_))->store(tail_ + 1, std::memory_order_release);
    detail::control(base_)->tail.store(++tail_, std::memory_order_relaxed);
  }

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
        head_(detail::control(base)->head.load(std::memory_order_relaxed)) {}

  /// The oldest published slot, or nullptr when the ring is empty. Stays valid (and is
  /// returned again) until pop().
  const uint8_t* front() {
    uint8_t* slot = detail::slot_at(base_, geo_, head_);
    if (detail::stamp(slot)->load(std::memory_order_acquire) != head_ + 1) return nullptr;
    __builtin_prefetch(detail::slot_at(base_, geo_, head_ + 1));
    __builtin_prefetch(detail::slot_at(base_, geo_, head_ + 2));
    __builtin_prefetch(detail::slot_at(base_, geo_, head_ + 3));
    __builtin_prefetch(detail::slot_at(base_, geo_, head_ + 4));
    return slot + kStampBytes;
  }

  /// Return the front slot to the producer. Only after front() returned non-null.
  void pop() { detail::control(base_)->head.store(++head_, std::memory_order_release); }

  const RingGeometry& geometry() const { return geo_; }
  bool attached() const { return base_ != nullptr; }

 private:
  void* base_ = nullptr;
  RingGeometry geo_;
  uint64_t head_ = 0;
};

}  // namespace mpr::btl::shm
