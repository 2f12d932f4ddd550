// How a blocking wait spends a poll that found nothing to do: the one policy behind every wait
// loop (the pml's wait and finalize drain, the runtime's request polling and RMA waits, the
// collectives' schedules), with the one definition of an oversubscribed node.
//
// A rank that has a CPU of its own keeps polling for a while: sched_yield on a busy machine
// hands the core to someone else's process for a whole time slice. A rank that shares its CPU
// with other ranks of the job yields soon, since the peer it waits for may need that CPU.
#pragma once

#include <cstdint>

#include "common/entry_lock.h"

namespace mpr::common {

/// The one definition: a node is oversubscribed when the job's ranks on it outnumber the CPUs
/// they may run on. A launcher that placed the ranks knows both numbers and says so (PMIx
/// PMIX_NODE_OVERSUBSCRIBED / mpr.oversubscribed); without it the bootstrap passes the local
/// peers and affinity_cpus().
constexpr bool oversubscribed(long local_ranks, long usable_cpus) {
  return usable_cpus > 0 && local_ranks > usable_cpus;
}

/// CPUs in this process's affinity mask (which a cpuset, taskset or the launcher's binding
/// narrows); the online CPU count if the mask cannot be read.
int affinity_cpus();

/// The thresholds of every wait, fixed once per process (per pml: tests run several in one
/// process) from the tunables and the bootstrap's oversubscribed().
struct WaitPolicy {
  bool oversubscribed = false;
  int64_t spin_polls = 2000;        ///< MPR_SPIN_COUNT: idle polls before a counted wait yields
  int64_t spin_ns = 2000000;        ///< MPR_COLL_SPIN_US: a timed wait's polling before it yields
  int64_t exchange_polls = 20;      ///< MPR_EXCHANGE_SPIN_COUNT: see WaitKind::kExchange
  void (*yield)() = nullptr;        ///< gives the CPU away; nullptr = sched_yield (tests count)
  int64_t (*clock_ns)() = nullptr;  ///< monotonic ns for timed waits; nullptr = CLOCK_MONOTONIC

  /// Reads MPR_SPIN_COUNT, MPR_COLL_SPIN_US and MPR_EXCHANGE_SPIN_COUNT.
  static WaitPolicy from_params(bool oversubscribed);
};

/// What a loop waits for; picks the policy's thresholds. Oversubscribed, every kind yields at
/// each idle poll except kExchange.
enum class WaitKind : uint8_t {
  /// Yields at every idle poll after spin_polls of them (request and RMA waits, the pml).
  kCounted,
  /// Polls for spin_ns (looking at the clock every 64 polls: reading it costs about a poll),
  /// then yields every 64 idle polls (blocking collectives).
  kTimed,
  /// As kTimed; oversubscribed it polls exchange_polls times before yielding: it waits for the
  /// answer to a send that already went out, and a peer running on another CPU right now
  /// answers sooner than a yield and the switch back take.
  kExchange,
};

/// The state of one wait loop. Constructing it is a few loads; a wait that completes at its
/// first poll never calls idle(). Not thread-safe (one per loop).
class Waiter {
 public:
  Waiter(const WaitPolicy& p, WaitKind kind)
      : policy_(&p),
        limit_(!p.oversubscribed ? (kind == WaitKind::kCounted ? p.spin_polls : kTimedMask)
               : kind == WaitKind::kExchange ? p.exchange_polls
                                             : 0),
        timed_(!p.oversubscribed && kind != WaitKind::kCounted) {}

  /// After a poll that made progress: the next idle poll starts spinning again.
  void busy() {
    idle_ = 0;
    EntryLock::let_others_in();
  }
  /// After a poll that found nothing: spin, or give the CPU away. Returns true if it yielded.
  bool idle() {
    EntryLock::let_others_in();
    ++idle_;
    if (timed_) return (idle_ & kTimedMask) == 0 && timed_idle();
    if (idle_ <= limit_) return false;
    yield();
    return true;
  }
  /// Idle polls since construction or the last busy().
  int64_t idle_polls() const { return idle_; }

 private:
  static constexpr int64_t kTimedMask = 63;
  [[gnu::cold]] bool timed_idle();
  [[gnu::cold]] void yield() const;

  const WaitPolicy* policy_;
  int64_t limit_;
  int64_t idle_ = 0;
  int64_t idle_since_ = 0;
  bool timed_;
};

}  // namespace mpr::common
