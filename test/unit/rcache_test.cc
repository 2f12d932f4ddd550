// Registration cache without a device: the interval map, the cache's policies (refcounts,
// LRU, ENOMEM retry, invalidation) against a fake registrar and fake page frames, and the real
// /proc/self/pagemap reader.
#define CATCH_CONFIG_MAIN
#include "btl-rdma/rcache/rcache.h"

#include <sys/mman.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <cerrno>
#include <cstring>
#include <map>
#include <set>
#include <system_error>

#include "btl-rdma/rcache/interval_map.h"
#include "btl-rdma/rcache/page_frames.h"

using mpr::btl::rcache::FrameSource;
using mpr::btl::rcache::IntervalMap;
using mpr::btl::rcache::Options;
using mpr::btl::rcache::page_size;
using mpr::btl::rcache::PagemapFrames;
using mpr::btl::rcache::Rcache;
using mpr::btl::rcache::Region;
using mpr::btl::rcache::Registrar;
using mpr::btl::rcache::Validation;

namespace {

// Records registrations; fails with ENOMEM past `limit_bytes` registered at once.
class FakeRegistrar : public Registrar {
 public:
  size_t limit_bytes = SIZE_MAX;
  int regs = 0;
  int deregs = 0;
  std::map<void*, size_t> live;  // handle -> bytes

  void* reg(void* start, size_t len, int* err) override {
    size_t total = len;
    for (auto& [h, n] : live) total += n;
    if (total > limit_bytes) {
      *err = ENOMEM;
      return nullptr;
    }
    ++regs;
    void* handle = reinterpret_cast<void*>(next_++);
    live[handle] = len;
    (void)start;
    return handle;
  }
  void deregister(void* handle) override {
    REQUIRE(live.erase(handle) == 1);
    ++deregs;
  }

 private:
  uintptr_t next_ = 1;
};

// Page frames chosen by the test: frame[page address] (default: address-derived, present).
class FakeFrames : public FrameSource {
 public:
  std::map<uintptr_t, uint64_t> frame;
  bool read(uintptr_t start, size_t npages, uint64_t* out) override {
    for (size_t i = 0; i < npages; ++i) {
      uintptr_t a = start + i * page_size();
      auto it = frame.find(a);
      out[i] = it != frame.end() ? it->second : a / page_size() + 7;
    }
    return true;
  }
};

// Page-aligned fake addresses: nothing is dereferenced.
void* page(size_t n) { return reinterpret_cast<void*>(0x10000000 + n * page_size()); }

Options opts(Validation v = Validation::kPageFrames) {
  Options o;
  o.validation = v;
  return o;
}

}  // namespace

TEST_CASE("interval map: containment queries", "[rcache]") {
  IntervalMap<int> m;
  CHECK(m.find_containing(100, 200) == nullptr);
  m.insert(100, 200, 1);
  m.insert(300, 400, 2);
  REQUIRE(m.find_containing(100, 200) != nullptr);
  CHECK(*m.find_containing(100, 200) == 1);
  CHECK(*m.find_containing(150, 160) == 1);
  CHECK(*m.find_containing(399, 400) == 2);
  CHECK(m.find_containing(99, 150) == nullptr);   // starts before
  CHECK(m.find_containing(150, 201) == nullptr);  // runs past the end
  CHECK(m.find_containing(150, 350) == nullptr);  // spans a gap
  CHECK(m.find_containing(200, 201) == nullptr);  // half-open: 200 is outside
  CHECK(*m.find_containing(150, 150) == 1);       // empty query = one address
  CHECK(m.find_containing(200, 200) == nullptr);
}

TEST_CASE("interval map: overlap enumeration, insert and erase", "[rcache]") {
  IntervalMap<int> m;
  m.insert(100, 200, 1);
  m.insert(300, 400, 2);
  m.insert(500, 600, 3);
  auto all = m.overlapping(150, 550);
  REQUIRE(all.size() == 3);
  CHECK(all[0].value == 1);
  CHECK(all[2].value == 3);
  CHECK(m.overlapping(200, 300).empty());  // touching is not overlapping
  CHECK(m.overlapping(0, 100).empty());
  REQUIRE(m.overlapping(399, 1000).size() == 2);
  CHECK(m.overlapping(399, 1000)[0].lo == 300);
  CHECK_THROWS_AS(m.insert(150, 250, 9), std::logic_error);
  CHECK_THROWS_AS(m.insert(250, 250, 9), std::logic_error);
  m.insert(200, 300, 4);  // fills the gap exactly
  CHECK(m.size() == 4);
  CHECK(m.erase(300));
  CHECK_FALSE(m.erase(300));
  CHECK(m.find_containing(350, 360) == nullptr);
  CHECK(m.all().size() == 3);
}

