// get/put through cross-memory attach across forked processes, the copy-fallback flag, and a
// small benchmark (hidden tag [.bench]: run `mpr_unit_shm [.bench]`).
#include <linux/capability.h>
#include <sched.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <catch2/catch.hpp>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <stdexcept>
#include <string>
#include <system_error>
#include <vector>

#include "btl-rdma/btl.h"
#include "test/unit/shm/fork_harness.h"

using mpr::btl::Btl;
using mpr::btl::Completion;
using mpr::btl::Registration;
using mpr::btl::RemoteKey;
using mpr::btl::Status;
using mpr::test::ForkBootstrap;
using mpr::test::ForkJob;
using mpr::test::make_and_wire;
using mpr::test::run_forked;

namespace {

constexpr size_t kMiB = size_t{1} << 20;
constexpr size_t kBig = 64 * kMiB;

uint8_t src_pattern(size_t i) { return uint8_t(i * 7 + 3 + (i >> 20)); }
uint8_t put_pattern(size_t i) { return uint8_t(i * 11 + 5 + (i >> 16)); }

struct Exposed {
  uint64_t src;
  uint64_t dst;
  RemoteKey rkey;
};

struct Done : Completion {
  int status = -1;
  int fired = 0;
  Done() { fn = &Done::on_done; }
  static void on_done(Completion* c, int status) {
    auto* d = static_cast<Done*>(c);
    d->status = status;
    ++d->fired;
  }
};

// Waits for `d` if the operation was posted; returns the final status (0 = success).
int finish(Btl& b, Status st, Done& d) {
  if (st == Status::kDone) return d.fired ? -2 : 0;
  if (st != Status::kPosted) return -3;
  while (!d.fired) b.progress();
  return d.status;
}

template <typename Fn>
bool throws_errno(Fn fn, int err) {
  try {
    fn();
  } catch (const std::system_error& e) {
    return e.code().value() == err;
  }
  return false;
}

}  // namespace

