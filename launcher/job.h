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
  /// `reaper` (may be null) learns every rank's pid as it starts. `topo` (may be null: then
  /// MPI_Comm_spawn is refused) and `nspace`, the job's namespace, serve the jobs its ranks
  /// spawn: they are named "<nspace>.1", "<nspace>.2", ... and run unbound on `topo`'s CPUs.
  Job(const Options& opts, PmixServer* server, const Placement& placement, PhaseLog* phases,
      JobReaper* reaper = nullptr, const Topology* topo = nullptr, std::string nspace = {});
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
  void spawn_requested(SpawnRequest request) override;

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
    /// How reports name it: empty for the job's ranks ("rank R"), else "rank R of spawned job
    /// NSPACE" (loop only).
    std::string label;
  };
  /// Every process by its number (ServerListener): the job's ranks, then each spawned job's.
  /// Grows on the loop's thread only; the upcalls on libpmix's thread read entries whose
  /// number the server gave them, which exist before their namespace is registered.
  class RankTable {
   public:
    explicit RankTable(int initial) { grow(initial); }
    Rank& operator[](int i) const {
      return chunks_[static_cast<size_t>(i) >> kShift].load(
          std::memory_order_acquire)[static_cast<size_t>(i) & kMask];
    }
    int size() const { return size_.load(std::memory_order_acquire); }
    /// Adds `n` entries; false (nothing added) when the table would exceed its capacity.
    bool grow(int n);

   private:
    static constexpr size_t kShift = 8, kChunk = size_t{1} << kShift, kMask = kChunk - 1;
    static constexpr size_t kMaxChunks = 4096;  // about a million processes
    std::unique_ptr<std::atomic<Rank*>[]> chunks_ { new std::atomic<Rank*>[ kMaxChunks ]() };
    std::vector<std::unique_ptr<Rank[]>> owned_;
    std::atomic<int> size_{0};
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
  /// Starts the spawned jobs queued by spawn_requested (loop thread) and answers each request.
  void start_spawned();
  /// Starts one; returns its namespace, or throws std::runtime_error saying why not.
  std::string launch_spawned(const SpawnRequest& req);
  /// "rank 3" or "rank 0 of spawned job mprun.123.1", for reports.
  std::string describe(int rank) const;
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
  const Topology* topo_;
  std::string nspace_;
  int spawned_jobs_ = 0;
  std::mutex spawn_mutex_;
  std::vector<SpawnRequest> spawn_queue_;  ///< guarded by spawn_mutex_
  RankTable ranks_;
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
