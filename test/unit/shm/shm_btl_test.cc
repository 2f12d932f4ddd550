// The real shm backend across forked processes: setup, segment lifetime, active messages and
// flow control.
#include <sched.h>
#include <sys/uio.h>
#include <unistd.h>

#include <atomic>
#include <catch2/catch.hpp>
#include <cstring>
#include <functional>
#include <stdexcept>
#include <string>
#include <vector>

#include "btl-rdma/btl.h"
#include "btl-rdma/shm/shm_btl.h"
#include "test/unit/shm/fork_harness.h"

using mpr::btl::Btl;
using mpr::btl::Status;
using mpr::test::ForkBootstrap;
using mpr::test::ForkJob;
using mpr::test::make_and_wire;
using mpr::test::run_forked;
using mpr::test::send_retry;
using mpr::test::shm_entries_for;

namespace {

constexpr int kAmTest = 3;

// Receives messages whose first 8 header bytes are a per-source sequence number and checks
// the order and the contents (byte i of hdr+payload is a function of seq and i).
struct OrderedSink {
  explicit OrderedSink(int job_size) : next(size_t(job_size), 0) {}
  std::vector<uint64_t> next;
  std::vector<int> arrival_src;  // first arrivals, in order
  uint64_t total = 0;
  uint64_t errors = 0;
  std::string first_error;

  static uint8_t pattern(uint64_t seq, size_t i) { return uint8_t(seq * 131 + i * 7 + 1); }

  static void handler(void* ctx, int src, const void* hdr, size_t hdr_len, const void* payload,
                      size_t payload_len) {
    auto* s = static_cast<OrderedSink*>(ctx);
    s->check(src, static_cast<const uint8_t*>(hdr), hdr_len, static_cast<const uint8_t*>(payload),
             payload_len);
  }

  void fail(const std::string& why) {
    if (errors++ == 0) first_error = why;
  }

  void check(int src, const uint8_t* hdr, size_t hdr_len, const uint8_t* payload,
             size_t payload_len) {
    ++total;
    if (arrival_src.size() < 256) arrival_src.push_back(src);
    if (hdr_len < 8) return fail("header shorter than the sequence number");
    uint64_t seq;
    std::memcpy(&seq, hdr, 8);
    if (seq != next[size_t(src)])
      return fail("from rank " + std::to_string(src) + " got seq " + std::to_string(seq) +
                  ", expected " + std::to_string(next[size_t(src)]));
    ++next[size_t(src)];
    for (size_t i = 8; i < hdr_len; ++i)
      if (hdr[i] != pattern(seq, i)) return fail("header byte " + std::to_string(i));
    for (size_t i = 0; i < payload_len; ++i)
      if (payload[i] != pattern(seq, hdr_len + i))
        return fail("payload byte " + std::to_string(i) + " of seq " + std::to_string(seq));
  }
};

// Sends message `seq` of `total` bytes: a header of hdr_len bytes (>= 8) and the rest split
// across two iovec entries, all following OrderedSink's pattern.
void send_patterned(Btl& b, int peer, uint64_t seq, size_t hdr_len, size_t total,
                    std::vector<uint8_t>& scratch,
                    const std::function<void()>& on_retry = nullptr) {
  scratch.resize(total);
  std::memcpy(scratch.data(), &seq, 8);
  for (size_t i = 8; i < total; ++i) scratch[i] = OrderedSink::pattern(seq, i);
  size_t payload = total - hdr_len;
  struct iovec iov[2] = {{scratch.data() + hdr_len, payload / 2},
                         {scratch.data() + hdr_len + payload / 2, payload - payload / 2}};
  send_retry(b, peer, kAmTest, scratch.data(), hdr_len, iov, 2, on_retry);
}

void drain_until(Btl& b, const OrderedSink& sink, uint64_t want) {
  while (sink.total < want)
    if (b.progress() == 0) sched_yield();
}

}  // namespace

