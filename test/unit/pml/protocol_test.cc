// Eager and rendezvous protocols between Pml instances joined by the fake wire, which delays
// and interleaves deliveries from different peers and refuses sends with kRetry.
#include <catch2/catch.hpp>
#include <cstring>
#include <thread>
#include <vector>

#include "pml/headers.h"
#include "pml/pml_testing.h"
#include "test/unit/pml/fake_world.h"

using namespace mpr;
using mpr::test::check_payload;
using mpr::test::FakeOptions;
using mpr::test::FakeWorld;
using mpr::test::make_payload;

namespace {

constexpr uint32_t kCtx = 3;

/// A hostile but legal wire: late deliveries, late gets, frequent kRetry, tiny channels.
FakeOptions rough_wire() {
  FakeOptions o;
  o.max_am_size = 4096;
  o.eager_limit = 1024;
  o.retry_percent = 20;
  o.channel_capacity = 4;
  o.max_delay = 3;
  o.get_delay = 2;
  o.pml.get_chunk = 64 << 10;
  o.pml.get_inflight = 3;
  return o;
}

const std::vector<size_t> kSizes = {0,    1,     1023,  1024,  1025,    4000,
                                    4096, 65535, 65536, 65537, 1 << 20, (3 << 20) + 17};

void release_all(pml::Pml& p, std::vector<pml::Request*>& reqs) {
  for (auto* r : reqs) p.release(r);
  reqs.clear();
}

}  // namespace

TEST_CASE("every size from 0 B to 3 MiB arrives intact and in posting order", "[protocol]") {
  FakeOptions o = rough_wire();
  o.seed = GENERATE(1u, 2u, 3u, 4u);  // different delays, retries and interleavings
  INFO("wire seed " << o.seed);
  FakeWorld w(2, o);
  std::vector<std::vector<uint8_t>> out, in;
  std::vector<pml::Request*> sends, recvs;
  // Half the receives are posted before the sends (expected path), half after (unexpected).
  size_t half = kSizes.size() / 2;
  in.resize(kSizes.size());
  for (size_t i = 0; i < half; ++i) {
    in[i].assign(kSizes[i] + 1, 0xEE);
    recvs.push_back(w.pml(1).irecv(in[i].data(), kSizes[i], 0, 5, kCtx));
  }
  for (size_t i = 0; i < kSizes.size(); ++i) {
    out.push_back(make_payload(static_cast<uint32_t>(i), kSizes[i]));
    sends.push_back(
        w.pml(0).isend(out[i].data(), kSizes[i], 1, 0, 5, kCtx, pml::SendMode::kStandard));
  }
  w.drive([] { return false; }, 50);
  for (size_t i = half; i < kSizes.size(); ++i) {
    in[i].assign(kSizes[i] + 1, 0xEE);
    recvs.push_back(w.pml(1).irecv(in[i].data(), kSizes[i], 0, 5, kCtx));
  }
  REQUIRE(w.drive_all(sends));
  REQUIRE(w.drive_all(recvs));
  for (size_t i = 0; i < kSizes.size(); ++i) {
    INFO("message " << i << " of " << kSizes[i] << " bytes");
    CHECK(recvs[i]->status.error == pml::kOk);
    CHECK(recvs[i]->status.bytes == kSizes[i]);
    CHECK(recvs[i]->status.source == 0);
    CHECK(recvs[i]->status.tag == 5);
    CHECK(check_payload(in[i].data(), static_cast<uint32_t>(i), kSizes[i]));
    CHECK(in[i][kSizes[i]] == 0xEE);  // nothing written past the message
  }
  const pml::Stats& st = w.pml(0).stats();
  CHECK(st.eager_msgs == 4);  // 0, 1, 1023 and 1024 bytes: at most the 1 KiB limit
  CHECK(st.rndv_msgs == kSizes.size() - st.eager_msgs);
  CHECK(st.rndv_fallback_msgs == 0);
  CHECK(w.wire().retries > 0);
  CHECK(w.wire().max_get_len <= (64u << 10));
  CHECK(w.wire().regs == w.wire().deregs);
  release_all(w.pml(0), sends);
  release_all(w.pml(1), recvs);
  CHECK(pml::debug_counters(w.pml(0)).live_requests == 0);
  CHECK(pml::debug_counters(w.pml(1)).live_requests == 0);
  CHECK(pml::debug_counters(w.pml(1)).out_of_sequence == 0);
}

