// The SPSC record ring on its own, in one process: ordering, packing, wraparound through the
// spill area, full/empty, stale bytes that look like headers, and two threads hammering it the
// way two processes do through the segment.
#include <catch2/catch.hpp>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <thread>
#include <vector>

#include "btl-rdma/shm/spsc_ring.h"

using mpr::btl::shm::kCell;
using mpr::btl::shm::kStampBytes;
using mpr::btl::shm::RingConsumer;
using mpr::btl::shm::RingControl;
using mpr::btl::shm::RingGeometry;
using mpr::btl::shm::RingProducer;

namespace {

// Zeroed, cache-line aligned memory standing in for the shared segment.
struct RingMemory {
  explicit RingMemory(RingGeometry g) : geo(g) {
    mem = static_cast<uint8_t*>(std::aligned_alloc(64, g.bytes()));
    std::memset(mem, 0, g.bytes());
  }
  ~RingMemory() { std::free(mem); }
  /// Where the records start, after the RingControl.
  const uint8_t* area() const { return mem + sizeof(RingControl); }
  RingGeometry geo;
  uint8_t* mem;
};

// A ring with its producer and consumer views, for tests that drive both in one thread.
struct Rig {
  explicit Rig(RingGeometry g) : m(g), p(m.mem, g), c(m.mem, g) {}
  RingMemory m;
  RingProducer p;
  RingConsumer c;
};

// A record body: `len` bytes derived from the sequence number; the meta carries both.
uint64_t meta_of(uint64_t seq, uint32_t len) { return (seq & 0xffff) | uint64_t(len) << 16; }

void write_body(uint8_t* body, uint64_t seq, uint32_t len) {
  for (uint32_t i = 0; i < len; ++i) body[i] = uint8_t(seq * 7 + i);
}

bool publish(RingProducer& p, uint64_t seq, uint32_t len) {
  uint8_t* body = p.try_reserve(len);
  if (!body) return false;
  write_body(body, seq, len);
  p.publish(len, meta_of(seq, len));
  return true;
}

// Pops the front record; returns its length if it is `want_seq` intact, else -1 (also when
// the ring is empty).
long take(RingConsumer& c, uint64_t want_seq) {
  uint64_t meta = 0;
  const uint8_t* body = c.front(&meta);
  if (!body) return -1;
  const uint32_t len = uint32_t(meta >> 16);
  bool ok = (meta & 0xffff) == (want_seq & 0xffff);
  for (uint32_t i = 0; ok && i < len; ++i) ok = body[i] == uint8_t(want_seq * 7 + i);
  c.pop(len);
  return ok ? long(len) : -1;
}

}  // namespace

TEST_CASE("ring geometry validation", "[ring]") {
  CHECK(RingGeometry{64, 16384}.valid());
  CHECK(RingGeometry{2, 64}.valid());
  CHECK_FALSE(RingGeometry{1, 64}.valid());
  CHECK_FALSE(RingGeometry{48, 64}.valid());
  CHECK_FALSE(RingGeometry{64, 100}.valid());
  // Record area plus one largest record of spill behind it.
  CHECK(RingGeometry{4, 128}.bytes() == sizeof(RingControl) + 4 * 128 + 128);
  CHECK(RingGeometry{4, 128}.payload_bytes() == 128 - kStampBytes);
}

TEST_CASE("ring starts empty and delivers one record", "[ring]") {
  Rig rig({4, 128});
  auto& [m, p, c] = rig;
  uint64_t meta;
  CHECK(c.front(&meta) == nullptr);
  uint8_t* body = p.try_reserve(40);
  REQUIRE(body != nullptr);
  write_body(body, 1, 40);
  CHECK(c.front(&meta) == nullptr);  // reserved but not published: invisible
  p.publish(40, meta_of(1, 40));
  const uint8_t* got = c.front(&meta);
  REQUIRE(got != nullptr);
  CHECK(got == body);
  CHECK(meta == meta_of(1, 40));
  CHECK(c.front(&meta) == got);  // front is idempotent until pop
  CHECK(take(c, 1) == 40);
  CHECK(c.front(&meta) == nullptr);
}

