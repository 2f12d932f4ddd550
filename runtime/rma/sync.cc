// Synchronization: fence, passive-target locks (on the targets' control words), flushes, and
// generalized active target (post/start/complete/wait over private point-to-point messages).
#include <algorithm>

#include "runtime/coll/coll.h"
#include "runtime/comm/comm_ctl.h"
#include "runtime/core/state.h"
#include "runtime/p2p/request.h"
#include "runtime/rma/win.h"

namespace mpr::runtime::rma {

namespace {

using btl::AtomicOp;

// Tags of the post/complete notifications on the window's private communicator.
enum : int { kTagPost = 1, kTagDone = 2 };

constexpr size_t kLockWord = offsetof(Ctrl, lock);
constexpr uint64_t kMinusOne = ~uint64_t{0};

ctl::Channel p2p_channel(Win* w) {
  return ctl::Channel{w->comm->ctx_p2p(), w->rank, &w->comm->peers()};
}

void acquire(Win* w, int target, int type) {
  Poller p;
  if (type == MPI_LOCK_EXCLUSIVE) {
    while (ctrl_atomic(w, target, kLockWord, AtomicOp::kCompareSwap, kExclusive, 0) != 0) p.poll();
    return;
  }
  for (;;) {
    uint64_t old = ctrl_atomic(w, target, kLockWord, AtomicOp::kFetchAdd, 1, 0);
    if (!(old & kExclusive)) return;
    ctrl_atomic(w, target, kLockWord, AtomicOp::kFetchAdd, kMinusOne, 0);
    p.poll();
  }
}

void release(Win* w, int target, int type) {
  ctrl_atomic(w, target, kLockWord, AtomicOp::kFetchAdd,
              type == MPI_LOCK_EXCLUSIVE ? uint64_t(0) - kExclusive : kMinusOne, 0);
}

bool in_group(const std::vector<int>& g, int r) {
  return std::find(g.begin(), g.end(), r) != g.end();
}

}  // namespace

int fence(const char* fn, Win* w, int assert) {
  if (w->nlocked || w->lock_all || w->access_started || w->exposure_posted)
    return win_error(w, MPI_ERR_RMA_SYNC, fn, "window %s: MPI_Win_fence inside a %s epoch",
                     w->label().c_str(),
                     w->access_started || w->exposure_posted ? "post/start" : "lock");
  int rc = complete_ops(w, -1);
  // Everyone's operations of the closing epoch are complete before anyone leaves, and nobody
  // starts the next epoch's accesses before every target entered it.
  int brc = coll::barrier(fn, w->comm);
  if (rc == MPI_SUCCESS) rc = brc;
  w->fence_epoch = !(assert& MPI_MODE_NOSUCCEED);
  return raise_win(w, rc);
}

int lock(const char* fn, Win* w, int type, int target, int assert) {
  if (target == MPI_PROC_NULL) return MPI_SUCCESS;
  Target& t = w->targets[target];
  if (t.lock || w->lock_all)
    return win_error(w, MPI_ERR_RMA_SYNC, fn, "window %s: rank %d is already locked by %s",
                     w->label().c_str(), target,
                     w->lock_all ? "MPI_Win_lock_all" : "an earlier MPI_Win_lock");
  if (w->access_started)
    return win_error(w, MPI_ERR_RMA_SYNC, fn,
                     "window %s: MPI_Win_lock inside an MPI_Win_start access epoch",
                     w->label().c_str());
  if (!(assert& MPI_MODE_NOCHECK)) acquire(w, target, type);
  t.lock = type;
  t.lock_nocheck = assert& MPI_MODE_NOCHECK;
  ++w->nlocked;
  return MPI_SUCCESS;
}

int unlock(const char* fn, Win* w, int target) {
  if (target == MPI_PROC_NULL) return MPI_SUCCESS;
  Target& t = w->targets[target];
  if (!t.lock)
    return win_error(w, MPI_ERR_RMA_SYNC, fn,
                     "window %s: rank %d is not locked by this process (MPI_Win_unlock "
                     "without MPI_Win_lock)",
                     w->label().c_str(), target);
  int rc = complete_ops(w, target);
  if (!t.lock_nocheck) release(w, target, t.lock);
  t.lock = 0;
  --w->nlocked;
  return raise_win(w, rc);
}

int lock_all(const char* fn, Win* w, int assert) {
  if (w->lock_all || w->nlocked || w->access_started)
    return win_error(w, MPI_ERR_RMA_SYNC, fn, "window %s: MPI_Win_lock_all while %s",
                     w->label().c_str(),
                     w->lock_all  ? "MPI_Win_lock_all is already in effect"
                     : w->nlocked ? "targets are locked with MPI_Win_lock"
                                  : "an MPI_Win_start epoch is open");
  if (!(assert& MPI_MODE_NOCHECK))
    for (int i = 0; i < w->size_of_group(); ++i) acquire(w, i, MPI_LOCK_SHARED);
  w->lock_all = true;
  w->lock_all_nocheck = assert& MPI_MODE_NOCHECK;
  return MPI_SUCCESS;
}

int unlock_all(const char* fn, Win* w) {
  if (!w->lock_all)
    return win_error(w, MPI_ERR_RMA_SYNC, fn,
                     "window %s: MPI_Win_unlock_all without MPI_Win_lock_all", w->label().c_str());
  int rc = complete_ops(w, -1);
  if (!w->lock_all_nocheck)
    for (int i = 0; i < w->size_of_group(); ++i) release(w, i, MPI_LOCK_SHARED);
  w->lock_all = false;
  return raise_win(w, rc);
}

int flush(const char* fn, Win* w, int target) {
  if (target == MPI_PROC_NULL) return MPI_SUCCESS;
  if (!w->lock_all && (target >= 0 ? !w->targets[target].lock : w->nlocked == 0))
    return win_error(w, MPI_ERR_RMA_SYNC, fn, "window %s: flush outside a passive-target epoch%s%s",
                     w->label().c_str(), target >= 0 ? " on rank " : "",
                     target >= 0 ? std::to_string(target).c_str() : "");
  return raise_win(w, complete_ops(w, target));
}

int post(const char* fn, Win* w, const std::vector<int>& group, int assert) {
  if (w->exposure_posted)
    return win_error(w, MPI_ERR_RMA_SYNC, fn,
                     "window %s: MPI_Win_post while an exposure epoch is already posted",
                     w->label().c_str());
  // Local stores to the window must be visible before origins start accessing it.
  __atomic_thread_fence(__ATOMIC_SEQ_CST);
  if (!(assert& MPI_MODE_NOCHECK)) {
    const ctl::Channel ch = p2p_channel(w);
    for (int origin : group) {
      const char token = 1;
      if (int rc = ctl::send(fn, ch, origin, kTagPost, &token, 1); rc) return raise_win(w, rc);
    }
  }
  w->exposure_group = group;
  w->exposure_posted = true;
  return MPI_SUCCESS;
}

int start(const char* fn, Win* w, const std::vector<int>& group, int assert) {
  if (w->access_started || w->nlocked || w->lock_all)
    return win_error(
        w, MPI_ERR_RMA_SYNC, fn, "window %s: MPI_Win_start while %s", w->label().c_str(),
        w->access_started ? "an access epoch is already started" : "targets are locked");
  if (!(assert& MPI_MODE_NOCHECK)) {
    const ctl::Channel ch = p2p_channel(w);
    for (int target : group) {
      char token;
      if (int rc = ctl::recv(fn, ch, target, kTagPost, &token, 1); rc) return raise_win(w, rc);
    }
  }
  w->access_group = group;
  w->access_started = true;
  return MPI_SUCCESS;
}

int complete(const char* fn, Win* w) {
  if (!w->access_started)
    return win_error(w, MPI_ERR_RMA_SYNC, fn,
                     "window %s: MPI_Win_complete without "
                     "MPI_Win_start",
                     w->label().c_str());
  int rc = complete_ops(w, -1);
  const ctl::Channel ch = p2p_channel(w);
  for (int target : w->access_group) {
    const char token = 1;
    int src = ctl::send(fn, ch, target, kTagDone, &token, 1);
    if (rc == MPI_SUCCESS) rc = src;
  }
  w->access_group.clear();
  w->access_started = false;
  return raise_win(w, rc);
}

int wait(const char* fn, Win* w) {
  if (!w->exposure_posted)
    return win_error(w, MPI_ERR_RMA_SYNC, fn, "window %s: MPI_Win_wait without MPI_Win_post",
                     w->label().c_str());
  const ctl::Channel ch = p2p_channel(w);
  int rc = MPI_SUCCESS;
  for (int origin : w->exposure_group) {
    char token;
    int r = ctl::recv(fn, ch, origin, kTagDone, &token, 1);
    if (rc == MPI_SUCCESS) rc = r;
  }
  w->exposure_group.clear();
  w->exposure_posted = false;
  __atomic_thread_fence(__ATOMIC_SEQ_CST);
  return raise_win(w, rc);
}

int test(const char* fn, Win* w, int* flag) {
  if (!w->exposure_posted)
    return win_error(w, MPI_ERR_RMA_SYNC, fn, "window %s: MPI_Win_test without MPI_Win_post",
                     w->label().c_str());
  the_pml().progress();
  const ctl::Channel ch = p2p_channel(w);
  auto& g = w->exposure_group;
  for (size_t i = 0; i < g.size();) {
    pml::Status st;
    if (the_pml().iprobe(g[i], kTagDone, ch.ctx, &st)) {
      char token;
      if (int rc = ctl::recv(fn, ch, g[i], kTagDone, &token, 1); rc) return raise_win(w, rc);
      g.erase(g.begin() + long(i));
    } else {
      ++i;
    }
  }
  *flag = g.empty();
  if (g.empty()) {
    w->exposure_posted = false;
    __atomic_thread_fence(__ATOMIC_SEQ_CST);
  }
  return MPI_SUCCESS;
}

int check_access(const char* fn, Win* w, int target) {
  if (w->fence_epoch || w->lock_all || w->targets[target].lock ||
      (w->access_started && in_group(w->access_group, target)))
    return MPI_SUCCESS;
  return win_error(w, MPI_ERR_RMA_SYNC, fn,
                   "window %s: no access epoch to rank %d is open (call MPI_Win_fence, "
                   "MPI_Win_lock, MPI_Win_lock_all or MPI_Win_start first)",
                   w->label().c_str(), target);
}

}  // namespace mpr::runtime::rma
