// Single-producer/single-consumer ring of variable-size records in memory shared by two
// processes.
//
// The shared part (RingControl + record area + spill area) holds two monotonically increasing
// 64-bit counters and the records: no pointers, because every process maps the segment at its
// own address.
//
// Layout. The area is cut in 16-byte cells. A record of one or two cells (a header word and up
// to 24 bytes) may start at any cell where it does not cross a cache line, so two tiny
// messages share a line. (One message per line made a stream of tiny messages cost a line
// transfer each; docs/MEASUREMENTS.md has the numbers behind this file's choices.) A longer record
// takes whole lines from a line start: where the previous record ended mid-line, the producer
// leaves a skip mark there and starts the record at the next line. (Records packed across line
// boundaries made 16-64 B streams 25% slower: the consumer read lines the producer was still
// writing into.) A record that does not fit before the end of the area runs on into the spill area
// behind it (one largest record long), so every record is contiguous; the next one starts at the
// wrapped position. A producer whose consumer keeps up goes back to cell 0 after the first 32 KiB,
// behind a skip mark over the rest of the area, so a steady exchange stays in a few cached lines.
//
// Publishing. Each record starts with a header word: a 14-bit stamp with the top bit of its 16
// set (so a published header is never zero), a skip bit, and 48 bits that are the caller's
// (meta; a skip mark's are the number of cells to skip). The consumer polls the header word of the
// cell where the next record starts; the producer writes it last (release), after filling the
// record. The word the consumer polls holds either 0 or a header published for it, never stale
// bytes of an older record (so no payload can pass for a header), because the producer zeroed it
// before publishing the record in front of it:
//   - mid-line, with that record, which ends in the same line;
//   - at a line start after a record of up to 8 lines, earlier: each such record, once
//     published, zeroes the line starts of the next zero_ahead lines past it (lines the
//     consumer left a lap ago, which neither side touched since);
//   - at a line start after a longer record, with that record. Its own lines it does not zero
//     first: it fills them, line starts included.
// Measured alternatives (2 cores, side by side with the old one-message-per-slot ring): the
// producer zeroing the line after every record before publishing it made 128-256 B
// ping-pong and allreduce 5-10% slower (a store to a line untouched for a lap delays the
// publishing store behind it); zeroing the lines a long record is about to fill made a 4 KiB
// stream 2.5x slower (each zeroing store reads its line in, the copy's full-line stores do
// not); the consumer zeroing the lines it leaves, at once or in batches, made 8 B allreduce
// 8% and a 4 KiB stream 45% slower (stores are seen in order: its zeroing held back its
// replies); ending long records one cell short of a line, so the next record started in a
// line already written, made ping-pong 8% slower (a skip mark there costs the consumer two
// dependent line transfers).
//
// Flow control. The producer re-reads the consumer's head counter only when the ring looks
// full, and the consumer releases head only after it is done with the record, so the producer
// (acquire on head) never overwrites a record still being read, and zeroes only lines the
// consumer has left. tail is kept for tools and tests that look at a ring's fill level. Both
// counters count cells, skipped ones included.
#pragma once

#include <atomic>
#include <cassert>
#include <cstddef>
#include <cstdint>

namespace mpr::btl::shm {

constexpr size_t kCacheLine = 64;
/// Records are whole numbers of cells.
constexpr size_t kCell = 16;
constexpr uint64_t kCellsPerLine = kCacheLine / kCell;
/// The header word at the start of every record.
constexpr size_t kStampBytes = 8;
/// Bits of the header word that are the caller's.
constexpr int kMetaBits = 48;

/// Lives at the start of each ring in shared memory; zero-filled memory is an empty ring.
/// head and tail sit on separate cache lines so the two sides do not false-share.
struct RingControl {
  alignas(kCacheLine) std::atomic<uint64_t> head;  ///< cells consumed; written by the consumer
  alignas(kCacheLine) std::atomic<uint64_t> tail;  ///< cells published; written by the producer
};
static_assert(sizeof(RingControl) == 2 * kCacheLine);
// Cross-process atomics must not fall back to a process-local lock.
static_assert(std::atomic<uint64_t>::is_always_lock_free);

/// Shape of one ring: slots * slot_size bytes of records, a record (header word included) at
/// most slot_size bytes. A ring holds `slots` records of the largest size, many more small
/// ones. slots is a power of two, slot_size a multiple of the cache line.
struct RingGeometry {
  uint32_t slots = 0;
  uint32_t slot_size = 0;