TEST_CASE("small records share cache lines, longer ones take whole lines", "[ring]") {
  Rig rig({4, 256});
  auto& [m, p, c] = rig;
  // A 24-byte body and its header word are 32 bytes: two records to a 64-byte line.
  uint8_t* first = p.try_reserve(24);
  p.publish(24, meta_of(0, 24));
  uint8_t* second = p.try_reserve(24);
  p.publish(24, meta_of(1, 24));
  CHECK(second - first == 32);
  // One byte more needs a third cell: the record takes a whole line.
  uint8_t* third = p.try_reserve(25);
  p.publish(25, meta_of(2, 25));
  CHECK(third - second == 32);
  uint8_t* fourth = p.try_reserve(0);
  CHECK(fourth - third == 64);
  CHECK(reinterpret_cast<RingControl*>(m.mem)->tail.load() == 2 + 2 + 4);
}

TEST_CASE("ring full returns nullptr until the consumer frees room", "[ring]") {
  // 512 bytes (8 lines) of records, the line after the last one kept zeroed: seven 56-byte
  // bodies (64-byte records) fill it.
  Rig rig({8, 64});
  auto& [m, p, c] = rig;
  for (uint64_t i = 0; i < 7; ++i) REQUIRE(publish(p, i, 56));
  CHECK(p.try_reserve(56) == nullptr);
  CHECK(p.try_reserve(8) == nullptr);
  uint64_t meta;
  REQUIRE(c.front(&meta) != nullptr);
  CHECK(p.try_reserve(56) == nullptr);  // front without pop frees nothing
  CHECK(take(c, 0) == 56);
  REQUIRE(publish(p, 7, 56));
  CHECK(p.try_reserve(56) == nullptr);
  for (uint64_t i = 1; i <= 7; ++i) CHECK(take(c, i) == 56);
  CHECK(c.front(&meta) == nullptr);
}

TEST_CASE("the producer writes only in lines the consumer has left", "[ring]") {
  Rig rig({2, 64});  // 8 cells, 2 lines, one of them kept zeroed ahead
  auto& [m, p, c] = rig;
  for (uint64_t i = 0; i < 4; ++i) REQUIRE(publish(p, i, 8));  // one cell each: line 0
  CHECK(p.try_reserve(8) == nullptr);
  // Cells of line 0 are free one by one, but the producer waits until the consumer is done
  // with the whole line before it zeroes the line's first word.
  for (uint64_t i = 0; i < 3; ++i) {
    CHECK(take(c, i) == 8);
    CHECK(p.try_reserve(8) == nullptr);
  }
  CHECK(take(c, 3) == 8);
  for (uint64_t i = 4; i < 8; ++i) REQUIRE(publish(p, i, 8));  // line 1
  CHECK(p.try_reserve(8) == nullptr);
  for (uint64_t i = 4; i < 8; ++i) CHECK(take(c, i) == 8);
  uint64_t meta;
  CHECK(c.front(&meta) == nullptr);
}

TEST_CASE("a record that reaches the end of the ring stays contiguous in the spill area",
          "[ring]") {
  Rig rig({4, 128});  // 32 cells of records, 8 of spill
  auto& [m, p, c] = rig;
  // 28 cells of 1-cell records, then a 120-byte body (8 cells) from cell 28 to 35.
  for (uint64_t i = 0; i < 28; ++i) {
    REQUIRE(publish(p, i, 8));
    CHECK(take(c, i) == 8);
  }
  uint8_t* body = p.try_reserve(120);
  REQUIRE(body != nullptr);
  CHECK(body == m.area() + 28 * kCell + kStampBytes);
  write_body(body, 28, 120);
  p.publish(120, meta_of(28, 120));
  // The next record starts at cell 36 - 32 = 4 of the area.
  uint8_t* next = p.try_reserve(8);
  REQUIRE(next != nullptr);
  CHECK(next == m.area() + 4 * kCell + kStampBytes);
  write_body(next, 29, 8);
  p.publish(8, meta_of(29, 8));
  CHECK(take(c, 28) == 120);
  CHECK(take(c, 29) == 8);
  uint64_t meta;
  CHECK(c.front(&meta) == nullptr);
}