TEST_CASE("no shm backend for a rank alone on its node", "[shm]") {
  ForkJob job;
  job.size = 2;
  job.node_of_rank = {0, 1};
  std::string failures = run_forked(job, [](ForkBootstrap& bs) {
    std::unique_ptr<Btl> b = mpr::btl::make_shm_btl(bs);
    FORK_REQUIRE(b == nullptr);
    bs.fence();
    FORK_REQUIRE(shm_entries_for(bs.job_id()).empty());
    return 0;
  });
  CHECK(failures == "");
}

TEST_CASE("wire-up: caps, describe, reachability, segment unlinked and unmapped", "[shm]") {
  int nprocs = GENERATE(2, 3, 4);
  ForkJob job;
  job.size = nprocs;
  // Where the kernel forbids CMA the backend must say so instead of claiming it.
  bool cma = mpr::test::cma_works();
  std::string failures = run_forked(job, [cma](ForkBootstrap& bs) {
    int n = bs.size();
    std::unique_ptr<Btl> b = mpr::btl::make_shm_btl(bs);
    FORK_REQUIRE(b != nullptr);
    // Between the factory and the last attach, the leader's segment is visible by name.
    if (bs.rank() == 0) FORK_REQUIRE(shm_entries_for(bs.job_id()).size() == 1);
    bs.fence();
    b->wire_up(bs);
    bs.fence();
    FORK_REQUIRE(shm_entries_for(bs.job_id()).empty());
    FORK_REQUIRE(mpr::test::segment_mapped(bs.job_id()));

    const mpr::btl::Caps& caps = b->caps();
    FORK_REQUIRE(std::string(caps.name) == "shm");
    FORK_REQUIRE(caps.max_am_size == 16384 - 8);  // largest record minus its header word
    FORK_REQUIRE(caps.eager_limit == 8192);
    FORK_REQUIRE(caps.native_get == cma && caps.native_put == cma);
    FORK_REQUIRE(!caps.needs_registration);
    std::string d = b->describe();
    FORK_REQUIRE(
        d.rfind("shm: " + std::to_string(n) + " local ranks, ring 64x16KiB, eager 8192 B, get=",
                0) == 0);
    FORK_REQUIRE((d.substr(d.size() - 8) == " get=CMA") == cma);
    for (int p = 0; p < n; ++p) FORK_REQUIRE(b->reachable(p) == (p != bs.rank()));
    FORK_REQUIRE(!b->reachable(-1) && !b->reachable(n));

    // One message from everybody to everybody.
    OrderedSink sink(n);
    b->set_handler(kAmTest, &OrderedSink::handler, &sink);
    std::vector<uint8_t> scratch;
    for (int p = 0; p < n; ++p)
      if (p != bs.rank()) send_patterned(*b, p, 0, 8 + size_t(p), 100, scratch);
    drain_until(*b, sink, uint64_t(n - 1));
    FORK_REQUIRE(sink.errors == 0);
    bs.fence();
    // Odd ranks rely on the destructor, even ranks call finalize(): both must unmap.
    if (bs.rank() % 2 == 0) {
      b->finalize();
      FORK_REQUIRE(!b->reachable((bs.rank() + 1) % n));
    } else {
      b.reset();
    }
    FORK_REQUIRE(!mpr::test::segment_mapped(bs.job_id()));
    return 0;
  });
  CHECK(failures == "");
}