TEST_CASE("a receive buffer shorter than the message is filled, never overrun", "[protocol]") {
  FakeOptions o = rough_wire();
  FakeWorld w(2, o);
  auto [size, cap] = GENERATE(std::pair<size_t, size_t>{100, 40},        // eager
                              std::pair<size_t, size_t>{300000, 70000},  // rendezvous get
                              std::pair<size_t, size_t>{300000, 0},      // rendezvous, no room
                              std::pair<size_t, size_t>{700, 0});        // eager, no room
  INFO(size << "-byte message into a " << cap << "-byte buffer");
  auto data = make_payload(9, size);
  std::vector<uint8_t> buf(cap + 64, 0xA5);
  pml::Request* s = w.pml(0).isend(data.data(), size, 1, 0, 1, kCtx, pml::SendMode::kStandard);
  pml::Request* r = w.pml(1).irecv(buf.data(), cap, 0, 1, kCtx);
  REQUIRE(w.drive_all({s, r}));
  CHECK(r->status.error == pml::kErrTruncate);
  CHECK(r->status.bytes == cap);
  CHECK(check_payload(buf.data(), 9, cap));
  for (size_t i = cap; i < buf.size(); ++i) REQUIRE(buf[i] == 0xA5);
  CHECK(s->status.error == pml::kOk);
  w.pml(0).release(s);
  w.pml(1).release(r);
}

TEST_CASE("truncation also holds on the copy pipeline", "[protocol]") {
  FakeOptions o = rough_wire();
  o.native_get = false;
  FakeWorld w(2, o);
  auto data = make_payload(4, 100000);
  std::vector<uint8_t> buf(30000 + 64, 0xA5);
  pml::Request* r = w.pml(1).irecv(buf.data(), 30000, 0, 1, kCtx);
  pml::Request* s =
      w.pml(0).isend(data.data(), data.size(), 1, 0, 1, kCtx, pml::SendMode::kStandard);
  REQUIRE(w.drive_all({s, r}));
  CHECK(r->status.error == pml::kErrTruncate);
  CHECK(r->status.bytes == 30000);
  CHECK(check_payload(buf.data(), 4, 30000));
  for (size_t i = 30000; i < buf.size(); ++i) REQUIRE(buf[i] == 0xA5);
  w.pml(0).release(s);
  w.pml(1).release(r);
}

TEST_CASE("a synchronous send completes only after the receive is posted", "[protocol]") {
  FakeWorld w(2, rough_wire());
  size_t size = GENERATE(size_t{0}, size_t{10}, size_t{200000});
  INFO("size " << size);
  auto data = make_payload(1, size);
  std::vector<uint8_t> buf(size);
  pml::Request* s = w.pml(0).isend(data.data(), size, 1, 0, 2, kCtx, pml::SendMode::kSync);
  // Plenty of time for the message to arrive and sit in the unexpected queue.
  w.drive([] { return false; }, 200);
  CHECK_FALSE(s->complete);
  CHECK(pml::debug_counters(w.pml(1)).unexpected == 1);
  pml::Request* r = w.pml(1).irecv(buf.data(), size, 0, 2, kCtx);
  REQUIRE(w.drive_all({s, r}));
  CHECK(check_payload(buf.data(), 1, size));
  CHECK(w.pml(0).stats().sync_msgs == 1);
  w.pml(0).release(s);
  w.pml(1).release(r);
}

TEST_CASE("a standard eager send completes without any receive", "[protocol]") {
  FakeWorld w(2, rough_wire());
  auto data = make_payload(1, 512);
  pml::Request* s = w.pml(0).isend(data.data(), 512, 1, 0, 2, kCtx, pml::SendMode::kStandard);
  REQUIRE(w.drive_all({s}));
  w.pml(0).release(s);
  CHECK(w.drive([&] { return pml::debug_counters(w.pml(1)).unexpected == 1; }));
}