TEST_CASE("CMA get and put move data intact up to 64 MiB", "[shm][cma]") {
  if (!mpr::test::cma_works()) {
    WARN("skipped: this machine forbids process_vm_readv between sibling processes");
    return;
  }
  ForkJob job;
  job.size = 2;
  std::string failures = run_forked(job, [](ForkBootstrap& bs) {
    std::unique_ptr<Btl> b = make_and_wire(bs);
    FORK_REQUIRE(b != nullptr);
    FORK_REQUIRE(b->caps().native_get);
    if (bs.rank() == 1) {
      std::vector<uint8_t> src(kBig + 64), dst(kBig + 64, 0);
      for (size_t i = 0; i < src.size(); ++i) src[i] = src_pattern(i);
      Registration reg;
      b->reg(src.data(), src.size(), &reg);
      FORK_REQUIRE(reg.rkey.words[0] == uint64_t(getpid()));
      bs.put_value("test.buf", Exposed{uint64_t(uintptr_t(src.data())),
                                       uint64_t(uintptr_t(dst.data())), reg.rkey});
      bs.fence();  // rank 0 gets and puts
      bs.fence();
      FORK_REQUIRE(dst[0] == 0 && dst[1] == 0 && dst[2] == 0);
      for (size_t i = 0; i < kBig - 100; ++i)
        if (dst[3 + i] != put_pattern(5 + i))
          throw std::runtime_error("put: byte " + std::to_string(i) + " differs");
      for (size_t i = kBig - 97; i < dst.size(); ++i) FORK_REQUIRE(dst[i] == 0);
      b->dereg(&reg);
      FORK_REQUIRE(reg.addr == nullptr);
      return 0;
    }
    bs.fence();
    Exposed peer = bs.get_value<Exposed>(1, "test.buf");
    std::vector<uint8_t> local(kBig + 64);
    Registration lreg;
    b->reg(local.data(), local.size(), &lreg);
    const size_t sizes[] = {0,   1, 7, 4096, 4097, 1 * kMiB, 4 * kMiB, 4 * kMiB + 1, 16 * kMiB + 13,
                            kBig};
    for (size_t len : sizes) {
      size_t off = len % 61;  // unaligned remote offsets too
      std::memset(local.data(), 0xee, len + 1);
      Done d;
      Status st = b->get(1, local.data(), &lreg, peer.src + off, peer.rkey, len, &d);
      // Up to one CMA step completes inline; beyond it the rest runs from progress().
      FORK_REQUIRE((st == Status::kDone) == (len <= 4 * kMiB));
      FORK_REQUIRE(d.fired == 0);
      FORK_REQUIRE(finish(*b, st, d) == 0);
      FORK_REQUIRE(d.fired == (st == Status::kPosted ? 1 : 0));
      for (size_t i = 0; i < len; ++i)
        if (local[i] != src_pattern(off + i))
          throw std::runtime_error("get of " + std::to_string(len) + " bytes: byte " +
                                   std::to_string(i) + " differs");
      FORK_REQUIRE(local[len] == 0xee);  // not one byte more
    }

    // Two large gets in flight at once both complete, each with its own data.
    std::vector<uint8_t> second(16 * kMiB);
    Done d1, d2;
    Status s1 = b->get(1, local.data(), &lreg, peer.src, peer.rkey, 16 * kMiB, &d1);
    Status s2 = b->get(1, second.data(), nullptr, peer.src + 8 * kMiB, peer.rkey, 16 * kMiB, &d2);
    FORK_REQUIRE(s1 == Status::kPosted && s2 == Status::kPosted);
    FORK_REQUIRE(finish(*b, s1, d1) == 0);
    FORK_REQUIRE(finish(*b, s2, d2) == 0);
    for (size_t i = 0; i < 16 * kMiB; i += 4093) {
      FORK_REQUIRE(local[i] == src_pattern(i));
      FORK_REQUIRE(second[i] == src_pattern(8 * kMiB + i));
    }

    for (size_t i = 0; i < kBig; ++i) local[i] = put_pattern(i);
    Done dp;
    Status sp = b->put(1, local.data() + 5, &lreg, peer.dst + 3, peer.rkey, kBig - 100, &dp);
    FORK_REQUIRE(sp == Status::kPosted);
    FORK_REQUIRE(finish(*b, sp, dp) == 0);
    Done dsmall;
    uint8_t zero = 0;
    FORK_REQUIRE(b->put(1, &zero, nullptr, peer.dst + 2, peer.rkey, 1, &dsmall) == Status::kDone);
    bs.fence();
    return 0;
  });
  CHECK(failures == "");
}

TEST_CASE("get/put failures are reported through the completion", "[shm][cma]") {
  if (!mpr::test::cma_works()) {
    WARN("skipped: this machine forbids process_vm_readv between sibling processes");
    return;
  }
  ForkJob job;
  job.size = 2;
  std::string failures = run_forked(job, [](ForkBootstrap& bs) {
    std::unique_ptr<Btl> b = make_and_wire(bs);
    FORK_REQUIRE(b != nullptr);
    Registration reg;
    uint64_t word = 42;
    b->reg(&word, sizeof word, &reg);
    bs.put_value("test.word", Exposed{uint64_t(uintptr_t(&word)), 0, reg.rkey});
    bs.fence();
    int peer = 1 - bs.rank();
    Exposed exposed = bs.get_value<Exposed>(peer, "test.word");
    RemoteKey rkey = exposed.rkey;
    uint8_t buf[64];

    Done bad_addr;
    FORK_REQUIRE(b->get(peer, buf, nullptr, 4096, rkey, 64, &bad_addr) == Status::kPosted);
    FORK_REQUIRE(bad_addr.fired == 0);  // never from inside get()
    FORK_REQUIRE(finish(*b, Status::kPosted, bad_addr) == EFAULT);

    RemoteKey foreign = rkey;
    foreign.words[1] = 0;
    Done bad_key;
    FORK_REQUIRE(b->put(peer, buf, nullptr, 4096, foreign, 8, &bad_key) == Status::kPosted);
    FORK_REQUIRE(finish(*b, Status::kPosted, bad_key) == EINVAL);

    // Without a completion there is nobody to tell later: the error is thrown instead.
    FORK_REQUIRE(
        throws_errno([&] { b->get(peer, buf, nullptr, 4096, rkey, 64, nullptr); }, EFAULT));
    bool threw = false;
    try {
      b->get(peer, buf, nullptr, 4096, rkey, 8 * kMiB, nullptr);
    } catch (const std::invalid_argument&) {
      threw = true;
    }
    FORK_REQUIRE(threw);
    FORK_REQUIRE(b->progress() == 0);  // nothing left queued by the refused calls

    uint64_t got = 0;
    FORK_REQUIRE(b->get(peer, &got, nullptr, exposed.src, rkey, 8, nullptr) == Status::kDone);
    FORK_REQUIRE(got == 42);
    bs.fence();
    return 0;
  });
  CHECK(failures == "");
}

