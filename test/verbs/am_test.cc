// Connection setup and active messages over the real device.
#include <catch2/catch.hpp>
#include <cstring>
#include <stdexcept>

#include "test/verbs/verbs_pair.h"

using mpr::btl::Status;
using mpr::btl::verbs::live_counts;
using namespace mpr::verbs_test;

TEST_CASE("verbs: connections are made on first use", "[verbs]") {
  const int qps_before = live_counts().qps;
  World w(default_config());
  // Only the connection-manager UD QPs exist until somebody talks.
  CHECK(live_counts().qps == qps_before + 2);
  CHECK(w[0].btl->reachable(1));
  CHECK_FALSE(w[0].v->connected(1));
  const char hello[] = "hello";
  iovec iov{const_cast<char*>(hello), sizeof hello};
  // The first send starts the handshake and cannot go out yet.
  CHECK(w[0].btl->send_am(1, 3, nullptr, 0, &iov, 1) == Status::kRetry);
  REQUIRE(w.send(0, 1, 3, nullptr, 0, hello, sizeof hello));
  REQUIRE(w.spin([&] { return !w[1].inbox.empty(); }));
  CHECK(w[1].inbox[0].src == 0);
  CHECK(std::memcmp(w[1].inbox[0].payload.data(), hello, sizeof hello) == 0);
  CHECK(w[0].v->connected(1));
  CHECK(w[1].v->connected(0));
  CHECK(live_counts().qps == qps_before + 4);
  // The reverse direction reuses the same pair of QPs.
  REQUIRE(w.send(1, 0, 4, "hd", 2, nullptr, 0));
  REQUIRE(w.spin([&] { return !w[0].inbox.empty(); }));
  CHECK(w[0].inbox[0].hdr == std::vector<uint8_t>{'h', 'd'});
  CHECK(w[0].inbox[0].payload.empty());
  CHECK(live_counts().qps == qps_before + 4);
  CHECK(w[0].v->stats().connects == 1);
  CHECK(w[1].v->stats().connects == 1);
}

TEST_CASE("verbs: simultaneous first sends from both sides", "[verbs]") {
  World w(default_config());
  iovec iov{const_cast<char*>("x"), 1};
  // Both start a handshake before either has seen the other's request.
  CHECK(w[0].btl->send_am(1, 1, nullptr, 0, &iov, 1) == Status::kRetry);
  CHECK(w[1].btl->send_am(0, 1, nullptr, 0, &iov, 1) == Status::kRetry);
  REQUIRE(w.send(0, 1, 1, nullptr, 0, "a", 1));
  REQUIRE(w.send(1, 0, 1, nullptr, 0, "b", 1));
  REQUIRE(w.spin([&] { return w[0].inbox.size() == 1 && w[1].inbox.size() == 1; }));
  CHECK(w[0].inbox[0].payload[0] == 'b');
  CHECK(w[1].inbox[0].payload[0] == 'a');
  CHECK(w[0].v->stats().wc_errors == 0);
  CHECK(w[1].v->stats().wc_errors == 0);
}

TEST_CASE("verbs: a rank can message itself through a looped-back QP", "[verbs]") {
  World w(default_config(), 1);
  REQUIRE(w.send(0, 0, 2, "h", 1, "self", 4));
  REQUIRE(w.spin([&] { return !w[0].inbox.empty(); }));
  CHECK(w[0].inbox[0].src == 0);
  CHECK(std::string(w[0].inbox[0].payload.begin(), w[0].inbox[0].payload.end()) == "self");
}