TEST_CASE("rcache: a released registration is reused, also for a sub-range", "[rcache]") {
  FakeRegistrar reg;
  FakeFrames frames;
  Rcache rc(reg, opts(), &frames);
  Region* a = rc.acquire(page(0), 3 * page_size());
  rc.release(a);
  Region* b = rc.acquire(page(0), 3 * page_size());
  CHECK(b == a);
  Region* c = rc.acquire(static_cast<char*>(page(1)) + 10, 100);
  CHECK(c == a);
  CHECK(a->refs == 2);
  CHECK(reg.regs == 1);
  CHECK(rc.stats().hits == 2);
  CHECK(rc.stats().misses == 1);
  rc.release(b);
  rc.release(c);
  CHECK(rc.stats().unused_bytes == 3 * page_size());
}

TEST_CASE("rcache: unaligned ranges are registered by whole pages", "[rcache]") {
  FakeRegistrar reg;
  FakeFrames frames;
  Rcache rc(reg, opts(), &frames);
  Region* r = rc.acquire(static_cast<char*>(page(2)) + page_size() - 1, 2);
  CHECK(r->start == reinterpret_cast<uintptr_t>(page(2)));
  CHECK(r->end == reinterpret_cast<uintptr_t>(page(4)));
  Region* z = rc.acquire(page(9), 0);
  CHECK(z->end - z->start == page_size());
  rc.release(r);
  rc.release(z);
}

TEST_CASE("rcache: a new registration replaces the cached ones it overlaps", "[rcache]") {
  FakeRegistrar reg;
  FakeFrames frames;
  Rcache rc(reg, opts(), &frames);
  Region* held = rc.acquire(page(0), 2 * page_size());
  Region* idle = rc.acquire(page(4), 2 * page_size());
  rc.release(idle);
  Region* big = rc.acquire(page(1), 4 * page_size());  // overlaps both
  CHECK(big != held);
  CHECK(reg.deregs == 1);       // the unheld one went at once
  CHECK(reg.live.size() == 2);  // the held one lives until released
  CHECK_FALSE(held->cached);
  Region* fresh = rc.acquire(page(0), page_size());
  CHECK(fresh != held);  // no longer findable
  void* held_handle = held->handle;
  rc.release(held);
  CHECK(reg.live.count(held_handle) == 0);
  rc.release(fresh);
  rc.release(big);
}

TEST_CASE("rcache: LRU limits evict the least recently released", "[rcache]") {
  FakeRegistrar reg;
  FakeFrames frames;
  Options o = opts();
  o.max_unused_regions = 2;
  Rcache rc(reg, o, &frames);
  for (size_t i = 0; i < 3; ++i) rc.release(rc.acquire(page(10 * i), page_size()));
  CHECK(rc.stats().evictions == 1);
  CHECK(reg.live.size() == 2);
  rc.release(rc.acquire(page(20), page_size()));  // newest: still cached
  CHECK(rc.stats().hits == 1);
  rc.release(rc.acquire(page(0), page_size()));  // oldest: evicted, registers again
  CHECK(rc.stats().misses == 4);

  Options ob = opts();
  ob.max_unused_bytes = 3 * page_size();
  FakeRegistrar reg2;
  Rcache rb(reg2, ob, &frames);
  rb.release(rb.acquire(page(0), 2 * page_size()));
  rb.release(rb.acquire(page(10), 2 * page_size()));
  CHECK(rb.stats().evictions == 1);
  CHECK(rb.stats().unused_bytes == 2 * page_size());
}

TEST_CASE("rcache: ENOMEM evicts unheld entries and retries", "[rcache]") {
  FakeRegistrar reg;
  FakeFrames frames;
  reg.limit_bytes = 4 * page_size();
  Rcache rc(reg, opts(), &frames);
  for (size_t i = 0; i < 3; ++i) rc.release(rc.acquire(page(10 * i), page_size()));
  Region* r = rc.acquire(page(100), 3 * page_size());  // needs two of the three evicted
  CHECK(rc.stats().enomem_retries == 2);
  CHECK(rc.stats().evictions == 2);
  CHECK(reg.live.size() == 2);
  // Everything held now: nothing to evict, so the error reaches the caller.
  Region* other = rc.acquire(page(20), page_size());
  try {
    rc.acquire(page(200), 2 * page_size());
    FAIL("acquire past the limit should throw");
  } catch (const std::system_error& e) {
    CHECK(e.code().value() == ENOMEM);
  }
  rc.release(r);
  rc.release(other);
}

TEST_CASE("rcache: disabled cache registers and deregisters every time", "[rcache]") {
  FakeRegistrar reg;
  FakeFrames frames;
  Options o = opts();
  o.enabled = false;
  Rcache rc(reg, o, &frames);
  Region* a = rc.acquire(page(0), page_size());
  Region* b = rc.acquire(page(0), page_size());
  CHECK(a != b);
  rc.release(a);
  rc.release(b);
  rc.release(rc.acquire(page(0), page_size()));
  CHECK(reg.regs == 3);
  CHECK(reg.live.empty());
  CHECK(rc.stats().hits == 0);
}