TEST_CASE("rendezvous falls back to CTS and fragments when get is unavailable", "[protocol]") {
  FakeOptions o = rough_wire();
  SECTION("backend without native get") { o.native_get = false; }
  SECTION("registration throws") { o.reg_throws = true; }
  SECTION("get completes with an error") { o.get_fails = true; }
  SECTION("backend needs registration on both sides and it throws") {
    o.needs_registration = true;
    o.reg_throws = true;
  }
  FakeWorld w(2, o);
  std::vector<size_t> sizes = {2000, 5000, 1 << 20};
  std::vector<std::vector<uint8_t>> out, in;
  std::vector<pml::Request*> reqs;
  for (size_t i = 0; i < sizes.size(); ++i) {
    out.push_back(make_payload(static_cast<uint32_t>(i), sizes[i]));
    in.emplace_back(sizes[i]);
    reqs.push_back(w.pml(1).irecv(in[i].data(), sizes[i], 0, 8, kCtx));
    reqs.push_back(
        w.pml(0).isend(out[i].data(), sizes[i], 1, 0, 8, kCtx, pml::SendMode::kStandard));
  }
  REQUIRE(w.drive_all(reqs));
  for (size_t i = 0; i < sizes.size(); ++i)
    CHECK(check_payload(in[i].data(), static_cast<uint32_t>(i), sizes[i]));
  CHECK(w.pml(0).stats().rndv_fallback_msgs == sizes.size());
  CHECK(w.pml(0).stats().rndv_msgs == 0);
  CHECK(w.wire().am_sent[pml::kAmFrag] > 0);
  CHECK(w.wire().regs == w.wire().deregs);
  for (size_t i = 0; i < reqs.size(); ++i) w.pml(i % 2 ? 0 : 1).release(reqs[i]);
}

TEST_CASE("below rndv_get_min, get is used only while both directions are busy", "[protocol]") {
  FakeOptions o = rough_wire();
  o.rndv_get_min = 8 << 20;
  o.rndv_get_duplex_min = 100000;
  o.rndv_get_duplex_max = 1 << 20;
  FakeWorld w(2, o);
  const std::vector<size_t> sizes = {5000, 100000, 300000, 1 << 20, (1 << 20) + 1};
  std::vector<std::vector<uint8_t>> out, in;
  for (size_t i = 0; i < 2 * sizes.size(); ++i) {
    out.push_back(make_payload(static_cast<uint32_t>(i), sizes[i % sizes.size()]));
    in.emplace_back(sizes[i % sizes.size()]);
  }
  std::vector<pml::Request*> reqs;
  // One direction: every rendezvous goes through the copy pipeline.
  for (size_t i = 0; i < sizes.size(); ++i) {
    reqs.push_back(w.pml(1).irecv(in[i].data(), sizes[i], 0, 8, kCtx));
    reqs.push_back(
        w.pml(0).isend(out[i].data(), sizes[i], 1, 0, 8, kCtx, pml::SendMode::kStandard));
  }
  REQUIRE(w.drive_all(reqs));
  CHECK(w.wire().gets == 0);
  CHECK(w.pml(0).stats().rndv_fallback_msgs == sizes.size());
  for (size_t i = 0; i < reqs.size(); ++i) w.pml(i % 2 ? 0 : 1).release(reqs[i]);
  reqs.clear();
  // Both directions at once: the sizes inside the duplex range are read with get(), each
  // receiver having sends of its own to the other rank in flight.
  for (size_t i = 0; i < sizes.size(); ++i) {
    const size_t j = sizes.size() + i;
    reqs.push_back(w.pml(1).irecv(in[i].data(), sizes[i], 0, 9, kCtx));
    reqs.push_back(w.pml(0).irecv(in[j].data(), sizes[i], 1, 9, kCtx));
    reqs.push_back(
        w.pml(1).isend(out[j].data(), sizes[i], 0, 1, 9, kCtx, pml::SendMode::kStandard));
    reqs.push_back(
        w.pml(0).isend(out[i].data(), sizes[i], 1, 0, 9, kCtx, pml::SendMode::kStandard));
  }
  REQUIRE(w.drive_all(reqs));
  for (size_t i = 0; i < 2 * sizes.size(); ++i)
    CHECK(check_payload(in[i].data(), static_cast<uint32_t>(i), sizes[i % sizes.size()]));
  CHECK(w.pml(0).stats().rndv_msgs + w.pml(1).stats().rndv_msgs >= 2);
  CHECK(w.wire().gets > 0);
  CHECK(w.wire().max_get_len <= (1 << 20));  // 1 MiB + 1 stays on the pipeline
  CHECK(w.wire().regs == w.wire().deregs);
  // Posted per size as pml(1) irecv, pml(0) irecv, pml(1) isend, pml(0) isend.
  for (size_t i = 0; i < reqs.size(); ++i) w.pml(i % 2 ? 0 : 1).release(reqs[i]);
}

