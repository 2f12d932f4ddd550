#include "common/wait.h"

#include <sched.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>

#include "common/params.h"

namespace mpr::common {

namespace {

int64_t monotonic_ns() {
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<int64_t>(ts.tv_sec) * 1000000000 + ts.tv_nsec;
}

}  // namespace

int affinity_cpus() {
  cpu_set_t set;
  if (sched_getaffinity(0, sizeof set, &set) != 0)
    return static_cast<int>(sysconf(_SC_NPROCESSORS_ONLN));
  return CPU_COUNT(&set);
}

WaitPolicy WaitPolicy::from_params(bool oversubscribed) {
  WaitPolicy p;
  p.oversubscribed = oversubscribed;
  p.spin_polls = std::clamp<int64_t>(param_int("MPR_SPIN_COUNT"), 0, int64_t{1} << 30);
  p.spin_ns = std::clamp<int64_t>(param_int("MPR_COLL_SPIN_US"), 0, int64_t{1} << 40) * 1000;
  p.exchange_polls = std::clamp<int64_t>(param_int("MPR_EXCHANGE_SPIN_COUNT"), 0, 1 << 30);
  return p;
}

bool Waiter::timed_idle() {
  const int64_t t = policy_->clock_ns ? policy_->clock_ns() : monotonic_ns();
  if (idle_ == kTimedMask + 1) idle_since_ = t;
  if (t - idle_since_ <= policy_->spin_ns) return false;
  yield();
  return true;
}

void Waiter::yield() const {
  // Later a wait may sleep on an event here instead (the backends would need a doorbell).
  if (policy_->yield)
    policy_->yield();
  else
    sched_yield();
}

}  // namespace mpr::common
