// 64-bit device atomics (fetch-add, compare-swap) between backends and on a rank's own memory
// through the loopback QP: returned old values, wrapping, CAS failure, no lost update under
// contention from peers and the owner at once, kRetry when resources run out, bad arguments.
#include <sys/mman.h>

#include <algorithm>
#include <catch2/catch.hpp>
#include <cstdint>
#include <cstring>
#include <stdexcept>
#include <vector>

#include "btl-rdma/verbs/verbs_consts.h"
#include "test/verbs/verbs_pair.h"

using mpr::btl::AtomicOp;
using mpr::btl::Registration;
using mpr::btl::RemoteKey;
using mpr::btl::Status;
using mpr::btl::verbs::kAtomicSlots;
using mpr::btl::verbs::live_counts;
using namespace mpr::verbs_test;

namespace {

constexpr uint64_t kAllOnes = ~uint64_t{0};

// One page of target words, released on scope exit.
struct Words {
  uint64_t* p;
  static constexpr size_t kBytes = 4096;
  Words() {
    void* m = mmap(nullptr, kBytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    REQUIRE(m != MAP_FAILED);
    p = static_cast<uint64_t*>(m);
  }
  ~Words() { munmap(p, kBytes); }
  uint64_t& operator[](size_t i) { return p[i]; }
};

uint64_t addr_of(const void* p) { return reinterpret_cast<uint64_t>(p); }

// What the owner's CPU sees in a word the device updated.
uint64_t load(const uint64_t* p) { return __atomic_load_n(p, __ATOMIC_ACQUIRE); }

bool atomics_available(World& w) {
  if (w[0].btl->caps().native_atomics) return true;
  WARN("skipped: " << w[0].btl->describe());
  return false;
}

// One atomic from `from` on the word at `target` of `to`, retried on kRetry and waited for.
// The old value lands in `*result` (inside `result_reg`), or in a local when result is null
// (the backend's internal slot path). Returns the old value; requires success.
uint64_t atomic_now(World& w, int from, int to, AtomicOp op, const uint64_t* target,
                    const RemoteKey& rkey, uint64_t operand, uint64_t compare = 0,
                    uint64_t* result = nullptr, const Registration* result_reg = nullptr) {
  alignas(8) uint64_t local = 0x5a5a5a5a5a5a5a5a;
  uint64_t* res = result ? result : &local;
  WaitCompletion wc;
  bool posted = false;
  REQUIRE(w.spin([&] {
    if (!posted) {
      Status st = w[from].btl->atomic(to, op, addr_of(target), rkey, operand, compare, res,
                                      result_reg, &wc.c);
      REQUIRE(st != Status::kDone);  // device atomics always complete through progress()
      posted = st == Status::kPosted;
    }
    return posted && wc.done;
  }));
  REQUIRE(wc.status == 0);
  return *res;
}

}  // namespace

TEST_CASE("verbs atomics: fetch-add and compare-swap return the old value", "[verbs]") {
  World w(default_config());
  if (!atomics_available(w)) return;
  CHECK(w[0].btl->describe().find("atomics 64-bit") != std::string::npos);
  Words words;
  Registration target;
  w[0].btl->reg(words.p, Words::kBytes, &target);
  const RemoteKey& rk = target.rkey;
  // Results straight into rank 1's registered memory (no internal slot).
  Words res;
  Registration rr;
  w[1].btl->reg(res.p, Words::kBytes, &rr);

  words[0] = 10;
  // First use of the pair: the atomic waits for the handshake, then goes out.
  CHECK_FALSE(w[1].v->connected(0));
  CHECK(atomic_now(w, 1, 0, AtomicOp::kFetchAdd, &words[0], rk, 5, 0, &res[3], &rr) == 10);
  CHECK(res[3] == 10);
  CHECK(load(&words[0]) == 15);
  // Through the internal slot (no result registration).
  CHECK(atomic_now(w, 1, 0, AtomicOp::kFetchAdd, &words[0], rk, 7) == 15);
  CHECK(load(&words[0]) == 22);

  SECTION("compare-swap succeeds when the word matches") {
    CHECK(atomic_now(w, 1, 0, AtomicOp::kCompareSwap, &words[0], rk, 100, 22, &res[0], &rr) == 22);
    CHECK(load(&words[0]) == 100);
  }
  SECTION("a failed compare-swap returns the current value and changes nothing") {
    CHECK(atomic_now(w, 1, 0, AtomicOp::kCompareSwap, &words[0], rk, 7, 5, &res[0], &rr) == 22);
    CHECK(load(&words[0]) == 22);
    CHECK(atomic_now(w, 1, 0, AtomicOp::kCompareSwap, &words[0], rk, 7, 5) == 22);
    CHECK(load(&words[0]) == 22);
  }
  SECTION("fetch-add wraps around 2^64") {
    words[1] = 0;
    CHECK(atomic_now(w, 1, 0, AtomicOp::kFetchAdd, &words[1], rk, kAllOnes) == 0);
    CHECK(load(&words[1]) == kAllOnes);
    CHECK(atomic_now(w, 1, 0, AtomicOp::kFetchAdd, &words[1], rk, 1, 0, &res[1], &rr) == kAllOnes);
    CHECK(load(&words[1]) == 0);
    words[2] = 5;
    CHECK(atomic_now(w, 1, 0, AtomicOp::kFetchAdd, &words[2], rk, kAllOnes) == 5);  // i.e. -1
    CHECK(load(&words[2]) == 4);
  }
  SECTION("all 64 bits arrive in host byte order") {
    words[4] = 0x0123456789abcdefull;
    CHECK(atomic_now(w, 1, 0, AtomicOp::kFetchAdd, &words[4], rk, 0x1000000000000001ull) ==
          0x0123456789abcdefull);
    CHECK(load(&words[4]) == 0x1123456789abcdf0ull);
    CHECK(atomic_now(w, 1, 0, AtomicOp::kCompareSwap, &words[4], rk, 0xfedcba9876543210ull,
                     0x1123456789abcdf0ull) == 0x1123456789abcdf0ull);
    CHECK(load(&words[4]) == 0xfedcba9876543210ull);
  }
  SECTION("the other direction, and an atomic whose old value nobody wants") {
    res[5] = 40;
    WaitCompletion wc;
    // Rank 0 answered the handshake; until rank 1's first message arrives its atomic waits.
    REQUIRE(w[0].btl->atomic(1, AtomicOp::kFetchAdd, addr_of(&res[5]), rr.rkey, 2, 0, nullptr,
                             nullptr, &wc.c) == Status::kPosted);
    REQUIRE(w.spin([&] { return wc.done; }));
    CHECK(wc.status == 0);
    CHECK(load(&res[5]) == 42);
    CHECK(atomic_now(w, 0, 1, AtomicOp::kCompareSwap, &res[5], rr.rkey, 1, 42) == 42);
    CHECK(load(&res[5]) == 1);
  }
  CHECK(w[0].v->stats().wc_errors == 0);
  CHECK(w[1].v->stats().wc_errors == 0);
  w[0].btl->dereg(&target);
  w[1].btl->dereg(&rr);
}

TEST_CASE("verbs atomics: a rank updates its own memory through the loopback QP", "[verbs]") {
  const int qps_before = live_counts().qps;
  World w(default_config(), 1);
  if (!atomics_available(w)) return;
  Words words;
  Registration reg;
  w[0].btl->reg(words.p, Words::kBytes, &reg);
  words[0] = 1000;
  CHECK(atomic_now(w, 0, 0, AtomicOp::kFetchAdd, &words[0], reg.rkey, 24) == 1000);
  CHECK(load(&words[0]) == 1024);
  CHECK(live_counts().qps == qps_before + 2);  // the UD QP and the loopback QP
  CHECK(w[0].v->connected(0));
  // Result into the same registration as the target.
  CHECK(atomic_now(w, 0, 0, AtomicOp::kCompareSwap, &words[0], reg.rkey, 1, 1024, &words[8],
                   &reg) == 1024);
  CHECK(words[8] == 1024);
  CHECK(load(&words[0]) == 1);
  CHECK(atomic_now(w, 0, 0, AtomicOp::kCompareSwap, &words[0], reg.rkey, 9, 1024) == 1);
  CHECK(load(&words[0]) == 1);
  // Atomics on ourselves reserve no receive buffers; only messages to ourselves do.
  CHECK(w[0].v->posted_recvs() == 0);

  // get and put to ourselves take the same QP.
  char* src = reinterpret_cast<char*>(&words[64]);
  char* dst = reinterpret_cast<char*>(&words[256]);
  fill(src, 1000, 3);
  WaitCompletion g;
  REQUIRE(w[0].btl->get(0, dst, &reg, addr_of(src), reg.rkey, 1000, &g.c) == Status::kPosted);
  REQUIRE(w.spin([&] { return g.done; }));
  CHECK(g.status == 0);
  CHECK(first_mismatch(dst, 1000, 3) == SIZE_MAX);
  fill(src, 1000, 4);
  WaitCompletion p;
  REQUIRE(w[0].btl->put(0, src, &reg, addr_of(dst), reg.rkey, 1000, &p.c) == Status::kPosted);
  REQUIRE(w.spin([&] { return p.done; }));
  CHECK(p.status == 0);
  CHECK(first_mismatch(dst, 1000, 4) == SIZE_MAX);
  // And messages to ourselves still work on it.
  REQUIRE(w.send(0, 0, 2, "h", 1, "self", 4));
  REQUIRE(w.spin([&] { return !w[0].inbox.empty(); }));
  CHECK(w[0].v->posted_recvs() > 0);
  CHECK(live_counts().qps == qps_before + 2);
  CHECK(w[0].v->stats().wc_errors == 0);
  w[0].btl->dereg(&reg);
}

TEST_CASE("verbs atomics: fetch-adds from two peers and the owner at once lose no update",
          "[verbs]") {
  World w(default_config(), 3);
  if (!atomics_available(w)) return;
  const int kOps = 2000;   // per rank
  const int kWindow = 64;  // in flight per rank
  Words words;
  Registration target;
  w[0].btl->reg(words.p, Words::kBytes, &target);
  words[0] = 0;

  struct Rank {
    std::vector<uint64_t> old;  // registered: the device writes the old values here
    Registration reg;
    std::vector<WaitCompletion> wc;
    int issued = 0, done = 0;
  };
  std::vector<Rank> ranks(3);
  for (int r = 0; r < 3; ++r) {
    ranks[r].old.assign(kOps, kAllOnes);
    ranks[r].wc.resize(kOps);
    w[r].btl->reg(ranks[r].old.data(), kOps * sizeof(uint64_t), &ranks[r].reg);
  }
  uint64_t retries = 0;
  REQUIRE(w.spin(
      [&] {
        bool all = true;
        for (int r = 0; r < 3; ++r) {
          Rank& k = ranks[r];
          while (k.done < k.issued && k.wc[k.done].done) ++k.done;
          // Every third op uses the internal result slot; rank 0 is the owner (loopback).
          while (k.issued < kOps && k.issued - k.done < kWindow) {
            const int i = k.issued;
            const bool slot = i % 3 == 2;
            Status st = w[r].btl->atomic(0, AtomicOp::kFetchAdd, addr_of(&words[0]), target.rkey, 1,
                                         0, &k.old[i], slot ? nullptr : &k.reg, &k.wc[i].c);
            if (st == Status::kRetry) {
              ++retries;
              break;
            }
            ++k.issued;
          }
          all = all && k.done == kOps;
        }
        return all;
      },
      600));
  INFO("kRetry answers: " << retries);
  CHECK(load(&words[0]) == 3 * kOps);
  // Each fetch-add saw a different old value: together exactly 0 .. 3*kOps-1.
  std::vector<uint64_t> seen;
  for (auto& k : ranks) {
    for (auto& c : k.wc) CHECK(c.status == 0);
    seen.insert(seen.end(), k.old.begin(), k.old.end());
  }
  std::sort(seen.begin(), seen.end());
  size_t wrong = 0;
  for (size_t i = 0; i < seen.size(); ++i) wrong += seen[i] != i;
  CHECK(wrong == 0);
  for (int r = 0; r < 3; ++r) {
    CHECK(w[r].v->stats().wc_errors == 0);
    CHECK(w[r].v->stats().atomics == static_cast<uint64_t>(kOps));
    w[r].btl->dereg(&ranks[r].reg);
  }
  w[0].btl->dereg(&target);
}

TEST_CASE("verbs atomics: a full send queue answers kRetry and loses nothing", "[verbs]") {
  auto cfg = default_config();
  cfg.sq_depth = 16;
  World w(cfg);
  if (!atomics_available(w)) return;
  Words words;
  Registration target;
  w[0].btl->reg(words.p, Words::kBytes, &target);
  words[0] = 0;
  // Connect first, so the only limit below is the send queue.
  CHECK(atomic_now(w, 1, 0, AtomicOp::kFetchAdd, &words[0], target.rkey, 1) == 0);

  const int kOps = 300;
  std::vector<WaitCompletion> wc(kOps);
  std::vector<uint64_t> old(kOps, kAllOnes);
  int issued = 0;
  // No progress: the queue fills and the backend says so instead of queueing.
  const uint64_t retry_before = w[1].v->stats().retry_sq;
  while (w[1].btl->atomic(0, AtomicOp::kFetchAdd, addr_of(&words[0]), target.rkey, 1, 0,
                          &old[issued], nullptr, &wc[issued].c) == Status::kPosted)
    ++issued;
  CHECK(issued >= 1);
  CHECK(issued <= cfg.sq_depth);
  CHECK(w[1].v->stats().retry_sq == retry_before + 1);
  // Nothing of the refused call happened.
  CHECK_FALSE(wc[issued].done);
  // With progress everything goes through.
  REQUIRE(w.spin([&] {
    while (issued < kOps &&
           w[1].btl->atomic(0, AtomicOp::kFetchAdd, addr_of(&words[0]), target.rkey, 1, 0,
                            &old[issued], nullptr, &wc[issued].c) == Status::kPosted)
      ++issued;
    return issued == kOps && std::all_of(wc.begin(), wc.end(), [](auto& c) { return c.done; });
  }));
  CHECK(load(&words[0]) == kOps + 1);
  std::sort(old.begin(), old.end());
  for (int i = 0; i < kOps; ++i) CHECK(old[i] == static_cast<uint64_t>(i + 1));
  CHECK(w[1].v->stats().wc_errors == 0);
  w[0].btl->dereg(&target);
}

TEST_CASE("verbs atomics: running out of internal result slots answers kRetry", "[verbs]") {
  auto cfg = default_config();
  cfg.sq_depth = 2 * kAtomicSlots;  // the slots, not the send queue, run out first
  World w(cfg);
  if (!atomics_available(w)) return;
  Words words;
  Registration target;
  w[0].btl->reg(words.p, Words::kBytes, &target);
  words[0] = 0;
  CHECK(atomic_now(w, 1, 0, AtomicOp::kFetchAdd, &words[0], target.rkey, 1) == 0);
  const int n = kAtomicSlots + 1;
  std::vector<WaitCompletion> wc(n);
  int issued = 0;
  while (issued < n && w[1].btl->atomic(0, AtomicOp::kFetchAdd, addr_of(&words[0]), target.rkey, 1,
                                        0, nullptr, nullptr, &wc[issued].c) == Status::kPosted)
    ++issued;
  CHECK(issued == kAtomicSlots);
  CHECK(w[1].v->stats().retry_atomic_slots == 1);
  // A caller with a registered result buffer is not held up by the slots.
  Words res;
  Registration rr;
  w[1].btl->reg(res.p, Words::kBytes, &rr);
  REQUIRE(w[1].btl->atomic(0, AtomicOp::kFetchAdd, addr_of(&words[0]), target.rkey, 1, 0, &res[0],
                           &rr, &wc[issued].c) == Status::kPosted);
  ++issued;
  REQUIRE(
      w.spin([&] { return std::all_of(wc.begin(), wc.end(), [](auto& c) { return c.done; }); }));
  CHECK(load(&words[0]) == static_cast<uint64_t>(n) + 1);
  CHECK(w[1].v->stats().wc_errors == 0);
  w[0].btl->dereg(&target);
  w[1].btl->dereg(&rr);
}

TEST_CASE("verbs atomics: on heap memory the peer registered with reg(), cached or not",
          "[verbs]") {
  World w(default_config());
  if (!atomics_available(w)) return;
  // Not page-aligned, not page-sized: the cache registers the pages around it.
  std::vector<uint64_t> heap(5000, 7);
  Registration whole;
  w[0].btl->reg(heap.data(), heap.size() * sizeof(uint64_t), &whole);
  // A registration inside a held one is served by the same MR (a cache hit in every mode).
  Registration part;
  const auto before = w[0].v->rcache_stats();
  w[0].btl->reg(&heap[1000], 8 * sizeof(uint64_t), &part);
  if (w[0].v->config().rcache) CHECK(w[0].v->rcache_stats().hits == before.hits + 1);
  w[0].btl->dereg(&whole);
  CHECK(atomic_now(w, 1, 0, AtomicOp::kFetchAdd, &heap[1003], part.rkey, 35) == 7);
  CHECK(heap[1003] == 42);
  CHECK(atomic_now(w, 1, 0, AtomicOp::kCompareSwap, &heap[1007], part.rkey, 8, 7) == 7);
  CHECK(heap[1007] == 8);
  CHECK(heap[1002] == 7);
  CHECK(heap[1004] == 7);
  CHECK(heap[1008] == 7);
  w[0].btl->dereg(&part);
  // A fresh registration of a different buffer (a cache miss) works the same.
  std::vector<uint64_t> other(3, 1);
  Registration o;
  w[0].btl->reg(other.data(), other.size() * sizeof(uint64_t), &o);
  CHECK(atomic_now(w, 1, 0, AtomicOp::kFetchAdd, &other[2], o.rkey, 1) == 1);
  CHECK(other[2] == 2);
  w[0].btl->dereg(&o);
  CHECK(w[1].v->stats().wc_errors == 0);
}

TEST_CASE("verbs atomics: bad arguments are refused before anything is posted", "[verbs]") {
  World w(default_config());
  if (!atomics_available(w)) return;
  Words words;
  Registration target, rr;
  w[0].btl->reg(words.p, Words::kBytes, &target);
  Words res;
  w[1].btl->reg(res.p, 64, &rr);
  WaitCompletion wc;
  const uint64_t misaligned = addr_of(&words[1]) + 4;
  CHECK_THROWS_AS(w[1].btl->atomic(0, AtomicOp::kFetchAdd, misaligned, target.rkey, 1, 0, nullptr,
                                   nullptr, &wc.c),
                  std::invalid_argument);
  auto* odd = reinterpret_cast<uint64_t*>(reinterpret_cast<char*>(res.p) + 4);
  CHECK_THROWS_AS(w[1].btl->atomic(0, AtomicOp::kFetchAdd, addr_of(&words[0]), target.rkey, 1, 0,
                                   odd, &rr, &wc.c),
                  std::invalid_argument);
  // Outside the 64 bytes registered (the page around them is registered, but not by this
  // Registration as the caller described it).
  CHECK_THROWS_AS(w[1].btl->atomic(0, AtomicOp::kFetchAdd, addr_of(&words[0]), target.rkey, 1, 0,
                                   &res[8], &rr, &wc.c),
                  std::invalid_argument);
  CHECK_THROWS_AS(w[1].btl->atomic(7, AtomicOp::kFetchAdd, addr_of(&words[0]), target.rkey, 1, 0,
                                   nullptr, nullptr, &wc.c),
                  std::runtime_error);
  CHECK(w[1].v->stats().atomics == 0);
  CHECK_FALSE(w[1].v->connected(0));
  w[0].btl->dereg(&target);
  w[1].btl->dereg(&rr);
}

TEST_CASE("verbs atomics: a wrong remote key fails through the completion", "[verbs]") {
  World w(default_config());
  if (!atomics_available(w)) return;
  Words words;
  Registration target;
  w[0].btl->reg(words.p, Words::kBytes, &target);
  words[0] = 3;
  RemoteKey bad = target.rkey;
  bad.words[0] ^= 0x5a5a00;
  uint64_t old = 99;
  WaitCompletion wc;
  REQUIRE(w[1].btl->atomic(0, AtomicOp::kFetchAdd, addr_of(&words[0]), bad, 1, 0, &old, nullptr,
                           &wc.c) == Status::kPosted);
  REQUIRE(w.spin([&] { return wc.done; }, 300));
  CHECK(wc.status != 0);
  CHECK(old == 99);  // a failed atomic leaves the result alone
  CHECK(load(&words[0]) == 3);
  CHECK(w[1].v->stats().wc_errors >= 1);
  CHECK_THROWS_AS(w[1].btl->atomic(0, AtomicOp::kFetchAdd, addr_of(&words[0]), target.rkey, 1, 0,
                                   nullptr, nullptr, &wc.c),
                  std::runtime_error);
  w[0].btl->dereg(&target);
}