TEST_CASE("registration is balanced when the backend needs it", "[protocol]") {
  FakeOptions o = rough_wire();
  o.needs_registration = true;
  FakeWorld w(2, o);
  auto data = make_payload(2, 500000);
  std::vector<uint8_t> buf(500000);
  pml::Request* r = w.pml(1).irecv(buf.data(), buf.size(), pml::kAnySource, pml::kAnyTag, kCtx);
  pml::Request* s =
      w.pml(0).isend(data.data(), data.size(), 1, 0, 3, kCtx, pml::SendMode::kStandard);
  REQUIRE(w.drive_all({s, r}));
  CHECK(check_payload(buf.data(), 2, buf.size()));
  CHECK(w.wire().regs == 2);  // sender's buffer and receiver's buffer
  CHECK(w.wire().deregs == 2);
  w.pml(0).release(s);
  w.pml(1).release(r);
}

TEST_CASE("hundreds of outstanding requests between three ranks", "[protocol]") {
  // Every rank sends 150 messages to each other rank with tags 0..2 and sizes across both
  // protocols, all receives posted first: tag 0 by any-source receives, tags 1 and 2 by
  // receives naming the source. Each payload starts with its sender and index, so any
  // overtaking among messages of one (sender, tag) shows.
  FakeOptions o = rough_wire();
  o.seed = GENERATE(7u, 8u, 9u);
  INFO("wire seed " << o.seed);
  FakeWorld w(3, o);
  constexpr int kPerPeer = 150;
  constexpr int kRecvs = 2 * kPerPeer;
  auto size_of = [](int i) {
    return static_cast<size_t>((i * 397) % 3000) + (i % 10 == 0 ? 70000 : 4);
  };
  std::vector<std::vector<uint8_t>> rbufs, sbufs;
  std::vector<pml::Request*> reqs;
  std::vector<std::pair<int, pml::Request*>> owned;
  for (int dst = 0; dst < 3; ++dst) {
    for (int i = 0; i < kRecvs; ++i) {
      rbufs.emplace_back(80000);
      int tag = i % 3;
      int src = tag == 0 ? pml::kAnySource : (dst + 1 + i % 2) % 3;
      pml::Request* r = w.pml(dst).irecv(rbufs.back().data(), 80000, src, tag, kCtx);
      reqs.push_back(r);
      owned.push_back({dst, r});
    }
  }
  for (int i = 0; i < kPerPeer; ++i) {
    for (int src = 0; src < 3; ++src) {
      for (int dst = 0; dst < 3; ++dst) {
        if (dst == src) continue;
        uint32_t id = static_cast<uint32_t>(src * 1000 + i);
        sbufs.push_back(make_payload(id, size_of(i)));
        std::memcpy(sbufs.back().data(), &id, 4);
        pml::Request* s = w.pml(src).isend(sbufs.back().data(), size_of(i), dst, src, i % 3, kCtx,
                                           pml::SendMode::kStandard);
        reqs.push_back(s);
        owned.push_back({src, s});
      }
    }
  }
  CHECK(pml::debug_counters(w.pml(0)).incomplete > 300);
  REQUIRE(w.drive_all(reqs, 2000000));
  for (int dst = 0; dst < 3; ++dst) {
    int last[3][3];
    for (auto& row : last)
      for (int& v : row) v = -1;
    for (int i = 0; i < kRecvs; ++i) {
      const pml::Request* r = reqs[dst * kRecvs + i];
      uint32_t id;
      std::memcpy(&id, rbufs[dst * kRecvs + i].data(), 4);
      int src = static_cast<int>(id / 1000), idx = static_cast<int>(id % 1000);
      INFO("rank " << dst << " receive " << i << " got message " << idx << " of rank " << src);
      REQUIRE(r->status.error == pml::kOk);
      REQUIRE(r->status.source == src);
      REQUIRE(src != dst);
      REQUIRE(r->status.tag == idx % 3);
      REQUIRE(r->status.bytes == size_of(idx));
      REQUIRE(idx > last[src][idx % 3]);
      last[src][idx % 3] = idx;
    }
  }
  for (auto& [rank, r] : owned) w.pml(rank).release(r);
  for (int r = 0; r < 3; ++r) {
    auto d = pml::debug_counters(w.pml(r));
    CHECK(d.live_requests == 0);
    CHECK(d.pending_ams == 0);
    CHECK(d.unexpected == 0);
    CHECK(d.out_of_sequence == 0);
    CHECK(d.protocol_errors == 0);
  }
  CHECK(w.wire().retries > 0);
}