TEST_CASE("active messages of every size up to max_am_size arrive intact and in order",
          "[shm][am]") {
  ForkJob job;
  job.size = 2;
  std::string failures = run_forked(job, [](ForkBootstrap& bs) {
    std::unique_ptr<Btl> b = make_and_wire(bs);
    FORK_REQUIRE(b != nullptr);
    size_t max = b->caps().max_am_size;
    OrderedSink sink(bs.size());
    b->set_handler(kAmTest, &OrderedSink::handler, &sink);
    if (bs.rank() == 0) {
      std::vector<uint8_t> scratch;
      for (size_t total = 8; total <= max; ++total) {
        size_t hdr_len = 8 + total % 57;
        if (hdr_len > total) hdr_len = total;
        send_patterned(*b, 1, total - 8, hdr_len, total, scratch);
      }
      // Payload-only messages (no header at all) of the edge sizes, with a different id.
      std::vector<uint8_t> big(max + 1);
      struct iovec iov = {big.data(), max};
      send_retry(*b, 1, kAmTest + 1, nullptr, 0, &iov, 1);
      iov.iov_len = 0;
      send_retry(*b, 1, kAmTest + 1, nullptr, 0, &iov, 1);
      // Too big, or a bad id: refused with an exception, nothing sent.
      iov.iov_len = max + 1;
      bool threw = false;
      try {
        b->send_am(1, kAmTest, nullptr, 0, &iov, 1);
      } catch (const std::invalid_argument&) {
        threw = true;
      }
      FORK_REQUIRE(threw);
      threw = false;
      try {
        b->send_am(1, mpr::btl::kMaxAmIds, nullptr, 0, nullptr, 0);
      } catch (const std::invalid_argument&) {
        threw = true;
      }
      FORK_REQUIRE(threw);
      // A header longer than a record's meta can describe.
      std::vector<uint8_t> long_hdr(mpr::btl::shm::kMaxRecordHdr + 1);
      threw = false;
      try {
        b->send_am(1, kAmTest, long_hdr.data(), long_hdr.size(), nullptr, 0);
      } catch (const std::invalid_argument&) {
        threw = true;
      }
      FORK_REQUIRE(threw);
    } else {
      struct Raw {
        std::vector<size_t> sizes;
        size_t max;
        static void handler(void* ctx, int, const void*, size_t hdr_len, const void*,
                            size_t payload_len) {
          static_cast<Raw*>(ctx)->sizes.push_back(hdr_len + payload_len);
        }
      } raw{{}, max};
      b->set_handler(kAmTest + 1, &Raw::handler, &raw);
      uint64_t want = max - 8 + 1;
      while (sink.total < want || raw.sizes.size() < 2)
        if (b->progress() == 0) sched_yield();
      if (sink.errors) throw std::runtime_error(sink.first_error);
      FORK_REQUIRE(sink.total == want);
      FORK_REQUIRE(raw.sizes == (std::vector<size_t>{max, 0}));
      FORK_REQUIRE(b->progress() == 0);  // the refused sends left nothing behind
    }
    bs.fence();
    return 0;
  });
  CHECK(failures == "");
}

TEST_CASE("all-to-all among 4 processes across the size range", "[shm][am]") {
  ForkJob job;
  job.size = 4;
  std::string failures = run_forked(job, [](ForkBootstrap& bs) {
    std::unique_ptr<Btl> b = make_and_wire(bs);
    FORK_REQUIRE(b != nullptr);
    size_t max = b->caps().max_am_size;
    std::vector<size_t> sizes = {8, 9, 63, 64, 65, max - 1, max};
    for (size_t s = 100; s < max; s += 97) sizes.push_back(s);
    OrderedSink sink(bs.size());
    b->set_handler(kAmTest, &OrderedSink::handler, &sink);
    std::vector<uint8_t> scratch;
    for (size_t i = 0; i < sizes.size(); ++i)
      for (int k = 1; k < bs.size(); ++k)
        send_patterned(*b, (bs.rank() + k) % bs.size(), i, 8 + i % 40, sizes[i], scratch);
    drain_until(*b, sink, sizes.size() * size_t(bs.size() - 1));
    if (sink.errors) throw std::runtime_error(sink.first_error);
    for (int p = 0; p < bs.size(); ++p)
      FORK_REQUIRE(sink.next[size_t(p)] == (p == bs.rank() ? 0 : sizes.size()));
    bs.fence();
    return 0;
  });
  CHECK(failures == "");
}

