// Job control: start the ranks, watch them (exits, startup progress, time limits), end the job
// as soon as one fails, and decide mprun's exit code.
#pragma once

#include <sys/types.h>

#include <atomic>
#include <chrono>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "launcher/cleanup.h"
#include "launcher/fd.h"
#include "launcher/iof.h"
#include "launcher/oom.h"
#include "launcher/options.h"
#include "launcher/phase_log.h"
#include "launcher/placement.h"
#include "launcher/pmix_server.h"

namespace mpr::launch {

/// The signals mprun handles in its loop (via signalfd). They must be blocked in every thread,
/// so block_job_signals() has to run before libpmix starts its progress thread.
void block_job_signals();

class Job final : public ServerListener {
 public:
  /// `server` must have the job registered; it outlives the Job, which is its listener while
  /// it exists. `placement` has one entry per rank; `phases` logs --debug-startup lines.
  /// `reaper` (may be null) learns every rank's pid as it starts.
  Job(const Options& opts, PmixServer* server, const Placement& placement, PhaseLog* phases,
      JobReaper* reaper = nullptr);
  ~Job() override;

  /// Starts every rank and runs until all of them have exited and their output is drained;
  /// prints the one-line failure report if there is one. Returns mprun's exit code.
  int run();

  void client_connected(int rank) override;
  void client_finalized(int rank) override;
  void client_aborted(int rank, int status, const std::string& message) override;
  void client_lost(int rank) override;
  void client_at_startup_fence(int rank) override;
  std::vector<int> gone_ranks() override;

  /// After run(): every rank that connected to PMIx also finalized, so the server library has
  /// no unfinished fence of dead clients.
  bool pmix_clean() const;

 private:
  using Clock = std::chrono::steady_clock;

  struct Rank {
    std::atomic<pid_t> pid{-1};
    bool running = false;
    std::atomic<bool> connected{false};
    std::atomic<bool> finalized{false};
    std::atomic<int> lost_order{0};  ///< 1 for the first PMIx connection lost, 2 next, ...
    /// Clock ticks when the rank connected / reached the startup fence; 0 = not yet.
    std::atomic<int64_t> connect_ticks{0};
    std::atomic<int64_t> fence_ticks{0};
    bool connect_logged = false;  ///< --debug-startup line printed (loop only)
    bool fence_logged = false;
  };
  /// Why the job ends early, strongest evidence of a root cause first: when one rank dies,
  /// others often fail right after it (a fence reports the lost peer), sometimes before the
  /// kernel reports the first death. kLauncher (mprun itself failed, a startup step timed
  /// out, a second interrupt) and kTimeout (--timeout) concern the job, not a rank (-1).
  enum class Kind { kExitCode, kNoFinalize, kAbort, kSignal, kLauncher, kTimeout };
  struct Failure {
    Kind kind;
    int rank;
    pid_t pid;
    std::string cause;
    int exit_code;
  };
  /// A startup step that must finish within the startup timeout once its first rank got
  /// there: every rank connected, every rank at the startup fence.
  struct StartupStep {
    std::atomic<int> count{0};
    std::atomic<int> first_rank{-1};
    std::atomic<int64_t> first_ticks{0};
    bool done_logged = false;
  };

  void start_ranks();
  void event_loop();
  void handle_signals();
  /// `first_pid`: the child the kernel reported first, looked at before the others.
  void collect_exits(pid_t first_pid);
  void check_exit(int rank);
  void rank_exited(int rank, int code, bool by_signal);
  /// Thread-safe; wakes the loop, which picks the verdict once failures settled.
  void record_failure(Failure failure);
  /// Picks the verdict when the settle window is over (or `now_or_never`), then ends the job.
  void settle_failures(bool now_or_never);
  void terminate_ranks();
  void signal_ranks(int sig, int except_rank);
  void finish();
  int exit_code();
  void wake();

  /// Deadlines of --timeout and of the startup steps; the poll timeout is the nearest one.
  std::optional<Clock::time_point> next_deadline() const;
  void check_deadlines();
  void startup_timed_out(bool connect_step);
  void log_startup_progress();
  static void note_step(StartupStep* step, std::atomic<int64_t>* rank_ticks, int rank);

  const Options& opts_;
  PmixServer* server_;
  const Placement& placement_;
  PhaseLog* phases_;
  JobReaper* reaper_;
  std::unique_ptr<Rank[]> ranks_;
  int live_ = 0;
  UniqueFd signal_fd_;
  UniqueFd wake_fd_;  ///< eventfd: upcalls from libpmix's thread wake the loop
  OutputForwarder output_;
  InputForwarder input_;
  OomWatch oom_;

  std::optional<Clock::time_point> job_deadline_;  ///< --timeout
  std::chrono::milliseconds startup_limit_{0};     ///< 0: startup steps have no limit
  StartupStep connect_step_;
  StartupStep fence_step_;

  std::mutex failure_mutex_;
  std::vector<Failure> reported_;  ///< guarded by failure_mutex_, in arrival order
  bool verdict_given_ = false;     ///< guarded by failure_mutex_: later reports are ignored
  std::optional<Failure> verdict_;
  std::optional<Clock::time_point> settle_deadline_;
  bool terminating_ = false;
  bool killed_ = false;
  int forwarded_signals_ = 0;
  std::atomic<int> lost_count_{0};
  Clock::time_point kill_deadline_;
};

}  // namespace mpr::launch