  /// Record area, without the spill area behind it.
  size_t area_bytes() const { return size_t{slots} * slot_size; }
  size_t bytes() const { return sizeof(RingControl) + area_bytes() + slot_size; }
  /// Largest body (the bytes of a record after its header word).
  size_t payload_bytes() const { return slot_size - kStampBytes; }
  bool valid() const {
    return slots >= 2 && (slots & (slots - 1)) == 0 && slot_size >= kCacheLine &&
           slot_size % kCacheLine == 0;
  }
};

namespace detail {
inline RingControl* control(void* base) { return static_cast<RingControl*>(base); }
inline uint8_t* area(void* base) { return static_cast<uint8_t*>(base) + sizeof(RingControl); }
inline std::atomic<uint64_t>* word_at(void* base, uint64_t cell) {
  return reinterpret_cast<std::atomic<uint64_t>*>(area(base) + cell * kCell);
}
/// Cells a record with a body of `body` bytes occupies: one or two, else whole lines.
inline uint64_t cells_for(size_t body) {
  const uint64_t k = (kStampBytes + body + kCell - 1) / kCell;
  return k <= 2 ? k : (k + kCellsPerLine - 1) & ~(kCellsPerLine - 1);
}
/// Cells to skip before a record of `k` cells at cell `pos`: the rest of the line, if the
/// record would cross into the next one.
inline uint64_t skip_for(uint64_t pos, uint64_t k) {
  const uint64_t off = pos % kCellsPerLine;
  return off != 0 && off + k > kCellsPerLine ? kCellsPerLine - off : 0;
}
/// Lines the producer zeroes ahead of the line it writes in.
inline uint64_t zero_ahead(uint64_t ncells) {
  const uint64_t lines = ncells / kCellsPerLine / 8;
  return lines < 1 ? 1 : lines > 8 ? 8 : lines;
}
inline uint64_t round_to_line(uint64_t cell) {
  return (cell + kCellsPerLine - 1) & ~(kCellsPerLine - 1);
}
/// The stamp of the record starting at cell counter `t`: never zero.
inline uint64_t stamp_for(uint64_t t) { return 0x8000u | (t & 0x3fffu); }
/// Stamp bit of a skip mark: the record is at the start of the next line.
constexpr uint64_t kSkipBit = 0x4000u;
}  // namespace detail

/// The producer's private view of a ring. One per (ring, producing process).
class RingProducer {
 public:
  RingProducer() = default;
  /// `base` points to the ring's RingControl (cache-line aligned) in shared memory.
  RingProducer(void* base, RingGeometry g)
      : base_(base),
        ncells_(g.area_bytes() / kCell),
        max_body_(g.payload_bytes()),
        ahead_(detail::zero_ahead(ncells_) * kCellsPerLine),
        soft_(ncells_ >= 4 * kSoftCells ? kSoftCells : ncells_),
        tail_(detail::control(base)->tail.load(std::memory_order_relaxed)),
        pos_(tail_ % ncells_),
        // Whoever produced before kept the lines this far ahead zeroed (zero-filled memory
        // for a new ring).
        zeroed_(detail::round_to_line(tail_) + ahead_),
        zpos_(zeroed_ % ncells_),
        head_cache_(detail::control(base)->head.load(std::memory_order_acquire)) {}