TEST_CASE("a record that would cross a cache line starts the next one", "[ring]") {
  Rig rig({4, 128});  // 32 cells, 8 lines
  auto& [m, p, c] = rig;
  const uint8_t* area = m.area();
  auto cell_of = [&](const uint8_t* body) { return (body - kStampBytes - area) / long(kCell); };
  auto put = [&](uint64_t seq, uint32_t len) {
    uint8_t* b = p.try_reserve(len);
    REQUIRE(b != nullptr);
    write_body(b, seq, len);
    p.publish(len, meta_of(seq, len));
    return cell_of(b);
  };
  CHECK(put(0, 8) == 0);     // 1 cell
  CHECK(put(1, 24) == 1);    // 2 cells: 1-2 fit the line
  CHECK(put(2, 24) == 4);    // 3-4 would cross: skip cell 3
  CHECK(put(3, 8) == 6);     // 1 cell
  CHECK(put(4, 40) == 8);    // a whole line: skip cell 7
  CHECK(put(5, 100) == 12);  // two lines
  // The consumer follows the skip marks; the counters include the skipped cells.
  CHECK(reinterpret_cast<RingControl*>(m.mem)->tail.load() == 20);
  for (uint64_t i = 0; i < 6; ++i) CHECK(take(c, i) >= 0);
  uint64_t meta;
  CHECK(c.front(&meta) == nullptr);
  // A skip over the rest of the last line of the area goes on at cell 0.
  for (uint64_t i = 6; i < 15; ++i) CHECK(put(i, 8) == long(20 + i - 6));  // cells 20-28
  CHECK(put(15, 40) == 0);
  CHECK(put(16, 8) == 4);
  for (uint64_t i = 6; i < 17; ++i) CHECK(take(c, i) >= 0);
  CHECK(c.front(&meta) == nullptr);
  CHECK(reinterpret_cast<RingControl*>(m.mem)->head.load() == 32 + 5);
}

TEST_CASE("a producer goes back to the start after 32 KiB when the consumer keeps up", "[ring]") {
  Rig rig({64, 4096});  // 256 KiB of records
  auto& [m, p, c] = rig;
  const uint8_t* area = m.area();
  uint64_t seq = 0;
  // 1 KiB records (65 cells with the header word, 68 as whole lines): the 31st would end
  // past 32 KiB, so it starts over at cell 0 behind a skip mark.
  std::vector<const uint8_t*> at;
  for (int i = 0; i < 40; ++i) {
    uint8_t* b = p.try_reserve(1024);
    REQUIRE(b != nullptr);
    at.push_back(b);
    write_body(b, seq, 1024);
    p.publish(1024, meta_of(seq, 1024));
    CHECK(take(c, seq) == 1024);
    ++seq;
  }
  CHECK(at[30] == area + kStampBytes);
  CHECK(at[31] == at[1]);
  // A consumer that lags: the producer runs on past 32 KiB into the rest of the ring.
  const uint64_t first = seq;
  for (int i = 0; i < 200; ++i) {
    REQUIRE(publish(p, seq, 1024));
    ++seq;
  }
  uint64_t meta;
  const uint8_t* last = nullptr;
  for (uint64_t i = first; i < seq; ++i) {
    last = c.front(&meta);
    REQUIRE(last != nullptr);
    CHECK(take(c, i) == 1024);
  }
  CHECK(last - area > 32 * 1024);
  CHECK(c.front(&meta) == nullptr);
}

TEST_CASE("payload bytes that look like a header are never read as one", "[ring]") {
  // Every cell-aligned word of every body holds the header word a record starting at that
  // cell one lap later would carry. The consumer only ever polls a word the producer zeroed
  // since (or a header published there), so none of them is read as a record.
  Rig rig({2, 128});  // 16 cells, 4 lines
  auto& [m, p, c] = rig;
  const uint8_t* area = m.area();
  const uint64_t ncells = m.geo.area_bytes() / kCell;
  uint64_t sent = 0, received = 0, rng = 12345;
  auto next_rand = [&] {
    rng = rng * 6364136223846793005ULL + 1442695040888963407ULL;
    return rng >> 33;
  };
  for (int round = 0; round < 20000; ++round) {
    for (uint64_t n = next_rand() % 4; n > 0; --n) {
      // Mostly one- and two-cell records, some of a line or two.
      const uint32_t len =
          next_rand() % 3 ? uint32_t(next_rand() % 25) : uint32_t(next_rand() % 121);
      uint8_t* body = p.try_reserve(len);
      if (!body) break;
      const uint64_t tail = reinterpret_cast<RingControl*>(m.mem)->tail.load();
      const uint64_t cell = uint64_t(body - kStampBytes - area) / kCell;
      const uint64_t start = tail + (cell + ncells - tail % ncells) % ncells;  // its counter
      write_body(body, sent, len);
      for (uint32_t off = 8; off + 8 <= len + kStampBytes - 8; off += 16) {
        const uint64_t at = start + (kStampBytes + off) / kCell;
        const uint64_t fake = (0x8000u | ((at + ncells) & 0x3fff)) | meta_of(9999, 0) << 16;
        std::memcpy(body + off, &fake, 8);
      }
      p.publish(len, meta_of(sent, len));
      ++sent;
    }
    for (uint64_t n = next_rand() % 4; n > 0; --n) {
      uint64_t meta;
      const uint8_t* body = c.front(&meta);
      if (!body) break;
      REQUIRE((meta & 0xffff) == (received & 0xffff));
      c.pop(uint32_t(meta >> 16));
      ++received;
    }
  }
  uint64_t meta;
  while (const uint8_t* body = c.front(&meta)) {
    REQUIRE(body != nullptr);
    REQUIRE((meta & 0xffff) == (received & 0xffff));
    c.pop(uint32_t(meta >> 16));
    ++received;
  }
  CHECK(received == sent);
  CHECK(sent > 20000);
}

