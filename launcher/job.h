// Job control: start the ranks, watch them, end the job as soon as one fails, and decide
// mprun's exit code.
#pragma once

#include <sys/types.h>

#include <atomic>
#include <chrono>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "launcher/fd.h"
#include "launcher/iof.h"
#include "launcher/options.h"
#include "launcher/pmix_server.h"

namespace mpr::launch {

/// The signals mprun handles in its loop (via signalfd). They must be blocked in every thread,
/// so block_job_signals() has to run before libpmix starts its progress thread.
void block_job_signals();

class Job final : public ServerListener {
 public:
  /// `server` must have the job registered; it outlives the Job, which is its listener while
  /// it exists.
  Job(const Options& opts, PmixServer* server);
  ~Job() override;

  /// Starts every rank and runs until all of them have exited and their output is drained;
  /// prints the one-line failure report if there is one. Returns mprun's exit code.
  int run();

  void client_connected(int rank) override;
  void client_finalized(int rank) override;
  void client_aborted(int rank, int status, const std::string& message) override;
  void client_lost(int rank) override;

 private:
  struct Rank {
    std::atomic<pid_t> pid{-1};
    bool running = false;
    std::atomic<bool> connected{false};
    std::atomic<bool> finalized{false};
    std::atomic<int> lost_order{0};  ///< 1 for the first PMIx connection lost, 2 next, ...
  };
  /// Why the job ends early, strongest evidence of a root cause first: when one rank dies,
  /// others often fail right after it (a fence reports the lost peer), sometimes before the
  /// kernel reports the first death. kLauncher: mprun itself failed (rank is -1).
  enum class Kind { kExitCode, kNoFinalize, kAbort, kSignal, kLauncher };
  struct Failure {
    Kind kind;
    int rank;
    pid_t pid;
    std::string cause;
    int exit_code;
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

  const Options& opts_;
  PmixServer* server_;
  std::unique_ptr<Rank[]> ranks_;
  int live_ = 0;
  UniqueFd signal_fd_;
  UniqueFd wake_fd_;  ///< eventfd: upcalls from libpmix's thread wake the loop
  OutputForwarder output_;
  InputForwarder input_;

  std::mutex failure_mutex_;
  std::vector<Failure> reported_;  ///< guarded by failure_mutex_, in arrival order
  bool verdict_given_ = false;     ///< guarded by failure_mutex_: later reports are ignored
  std::optional<Failure> verdict_;
  std::optional<std::chrono::steady_clock::time_point> settle_deadline_;
  bool terminating_ = false;
  bool killed_ = false;
  int forwarded_signals_ = 0;
  std::atomic<int> lost_count_{0};
  std::chrono::steady_clock::time_point kill_deadline_;
};

}  // namespace mpr::launch