  /// Room for a record with a body of `body` bytes (at most max_body()) to fill, or nullptr
  /// when the ring is too full. The record becomes visible to the consumer only at
  /// publish(), which must be given the same `body`; reserving again without publishing
  /// returns the same place.
  uint8_t* try_reserve(size_t body) {
    // The line after the record is zeroed before it is published; a short record also keeps
    // ahead_ cells of lines zeroed past it, zeroing them after it is published (the stores to
    // lines not touched for a lap would otherwise delay the publishing store). A longer one
    // fills the line starts it covers and zeroes only the line after it: zeroing the lines it
    // is about to fill made a 4 KiB stream 2.5x slower (each zeroing store reads its line in,
    // where the copy's full-line stores do not).
    const uint64_t k = detail::cells_for(body);
    uint64_t skip = detail::skip_for(pos_, k);
    // Past the first soft_ cells, go back to cell 0 if the consumer keeps up (is less than a
    // quarter of that behind): records then stay in the same few lines, in both caches
    // (measurably faster for oversubscribed small collectives: docs/MEASUREMENTS.md).
    // Behind a consumer that lags, the producer runs on into the rest of the ring: the cells
    // skipped by going back are free again only once the consumer has passed the mark.
    if (pos_ + skip + k > soft_ && soft_ < ncells_ && pos_ != 0) {
      // Crossing the soft end now is worth a fresh look at head; further on, the cached one.
      if (pos_ <= soft_ && tail_ - head_cache_ > soft_ / 4)
        head_cache_ = detail::control(base_)->head.load(std::memory_order_acquire);
      const uint64_t wrap = ncells_ - pos_;
      if (tail_ - head_cache_ <= soft_ / 4 && room(wrap, k, false)) skip = wrap;
    }
    // The skipped cells, the record's, the rest of the line it ends in and the lines to zero
    // must be free: the consumer has left them.
    if (!room(skip, k, true)) return nullptr;
    const uint64_t rec_end = detail::round_to_line(tail_ + skip + k);
    if (zeroed_ < rec_end) {  // lines a longer record covers, or a skip to cell 0 passes over
      zpos_ += rec_end - zeroed_;
      if (zpos_ >= ncells_) zpos_ -= ncells_;
      zeroed_ = rec_end;
    }
    zero_to(rec_end + kCellsPerLine);
    k_ = k;
    skip_ = skip;
    return detail::area(base_) + start(skip) * kCell + kStampBytes;
  }

  /// Hand the record from the last successful try_reserve(`body`) to the consumer, with the
  /// low kMetaBits bits of `meta` in its header word.
  void publish([[maybe_unused]] size_t body, uint64_t meta) {
    assert(detail::cells_for(body) == k_);
    const uint64_t k = k_, skip = skip_;
    const uint64_t at = start(skip);
    uint64_t next = at + k;
    if (next >= ncells_) next -= ncells_;
    // Mid-line, the next record's header word is in the line just written.
    if (next % kCellsPerLine) detail::word_at(base_, next)->store(0, std::memory_order_relaxed);
    detail::word_at(base_, at)->store(detail::stamp_for(tail_ + skip) | (meta << (64 - kMetaBits)),
                                      std::memory_order_release);
    // The mark last: a consumer that follows it finds the record there.
    if (skip)
      detail::word_at(base_, pos_)
          ->store(detail::stamp_for(tail_) | detail::kSkipBit | skip << (64 - kMetaBits),
                  std::memory_order_release);
    const uint64_t rec_end = detail::round_to_line(tail_ + skip + k);
    tail_ += skip + k;
    pos_ = next;
    detail::control(base_)->tail.store(tail_, std::memory_order_relaxed);
    if (k <= kShortCells) zero_to(rec_end + ahead_);
  }

  size_t max_body() const { return max_body_; }
  bool attached() const { return base_ != nullptr; }

 private:
  /// Records of up to this many cells keep lines zeroed ahead (see try_reserve).
  static constexpr uint64_t kShortCells = 8 * kCellsPerLine;
  /// Where the producer goes back to cell 0 when it can (32 KiB), in rings of 4x that or more.
  static constexpr uint64_t kSoftCells = 2048;

