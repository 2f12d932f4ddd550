// The wait policy's decisions, with a counting yield and a hand-driven clock.
#include <catch2/catch.hpp>

#include "common/wait.h"

using mpr::common::oversubscribed;
using mpr::common::Waiter;
using mpr::common::WaitKind;
using mpr::common::WaitPolicy;

namespace {

int g_yields = 0;
int64_t g_now = 0;
void count_yield() { ++g_yields; }
int64_t fake_clock() { return g_now; }

WaitPolicy policy(bool over) {
  WaitPolicy p;
  p.oversubscribed = over;
  p.spin_polls = 5;
  p.spin_ns = 1000;
  p.exchange_polls = 3;
  p.yield = &count_yield;
  p.clock_ns = &fake_clock;
  g_yields = 0;
  g_now = 0;
  return p;
}

// Idle polls until the first yield (0 if none within `limit`).
int64_t polls_to_first_yield(Waiter& w, int64_t limit = 10000) {
  for (int64_t i = 1; i <= limit; ++i)
    if (w.idle()) return i;
  return 0;
}

}  // namespace

TEST_CASE("a node is oversubscribed only when its ranks outnumber the usable CPUs", "[wait]") {
  CHECK_FALSE(oversubscribed(1, 1));
  CHECK_FALSE(oversubscribed(2, 2));
  CHECK(oversubscribed(3, 2));
  CHECK(oversubscribed(4, 1));
  CHECK_FALSE(oversubscribed(2, 64));
  // A mask that could not be read (0 CPUs) never makes a job yield at every poll.
  CHECK_FALSE(oversubscribed(8, 0));
}

TEST_CASE("this process may run on at least one CPU", "[wait]") {
  CHECK(mpr::common::affinity_cpus() >= 1);
}

TEST_CASE("a counted wait spins spin_polls idle polls, then yields at every idle poll", "[wait]") {
  WaitPolicy p = policy(false);
  Waiter w(p, WaitKind::kCounted);
  CHECK(polls_to_first_yield(w) == 6);
  CHECK(w.idle());
  CHECK(w.idle());
  CHECK(g_yields == 3);
}

TEST_CASE("progress starts the spin again", "[wait]") {
  WaitPolicy p = policy(false);
  Waiter w(p, WaitKind::kCounted);
  for (int i = 0; i < 5; ++i) CHECK_FALSE(w.idle());
  w.busy();
  CHECK(w.idle_polls() == 0);
  CHECK(polls_to_first_yield(w) == 6);
}

TEST_CASE("oversubscribed, counted and timed waits yield at the first idle poll", "[wait]") {
  WaitPolicy p = policy(true);
  Waiter counted(p, WaitKind::kCounted);
  CHECK(polls_to_first_yield(counted) == 1);
  Waiter timed(p, WaitKind::kTimed);
  CHECK(polls_to_first_yield(timed) == 1);
  CHECK(g_yields == 2);
}

TEST_CASE("oversubscribed, a wait for an exchange's answer polls exchange_polls times first",
          "[wait]") {
  WaitPolicy p = policy(true);
  Waiter w(p, WaitKind::kExchange);
  CHECK(polls_to_first_yield(w) == 4);
  CHECK(w.idle());  // then at every idle poll
  w.busy();
  CHECK(polls_to_first_yield(w) == 4);
}

TEST_CASE("not oversubscribed, an exchange waits like any timed wait", "[wait]") {
  WaitPolicy p = policy(false);
  Waiter w(p, WaitKind::kExchange);
  for (int i = 0; i < 200; ++i) CHECK_FALSE(w.idle());  // the clock stands still
  CHECK(g_yields == 0);
}

TEST_CASE("a timed wait polls for spin_ns, reading the clock every 64 polls", "[wait]") {
  WaitPolicy p = policy(false);
  Waiter w(p, WaitKind::kTimed);
  // Poll 64 starts the timer.
  for (int i = 1; i <= 64; ++i) CHECK_FALSE(w.idle());
  g_now = 1000;  // exactly spin_ns later: not yet
  for (int i = 65; i <= 128; ++i) CHECK_FALSE(w.idle());
  g_now = 1001;
  for (int i = 129; i < 192; ++i) CHECK_FALSE(w.idle());
  CHECK(w.idle());  // poll 192 reads the clock and yields
  CHECK(g_yields == 1);
  // Past spin_ns it yields at every 64th idle poll only.
  for (int i = 193; i < 256; ++i) CHECK_FALSE(w.idle());
  CHECK(w.idle());
  CHECK(g_yields == 2);
}

TEST_CASE("a timed wait's timer restarts after progress", "[wait]") {
  WaitPolicy p = policy(false);
  Waiter w(p, WaitKind::kTimed);
  for (int i = 0; i < 64; ++i) w.idle();
  g_now = 5000;
  w.busy();
  for (int i = 1; i <= 64; ++i) CHECK_FALSE(w.idle());  // poll 64 restarts the timer at 5000
  g_now = 5500;
  for (int i = 65; i <= 128; ++i) CHECK_FALSE(w.idle());
  CHECK(g_yields == 0);
}

TEST_CASE("the policy reads its thresholds from the tunables", "[wait]") {
  setenv("MPR_SPIN_COUNT", "7", 1);
  setenv("MPR_COLL_SPIN_US", "3", 1);
  setenv("MPR_EXCHANGE_SPIN_COUNT", "0", 1);
  WaitPolicy p = WaitPolicy::from_params(true);
  unsetenv("MPR_SPIN_COUNT");
  unsetenv("MPR_COLL_SPIN_US");
  unsetenv("MPR_EXCHANGE_SPIN_COUNT");
  CHECK(p.oversubscribed);
  CHECK(p.spin_polls == 7);
  CHECK(p.spin_ns == 3000);
  CHECK(p.exchange_polls == 0);
  WaitPolicy d = WaitPolicy::from_params(false);
  CHECK_FALSE(d.oversubscribed);
  CHECK(d.spin_polls == 2000);
  CHECK(d.spin_ns == 2000000);
  CHECK(d.exchange_polls == 20);
}
