// The Job's watch over startup and time: the PMIx upcalls that report each rank's progress,
// the startup-step and --timeout deadlines, and what mprun says when one of them expires.
#include <algorithm>
#include <cstdio>
#include <string>
#include <vector>

#include "launcher/job.h"

#include <sys/wait.h>

namespace mpr::launch {

namespace {

std::string ranks_phrase(const std::vector<int>& ranks) {
  return (ranks.size() == 1 ? "rank " : "ranks ") + rank_list(ranks);
}

std::string seconds_text(double s) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%g s", s);
  return buf;
}

}  // namespace

void Job::note_step(StartupStep* step, std::atomic<int64_t>* rank_ticks, int rank) {
  int64_t now = Clock::now().time_since_epoch().count();
  int64_t expected = 0;
  if (!rank_ticks->compare_exchange_strong(expected, now)) return;  // said twice
  int64_t none = 0;
  if (step->first_ticks.compare_exchange_strong(none, now)) step->first_rank = rank;
  ++step->count;
}

// The startup steps and their limit are the job's; a spawned job's processes are watched by
// their parents, which wait in MPI_Comm_spawn until they connect.
void Job::client_connected(int rank) {
  ranks_[rank].connected = true;
  if (rank < opts_.nprocs) note_step(&connect_step_, &ranks_[rank].connect_ticks, rank);
  wake();
}

void Job::client_at_startup_fence(int rank) {
  if (rank < opts_.nprocs) note_step(&fence_step_, &ranks_[rank].fence_ticks, rank);
  wake();
}

void Job::client_finalized(int rank) { ranks_[rank].finalized = true; }

bool Job::pmix_clean() const {
  for (int r = 0; r < ranks_.size(); ++r)
    if (ranks_[r].connected && !ranks_[r].finalized) return false;
  return true;
}

void Job::client_lost(int rank) {
  int expected = 0;
  ranks_[rank].lost_order.compare_exchange_strong(expected, ++lost_count_);
}

std::vector<int> Job::gone_ranks() {
  std::vector<int> gone;
  for (int r = 0; r < ranks_.size(); ++r) {
    const pid_t pid = ranks_[r].pid.load();
    bool ended = false;
    if (pid > 0) {
      siginfo_t si{};
      ended = ::waitid(P_PID, static_cast<id_t>(pid), &si, WEXITED | WNOHANG | WNOWAIT) == 0 &&
              si.si_pid == pid;
    }
    // A rank that finalized has left every fence it will take part in.
    if (ranks_[r].finalized.load() || (!ended && ranks_[r].lost_order.load() == 0)) continue;
    gone.push_back(r);
    client_lost(r);
  }
  return gone;
}

void Job::client_aborted(int rank, int status, const std::string& message) {
  std::string cause = "called MPI_Abort with error code " + std::to_string(status);
  if (!message.empty()) cause += ": " + message;
  // exit() keeps the low 8 bits; a non-zero code must not turn into success.
  int code = status & 0xff;
  if (code == 0 && status != 0) code = 1;
  record_failure(Failure{Kind::kAbort, rank, ranks_[rank].pid.load(), std::move(cause), code});
}

std::optional<Job::Clock::time_point> Job::next_deadline() const {
  if (verdict_) return std::nullopt;
  std::optional<Clock::time_point> next = job_deadline_;
  if (startup_limit_.count() <= 0) return next;
  for (const StartupStep* step : {&connect_step_, &fence_step_}) {
    int64_t first = step->first_ticks.load();
    if (first == 0 || step->count.load() >= opts_.nprocs) continue;
    Clock::time_point d = Clock::time_point(Clock::duration(first)) + startup_limit_;
    if (!next || d < *next) next = d;
  }
  return next;
}