  // Whether a record of `k` cells after `skip` cells fits, with the lines it zeroes: the
  // consumer has left them all. `reload`: look at the consumer's head again if the cached
  // one says no.
  bool room(uint64_t skip, uint64_t k, bool reload) {
    const uint64_t rec_end = detail::round_to_line(tail_ + skip + k);
    const uint64_t end = k <= kShortCells ? rec_end + ahead_ : rec_end + kCellsPerLine;
    if (end - head_cache_ <= ncells_) return true;
    if (!reload) return false;
    head_cache_ = detail::control(base_)->head.load(std::memory_order_acquire);
    return end - head_cache_ <= ncells_;
  }

  // Zeroes the first word of the lines up to cell counter `end` not zeroed yet.
  void zero_to(uint64_t end) {
    for (; zeroed_ < end; zeroed_ += kCellsPerLine) {
      detail::word_at(base_, zpos_)->store(0, std::memory_order_relaxed);
      zpos_ += kCellsPerLine;
      if (zpos_ == ncells_) zpos_ = 0;
    }
  }

  // Where a record starts after `skip` cells: a skip ends at a line start, at the latest the
  // end of the area, which is cell 0.
  uint64_t start(uint64_t skip) const {
    const uint64_t at = pos_ + skip;
    return at == ncells_ ? 0 : at;
  }

  void* base_ = nullptr;
  uint64_t ncells_ = 0;
  size_t max_body_ = 0;
  uint64_t ahead_ = 0;       ///< cells of the lines zeroed ahead
  uint64_t soft_ = 0;        ///< records past this cell go back to cell 0 if they can
  uint64_t tail_ = 0;        ///< cells published
  uint64_t pos_ = 0;         ///< tail_ % ncells_: the cell after the last record
  uint64_t zeroed_ = 0;      ///< line starts before this cell counter are zeroed for this lap
  uint64_t zpos_ = 0;        ///< zeroed_ % ncells_
  uint64_t head_cache_ = 0;  ///< the consumer's head when last read
  uint64_t k_ = 0;           ///< cells of the reserved record
  uint64_t skip_ = 0;        ///< cells skipped before it
};

/// The consumer's private view of a ring. One per (ring, consuming process).
class RingConsumer {
 public:
  RingConsumer() = default;
  RingConsumer(void* base, RingGeometry g)
      : base_(base),
        ncells_(g.area_bytes() / kCell),
        head_(detail::control(base)->head.load(std::memory_order_relaxed)),
        pos_(head_ % ncells_) {}

  /// The body of the oldest published record, its meta in `*meta`; nullptr when the ring is
  /// empty. Stays valid (and is returned again) until pop().
  const uint8_t* front(uint64_t* meta) {
    uint64_t w = detail::word_at(base_, pos_)->load(std::memory_order_acquire);
    if ((w & 0xffffu) != detail::stamp_for(head_)) {
      if ((w & 0xffffu) != (detail::stamp_for(head_) | detail::kSkipBit)) return nullptr;
      const uint64_t skip = w >> (64 - kMetaBits);
      if (skip == 0 || skip > ncells_ - pos_) return nullptr;  // a corrupted ring
      advance(skip);
      w = detail::word_at(base_, pos_)->load(std::memory_order_acquire);
      // Published before the mark, so present; a mismatch is a corrupted ring.
      if ((w & 0xffffu) != detail::stamp_for(head_)) return nullptr;
    }
    *meta = w >> (64 - kMetaBits);
    return detail::area(base_) + pos_ * kCell + kStampBytes;
  }

  /// Return the front record, whose body is `body` bytes, to the producer. Only after front()
  /// returned non-null.
  void pop(size_t body) {
    advance(detail::cells_for(body));
    detail::control(base_)->head.store(head_, std::memory_order_release);
  }

  bool attached() const { return base_ != nullptr; }

 private:
  void advance(uint64_t k) {
    head_ += k;
    pos_ += k;
    if (pos_ >= ncells_) pos_ -= ncells_;
  }

  void* base_ = nullptr;
  uint64_t ncells_ = 0;
  uint64_t head_ = 0;  ///< cells consumed
  uint64_t pos_ = 0;   ///< head_ % ncells_: where the next record starts
};

}  // namespace mpr::btl::shm
