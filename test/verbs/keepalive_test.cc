// Peers that go away: Btl::connect(), the keepalive probes of idle peers, and the report that
// ends the job when a probe goes unacknowledged.
#include <catch2/catch.hpp>
#include <chrono>
#include <stdexcept>
#include <string>

#include "test/verbs/verbs_pair.h"

using namespace mpr::verbs_test;

namespace {

// Probes every 50 ms; an unacknowledged packet fails after 3 tries of ~16 ms.
mpr::btl::verbs::Config quick_keepalive() {
  mpr::btl::verbs::Config cfg = default_config();
  cfg.keepalive_ms = 50;
  cfg.timeout = 12;
  cfg.retry_cnt = 2;
  return cfg;
}

// Progress of rank 0 alone for `seconds` (rank 1 does not call in: it is computing, or gone).
void spin_rank0(World& w, double seconds) {
  const auto until = std::chrono::steady_clock::now() + std::chrono::duration<double>(seconds);
  while (std::chrono::steady_clock::now() < until) w[0].btl->progress();
}

}  // namespace

TEST_CASE("verbs: connect() makes the connection and is true once it is up", "[verbs]") {
  World w(default_config());
  CHECK_FALSE(w[0].v->connected(1));
  CHECK_FALSE(w[0].btl->connect(1));
  REQUIRE(w.spin([&] { return w[0].btl->connect(1) && w[1].btl->connect(0); }));
  CHECK(w[0].v->connected(1));
  CHECK(w[1].v->connected(0));
  CHECK(w[0].btl->connect(0));  // itself: the loopback QP, at once
  CHECK(w[0].v->stats().connects == 2);
}

TEST_CASE("verbs: an idle peer that is alive acknowledges the probes without calling in",
          "[verbs]") {
  World w(quick_keepalive());
  REQUIRE(w.spin([&] { return w[0].btl->connect(1) && w[1].btl->connect(0); }));
  const auto before = w[0].v->stats().keepalives;
  // Its device answers for it: no progress of rank 1 for a second, many probes, no error.
  CHECK_NOTHROW(spin_rank0(w, 1.0));
  CHECK(w[0].v->stats().keepalives >= before + 5);
  CHECK(w[0].v->stats().wc_errors == 0);
  CHECK(w[0].v->connected(1));
}

TEST_CASE("verbs: a peer whose queue pairs are gone fails the probe and is reported lost",
          "[verbs]") {
  World w(quick_keepalive());
  REQUIRE(w.spin([&] { return w[0].btl->connect(1) && w[1].btl->connect(0); }));
  // What the kernel does when a process dies: its QPs are destroyed, nothing answers.
  w[1].btl->finalize();
  std::string what;
  const auto t0 = std::chrono::steady_clock::now();
  try {
    spin_rank0(w, 20.0);
  } catch (const std::runtime_error& e) {  // report_peer_lost() without the runtime's handler
    what = e.what();
  }
  const double took = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  INFO(what);
  CHECK(what.find("verbs: connection to rank 1") != std::string::npos);
  CHECK(what.find("lost") != std::string::npos);
  CHECK(what.find("no acknowledgement after 2 retries") != std::string::npos);
  CHECK(took < 10.0);
  CHECK_FALSE(w[0].v->connected(1));
  CHECK(w[0].v->stats().wc_errors >= 1);
}