TEST_CASE("MPR_SHM_CMA=0 turns native get off and keeps messages working", "[shm][cma]") {
  ForkJob job;
  job.size = 3;
  job.env = {{"MPR_SHM_CMA", "0"}};
  std::string failures = run_forked(job, [](ForkBootstrap& bs) {
    std::unique_ptr<Btl> b = make_and_wire(bs);
    FORK_REQUIRE(b != nullptr);
    int received = 0;
    b->set_handler(
        0,
        [](void* ctx, int, const void*, size_t, const void*, size_t) { ++*static_cast<int*>(ctx); },
        &received);
    FORK_REQUIRE(!b->caps().native_get);
    FORK_REQUIRE(!b->caps().native_put);
    std::string d = b->describe();
    FORK_REQUIRE(d.size() > 24 && d.substr(d.size() - 24) == "get=copy (MPR_SHM_CMA=0)");
    int peer = (bs.rank() + 1) % bs.size();
    Registration reg;
    uint64_t word = 0;
    b->reg(&word, sizeof word, &reg);
    Done done;
    FORK_REQUIRE(b->get(peer, &word, nullptr, uint64_t(uintptr_t(&word)), reg.rkey, 8, &done) ==
                 Status::kPosted);
    FORK_REQUIRE(finish(*b, Status::kPosted, done) == ENOTSUP);

    mpr::test::send_retry(*b, peer, 0, "x", 1, nullptr, 0);
    while (received == 0) b->progress();
    bs.fence();
    return 0;
  });
  CHECK(failures == "");
}

TEST_CASE("a peer CMA may not read turns native get off for the reader", "[shm][cma]") {
  if (!mpr::test::cma_works()) {
    WARN("skipped: this machine forbids process_vm_readv between sibling processes");
    return;
  }
  ForkJob job;
  job.size = 2;
  std::string failures = run_forked(job, [](ForkBootstrap& bs) {
    // Real EPERM, as under Yama or a container policy: rank 1 is not dumpable and rank 0 lacks
    // CAP_SYS_PTRACE, so the kernel refuses rank 0's reads of rank 1 (but not the reverse).
    if (bs.rank() == 1) FORK_REQUIRE(prctl(PR_SET_DUMPABLE, 0, 0, 0, 0) == 0);
    if (bs.rank() == 0) {
      __user_cap_header_struct head = {_LINUX_CAPABILITY_VERSION_3, 0};
      __user_cap_data_struct data[2] = {};
      FORK_REQUIRE(syscall(SYS_capget, &head, data) == 0);
      data[0].effective &= ~(1u << CAP_SYS_PTRACE);
      FORK_REQUIRE(syscall(SYS_capset, &head, data) == 0);
    }
    std::unique_ptr<Btl> b = make_and_wire(bs);
    FORK_REQUIRE(b != nullptr);
    std::string d = b->describe();
    if (bs.rank() == 0) {
      FORK_REQUIRE(!b->caps().native_get && !b->caps().native_put);
      FORK_REQUIRE(d.find("get=copy (CMA read of job rank 1") != std::string::npos);
      FORK_REQUIRE(d.find("Operation not permitted") != std::string::npos);
    } else {
      FORK_REQUIRE(b->caps().native_get);
      FORK_REQUIRE(d.substr(d.size() - 7) == "get=CMA");
    }
    bs.fence();
    return 0;
  });
  CHECK(failures == "");
}