TEST_CASE("any-source any-tag receives keep each sender's order", "[protocol]") {
  FakeOptions o = rough_wire();
  o.max_delay = 6;
  FakeWorld w(4, o);
  constexpr int kEach = 40;
  std::vector<std::vector<uint8_t>> sbufs;
  std::vector<pml::Request*> sends;
  std::vector<uint32_t> got(3 * kEach);
  std::vector<pml::Request*> recvs;
  for (int i = 0; i < 3 * kEach; ++i)
    recvs.push_back(w.pml(0).irecv(&got[i], 4, pml::kAnySource, pml::kAnyTag, kCtx));
  for (int i = 0; i < kEach; ++i)
    for (int src = 1; src < 4; ++src) {
      uint32_t v = static_cast<uint32_t>(src * 1000 + i);
      sbufs.emplace_back(4);
      std::memcpy(sbufs.back().data(), &v, 4);
      sends.push_back(
          w.pml(src).isend(sbufs.back().data(), 4, 0, src, i, kCtx, pml::SendMode::kStandard));
    }
  REQUIRE(w.drive_all(sends));
  REQUIRE(w.drive_all(recvs));
  int last[4] = {-1, -1, -1, -1};
  bool interleaved = false;
  for (int i = 0; i < 3 * kEach; ++i) {
    int src = static_cast<int>(got[i] / 1000), idx = static_cast<int>(got[i] % 1000);
    REQUIRE(recvs[i]->status.source == src);
    REQUIRE(recvs[i]->status.tag == idx);
    REQUIRE(idx == last[src] + 1);
    last[src] = idx;
    if (i > 0 && got[i] / 1000 != got[i - 1] / 1000) interleaved = true;
  }
  CHECK(interleaved);
  for (auto* r : recvs) w.pml(0).release(r);
  for (size_t i = 0; i < sends.size(); ++i) w.pml(1 + static_cast<int>(i % 3)).release(sends[i]);
}

TEST_CASE("sends queued behind kRetry keep their order", "[protocol]") {
  FakeOptions o;
  o.channel_capacity = 1;  // second message to a peer always meets kRetry until delivery
  o.retry_percent = 50;
  FakeWorld w(2, o);
  std::vector<uint32_t> vals(200), got(200);
  std::vector<pml::Request*> sends, recvs;
  for (uint32_t i = 0; i < 200; ++i) {
    vals[i] = i;
    sends.push_back(w.pml(0).isend(&vals[i], 4, 1, 0, 0, kCtx, pml::SendMode::kStandard));
  }
  CHECK(pml::debug_counters(w.pml(0)).pending_ams >= 199);
  CHECK_FALSE(sends.back()->complete);  // still queued: the user buffer is not reusable yet
  for (uint32_t i = 0; i < 200; ++i) recvs.push_back(w.pml(1).irecv(&got[i], 4, 0, 0, kCtx));
  REQUIRE(w.drive_all(sends));
  REQUIRE(w.drive_all(recvs));
  for (uint32_t i = 0; i < 200; ++i) REQUIRE(got[i] == i);
  CHECK(pml::debug_counters(w.pml(0)).pending_ams == 0);
  for (auto* r : sends) w.pml(0).release(r);
  for (auto* r : recvs) w.pml(1).release(r);
}