TEST_CASE("flow control: three senders outrun a receiver that is not polling", "[shm][am]") {
  ForkJob job;
  job.size = 4;
  // 4 KiB rings: full after 19 of these 200-byte messages.
  job.env = {{"MPR_SHM_RING_SLOTS", "16"}, {"MPR_SHM_SLOT_SIZE", "256"}};
  std::string failures = run_forked(job, [](ForkBootstrap& bs) {
    constexpr uint64_t kPerSender = 5000;
    auto* blocked = static_cast<std::atomic<int>*>(bs.scratch());
    std::unique_ptr<Btl> b = make_and_wire(bs);
    FORK_REQUIRE(b != nullptr);
    OrderedSink sink(bs.size());
    b->set_handler(kAmTest, &OrderedSink::handler, &sink);
    if (bs.rank() != 0) {
      std::vector<uint8_t> scratch;
      uint64_t retries = 0;
      auto on_retry = [&] {
        // Tell the receiver once our ring is full.
        if (retries++ == 0) blocked->fetch_add(1);
      };
      for (uint64_t seq = 0; seq < kPerSender; ++seq)
        send_patterned(*b, 0, seq, 24, 200, scratch, on_retry);
      FORK_REQUIRE(retries > 0);
    } else {
      // Poll only once every sender's ring is full, so round-robin order is observable.
      while (blocked->load() < 3) sched_yield();
      drain_until(*b, sink, 3 * kPerSender);
      if (sink.errors) throw std::runtime_error(sink.first_error);
      for (int p = 1; p < 4; ++p) FORK_REQUIRE(sink.next[size_t(p)] == kPerSender);
      // The first 30 deliveries take ten rounds of one message per full ring.
      int count[4] = {0, 0, 0, 0};
      for (size_t i = 0; i < 30; ++i) ++count[sink.arrival_src[i]];
      for (int p = 1; p < 4; ++p) FORK_REQUIRE(count[p] == 10);
    }
    bs.fence();
    return 0;
  });
  CHECK(failures == "");
}

TEST_CASE("two ranks stream at each other at once without deadlock", "[shm][am]") {
  ForkJob job;
  job.size = 2;
  std::string failures = run_forked(job, [](ForkBootstrap& bs) {
    constexpr uint64_t kCount = 20000;
    std::unique_ptr<Btl> b = make_and_wire(bs);
    FORK_REQUIRE(b != nullptr);
    OrderedSink sink(bs.size());
    b->set_handler(kAmTest, &OrderedSink::handler, &sink);
    std::vector<uint8_t> scratch;
    for (uint64_t seq = 0; seq < kCount; ++seq)
      send_patterned(*b, 1 - bs.rank(), seq, 16, 16 + seq % 3000, scratch);
    drain_until(*b, sink, kCount);
    if (sink.errors) throw std::runtime_error(sink.first_error);
    FORK_REQUIRE(sink.next[size_t(1 - bs.rank())] == kCount);
    bs.fence();
    return 0;
  });
  CHECK(failures == "");
}

TEST_CASE("a handler that calls progress() sees no nested delivery", "[shm][am]") {
  ForkJob job;
  job.size = 2;
  std::string failures = run_forked(job, [](ForkBootstrap& bs) {
    std::unique_ptr<Btl> b = make_and_wire(bs);
    FORK_REQUIRE(b != nullptr);
    struct Ctx {
      Btl* btl;
      int calls = 0;
      int nested_events = 0;
      int depth = 0;
      int max_depth = 0;
      static void handler(void* p, int, const void*, size_t, const void*, size_t) {
        auto* c = static_cast<Ctx*>(p);
        ++c->calls;
        if (++c->depth > c->max_depth) c->max_depth = c->depth;
        c->nested_events += c->btl->progress();
        --c->depth;
      }
    } ctx{b.get()};
    b->set_handler(1, &Ctx::handler, &ctx);
    bs.fence();
    if (bs.rank() == 0) {
      for (int i = 0; i < 10; ++i) send_retry(*b, 1, 1, &i, sizeof i, nullptr, 0);
    } else {
      while (ctx.calls < 10) b->progress();
      FORK_REQUIRE(ctx.nested_events == 0);
      FORK_REQUIRE(ctx.max_depth == 1);
    }
    bs.fence();
    return 0;
  });
  CHECK(failures == "");
}

