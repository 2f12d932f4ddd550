#include "launcher/job.h"

#include <signal.h>
#include <sys/eventfd.h>
#include <sys/signalfd.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <climits>
#include <cstdio>
#include <cstring>
#include <system_error>
#include <vector>

#include <pmix_common.h>

#include "launcher/spawn.h"

namespace mpr::launch {

namespace {

using Clock = std::chrono::steady_clock;

// SIGTERM first so ranks can flush and remove what they own; SIGKILL after this, which keeps
// the whole teardown well under 2 s.
constexpr std::chrono::milliseconds kTermGrace{1000};
// How long to wait after the first failure for others to show up, so the report names the
// root cause rather than a rank that failed because of it.
constexpr std::chrono::milliseconds kSettle{100};
// A rank's descendant that left its process group may hold the output pipes open.
constexpr std::chrono::milliseconds kDrainLimit{1000};

sigset_t job_signal_set() {
  sigset_t set;
  sigemptyset(&set);
  for (int sig : {SIGCHLD, SIGINT, SIGTERM, SIGHUP}) sigaddset(&set, sig);
  return set;
}

std::string signal_cause(int sig) {
  const char* name = ::strsignal(sig);
  return "killed by signal " + std::to_string(sig) + " (" + (name ? name : "unknown") + ")";
}

}  // namespace

void block_job_signals() {
  // An inherited SIG_IGN (nohup, or a shell starting mprun in the background) stays: a
  // blocked signal that is ignored is discarded, so such signals are neither seen nor
  // forwarded, as the caller asked. SIGCHLD is different: ignoring it would make the kernel
  // reap the ranks before we learn how they ended.
  ::signal(SIGCHLD, SIG_DFL);
  sigset_t set = job_signal_set();
  ::pthread_sigmask(SIG_BLOCK, &set, nullptr);
}

bool Job::RankTable::grow(int n) {
  const size_t have = static_cast<size_t>(size_.load(std::memory_order_relaxed));
  const size_t want = have + static_cast<size_t>(n);
  if (want > kMaxChunks * kChunk) return false;
  for (size_t c = (have + kChunk - 1) >> kShift; c < (want + kChunk - 1) >> kShift; ++c) {
    owned_.push_back(std::make_unique<Rank[]>(kChunk));
    chunks_[c].store(owned_.back().get(), std::memory_order_release);
  }
  size_.store(static_cast<int>(want), std::memory_order_release);
  return true;
}

Job::Job(const Options& opts, PmixServer* server, const Placement& placement, PhaseLog* phases,
         JobReaper* reaper, const Topology* topo, std::string nspace)
    : opts_(opts),
      server_(server),
      placement_(placement),
      phases_(phases),
      reaper_(reaper),
      topo_(topo),
      nspace_(std::move(nspace)),
      ranks_(opts.nprocs),
      output_(opts.tag_output, opts.timestamp_output, opts.nprocs),
      input_(opts.stdin_mode, opts.stdin_rank, opts.nprocs),
      startup_limit_(static_cast<int64_t>(opts.startup_timeout_s * 1000)) {
  sigset_t set = job_signal_set();
  signal_fd_.reset(::signalfd(-1, &set, SFD_CLOEXEC | SFD_NONBLOCK));
  if (!signal_fd_.valid()) throw std::system_error(errno, std::generic_category(), "signalfd");
  wake_fd_.reset(::eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK));
  if (!wake_fd_.valid()) throw std::system_error(errno, std::generic_category(), "eventfd");
  server_->set_listener(this);
}

Job::~Job() { server_->set_listener(nullptr); }

int Job::run() {
  start_ranks();
  event_loop();
  finish();
  return exit_code();
}

void Job::start_ranks() {
  if (opts_.timeout_s > 0)
    job_deadline_ = Clock::now() + std::chrono::duration_cast<Clock::duration>(
                                       std::chrono::duration<double>(opts_.timeout_s));
  for (int r = 0; r < opts_.nprocs; ++r) {
    try {
      const AppContext& app = opts_.app_of(r);
      EnvBlock env;
      build_rank_environment(opts_, app, r, &env);
      server_->prepare_client(r, &env);
      RankLaunch how;
      how.rank = r;
      how.app = &app;
      how.env = env.data();
      how.merge_stderr = opts_.merge_stderr;
      how.stdin_fd = input_.stdin_for(r);
      const RankPlacement& where = placement_.ranks[static_cast<size_t>(r)];
      if (where.bound) how.affinity = where.cpus.affinity_words();
      RankOutput files;
      if (!opts_.output_dir.empty()) {
        files = open_rank_output(opts_.output_dir, r, opts_.nprocs, opts_.merge_stderr);
        how.output_fd = files.out.get();
        how.err_file = files.err.get();
      }
      RankProcess p = spawn_rank(how);
      if (reaper_) reaper_->rank_started(p.pid);
      input_.rank_started(r);
      ranks_[r].pid = p.pid;
      ranks_[r].running = true;
      ++live_;
      if (p.out.valid()) output_.add_rank(r, std::move(p.out), std::move(p.err));
      phases_->mark("rank %d started (pid %d)", r, static_cast<int>(p.pid));
    } catch (const std::exception& e) {
      record_failure(Failure{Kind::kLauncher, -1, 0,
                             "cannot start rank " + std::to_string(r) + ": " + e.what(), 1});
      return;
    }
  }
}