TEST_CASE("verbs: active messages of every size up to the maximum arrive intact, in order",
          "[verbs]") {
  World w(default_config());
  const size_t max = w[0].btl->caps().max_am_size;
  REQUIRE(max >= w[0].btl->caps().eager_limit);
  size_t expect = 0;  // next total size the receiver should see
  size_t bad = 0;
  w[1].on_msg = [&](int src, const uint8_t* hdr, size_t hdr_len, const uint8_t* pl, size_t pl_len) {
    const size_t total = hdr_len + pl_len;
    const size_t want_hdr = std::min<size_t>(total, total % 61);
    if (src != 0 || total != expect || hdr_len != want_hdr) ++bad;
    for (size_t i = 0; i < hdr_len; ++i)
      if (hdr[i] != pattern(total, i)) ++bad;
    for (size_t i = 0; i < pl_len; ++i)
      if (pl[i] != pattern(total, hdr_len + i)) ++bad;
    ++expect;
  };
  std::vector<uint8_t> buf(max);
  for (size_t total = 0; total <= max; ++total) {
    fill(buf.data(), total, total);
    const size_t hdr_len = std::min<size_t>(total, total % 61);
    const size_t pl = total - hdr_len;
    // Payload in up to three pieces, to exercise the gather.
    iovec iov[3] = {{buf.data() + hdr_len, pl / 3},
                    {buf.data() + hdr_len + pl / 3, pl / 3},
                    {buf.data() + hdr_len + 2 * (pl / 3), pl - 2 * (pl / 3)}};
    bool sent = false;
    REQUIRE(w.spin([&] {
      if (!sent) sent = w[0].btl->send_am(1, 5, buf.data(), hdr_len, iov, 3) == Status::kDone;
      return sent;
    }));
  }
  REQUIRE(w.spin([&] { return expect == max + 1; }));
  CHECK(bad == 0);
  const auto& st = w[0].v->stats();
  // Every message whose wire size fits inline went inline (plus the handshake's hello).
  const size_t inline_max = w[0].v->max_inline();
  const size_t wire_hdr = sizeof(mpr::btl::verbs::AmWireHdr);
  const uint64_t expect_inline = inline_max >= wire_hdr ? inline_max - wire_hdr + 1 + 1 : 0;
  CHECK(st.am_inline == expect_inline);
  CHECK(st.am_sent == max + 2);
  CHECK(st.wc_errors == 0);
  CHECK(w[1].v->stats().am_recv == max + 1);
}

TEST_CASE("verbs: an active message above the maximum is refused", "[verbs]") {
  World w(default_config());
  const size_t max = w[0].btl->caps().max_am_size;
  std::vector<uint8_t> buf(max + 1);
  iovec iov{buf.data(), buf.size()};
  CHECK_THROWS_AS(w[0].btl->send_am(1, 1, nullptr, 0, &iov, 1), std::length_error);
  iovec fits{buf.data(), max - 4};
  CHECK_NOTHROW(w[0].btl->send_am(1, 1, buf.data(), 4, &fits, 1));
  CHECK_THROWS_AS(w[0].btl->send_am(1, mpr::btl::kMaxAmIds, nullptr, 0, nullptr, 0),
                  std::invalid_argument);
}

TEST_CASE("verbs: describe names device, port, GID, MTU, inline size and limits", "[verbs]") {
  World w(default_config(), 1);
  const std::string d = w[0].btl->describe();
  INFO(d);
  const auto& dev = w[0].v->device();
  CHECK(d.find(dev.name) != std::string::npos);
  CHECK(d.find("port " + std::to_string(dev.port)) != std::string::npos);
  CHECK(d.find("MTU") != std::string::npos);
  CHECK(d.find("inline") != std::string::npos);
  CHECK(d.find("eager limit 8 KiB") != std::string::npos);
  CHECK(d.find("max AM") != std::string::npos);
  if (dev.roce) {
    CHECK(d.find("GID index " + std::to_string(dev.gid_index)) != std::string::npos);
    CHECK(dev.gid_type == "RoCE v2");
    // The harness exports the index it found in sysfs; ours must agree.
    if (const char* env = std::getenv("RDMA_GID_INDEX"); env && *env)
      CHECK(dev.gid_index == std::atoi(env));
  }
}

TEST_CASE("verbs: a device that does not exist is an error naming it", "[verbs]") {
  auto cfg = default_config();
  cfg.device = "nosuchdev0";
  cfg.requested = true;
  FakeBootstrap bs(std::make_shared<FakeStore>(), 0, 1, "missing-device");
  try {
    mpr::btl::verbs::create(bs, cfg);
    FAIL("expected an exception");
  } catch (const std::runtime_error& e) {
    CHECK(std::string(e.what()).find("nosuchdev0") != std::string::npos);
  }
  World probe(default_config(), 1);
  cfg.device = probe[0].v->device().name + ":9";
  try {
    mpr::btl::verbs::create(bs, cfg);
    FAIL("expected an exception");
  } catch (const std::runtime_error& e) {
    CHECK(std::string(e.what()).find("port 9") != std::string::npos);
  }
}