TEST_CASE("two nodes: one segment each, shm reaches only same-node ranks", "[shm]") {
  ForkJob job;
  job.size = 4;
  job.node_of_rank = {0, 1, 0, 1};
  std::string failures = run_forked(job, [](ForkBootstrap& bs) {
    std::unique_ptr<Btl> b = mpr::btl::make_shm_btl(bs);
    FORK_REQUIRE(b != nullptr);
    bs.fence();
    // Both leaders created a segment for the same job before the fence.
    FORK_REQUIRE(shm_entries_for(bs.job_id()).size() == 2);
    bs.fence();
    b->wire_up(bs);
    bs.fence();
    FORK_REQUIRE(shm_entries_for(bs.job_id()).empty());
    int partner = (bs.rank() + 2) % 4;
    for (int p = 0; p < 4; ++p) FORK_REQUIRE(b->reachable(p) == (p == partner));
    FORK_REQUIRE(b->describe().rfind("shm: 2 local ranks,", 0) == 0);
    OrderedSink sink(bs.size());
    b->set_handler(kAmTest, &OrderedSink::handler, &sink);
    std::vector<uint8_t> scratch;
    for (uint64_t seq = 0; seq < 500; ++seq) send_patterned(*b, partner, seq, 8, 1000, scratch);
    drain_until(*b, sink, 500);
    FORK_REQUIRE(sink.errors == 0);
    FORK_REQUIRE(sink.next[size_t(partner)] == 500);
    bool threw = false;
    try {
      b->send_am((bs.rank() + 1) % 4, kAmTest, nullptr, 0, nullptr, 0);
    } catch (const std::invalid_argument&) {
      threw = true;
    }
    FORK_REQUIRE(threw);
    bs.fence();
    return 0;
  });
  CHECK(failures == "");
}

TEST_CASE("the leader unlinks at finalize when a local rank never attached", "[shm]") {
  ForkJob job;
  job.size = 3;
  std::string failures = run_forked(job, [](ForkBootstrap& bs) {
    std::unique_ptr<Btl> b = mpr::btl::make_shm_btl(bs);
    FORK_REQUIRE(b != nullptr);
    bs.fence();
    if (bs.rank() != 2) b->wire_up(bs);  // rank 2 stops before wire-up, as if it had died
    bs.fence();
    FORK_REQUIRE(shm_entries_for(bs.job_id()).size() == 1);
    bs.fence();
    if (bs.rank() == 0) {
      b->finalize();
      FORK_REQUIRE(shm_entries_for(bs.job_id()).empty());
    }
    bs.fence();
    FORK_REQUIRE(shm_entries_for(bs.job_id()).empty());
    return 0;
  });
  CHECK(failures == "");
}

TEST_CASE("ring geometry comes from the environment and the leader's segment", "[shm]") {
  ForkJob job;
  job.size = 3;
  job.env = {{"MPR_SHM_RING_SLOTS", "5"},
             {"MPR_SHM_SLOT_SIZE", "1000"},
             {"MPR_SHM_EAGER_LIMIT", "100000"}};
  std::string failures = run_forked(job, [](ForkBootstrap& bs) {
    // A non-leader with a different environment still adopts the leader's geometry.
    if (bs.rank() == 2) setenv("MPR_SHM_SLOT_SIZE", "4096", 1);
    std::unique_ptr<Btl> b = make_and_wire(bs);
    FORK_REQUIRE(b != nullptr);
    FORK_REQUIRE(b->caps().max_am_size == 1024 - 8);  // largest record minus its header word
    FORK_REQUIRE(b->caps().eager_limit == 1024 - 8 - 128);
    FORK_REQUIRE(b->describe().find("ring 8x1KiB, eager 888 B") != std::string::npos);
    OrderedSink sink(bs.size());
    b->set_handler(kAmTest, &OrderedSink::handler, &sink);
    std::vector<uint8_t> scratch;
    int to = (bs.rank() + 1) % 3;
    for (uint64_t seq = 0; seq < 300; ++seq)
      send_patterned(*b, to, seq, 8, 8 + seq % (1024 - 8 - 7), scratch);
    drain_until(*b, sink, 300);
    FORK_REQUIRE(sink.errors == 0);
    bs.fence();
    return 0;
  });
  CHECK(failures == "");
}
