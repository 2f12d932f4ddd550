#include "common/entry_lock.h"

#include <sched.h>

#include <mutex>

namespace mpr::common {

namespace {

std::mutex g_mutex;
/// Times the lock was taken: a thread handing it over waits until this moves.
std::atomic<uint64_t> g_entries{0};
/// How often this thread holds the lock (it is recursive). Initial-exec: every entry point
/// reads it, and the general model costs a call to __tls_get_addr each time.
__attribute__((tls_model("initial-exec"))) thread_local int t_depth = 0;

inline void cpu_relax() { __builtin_ia32_pause(); }

}  // namespace

std::atomic<bool> EntryLock::on_{false};
std::atomic<int> EntryLock::waiting_{0};

void EntryLock::enter() {
  if (t_depth++ > 0) return;
  if (!g_mutex.try_lock()) {
    // Counted while blocked, so the holder's wait loop knows to hand the lock over.
    waiting_.fetch_add(1, std::memory_order_relaxed);
    g_mutex.lock();
    waiting_.fetch_sub(1, std::memory_order_relaxed);
  }
  // Only the holder writes it: a plain store, no locked instruction.
  g_entries.store(g_entries.load(std::memory_order_relaxed) + 1, std::memory_order_relaxed);
}

void EntryLock::leave() {
  if (--t_depth == 0) g_mutex.unlock();
}

bool EntryLock::held() { return t_depth > 0; }

void EntryLock::hand_over() {
  // Deeper, this wait runs inside a callback the library called from its own loops (or
  // inside another entry point's state), which another thread must not see half done.
  if (t_depth != 1) return;
  const uint64_t before = g_entries.load(std::memory_order_relaxed);
  t_depth = 0;
  g_mutex.unlock();
  // Locking again at once would win against the thread the unlock is still waking: wait
  // until somebody took the lock, or nobody wants it any more. A waiter on this CPU needs
  // the CPU to run, hence the yields.
  for (int i = 0; g_entries.load(std::memory_order_relaxed) == before &&
                  waiting_.load(std::memory_order_relaxed) > 0;
       ++i) {
    if (i < 64)
      cpu_relax();
    else
      sched_yield();
  }
  enter();
}

}  // namespace mpr::common
