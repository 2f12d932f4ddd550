// Teardown accounting, and a few timings printed for the record (not pass/fail on speed).
#include <sys/mman.h>

#include <catch2/catch.hpp>
#include <chrono>
#include <cstdio>
#include <cstring>

#include "test/verbs/verbs_pair.h"

using mpr::btl::Registration;
using mpr::btl::Status;
using mpr::btl::verbs::live_counts;
using namespace mpr::verbs_test;

namespace {

void traffic(World& w) {
  REQUIRE(w.send(0, 1, 1, nullptr, 0, "x", 1));
  REQUIRE(w.send(1, 0, 1, nullptr, 0, "y", 1));
  REQUIRE(w.spin([&] { return !w[0].inbox.empty() && !w[1].inbox.empty(); }));
}

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

}  // namespace

TEST_CASE("verbs: finalize releases every QP, MR, CQ, SRQ, PD and context", "[verbs]") {
  REQUIRE(live_counts().all_zero());
  {
    World w(default_config(), 3);
    traffic(w);
    REQUIRE(w.send(2, 0, 1, nullptr, 0, "z", 1));
    std::vector<char> buf(1 << 20);
    Registration held;
    w[0].btl->reg(buf.data(), buf.size(), &held);  // still held at finalize: must not leak
    CHECK(live_counts().qps == 3 + 4);             // 3 UD + 2 RC pairs
    CHECK(live_counts().mrs > 0);
    w.finalize_all();
    INFO(mpr::btl::verbs::to_string(live_counts()));
    CHECK(live_counts().all_zero());
    w[0].btl->dereg(&held);  // after finalize: harmless
    CHECK(live_counts().all_zero());
  }
  CHECK(live_counts().all_zero());
}

TEST_CASE("verbs: the destructor alone also releases everything", "[verbs]") {
  {
    World w(default_config());
    traffic(w);
    std::vector<char> buf(65536);
    Registration r;
    w[1].btl->reg(buf.data(), buf.size(), &r);
  }
  INFO(mpr::btl::verbs::to_string(live_counts()));
  CHECK(live_counts().all_zero());
}

TEST_CASE("verbs: timings over this device", "[verbs][bench]") {
  World w(default_config());
  traffic(w);
  int got0 = 0, got1 = 0;
  w[0].on_msg = [&](int, const uint8_t*, size_t, const uint8_t*, size_t) { ++got0; };
  w[1].on_msg = [&](int, const uint8_t*, size_t, const uint8_t*, size_t) { ++got1; };
  for (size_t size : {size_t{8}, size_t{4096}}) {
    std::vector<char> msg(size, 'm');
    const int iters = 500;
    auto t0 = std::chrono::steady_clock::now();
    for (int i = 0; i < iters; ++i) {
      REQUIRE(w.send(0, 1, 1, nullptr, 0, msg.data(), size));
      REQUIRE(w.spin([&] { return got1 == (size == 8 ? 0 : iters) + i + 1; }));
      REQUIRE(w.send(1, 0, 1, nullptr, 0, msg.data(), size));
      REQUIRE(w.spin([&] { return got0 == (size == 8 ? 0 : iters) + i + 1; }));
    }
    const double us = seconds_since(t0) / iters / 2 * 1e6;
    std::printf("verbs timing: AM ping-pong %zu B: %.1f us one-way (one process drives both)\n",
                size, us);
    CHECK(us > 0);
  }
  for (size_t len : {size_t{4} << 20, size_t{64} << 20}) {
    char* src = static_cast<char*>(
        mmap(nullptr, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0));
    char* dst = static_cast<char*>(
        mmap(nullptr, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0));
    REQUIRE(src != MAP_FAILED);
    REQUIRE(dst != MAP_FAILED);
    std::memset(src, 1, len);
    std::memset(dst, 0, len);
    Registration rs, rd;
    w[0].btl->reg(src, len, &rs);
    w[1].btl->reg(dst, len, &rd);
    const int reps = len > (8u << 20) ? 2 : 8;
    auto t0 = std::chrono::steady_clock::now();
    for (int i = 0; i < reps; ++i) {
      WaitCompletion wc;
      REQUIRE(w[1].btl->get(0, dst, &rd, reinterpret_cast<uint64_t>(src), rs.rkey, len, &wc.c) ==
              Status::kPosted);
      REQUIRE(w.spin([&] { return wc.done; }, 600));
      REQUIRE(wc.status == 0);
    }
    const double mbs = static_cast<double>(len) * reps / seconds_since(t0) / 1e6;
    std::printf("verbs timing: get %zu MiB: %.1f MB/s\n", len >> 20, mbs);
    CHECK(dst[len - 1] == 1);
    w[0].btl->dereg(&rs);
    w[1].btl->dereg(&rd);
    munmap(src, len);
    munmap(dst, len);
  }
  std::fflush(stdout);
}
