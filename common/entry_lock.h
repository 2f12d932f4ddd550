// The library's lock under MPI_THREAD_MULTIPLE. Every entry point holds it for the whole call
// (EntryGuard); a call that waits hands it to the threads that want it between two polls of
// its wait loop, so a thread blocked in MPI_Recv never keeps another thread's MPI_Send out,
// and whichever thread holds it makes progress for all of them. Below MPI_THREAD_MULTIPLE it
// is never taken: an entry point pays one relaxed load and a branch.
//
// The lock is recursive (a user callback run by the library may call MPI: an error handler,
// a reduction operation, a generalized request's functions); a wait loop hands it over only
// at depth one, where the loop itself is the entry point's outermost code and holds no
// iterator into state that another thread could change.
#pragma once

#include <atomic>
#include <cstdint>

namespace mpr::common {

class EntryLock {
 public:
  /// True once MPI_THREAD_MULTIPLE was granted (MPI_Init_thread, MPI_Session_init,
  /// MPI_T_init_thread); never turned off again, since other threads may still be leaving a
  /// call when MPI_Finalize returns.
  static bool on() { return on_.load(std::memory_order_relaxed); }
  static void turn_on() { on_.store(true, std::memory_order_relaxed); }

  /// Take the lock (again, if this thread holds it already).
  static void enter();
  /// Give up one level; the last one unlocks.
  static void leave();
  /// Between two polls of a wait loop: if this thread holds the lock at depth one and another
  /// thread is waiting for it, let that thread in and take the lock back after it.
  static void let_others_in() {
    if (on() && waiting_.load(std::memory_order_relaxed) > 0) hand_over();
  }
  /// Whether this thread holds the lock (for assertions and tests).
  static bool held();

 private:
  static void hand_over();

  static std::atomic<bool> on_;
  static std::atomic<int> waiting_;
};

/// What every entry point holds for its whole call. Remembers whether it took the lock, so
/// MPI_Init_thread can turn the lock on while a guard is alive.
class EntryGuard {
 public:
  EntryGuard() : held_(EntryLock::on()) {
    if (held_) EntryLock::enter();
  }
  ~EntryGuard() {
    if (held_) EntryLock::leave();
  }
  EntryGuard(const EntryGuard&) = delete;
  EntryGuard& operator=(const EntryGuard&) = delete;

 private:
  bool held_;
};

}  // namespace mpr::common

/// The first statement of every entry point that touches the library's state.
#define MPR_ENTRY ::mpr::common::EntryGuard mpr_entry_guard_