void Job::check_deadlines() {
  if (verdict_) return;
  auto now = Clock::now();
  if (job_deadline_ && now >= *job_deadline_) {
    job_deadline_.reset();
    std::vector<int> unfinished, finalizing;
    for (int r = 0; r < opts_.nprocs; ++r) {
      if (!ranks_[r].running) continue;
      unfinished.push_back(r);
      if (ranks_[r].finalized) finalizing.push_back(r);
    }
    std::string cause = "job timed out after " + seconds_text(opts_.timeout_s) +
                        (opts_.timeout_from_env ? " (MPIEXEC_TIMEOUT): " : " (--timeout): ") +
                        ranks_phrase(unfinished) + " of " + std::to_string(opts_.nprocs) +
                        " had not finished";
    if (unfinished.size() == 1)
      cause += " (pid " + std::to_string(ranks_[unfinished[0]].pid.load()) + ")";
    if (!finalizing.empty()) cause += "; " + ranks_phrase(finalizing) + " in MPI_Finalize";
    record_failure(Failure{Kind::kTimeout, -1, 0, std::move(cause), 124});
    return;
  }
  if (startup_limit_.count() <= 0) return;
  for (bool connect : {true, false}) {
    const StartupStep& step = connect ? connect_step_ : fence_step_;
    int64_t first = step.first_ticks.load();
    if (first == 0 || step.count.load() >= opts_.nprocs) continue;
    if (now >= Clock::time_point(Clock::duration(first)) + startup_limit_) {
      startup_timed_out(connect);
      return;
    }
  }
}

void Job::startup_timed_out(bool connect_step) {
  const StartupStep& step = connect_step ? connect_step_ : fence_step_;
  std::vector<int> missing, arrived, exited;
  for (int r = 0; r < opts_.nprocs; ++r) {
    const Rank& rk = ranks_[r];
    bool there = (connect_step ? rk.connect_ticks : rk.fence_ticks).load() != 0;
    (there ? arrived : missing).push_back(r);
    if (!there && !rk.running) exited.push_back(r);
  }
  std::string limit = seconds_text(opts_.startup_timeout_s);
  std::string first = std::to_string(step.first_rank.load());
  std::string cause = "startup timed out: " + ranks_phrase(missing);
  if (connect_step)
    cause +=
        " never connected to PMIx (MPI_Init) within " + limit + " after rank " + first + " did";
  else
    cause += " never reached the fence in MPI_Init within " + limit + " after rank " + first +
             " did (" + ranks_phrase(arrived) + (arrived.size() == 1 ? " was" : " were") +
             " waiting in it)";
  if (!exited.empty()) cause += "; " + ranks_phrase(exited) + " had exited";
  cause += "; --startup-timeout or MPR_STARTUP_TIMEOUT changes the limit";
  record_failure(Failure{Kind::kLauncher, -1, 0, std::move(cause), 1});
}

void Job::log_startup_progress() {
  if (!phases_->enabled()) return;
  auto at = [](int64_t ticks) { return Clock::time_point(Clock::duration(ticks)); };
  for (int r = 0; r < opts_.nprocs; ++r) {
    Rank& rk = ranks_[r];
    if (!rk.connect_logged && rk.connect_ticks.load() != 0) {
      rk.connect_logged = true;
      phases_->mark_at(at(rk.connect_ticks), "rank %d connected (PMIx_Init)", r);
    }
    if (!rk.fence_logged && rk.fence_ticks.load() != 0) {
      rk.fence_logged = true;
      phases_->mark_at(at(rk.fence_ticks), "rank %d reached the startup fence", r);
    }
  }
  for (bool connect : {true, false}) {
    StartupStep& step = connect ? connect_step_ : fence_step_;
    if (step.done_logged || step.count.load() < opts_.nprocs) continue;
    step.done_logged = true;
    int64_t last = 0;
    for (int r = 0; r < opts_.nprocs; ++r)
      last = std::max(last, (connect ? ranks_[r].connect_ticks : ranks_[r].fence_ticks).load());
    phases_->mark_at(at(last),
                     connect ? "all %d ranks connected" : "all %d ranks reached the startup fence",
                     opts_.nprocs);
  }
}

}  // namespace mpr::launch