TEST_CASE("send_now and recv_now complete at once or do nothing, keeping the order", "[protocol]") {
  FakeOptions o;
  o.channel_capacity = 2;  // the third message to a peer meets kRetry until delivery
  FakeWorld w(2, o);
  pml::Pml& a = w.pml(0);
  pml::Pml& b = w.pml(1);
  pml::Status st;
  uint32_t got = 0;
  // Nothing has arrived: recv_now takes nothing and leaves no trace.
  CHECK_FALSE(b.recv_now(&got, 4, 0, 0, kCtx, &st));
  // Two fit the channel, the third does not: nothing of it goes out.
  uint32_t v[4] = {10, 11, 12, 13};
  CHECK(a.send_now(&v[0], 4, 1, 0, 0, kCtx));
  CHECK(a.send_now(&v[1], 4, 1, 0, 0, kCtx));
  CHECK_FALSE(a.send_now(&v[2], 4, 1, 0, 0, kCtx));
  // Larger than the eager limit: never sent now.
  std::vector<uint8_t> big(o.eager_limit + 1, 7);
  CHECK_FALSE(a.send_now(big.data(), big.size(), 1, 0, 0, kCtx));
  // The refused message goes by isend; a message queued behind it keeps send_now out.
  pml::Request* s2 = a.isend(&v[2], 4, 1, 0, 0, kCtx, pml::SendMode::kStandard);
  CHECK_FALSE(a.send_now(&v[3], 4, 1, 0, 0, kCtx));
  pml::Request* s3 = a.isend(&v[3], 4, 1, 0, 0, kCtx, pml::SendMode::kStandard);
  // Receive them in order: recv_now once they arrived, with the status a request would have.
  for (uint32_t i = 0; i < 4; ++i) {
    INFO("message " << i);
    REQUIRE(w.drive([&] { return b.recv_now(&got, 4, 0, 0, kCtx, &st); }));
    CHECK(got == 10 + i);
    CHECK(st.source == 0);
    CHECK(st.tag == 0);
    CHECK(st.bytes == 4);
    CHECK(st.error == pml::kOk);
  }
  REQUIRE(w.drive_all({s2, s3}));
  a.release(s2);
  a.release(s3);
  // A short buffer: truncated like a request, and only its bytes written.
  uint64_t wide = 0x0102030405060708ull;
  REQUIRE(a.send_now(&wide, 8, 1, 0, 4, kCtx));
  uint8_t small[5] = {0, 0, 0, 0, 0xEE};
  REQUIRE(w.drive([&] { return b.recv_now(small, 4, 0, 4, kCtx, &st); }));
  CHECK(st.error == pml::kErrTruncate);
  CHECK(st.bytes == 4);
  CHECK(std::memcmp(small, &wide, 4) == 0);
  CHECK(small[4] == 0xEE);
  // A rendezvous message is left for a request.
  std::vector<uint8_t> in(big.size());
  pml::Request* sb = a.isend(big.data(), big.size(), 1, 0, 6, kCtx, pml::SendMode::kStandard);
  w.drive([] { return false; }, 50);
  CHECK_FALSE(b.recv_now(in.data(), in.size(), 0, 6, kCtx, &st));
  pml::Request* rb = b.irecv(in.data(), in.size(), 0, 6, kCtx);
  REQUIRE(w.drive_all({sb, rb}));
  CHECK(in == big);
  a.release(sb);
  b.release(rb);
}

TEST_CASE("a request released before completion is freed when it completes", "[protocol]") {
  FakeWorld w(2, rough_wire());
  auto data = make_payload(3, 200000);
  std::vector<uint8_t> buf(200000);
  pml::Request* s =
      w.pml(0).isend(data.data(), data.size(), 1, 0, 0, kCtx, pml::SendMode::kStandard);
  w.pml(0).release(s);  // MPI_Request_free on an active send
  CHECK(pml::debug_counters(w.pml(0)).live_requests == 1);
  pml::Request* r = w.pml(1).irecv(buf.data(), buf.size(), 0, 0, kCtx);
  REQUIRE(w.drive([&] { return pml::debug_counters(w.pml(0)).live_requests == 0; }));
  REQUIRE(w.drive_all({r}));
  CHECK(check_payload(buf.data(), 3, buf.size()));
  w.pml(1).release(r);
}