TEST_CASE("ring wraps around many times keeping order and contents", "[ring]") {
  Rig rig({4, 256});
  auto& [m, p, c] = rig;
  uint64_t sent = 0, received = 0;
  const uint32_t max_len = uint32_t(m.geo.payload_bytes());
  // Uneven batches and sizes so records cross the end of the area at every offset.
  for (int round = 0; round < 3000; ++round) {
    int batch = 1 + round % 4;
    for (int i = 0; i < batch; ++i) {
      if (!publish(p, sent, uint32_t((sent * 37) % (max_len + 1)))) break;
      ++sent;
    }
    int want = 1 + (round * 7) % 4;
    for (int i = 0; i < want; ++i) {
      uint64_t meta;
      if (!c.front(&meta)) break;
      REQUIRE(take(c, received) >= 0);
      ++received;
    }
  }
  uint64_t meta;
  while (c.front(&meta)) {
    REQUIRE(take(c, received) >= 0);
    ++received;
  }
  CHECK(received == sent);
  CHECK(sent > 3000);
}

TEST_CASE("a view made later continues where the counters are", "[ring]") {
  // Views are process-private; a process that attaches late must pick up the shared counters.
  RingMemory m({4, 64});
  {
    RingProducer p(m.mem, m.geo);
    RingConsumer c(m.mem, m.geo);
    for (uint64_t i = 0; i < 6; ++i) {
      REQUIRE(publish(p, i, 20));
      CHECK(take(c, i) == 20);
    }
    REQUIRE(publish(p, 6, 20));
  }
  RingProducer p2(m.mem, m.geo);
  RingConsumer c2(m.mem, m.geo);
  CHECK(take(c2, 6) == 20);
  REQUIRE(publish(p2, 7, 4));
  CHECK(take(c2, 7) == 4);
}

TEST_CASE("ring with concurrent producer and consumer threads", "[ring][threads]") {
  RingMemory m({64, 4096});  // large enough that the producer goes back early (32 KiB)
#if defined(__SANITIZE_ADDRESS__)
  const uint64_t kMessages = 100000;
#else
  const uint64_t kMessages = 1000000;
#endif
  uint64_t sent_sum = 0;
  uint64_t retries = 0;
  std::thread producer([&] {
    RingProducer p(m.mem, m.geo);
    for (uint64_t i = 0; i < kMessages; ++i) {
      uint32_t len = uint32_t((i * 2654435761u) % 480);
      if (i % 3 == 0) len %= 24;  // plenty of records that share lines
      uint8_t* body;
      while (!(body = p.try_reserve(len))) {
        ++retries;
        std::this_thread::yield();
      }
      write_body(body, i, len);
      for (uint32_t k = 0; k < len; ++k) sent_sum += body[k];
      p.publish(len, meta_of(i, len));
    }
  });
  RingConsumer c(m.mem, m.geo);
  uint64_t received = 0, recv_sum = 0;
  bool ok = true;
  while (received < kMessages) {
    uint64_t meta;
    const uint8_t* body = c.front(&meta);
    if (!body) {
      std::this_thread::yield();
      continue;
    }
    const uint32_t len = uint32_t(meta >> 16);
    for (uint32_t k = 0; k < len; ++k) recv_sum += body[k];
    if (take(c, received) < 0) ok = false;
    ++received;
  }
  producer.join();
  CHECK(ok);
  CHECK(received == kMessages);
  CHECK(recv_sum == sent_sum);
  uint64_t meta;
  CHECK(c.front(&meta) == nullptr);
}