TEST_CASE("shm latency and CMA bandwidth", "[.bench]") {
  ForkJob job;
  job.size = 2;
  std::string failures = run_forked(job, [](ForkBootstrap& bs) {
    using Clock = std::chrono::steady_clock;
    std::unique_ptr<Btl> b = make_and_wire(bs);
    FORK_REQUIRE(b != nullptr);
    int peer = 1 - bs.rank();
    uint64_t arrived = 0;
    b->set_handler(
        0,
        [](void* ctx, int, const void*, size_t, const void*, size_t) {
          ++*static_cast<uint64_t*>(ctx);
        },
        &arrived);
    // The machine may be shared: time batches and report the best and the median batch.
    for (size_t size : {size_t{8}, size_t{4096}}) {
      std::vector<uint8_t> msg(size, 1);
      const int kBatches = 21, kIters = 2000;
      std::vector<double> one_way_us;
      bs.fence();
      arrived = 0;
      uint64_t expect = 0;
      for (int batch = 0; batch < kBatches; ++batch) {
        auto t0 = Clock::now();
        for (int i = 0; i < kIters; ++i) {
          ++expect;
          if (bs.rank() == 0) mpr::test::send_retry(*b, peer, 0, msg.data(), size, nullptr, 0);
          while (arrived < expect) b->progress();
          if (bs.rank() == 1) mpr::test::send_retry(*b, peer, 0, msg.data(), size, nullptr, 0);
        }
        double us = std::chrono::duration<double, std::micro>(Clock::now() - t0).count();
        one_way_us.push_back(us / kIters / 2);
      }
      std::sort(one_way_us.begin(), one_way_us.end());
      if (bs.rank() == 0)
        std::printf("shm AM ping-pong %5zu B: one-way %.3f us best batch, %.3f us median\n", size,
                    one_way_us.front(), one_way_us[one_way_us.size() / 2]);
      FORK_REQUIRE(arrived == uint64_t(kBatches) * kIters);
    }

    std::vector<uint8_t> buf(16 * kMiB, uint8_t(bs.rank() + 1));
    Registration reg;
    b->reg(buf.data(), buf.size(), &reg);
    bs.put_value("bench.buf", Exposed{uint64_t(uintptr_t(buf.data())), 0, reg.rkey});
    bs.fence();
    if (bs.rank() == 0) {
      Exposed p = bs.get_value<Exposed>(1, "bench.buf");
      std::vector<uint8_t> local(16 * kMiB, 0);
      for (size_t len : {kMiB, 4 * kMiB, 16 * kMiB}) {
        int iters = int(256 * kMiB / len);
        double best = 0;
        for (int rep = 0; rep < 5; ++rep) {
          auto t0 = Clock::now();
          for (int i = 0; i < iters; ++i) {
            Done d;
            FORK_REQUIRE(finish(*b, b->get(1, local.data(), nullptr, p.src, p.rkey, len, &d), d) ==
                         0);
          }
          double s = std::chrono::duration<double>(Clock::now() - t0).count();
          best = std::max(best, double(len) * iters / s / 1e9);
        }
        std::printf("shm CMA get %2zu MiB: %.2f GB/s (best of 5 runs)\n", len / kMiB, best);
        FORK_REQUIRE(local[len - 1] == 2);
      }
      std::fflush(stdout);
    }
    bs.fence();
    return 0;
  });
  CHECK(failures == "");
}