TEST_CASE("probe sees a message without taking it; matched probe takes it", "[protocol]") {
  FakeWorld w(2, rough_wire());
  size_t size = GENERATE(size_t{100}, size_t{150000});
  INFO("size " << size);
  auto data = make_payload(6, size);
  pml::Request* s = w.pml(0).isend(data.data(), size, 1, 0, 42, kCtx, pml::SendMode::kStandard);
  pml::Status st;
  REQUIRE(w.drive([&] { return w.pml(1).iprobe(pml::kAnySource, pml::kAnyTag, kCtx, &st); }));
  CHECK(st.source == 0);
  CHECK(st.tag == 42);
  CHECK(st.bytes == size);
  CHECK(w.pml(1).iprobe(0, 42, kCtx, nullptr));  // still there
  CHECK_FALSE(w.pml(1).iprobe(0, 41, kCtx, nullptr));
  pml::Message* m = w.pml(1).improbe(0, 42, kCtx, &st);
  REQUIRE(m != nullptr);
  CHECK(st.bytes == size);
  // Taken: neither a probe nor a receive can see it any more.
  CHECK_FALSE(w.pml(1).iprobe(0, 42, kCtx, nullptr));
  std::vector<uint8_t> other(size);
  pml::Request* r2 = w.pml(1).irecv(other.data(), size, 0, 42, kCtx);
  std::vector<uint8_t> buf(size);
  pml::Request* r = w.pml(1).imrecv(buf.data(), size, m);
  REQUIRE(w.drive_all({s, r}));
  CHECK(check_payload(buf.data(), 6, size));
  CHECK_FALSE(r2->complete);
  CHECK(w.pml(1).cancel(r2));
  w.pml(0).release(s);
  w.pml(1).release(r);
  w.pml(1).release(r2);
}

TEST_CASE("a cancelled receive completes as cancelled and matches nothing", "[protocol]") {
  FakeWorld w(2, rough_wire());
  int v = 7, got = 0;
  pml::Request* r = w.pml(1).irecv(&got, sizeof got, 0, 0, kCtx);
  REQUIRE(w.pml(1).cancel(r));
  CHECK(r->complete);
  CHECK(r->status.cancelled);
  CHECK_FALSE(w.pml(1).cancel(r));
  pml::Request* s = w.pml(0).isend(&v, sizeof v, 1, 0, 0, kCtx, pml::SendMode::kStandard);
  REQUIRE(w.drive_all({s}));
  w.drive([] { return false; }, 50);
  CHECK(got == 0);
  CHECK(pml::debug_counters(w.pml(1)).unexpected == 1);
  pml::Request* r2 = w.pml(1).irecv(&got, sizeof got, 0, 0, kCtx);
  REQUIRE(w.drive_all({r2}));
  CHECK(got == 7);
  CHECK_FALSE(w.pml(1).cancel(r2));  // already matched
  for (auto* q : {r, r2}) w.pml(1).release(q);
  w.pml(0).release(s);
}

TEST_CASE("a cancelled send whose message is unmatched is withdrawn from the receiver",
          "[protocol]") {
  // Eager (complete at the sender before the cancel), synchronous eager and rendezvous.
  for (size_t size : {size_t{8}, size_t{5000}}) {
    for (auto mode : {pml::SendMode::kStandard, pml::SendMode::kSync}) {
      FakeWorld w(2, rough_wire());
      std::vector<uint8_t> data = make_payload(21, size), other = make_payload(22, size);
      pml::Request* s = w.pml(0).isend(data.data(), size, 1, 0, 5, kCtx, mode);
      REQUIRE(w.drive([&] { return pml::debug_counters(w.pml(1)).unexpected == 1; }));
      CHECK_FALSE(w.pml(0).cancel(s));  // the answer comes later
      REQUIRE(w.drive_all({s}));
      CHECK(s->status.cancelled);
      CHECK(pml::debug_counters(w.pml(1)).unexpected == 0);
      CHECK(pml::debug_counters(w.pml(0)).protocol_errors == 0);
      // The next message with that envelope is the one a receive gets.
      pml::Request* s2 = w.pml(0).isend(other.data(), size, 1, 0, 5, kCtx, mode);
      std::vector<uint8_t> buf(size);
      pml::Request* r = w.pml(1).irecv(buf.data(), size, 0, 5, kCtx);
      REQUIRE(w.drive_all({s2, r}));
      CHECK(check_payload(buf.data(), 22, size));
      CHECK_FALSE(s2->status.cancelled);
      for (auto* q : {s, s2}) w.pml(0).release(q);
      w.pml(1).release(r);
    }
  }
}

