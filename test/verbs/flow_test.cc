// Flow control: a sender that outruns its receiver is held back by credits (never by RNR),
// credits come back piggybacked or by RDMA WRITE, and send resources recover.
#include <catch2/catch.hpp>
#include <cstring>
#include <vector>

#include "test/verbs/verbs_pair.h"

using mpr::btl::Status;
using namespace mpr::verbs_test;

namespace {

// Receiver check: payload = 8-byte sequence number + pattern(seq) bytes, in order.
struct SeqChecker {
  uint64_t next = 0;
  uint64_t bad = 0;
  void operator()(int, const uint8_t*, size_t, const uint8_t* pl, size_t len) {
    uint64_t seq = 0;
    if (len < sizeof seq) {
      ++bad;
      return;
    }
    std::memcpy(&seq, pl, sizeof seq);
    if (seq != next) ++bad;
    for (size_t i = sizeof seq; i < len; ++i)
      if (pl[i] != pattern(seq, i)) {
        ++bad;
        break;
      }
    ++next;
  }
};

size_t make_msg(std::vector<uint8_t>& buf, uint64_t seq, size_t len) {
  len = std::max(len, sizeof seq);
  buf.resize(len);
  fill(buf.data(), len, seq);
  std::memcpy(buf.data(), &seq, sizeof seq);
  return len;
}

}  // namespace

TEST_CASE("verbs: credits stop a sender whose receiver does not progress", "[verbs]") {
  auto cfg = default_config();
  cfg.credits = 8;
  cfg.rnr_retry = 0;  // any receiver-not-ready NAK would be a hard error
  World w(cfg);
  SeqChecker check;
  w[1].on_msg = std::ref(check);
  std::vector<uint8_t> buf;
  // Connect first (both sides progress), then only the sender runs.
  size_t len = make_msg(buf, 0, 100);
  REQUIRE(w.send(0, 1, 1, nullptr, 0, buf.data(), len));
  REQUIRE(w.spin([&] { return check.next == 1; }));
  // Everything the receiver had consumed is returned before it stops (1 message + the hello
  // are below the return threshold, so they stay owed: at most credits - 2 remain).
  const int start = w[0].v->send_credits(1);
  CHECK(start >= cfg.credits - 2);
  uint64_t seq = 1;
  int accepted = 0;
  for (int i = 0; i < 100; ++i) {
    len = make_msg(buf, seq, 100 + i);
    iovec iov{buf.data(), len};
    w[0].btl->progress();
    if (w[0].btl->send_am(1, 1, nullptr, 0, &iov, 1) == Status::kDone) {
      ++seq;
      ++accepted;
    }
  }
  // Never more than the receiver granted (a late credit write may add what it still owed).
  CHECK(accepted >= start);
  CHECK(accepted <= cfg.credits);
  CHECK(w[0].v->send_credits(1) == 0);
  CHECK(w[0].v->stats().retry_credits >= 100 - static_cast<uint64_t>(accepted));
  // The receiver catches up and returns the credits: the sender can go on.
  REQUIRE(w.spin([&] { return check.next == seq; }));
  len = make_msg(buf, seq++, 10);
  REQUIRE(w.send(0, 1, 1, nullptr, 0, buf.data(), len));
  REQUIRE(w.spin([&] { return check.next == seq; }));
  CHECK(w[0].v->send_credits(1) > 0);
  CHECK(check.bad == 0);
  CHECK(w[1].v->stats().credit_writes >= 1);
  CHECK(w[0].v->stats().wc_errors == 0);
  CHECK(w[1].v->stats().wc_errors == 0);
}