void Job::event_loop() {
  std::vector<pollfd> fds;
  while (live_ > 0) {
    fds.clear();
    fds.push_back(pollfd{signal_fd_.get(), POLLIN, 0});
    fds.push_back(pollfd{wake_fd_.get(), POLLIN, 0});
    output_.collect(&fds);
    input_.collect(&fds);

    int timeout_ms = -1;
    auto wait_until = [&timeout_ms](Clock::time_point t) {
      auto left = std::chrono::ceil<std::chrono::milliseconds>(t - Clock::now());
      int ms = static_cast<int>(std::max<int64_t>(0, left.count()));
      if (timeout_ms < 0 || ms < timeout_ms) timeout_ms = ms;
    };
    if (terminating_ && !killed_) wait_until(kill_deadline_);
    if (settle_deadline_ && !verdict_) wait_until(*settle_deadline_);
    if (auto d = next_deadline()) wait_until(*d);
    if (input_.waiting_for_foreground() && (timeout_ms < 0 || timeout_ms > 250)) timeout_ms = 250;

    int n = ::poll(fds.data(), fds.size(), timeout_ms);
    if (n < 0 && errno != EINTR) throw std::system_error(errno, std::generic_category(), "poll");
    if (n > 0) {
      if (fds[0].revents) handle_signals();
      if (fds[1].revents) {
        uint64_t count;
        ssize_t ignored = ::read(wake_fd_.get(), &count, sizeof count);
        (void)ignored;
      }
      output_.service(fds);
      input_.service(fds);
    }
    start_spawned();
    log_startup_progress();
    check_deadlines();
    settle_failures(false);
    if (terminating_ && !killed_ && Clock::now() >= kill_deadline_) {
      signal_ranks(SIGKILL, -1);
      killed_ = true;
    }
  }
}

void Job::handle_signals() {
  signalfd_siginfo si;
  pid_t first_child = 0;
  while (::read(signal_fd_.get(), &si, sizeof si) == static_cast<ssize_t>(sizeof si)) {
    int sig = static_cast<int>(si.ssi_signo);
    if (sig == SIGCHLD) {
      // SIGCHLDs coalesce; the one we get names the child that exited first since the last read.
      if (!first_child) first_child = static_cast<pid_t>(si.ssi_pid);
      continue;
    }
    // A second interrupt means the ranks did not react to the first: stop waiting for them.
    if (++forwarded_signals_ == 1) {
      signal_ranks(sig, -1);
      continue;
    }
    signal_ranks(SIGKILL, -1);
    const char* name = sig == SIGINT ? "SIGINT" : sig == SIGTERM ? "SIGTERM" : "SIGHUP";
    record_failure(Failure{Kind::kLauncher, -1, 0,
                           std::string("second ") + name + ": killed every rank with SIGKILL",
                           128 + sig});
  }
  collect_exits(first_child);
}

void Job::collect_exits(pid_t first_pid) {
  const int n = ranks_.size();
  for (int r = 0; r < n; ++r)
    if (ranks_[r].running && ranks_[r].pid == first_pid) check_exit(r);
  for (int r = 0; r < n; ++r)
    if (ranks_[r].running) check_exit(r);
}

void Job::check_exit(int rank) {
  // WNOWAIT leaves each finished rank a zombie until finish(): its pid, which is also its
  // process group id, cannot be reused while mprun may still signal that group.
  siginfo_t si;
  si.si_pid = 0;
  if (::waitid(P_PID, static_cast<id_t>(ranks_[rank].pid.load()), &si,
               WEXITED | WNOHANG | WNOWAIT) != 0 ||
      si.si_pid == 0)
    return;
  bool by_signal = si.si_code == CLD_KILLED || si.si_code == CLD_DUMPED;
  rank_exited(rank, si.si_status, by_signal);
}