TEST_CASE("rcache: a page mapped to another frame invalidates the entry", "[rcache]") {
  FakeRegistrar reg;
  FakeFrames frames;
  Rcache rc(reg, opts(), &frames);
  Region* a = rc.acquire(page(0), 4 * page_size());
  void* old_handle = a->handle;
  rc.release(a);
  // Simulates free + re-mmap at the same address: page 2 now has a different frame.
  frames.frame[reinterpret_cast<uintptr_t>(page(2))] = 999999;
  Region* b = rc.acquire(page(0), 4 * page_size());
  CHECK(rc.stats().invalidations == 1);
  CHECK(rc.stats().hits == 0);
  CHECK(reg.live.count(old_handle) == 0);
  CHECK(b->frames[2] == 999999);
  rc.release(b);
  // A lookup that does not touch the changed page still checks only its own pages.
  frames.frame[reinterpret_cast<uintptr_t>(page(3))] = 0;  // page 3 no longer present
  rc.release(rc.acquire(page(0), 2 * page_size()));
  CHECK(rc.stats().hits == 1);
  rc.release(rc.acquire(page(3), page_size()));
  CHECK(rc.stats().invalidations == 2);
}

TEST_CASE("rcache: in-use-only validation reuses only held entries", "[rcache]") {
  FakeRegistrar reg;
  Rcache rc(reg, opts(Validation::kInUseOnly), nullptr);
  Region* a = rc.acquire(page(0), page_size());
  Region* b = rc.acquire(page(0), page_size());
  CHECK(a == b);
  rc.release(a);
  rc.release(b);
  CHECK(reg.live.empty());  // nobody holds it: nothing proves it current, so it goes
  rc.release(rc.acquire(page(0), page_size()));
  CHECK(reg.regs == 2);
}

TEST_CASE("rcache: flush reports held registrations, destruction releases all", "[rcache]") {
  FakeRegistrar reg;
  FakeFrames frames;
  {
    Rcache rc(reg, opts(), &frames);
    rc.acquire(page(0), page_size());
    rc.release(rc.acquire(page(5), page_size()));
    CHECK(rc.flush() == 1);
    CHECK(reg.live.size() == 1);
    CHECK(rc.stats().live_regions == 1);
  }
  CHECK(reg.live.empty());
}

TEST_CASE("pagemap: re-mapping an address gives it new frames", "[rcache]") {
  PagemapFrames& pf = PagemapFrames::instance();
  const size_t ps = page_size();
  // Two mappings of one memfd page: the second keeps the page alive (as a registration's pin
  // would) after the first is unmapped and replaced by anonymous memory at the same address.
  int fd = memfd_create("rcache-test", 0);
  REQUIRE(fd >= 0);
  REQUIRE(ftruncate(fd, static_cast<off_t>(ps)) == 0);
  char* a = static_cast<char*>(mmap(nullptr, ps, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0));
  char* keep = static_cast<char*>(mmap(nullptr, ps, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0));
  REQUIRE(a != MAP_FAILED);
  REQUIRE(keep != MAP_FAILED);
  a[0] = 1;
  uint64_t before = 0, again = 0, after = 0;
  REQUIRE(pf.read(reinterpret_cast<uintptr_t>(a), 1, &before));
  REQUIRE(pf.read(reinterpret_cast<uintptr_t>(a), 1, &again));
  CHECK(before == again);
  REQUIRE(munmap(a, ps) == 0);
  char* b = static_cast<char*>(
      mmap(a, ps, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0));
  REQUIRE(b == a);
  uint64_t untouched = 1;
  REQUIRE(pf.read(reinterpret_cast<uintptr_t>(b), 1, &untouched));
  CHECK(untouched == 0);  // not present until touched: can never validate
  b[0] = 2;
  REQUIRE(pf.read(reinterpret_cast<uintptr_t>(b), 1, &after));
  if (pf.frames_visible()) {
    CHECK(before != 0);
    CHECK(after != 0);
    CHECK(after != before);
  } else {
    WARN(
        "page frame numbers are hidden (no CAP_SYS_ADMIN): the cache falls back to in-use-only "
        "reuse or on-demand paging");
    CHECK(before == 0);
  }
  munmap(b, ps);
  munmap(keep, ps);
  close(fd);
}

TEST_CASE("rcache: the periodic sweep drops unheld entries whose memory is gone", "[rcache]") {
  FakeRegistrar reg;
  FakeFrames frames;
  Options o = opts();
  o.sweep_every = 4;
  Rcache rc(reg, o, &frames);
  rc.release(rc.acquire(page(0), 2 * page_size()));           // will go stale
  rc.release(rc.acquire(page(10), 2 * page_size()));          // stays valid
  frames.frame[reinterpret_cast<uintptr_t>(page(1))] = 4242;  // its last page re-mapped
  rc.release(rc.acquire(page(20), page_size()));
  CHECK(rc.stats().swept == 0);
  CHECK(reg.live.size() == 3);
  rc.release(rc.acquire(page(30), page_size()));  // 4th release: sweep
  CHECK(rc.stats().swept == 1);
  CHECK(rc.stats().invalidations == 1);
  CHECK(reg.live.size() == 3);
  rc.release(rc.acquire(page(10), 2 * page_size()));  // the valid one was kept
  CHECK(rc.stats().hits == 1);
}