TEST_CASE("verbs: a long stream against a slow receiver loses and reorders nothing", "[verbs]") {
  auto cfg = default_config();
  cfg.credits = 16;
  cfg.rnr_retry = 0;
  World w(cfg);
  SeqChecker check;
  w[1].on_msg = std::ref(check);
  std::vector<uint8_t> buf;
  const uint64_t kMsgs = 20000;
  uint64_t seq = 0;
  uint64_t spins = 0;
  const size_t max_payload = w[0].btl->caps().max_am_size;
  auto deadline = std::chrono::steady_clock::now() + std::chrono::minutes(10);
  while (check.next < kMsgs && std::chrono::steady_clock::now() < deadline) {
    if (seq < kMsgs) {
      // Mostly small (inline and bounce-buffered), now and then the largest message.
      size_t want = (seq % 97 == 0) ? max_payload : (seq * 37) % 300;
      size_t len = make_msg(buf, seq, want);
      iovec iov{buf.data(), len};
      if (w[0].btl->send_am(1, 1, nullptr, 0, &iov, 1) == Status::kDone) ++seq;
    }
    w[0].btl->progress();
    // The receiver polls only every 50th turn: the sender is much faster.
    if (++spins % 50 == 0) w[1].btl->progress();
  }
  REQUIRE(check.next == kMsgs);
  CHECK(check.bad == 0);
  const auto& s0 = w[0].v->stats();
  CHECK(s0.retry_credits > 0);
  CHECK(s0.wc_errors == 0);
  CHECK(w[1].v->stats().wc_errors == 0);
  // The receiver never needed more buffers than it granted: the SRQ never ran dry.
  CHECK(w[1].v->posted_recvs() >= cfg.credits);
  INFO("credit writes " << w[1].v->stats().credit_writes << ", retries " << s0.retry_credits);
  CHECK(w[1].v->stats().credit_writes > 0);
}

TEST_CASE("verbs: replies carry credits back without extra writes", "[verbs]") {
  auto cfg = default_config();
  cfg.credits = 8;
  World w(cfg);
  int got0 = 0, got1 = 0;
  w[0].on_msg = [&](int, const uint8_t*, size_t, const uint8_t*, size_t) { ++got0; };
  w[1].on_msg = [&](int, const uint8_t*, size_t, const uint8_t*, size_t) { ++got1; };
  for (int i = 0; i < 200; ++i) {
    REQUIRE(w.send(0, 1, 1, nullptr, 0, "ping", 4));
    REQUIRE(w.spin([&] { return got1 == i + 1; }));
    REQUIRE(w.send(1, 0, 1, nullptr, 0, "pong", 4));
    REQUIRE(w.spin([&] { return got0 == i + 1; }));
  }
  // Ping-pong never runs out of credits, and each side's messages return the other's.
  CHECK(w[0].v->stats().retry_credits == 0);
  CHECK(w[1].v->stats().credit_piggyback > 150);
  CHECK(w[0].v->stats().credit_writes + w[1].v->stats().credit_writes < 10);
}

TEST_CASE("verbs: running out of send buffers retries and recovers", "[verbs]") {
  auto cfg = default_config();
  cfg.send_bufs = 4;
  cfg.credits = 64;
  World w(cfg);
  SeqChecker check;
  w[1].on_msg = std::ref(check);
  std::vector<uint8_t> buf;
  size_t len = make_msg(buf, 0, 1000);  // too big for inline: needs a send buffer
  REQUIRE(w.send(0, 1, 1, nullptr, 0, buf.data(), len));
  uint64_t seq = 1;
  int done_before_retry = 0;
  for (;;) {
    len = make_msg(buf, seq, 1000);
    iovec iov{buf.data(), len};
    if (w[0].btl->send_am(1, 1, nullptr, 0, &iov, 1) != Status::kDone) break;
    ++seq;
    ++done_before_retry;
  }
  CHECK(done_before_retry <= cfg.send_bufs);
  CHECK(w[0].v->stats().retry_bufs == 1);
  for (int i = 0; i < 200; ++i) {
    len = make_msg(buf, seq, 1000 + i);
    REQUIRE(w.send(0, 1, 1, nullptr, 0, buf.data(), len));
    ++seq;
  }
  REQUIRE(w.spin([&] { return check.next == seq; }));
  CHECK(check.bad == 0);
}
