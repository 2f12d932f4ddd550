// get/put (RDMA READ/WRITE) with data checks, chunking, and the error path.
#include <sys/mman.h>

#include <catch2/catch.hpp>
#include <cstring>
#include <vector>

#include "test/verbs/verbs_pair.h"

using mpr::btl::Registration;
using mpr::btl::Status;
using namespace mpr::verbs_test;

namespace {

// Page-aligned anonymous memory, released on scope exit.
struct Buffer {
  size_t len;
  char* p;
  explicit Buffer(size_t n) : len(n) {
    p = static_cast<char*>(
        mmap(nullptr, n, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0));
    REQUIRE(p != MAP_FAILED);
  }
  ~Buffer() { munmap(p, len); }
};

// One transfer of `len` bytes at the given offsets; `use_get`: rank 1 reads from rank 0,
// else rank 0 writes into rank 1. Returns the completion status.
int transfer(World& w, bool use_get, char* src, char* dst, size_t len, bool local_reg = true) {
  Registration rs, rd;
  w[0].btl->reg(src, len, &rs);
  w[1].btl->reg(dst, len, &rd);
  WaitCompletion wc;
  Status st;
  if (use_get)
    st = w[1].btl->get(0, dst, local_reg ? &rd : nullptr, reinterpret_cast<uint64_t>(src), rs.rkey,
                       len, &wc.c);
  else
    st = w[0].btl->put(1, src, local_reg ? &rs : nullptr, reinterpret_cast<uint64_t>(dst), rd.rkey,
                       len, &wc.c);
  if (st == Status::kPosted)
    REQUIRE(w.spin([&] { return wc.done; }, 300));
  else
    wc.status = 0;
  w[0].btl->dereg(&rs);
  w[1].btl->dereg(&rd);
  return wc.status;
}

}  // namespace

TEST_CASE("verbs: get and put from 1 byte to 64 MiB move the right bytes", "[verbs]") {
  World w(default_config());
  const size_t kMax = 64u << 20;
  Buffer src(kMax + 4096), dst(kMax + 4096);
  const size_t sizes[] = {1,
                          2,
                          3,
                          7,
                          8,
                          63,
                          64,
                          65,
                          4095,
                          4096,
                          4097,
                          65536 + 3,
                          1u << 20,
                          (1u << 20) + 1,
                          8u << 20,
                          (8u << 20) + 1,
                          (16u << 20) + 5,
                          kMax};
  uint64_t seed = 1;
  for (bool use_get : {true, false}) {
    for (size_t len : sizes) {
      // Odd offsets on both sides: RDMA has no alignment requirement, and neither do we.
      const size_t so = len % 5, doff = (len + 2) % 7;
      fill(src.p + so, len, seed);
      std::memset(dst.p, 0, len + doff + 1);
      INFO((use_get ? "get " : "put ") << len << " bytes");
      REQUIRE(transfer(w, use_get, src.p + so, dst.p + doff, len) == 0);
      CHECK(first_mismatch(dst.p + doff, len, seed) == SIZE_MAX);
      CHECK(dst.p[doff + len] == 0);  // nothing written past the end
      ++seed;
    }
  }
  CHECK(w[0].v->stats().wc_errors == 0);
  CHECK(w[1].v->stats().wc_errors == 0);
}

TEST_CASE("verbs: large transfers are split into chunks and stay correct", "[verbs]") {
  auto cfg = default_config();
  cfg.rdma_chunk = 64 * 1024;
  cfg.sq_depth = 16;  // far fewer entries than chunks: the tail is posted from progress()
  World w(cfg);
  const size_t len = (4u << 20) + 11;
  Buffer src(len + 4096), dst(len + 4096);
  fill(src.p, len, 77);
  const uint64_t wrs_before = w[1].v->stats().rdma_wrs;
  REQUIRE(transfer(w, true, src.p, dst.p, len) == 0);
  CHECK(first_mismatch(dst.p, len, 77) == SIZE_MAX);
  CHECK(w[1].v->stats().rdma_wrs - wrs_before == (len + cfg.rdma_chunk - 1) / cfg.rdma_chunk);
  fill(src.p, len, 78);
  REQUIRE(transfer(w, false, src.p, dst.p, len) == 0);
  CHECK(first_mismatch(dst.p, len, 78) == SIZE_MAX);
}

TEST_CASE("verbs: several gets in flight complete independently", "[verbs]") {
  World w(default_config());
  const size_t len = 256 * 1024;
  const int n = 8;
  Buffer src(len * n), dst(len * n);
  for (int i = 0; i < n; ++i) fill(src.p + i * len, len, 100 + i);
  Registration rs, rd;
  w[0].btl->reg(src.p, len * n, &rs);
  w[1].btl->reg(dst.p, len * n, &rd);
  std::vector<WaitCompletion> wc(n);
  for (int i = 0; i < n; ++i) {
    Status st = w[1].btl->get(0, dst.p + i * len, &rd, reinterpret_cast<uint64_t>(src.p + i * len),
                              rs.rkey, len, &wc[i].c);
    CHECK(st == Status::kPosted);
  }
  REQUIRE(w.spin([&] {
    for (auto& c : wc)
      if (!c.done) return false;
    return true;
  }));
  for (int i = 0; i < n; ++i) {
    CHECK(wc[i].status == 0);
    CHECK(first_mismatch(dst.p + i * len, len, 100 + i) == SIZE_MAX);
  }
  w[0].btl->dereg(&rs);
  w[1].btl->dereg(&rd);
}

TEST_CASE("verbs: get without a local registration registers on the fly", "[verbs]") {
  World w(default_config());
  const size_t len = 300000;
  Buffer src(len), dst(len);
  fill(src.p, len, 5);
  REQUIRE(transfer(w, true, src.p, dst.p, len, false) == 0);
  CHECK(first_mismatch(dst.p, len, 5) == SIZE_MAX);
}

TEST_CASE("verbs: a get with a wrong remote key fails through its completion", "[verbs]") {
  World w(default_config());
  const size_t len = 8192;
  Buffer src(len), dst(len);
  Registration rs, rd;
  w[0].btl->reg(src.p, len, &rs);
  w[1].btl->reg(dst.p, len, &rd);
  mpr::btl::RemoteKey bad = rs.rkey;
  bad.words[0] ^= 0x5a5a00;
  WaitCompletion wc;
  REQUIRE(w[1].btl->get(0, dst.p, &rd, reinterpret_cast<uint64_t>(src.p), bad, len, &wc.c) ==
          Status::kPosted);
  REQUIRE(w.spin([&] { return wc.done; }, 300));
  CHECK(wc.status != 0);
  CHECK(w[1].v->stats().wc_errors >= 1);
  // The RC connection is broken now; the backend says so instead of hanging.
  CHECK_THROWS_AS(w[1].btl->send_am(0, 1, nullptr, 0, nullptr, 0), std::runtime_error);
  w[0].btl->dereg(&rs);
  w[1].btl->dereg(&rd);
}
