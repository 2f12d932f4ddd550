// The SPSC ring on its own, in one process: ordering, wraparound, full/empty, and two threads
// hammering it the way two processes do through the segment.
#include <catch2/catch.hpp>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <thread>
#include <vector>

#include "btl-rdma/shm/spsc_ring.h"

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
  RingGeometry geo;
  uint8_t* mem;
};

// A message in a slot: sequence number, length, then `len` bytes derived from both.
void write_msg(uint8_t* slot, uint64_t seq, uint32_t len) {
  std::memcpy(slot, &seq, 8);
  std::memcpy(slot + 8, &len, 4);
  for (uint32_t i = 0; i < len; ++i) slot[12 + i] = uint8_t(seq * 7 + i);
}

bool check_msg(const uint8_t* slot, uint64_t want_seq, uint32_t* len_out) {
  uint64_t seq;
  uint32_t len;
  std::memcpy(&seq, slot, 8);
  std::memcpy(&len, slot + 8, 4);
  if (seq != want_seq) return false;
  for (uint32_t i = 0; i < len; ++i)
    if (slot[12 + i] != uint8_t(seq * 7 + i)) return false;
  if (len_out) *len_out = len;
  return true;
}

}  // namespace

TEST_CASE("ring geometry validation", "[ring]") {
  CHECK(RingGeometry{64, 16384}.valid());
  CHECK(RingGeometry{2, 64}.valid());
  CHECK_FALSE(RingGeometry{1, 64}.valid());
  CHECK_FALSE(RingGeometry{48, 64}.valid());
  CHECK_FALSE(RingGeometry{64, 100}.valid());
  CHECK(RingGeometry{4, 128}.bytes() == sizeof(RingControl) + 4 * 128);
}

TEST_CASE("ring starts empty and delivers one message", "[ring]") {
  RingMemory m({4, 128});
  RingProducer p(m.mem, m.geo);
  RingConsumer c(m.mem, m.geo);
  CHECK(c.front() == nullptr);
  uint8_t* slot = p.try_reserve();
  REQUIRE(slot != nullptr);
  write_msg(slot, 1, 40);
  CHECK(c.front() == nullptr);  // reserved but not published: invisible
  p.publish();
  const uint8_t* got = c.front();
  REQUIRE(got != nullptr);
  CHECK(got == slot);
  CHECK(c.front() == got);  // front is idempotent until pop
  CHECK(check_msg(got, 1, nullptr));
  c.pop();
  CHECK(c.front() == nullptr);
}

TEST_CASE("ring full returns nullptr until the consumer frees a slot", "[ring]") {
  RingMemory m({8, 64});
  RingProducer p(m.mem, m.geo);
  RingConsumer c(m.mem, m.geo);
  for (uint64_t i = 0; i < 8; ++i) {
    uint8_t* slot = p.try_reserve();
    REQUIRE(slot != nullptr);
    write_msg(slot, i, 8);
    p.publish();
  }
  CHECK(p.try_reserve() == nullptr);
  CHECK(p.try_reserve() == nullptr);
  REQUIRE(c.front() != nullptr);
  CHECK(check_msg(c.front(), 0, nullptr));
  CHECK(p.try_reserve() == nullptr);  // front without pop frees nothing
  c.pop();
  uint8_t* slot = p.try_reserve();
  REQUIRE(slot != nullptr);
  write_msg(slot, 8, 8);
  p.publish();
  CHECK(p.try_reserve() == nullptr);
  for (uint64_t i = 1; i <= 8; ++i) {
    REQUIRE(c.front() != nullptr);
    CHECK(check_msg(c.front(), i, nullptr));
    c.pop();
  }
  CHECK(c.front() == nullptr);
}

TEST_CASE("ring wraps around many times keeping order and contents", "[ring]") {
  RingMemory m({4, 256});
  RingProducer p(m.mem, m.geo);
  RingConsumer c(m.mem, m.geo);
  uint64_t sent = 0, received = 0;
  // Uneven batches so head and tail cross the wrap point at every relative offset.
  for (int round = 0; round < 1000; ++round) {
    int batch = 1 + round % 4;
    for (int i = 0; i < batch; ++i) {
      uint8_t* slot = p.try_reserve();
      if (!slot) break;
      write_msg(slot, sent, uint32_t(sent % (m.geo.payload_bytes() - 12 + 1)));
      p.publish();
      ++sent;
    }
    int take = 1 + (round * 7) % 4;
    for (int i = 0; i < take; ++i) {
      const uint8_t* slot = c.front();
      if (!slot) break;
      REQUIRE(check_msg(slot, received, nullptr));
      c.pop();
      ++received;
    }
  }
  while (const uint8_t* slot = c.front()) {
    REQUIRE(check_msg(slot, received, nullptr));
    c.pop();
    ++received;
  }
  CHECK(received == sent);
  CHECK(sent > 1000);
}

TEST_CASE("a view made later continues where the counters are", "[ring]") {
  // Views are process-private; a process that attaches late must pick up the shared counters.
  RingMemory m({4, 64});
  {
    RingProducer p(m.mem, m.geo);
    RingConsumer c(m.mem, m.geo);
    for (uint64_t i = 0; i < 6; ++i) {
      write_msg(p.try_reserve(), i, 4);
      p.publish();
      c.pop();
    }
    write_msg(p.try_reserve(), 6, 4);
    p.publish();
  }
  RingProducer p2(m.mem, m.geo);
  RingConsumer c2(m.mem, m.geo);
  REQUIRE(c2.front() != nullptr);
  CHECK(check_msg(c2.front(), 6, nullptr));
  write_msg(p2.try_reserve(), 7, 4);
  p2.publish();
  c2.pop();
  REQUIRE(c2.front() != nullptr);
  CHECK(check_msg(c2.front(), 7, nullptr));
}

TEST_CASE("ring with concurrent producer and consumer threads", "[ring][threads]") {
  RingMemory m({64, 512});
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
      uint8_t* slot;
      while (!(slot = p.try_reserve())) {
        ++retries;
        std::this_thread::yield();
      }
      uint32_t len = uint32_t((i * 2654435761u) % 480);
      write_msg(slot, i, len);
      for (uint32_t k = 0; k < len; ++k) sent_sum += slot[12 + k];
      p.publish();
    }
  });
  RingConsumer c(m.mem, m.geo);
  uint64_t received = 0, recv_sum = 0;
  bool ok = true;
  while (received < kMessages) {
    const uint8_t* slot = c.front();
    if (!slot) {
      std::this_thread::yield();
      continue;
    }
    uint32_t len = 0;
    if (!check_msg(slot, received, &len)) ok = false;
    for (uint32_t k = 0; k < len; ++k) recv_sum += slot[12 + k];
    c.pop();
    ++received;
  }
  producer.join();
  CHECK(ok);
  CHECK(received == kMessages);
  CHECK(recv_sum == sent_sum);
  CHECK(c.front() == nullptr);
}