TEST_CASE("cancelling a matched send changes nothing", "[protocol]") {
  for (size_t size : {size_t{8}, size_t{5000}}) {
    FakeWorld w(2, rough_wire());
    std::vector<uint8_t> data = make_payload(23, size), buf(size);
    pml::Request* r = w.pml(1).irecv(buf.data(), size, 0, 6, kCtx);
    pml::Request* s = w.pml(0).isend(data.data(), size, 1, 0, 6, kCtx, pml::SendMode::kStandard);
    REQUIRE(w.drive_all({r}));
    CHECK_FALSE(w.pml(0).cancel(s));
    REQUIRE(w.drive_all({s}));
    CHECK_FALSE(s->status.cancelled);
    CHECK(check_payload(buf.data(), 23, size));
    // A second cancel of the same (complete, matched) send does nothing either.
    w.pml(0).cancel(s);
    REQUIRE(w.drive_all({s}));
    CHECK_FALSE(s->status.cancelled);
    CHECK(pml::debug_counters(w.pml(0)).protocol_errors == 0);
    CHECK(pml::debug_counters(w.pml(1)).protocol_errors == 0);
    w.pml(0).release(s);
    w.pml(1).release(r);
  }
}

TEST_CASE("contexts are separate matching spaces", "[protocol]") {
  FakeWorld w(2, rough_wire());
  int a = 1, b = 2, ga = 0, gb = 0;
  pml::Request* rb = w.pml(1).irecv(&gb, 4, 0, 0, 11);
  pml::Request* sa = w.pml(0).isend(&a, 4, 1, 0, 0, 10, pml::SendMode::kStandard);
  pml::Request* sb = w.pml(0).isend(&b, 4, 1, 0, 0, 11, pml::SendMode::kStandard);
  REQUIRE(w.drive_all({sa, sb, rb}));
  CHECK(gb == 2);
  pml::Request* ra = w.pml(1).irecv(&ga, 4, 0, 0, 10);
  REQUIRE(w.drive_all({ra}));
  CHECK(ga == 1);
  for (auto* q : {sa, sb}) w.pml(0).release(q);
  for (auto* q : {ra, rb}) w.pml(1).release(q);
}

TEST_CASE("two ranks in two threads block in wait()", "[protocol][threads]") {
  FakeOptions o = rough_wire();
  o.pml.spin_count = 10;  // reach the yielding branch quickly
  FakeWorld w(2, o);
  constexpr int kRounds = 50;
  std::vector<uint8_t> big = make_payload(8, 300000);
  bool ok0 = true, ok1 = true;
  auto rank = [&](int me, bool* ok) {
    pml::Pml& p = w.pml(me);
    std::vector<uint8_t> buf(big.size());
    for (int i = 0; i < kRounds; ++i) {
      size_t n = (i % 5 == 0) ? big.size() : static_cast<size_t>(i * 13);
      pml::Request* s = p.isend(big.data(), n, 1 - me, me, i, kCtx, pml::SendMode::kSync);
      pml::Request* r = p.irecv(buf.data(), buf.size(), 1 - me, i, kCtx);
      p.wait(r);
      p.wait(s);
      *ok = *ok && r->status.bytes == n && check_payload(buf.data(), 8, n);
      p.release(s);
      p.release(r);
    }
    // As MPI_Finalize does: a rank whose requests are all complete may still hold replies
    // queued behind kRetry (the acknowledgement of the peer's last synchronous send). Without
    // this the first thread to finish stopped progressing and the other waited forever.
    p.finalize();
  };
  std::thread t1(rank, 1, &ok1);
  rank(0, &ok0);
  t1.join();
  CHECK(ok0);
  CHECK(ok1);
}

TEST_CASE("256 MiB crosses the wire by get and by the copy pipeline", "[protocol][large]") {
  bool native_get = GENERATE(true, false);
  INFO("native_get " << native_get);
  FakeOptions o;
  o.native_get = native_get;
  o.max_am_size = 1 << 20;
  o.eager_limit = 8192;
  FakeWorld w(2, o);
  const size_t n = size_t{256} << 20;
  std::vector<uint8_t> src(n), dst(n);
  for (size_t i = 0; i < n; i += 4096) src[i] = static_cast<uint8_t>(i >> 12);
  src[n - 1] = 0x5a;
  pml::Request* r = w.pml(1).irecv(dst.data(), n, 0, 0, kCtx);
  pml::Request* s = w.pml(0).isend(src.data(), n, 1, 0, 0, kCtx, pml::SendMode::kStandard);
  REQUIRE(w.drive_all({s, r}));
  CHECK(r->status.bytes == n);
  CHECK(std::memcmp(src.data(), dst.data(), n) == 0);
  if (native_get) CHECK(w.wire().max_get_len == (size_t{8} << 20));
  w.pml(0).release(s);
  w.pml(1).release(r);
}