void Job::rank_exited(int rank, int code, bool by_signal) {
  Rank& r = ranks_[rank];
  r.running = false;
  --live_;
  input_.rank_exited(rank);
  Failure f{Kind::kExitCode, rank, r.pid.load(), {}, 0};
  if (by_signal) {
    f.kind = Kind::kSignal;
    f.cause = signal_cause(code);
    f.exit_code = 128 + code;
    if (code == SIGKILL) {
      if (std::optional<std::string> oom = oom_.evidence())
        f.cause = "killed by the kernel's OOM killer (signal 9; " + *oom + "): out of memory";
    }
  } else if (code != 0) {
    f.cause = "exited with code " + std::to_string(code);
    f.exit_code = code;
  } else if (r.connected && !r.finalized && live_ > 0) {
    // The others may be blocked forever in a collective with this rank.
    f.kind = Kind::kNoFinalize;
    f.cause =
        "exited with code 0 without calling MPI_Finalize (PMIx_Finalize) while other "
        "ranks were still running";
    f.exit_code = 1;
  } else {
    return;
  }
  record_failure(std::move(f));
}

void Job::record_failure(Failure failure) {
  {
    std::lock_guard lock(failure_mutex_);
    if (verdict_given_) return;
    reported_.push_back(std::move(failure));
  }
  wake();
}

void Job::wake() {
  uint64_t one = 1;
  ssize_t ignored = ::write(wake_fd_.get(), &one, sizeof one);
  (void)ignored;
}

void Job::settle_failures(bool now_or_never) {
  if (verdict_) return;
  std::lock_guard lock(failure_mutex_);
  if (reported_.empty()) return;
  auto now = Clock::now();
  if (!settle_deadline_) settle_deadline_ = now + kSettle;
  bool launcher_failed = false;
  for (const Failure& f : reported_) launcher_failed |= f.kind >= Kind::kLauncher;
  if (!now_or_never && !launcher_failed && now < *settle_deadline_) return;
  // Among failures of one kind, the rank whose PMIx connection dropped first is the likely
  // cause: the others typically failed in a collective that reported the lost peer.
  auto lost = [this](const Failure& f) {
    int order = f.rank >= 0 ? ranks_[f.rank].lost_order.load() : 0;
    return order > 0 ? order : INT_MAX;
  };
  const Failure* best = &reported_.front();
  for (const Failure& f : reported_)
    if (f.kind > best->kind || (f.kind == best->kind && lost(f) < lost(*best))) best = &f;
  verdict_ = *best;
  verdict_given_ = true;
  if (live_ > 0) terminate_ranks();
}

void Job::terminate_ranks() {
  terminating_ = true;
  // The aborting rank exits by itself once PMIx_Abort returns; SIGKILL catches it if not.
  signal_ranks(SIGTERM, verdict_->kind == Kind::kAbort ? verdict_->rank : -1);
  kill_deadline_ = Clock::now() + kTermGrace;
}

void Job::signal_ranks(int sig, int except_rank) {
  for (int r = 0; r < ranks_.size(); ++r) {
    pid_t pid = ranks_[r].pid;
    if (r != except_rank && pid > 0) ::kill(-pid, sig);
  }
}

void Job::finish() {
  // Whatever a rank left running in its process group goes with it.
  signal_ranks(SIGKILL, -1);
  output_.drain(Clock::now() + kDrainLimit);
  for (int r = 0; r < ranks_.size(); ++r) {
    pid_t pid = ranks_[r].pid;
    if (pid <= 0) continue;
    while (::waitpid(pid, nullptr, 0) < 0 && errno == EINTR) {
    }
  }
  settle_failures(true);
  if (!verdict_) return;
  if (verdict_->rank >= 0)
    std::fprintf(stderr, "mprun: %s (pid %d) %s\n", describe(verdict_->rank).c_str(),
                 static_cast<int>(verdict_->pid), verdict_->cause.c_str());
  else
    std::fprintf(stderr, "mprun: %s\n", verdict_->cause.c_str());
}

int Job::exit_code() { return verdict_ ? verdict_->exit_code : 0; }

std::string Job::describe(int rank) const {
  const std::string& label = ranks_[rank].label;
  return label.empty() ? "rank " + std::to_string(rank) : label;
}

void Job::spawn_requested(SpawnRequest request) {
  {
    std::lock_guard lock(spawn_mutex_);
    spawn_queue_.push_back(std::move(request));
  }
  wake();
}

void Job::start_spawned() {
  std::vector<SpawnRequest> queue;
  {
    std::lock_guard lock(spawn_mutex_);
    queue.swap(spawn_queue_);
  }
  for (SpawnRequest& req : queue) {
    std::string nspace;
    int status = PMIX_SUCCESS;
    try {
      if (terminating_ || verdict_) throw std::runtime_error("the job is ending");
      nspace = launch_spawned(req);
    } catch (const std::exception& e) {
      // The caller's MPI_Comm_spawn fails with MPI_ERR_SPAWN; this line says why.
      std::fprintf(stderr, "mprun: MPI_Comm_spawn by %s: %s\n",
                   req.requester >= 0 ? describe(req.requester).c_str() : "a process", e.what());
      std::fflush(stderr);
      status = PMIX_ERR_JOB_FAILED_TO_LAUNCH;
    }
    req.done(status, nspace);
  }
}

std::string Job::launch_spawned(const SpawnRequest& req) {
  if (!topo_) throw std::runtime_error("this mprun does not start processes for its ranks");
  // Everything that can fail before a process starts: the programs and their directories.
  std::vector<AppContext> apps;
  int total = 0;
  for (const SpawnApp& a : req.apps) {
    AppContext app;
    app.wdir = a.wdir;
    std::string name = a.command;
    // A relative path names a program in its working directory, as exec from there would.
    if (name.find('/') != std::string::npos && name[0] != '/' && !a.wdir.empty())
      name = a.wdir + "/" + name;
    std::string found;
    for (size_t start = 0; !a.path.empty() && start <= a.path.size() && found.empty();) {
      size_t end = a.path.find(':', start);
      if (end == std::string::npos) end = a.path.size();
      const std::string dir = a.path.substr(start, end - start);
      if (!dir.empty() && a.command.find('/') == std::string::npos &&
          ::access((dir + "/" + a.command).c_str(), X_OK) == 0)
        found = dir + "/" + a.command;
      start = end + 1;
    }
    try {
      app.program_path = found.empty() ? resolve_program(name) : found;
    } catch (const UsageError& e) {
      throw std::runtime_error(e.what());
    }
    app.program_argv.push_back(a.command);
    app.program_argv.insert(app.program_argv.end(), a.argv.begin(), a.argv.end());
    app.first_rank = total;
    app.nprocs = a.maxprocs;
    total += a.maxprocs;
    apps.push_back(std::move(app));
  }
  const int first = ranks_.size();
  if (!ranks_.grow(total))
    throw std::runtime_error("mprun runs at most about a million processes per job");
  const std::string nspace = nspace_ + "." + std::to_string(++spawned_jobs_);
  // Unbound, on every CPU mprun may use: the job's ranks already hold their cores.
  Placement where;
  where.binding = BindTo::kNone;
  int running = 0;
  for (int r = 0; r < first; ++r) running += ranks_[r].running ? 1 : 0;
  where.oversubscribed = running + total > topo_->pus();
  for (int r = 0; r < total; ++r) where.ranks.push_back(RankPlacement{topo_->allowed(), false, {}});
  JobLayout layout{nspace, total, "localhost", topo_->pus(), &where, {}};
  char host[256] = {};
  if (::gethostname(host, sizeof host - 1) == 0 && host[0]) layout.hostname = host;
  for (size_t i = 0; i < apps.size(); ++i)
    for (int k = 0; k < apps[i].nprocs; ++k) layout.appnum.push_back(static_cast<uint32_t>(i));
  server_->register_spawned(layout, first, running);
  phases_->mark("spawned job %s registered (%d processes, asked by %s)", nspace.c_str(), total,
                req.requester >= 0 ? describe(req.requester).c_str() : "?");
  for (size_t i = 0; i < apps.size(); ++i) {
    const AppContext& app = apps[i];
    for (int k = 0; k < app.nprocs; ++k) {
      const int rank = app.first_rank + k;
      const int index = first + rank;
      Rank& rk = ranks_[index];
      rk.label = "rank " + std::to_string(rank) + " of spawned job " + nspace;
      EnvBlock env;
      build_spawned_environment(opts_, {rank, total, static_cast<int>(i)}, req.apps[i].env, &env);
      server_->prepare_client(index, &env);
      RankLaunch how;
      how.rank = index;
      how.app = &app;
      how.env = env.data();
      how.merge_stderr = opts_.merge_stderr;
      how.stdin_fd = input_.stdin_for(index);  // /dev/null: stdin goes to the job's ranks
      RankProcess p = spawn_rank(how);
      if (reaper_) reaper_->rank_started(p.pid);
      rk.pid = p.pid;
      rk.running = true;
      ++live_;
      if (p.out.valid())
        output_.add_rank(index, std::move(p.out), std::move(p.err),
                         std::to_string(spawned_jobs_) + "," + std::to_string(rank));
      phases_->mark("%s started (pid %d)", rk.label.c_str(), static_cast<int>(p.pid));
    }
  }
  return nspace;
}

}  // namespace mpr::launch
