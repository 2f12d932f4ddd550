// mprun: starts N local ranks as PMIx clients of its own PMIx server, forwards their output
// and signals, and ends the job cleanly when one rank fails.
#include <fcntl.h>
#include <signal.h>
#include <sys/resource.h>
#include <unistd.h>

#include <chrono>
#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <optional>
#include <string>

#include "common/log.h"
#include "common/params.h"
#include "launcher/cleanup.h"
#include "launcher/info.h"
#include "launcher/job.h"
#include "launcher/options.h"
#include "launcher/phase_log.h"
#include "launcher/placement.h"
#include "launcher/pmix_server.h"
#include "launcher/slurm.h"
#include "launcher/spawn.h"

#if defined(__SANITIZE_ADDRESS__)
// libpmix and libevent keep allocations until process exit by design; only our leaks matter.
// Exported despite -fvisibility=hidden: the sanitizer runtime looks the hook up dynamically.
extern "C" __attribute__((visibility("default"))) const char* __lsan_default_suppressions() {
  return "leak:libpmix.so\nleak:libevent\nleak:libhwloc.so\nleak:libmunge.so\n";
}
extern "C" __attribute__((visibility("default"))) const char* __lsan_default_options() {
  return "print_suppressions=0";
}
#endif

namespace mpr::launch {
namespace {

// libpmix 4.2.2 can wedge its progress thread after some client failures; deregistering then
// never completes and finalize never returns. Bound both, then leave without them.
constexpr std::chrono::milliseconds kDeregisterLimit{2000};
constexpr std::chrono::milliseconds kTeardownLimit{4000};

// Pipes and /dev/null must never land on fds 0-2 when mprun was started with them closed.
void ensure_standard_fds() {
  for (int fd = 0; fd <= 2; ++fd)
    if (::fcntl(fd, F_GETFD) < 0 && ::open("/dev/null", O_RDWR) < 0) std::_Exit(1);
}

// Each rank costs mprun two pipe ends and libpmix one socket; large jobs on one node exceed
// the default soft limit of 1024 descriptors long before anything else runs out.
void raise_fd_limit() {
  rlimit lim;
  if (::getrlimit(RLIMIT_NOFILE, &lim) == 0 && lim.rlim_cur < lim.rlim_max) {
    lim.rlim_cur = lim.rlim_max;
    ::setrlimit(RLIMIT_NOFILE, &lim);
  }
}

void remove_job_files(const std::string& nspace, const std::string& tmpdir) {
  remove_job_shm(nspace);
  remove_tree(tmpdir);
}

std::chrono::milliseconds startup_limit(const Options& opts) {
  return std::chrono::milliseconds(static_cast<int64_t>(opts.startup_timeout_s * 1000));
}

int run(const Options& opts, const Topology& topo, const Placement& placement, PhaseLog& phases) {
  // A reader of our output going away (mprun ... | head -1) must not kill mprun before it
  // has cleaned up.
  ::signal(SIGPIPE, SIG_IGN);
  raise_fd_limit();
  scrub_own_environment();
  // The hash store starts jobs about twice as fast as the default shared-memory one (ds21);
  // setup_fork tells the ranks which store the server uses (PMIX_GDS_MODULE).
  ::setenv("PMIX_MCA_gds", "hash", 0);
  // Deliver "client lost" events at once instead of holding them for the default 1 s caching
  // window: mprun uses their order to tell which rank failed first.
  ::setenv("PMIX_MCA_pmix_event_caching_window", "0", 0);
  // Every fence through our on_fence, which fails it when a rank is gone (pmix_server.cc).
  ::setenv("PMIX_MCA_pmix_server_fence_localonly_opt", "0", 1);
  block_job_signals();

  const std::string nspace = "mprun." + std::to_string(::getpid());
  // Before the tmpdir, the server's threads and the ranks exist: whenever mprun is killed
  // from here on, nothing of the job stays behind.
  JobReaper reaper(nspace);
  std::string tmpdir;
  try {
    tmpdir = make_private_tmpdir();
    reaper.tmpdir(tmpdir);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "mprun: cannot create the PMIx directory: %s\n", e.what());
    return 1;
  }

  int code = 1;
  try {
    // libpmix gives no bound of its own; a wedged init must not hang mprun silently.
    const auto limit = startup_limit(opts);
    std::optional<Watchdog> init_watchdog;
    if (limit.count() > 0)
      init_watchdog.emplace(limit, [&] {
        std::fprintf(stderr,
                     "mprun: startup timed out: PMIx_server_init did not return within %g s "
                     "(--startup-timeout)\n",
                     opts.startup_timeout_s);
        remove_job_files(nspace, tmpdir);
        ::_exit(1);
      });
    // "No limit" is a week: the waits add it to the current time, so it must not overflow.
    constexpr std::chrono::milliseconds kWeek{7LL * 24 * 3600 * 1000};
    PmixServer server(tmpdir, topo.get(), limit.count() > 0 ? limit : kWeek);
    if (init_watchdog) init_watchdog->cancel();
    phases.mark("PMIx server up (tmpdir %s)", tmpdir.c_str());
    JobLayout layout{nspace, opts.nprocs, "localhost", topo.pus(), &placement, {}};
    for (int r = 0; r < opts.nprocs; ++r)
      layout.appnum.push_back(static_cast<uint32_t>(opts.app_index(r)));
    char host[256] = {};
    if (::gethostname(host, sizeof host - 1) == 0 && host[0]) layout.hostname = host;
    server.register_job(layout);
    phases.mark("job %s registered (%d ranks, map-by %s, bind-to %s%s)", nspace.c_str(),
                opts.nprocs, map_by_name(opts.map_by), bind_to_name(placement.binding),
                placement.oversubscribed ? ", oversubscribed" : "");
    if (common::verbose())
      std::fprintf(stderr, "mprun: job %s: %d rank%s of %s on %s (%d cores, %d PUs usable%s)\n",
                   nspace.c_str(), opts.nprocs, opts.nprocs == 1 ? "" : "s",
                   opts.program_path.c_str(), layout.hostname.c_str(), topo.cores(), topo.pus(),
                   placement.oversubscribed ? ", oversubscribed" : "");
    if (opts.display_map) {
      std::string lines = "mprun: job map of " + nspace + ": " + std::to_string(opts.nprocs) +
                          (opts.nprocs == 1 ? " rank" : " ranks") + " on " + layout.hostname +
                          " (" + std::to_string(topo.cores()) + " cores, " +
                          std::to_string(topo.pus()) + " PUs usable)\n";
      for (int r = 0; r < opts.nprocs; ++r) {
        const AppContext& app = opts.app_of(r);
        lines += "  " + binding_report(r, placement.ranks[static_cast<size_t>(r)]) + ": " +
                 (opts.apps.size() > 1 ? "program " + std::to_string(opts.app_index(r)) + " "
                                       : std::string()) +
                 app.program_path + "\n";
      }
      std::fputs(lines.c_str(), stderr);
      std::fflush(stderr);
    }
    if (opts.report_bindings) {
      std::string lines;
      for (int r = 0; r < opts.nprocs; ++r)
        lines += binding_report(r, placement.ranks[static_cast<size_t>(r)]) + "\n";
      std::fputs(lines.c_str(), stderr);
      std::fflush(stderr);
    }
    bool pmix_clean = true;
    {
      Job job(opts, &server, placement, &phases, &reaper, &topo, nspace);
      code = job.run();
      pmix_clean = job.pmix_clean();
    }
    phases.mark("all ranks done, exit code %d", code);

    Watchdog watchdog(kTeardownLimit, [&] {
      std::fprintf(stderr, "mprun: PMIx server teardown hung; exiting without it\n");
      remove_job_files(nspace, tmpdir);
      ::_exit(code);
    });
    if (!server.shutdown(kDeregisterLimit, pmix_clean)) {
      watchdog.cancel();
      std::fprintf(stderr, "mprun: PMIx namespace deregistration hung; exiting without it\n");
      remove_job_files(nspace, tmpdir);
      std::fflush(nullptr);
      ::_exit(code);
    }
    watchdog.cancel();
    phases.mark(pmix_clean ? "PMIx server finalized"
                           : "PMIx server left as it is (a rank never finalized)");
  } catch (const std::exception& e) {
    std::fprintf(stderr, "mprun: %s\n", e.what());
    code = 1;
  }
  remove_job_files(nspace, tmpdir);
  return code;
}

}  // namespace
}  // namespace mpr::launch

int main(int argc, char** argv) {
  using namespace mpr::launch;
  PhaseLog phases;
  ensure_standard_fds();
  Options opts;
  try {
    opts = parse_options(argc, argv);
  } catch (const UsageError& e) {
    std::fprintf(stderr, "mprun: %s\n", e.what());
    return 1;
  }
  switch (opts.action) {
    case Action::kHelp:
      print_help(stdout);
      return 0;
    case Action::kVersion:
      print_version(stdout);
      return 0;
    case Action::kParams:
      print_params(stdout);
      return 0;
    case Action::kInfo:
      print_info(stdout);
      return 0;
    case Action::kRun:
      break;
  }
  if (!opts.quiet)
    for (const std::string& w : opts.warnings)
      std::fprintf(stderr, "mprun: warning: %s\n", w.c_str());
  if (opts.verbose) ::setenv("MPR_VERBOSE", "1", 1);
  if (opts.debug_startup) ::setenv("MPR_DEBUG_STARTUP", "1", 1);
  phases.enable(opts.debug_startup);
  // An allocation of several nodes: srun starts the ranks, on all of them (a host list given
  // explicitly keeps the job on this node).
  if (const SlurmAllocation alloc = read_slurm_allocation();
      alloc.spans_nodes() && !opts.hosts_given)
    return run_with_srun(opts, alloc);
  phases.mark("options parsed (%d ranks of %s)", opts.nprocs, opts.program_path.c_str());

  // Everything that can reject the invocation happens before a server or a rank starts.
  std::optional<Topology> topo;
  try {
    topo.emplace();
  } catch (const std::exception& e) {
    std::fprintf(stderr, "mprun: cannot read this node's CPU topology: %s\n", e.what());
    return 1;
  }
  Placement placement;
  try {
    if (!opts.cpu_set.empty()) topo->restrict_to(opts.cpu_set);
    if (opts.ppr > 0 && !opts.nprocs_given) {
      // ppr:N:OBJ without -n: N ranks on every usable object.
      opts.nprocs = opts.apps[0].nprocs = ppr_slots(*topo, opts);
      if (opts.stdin_mode == StdinMode::kRank && opts.stdin_rank >= opts.nprocs)
        throw UsageError("--stdin " + std::to_string(opts.stdin_rank) +
                         " names no rank (the job has " + std::to_string(opts.nprocs) + " ranks)");
    }
    placement = place_ranks(*topo, opts);
    if (!opts.output_dir.empty()) make_output_dir(opts.output_dir);
  } catch (const UsageError& e) {
    std::fprintf(stderr, "mprun: %s\n", e.what());
    return 1;
  }
  phases.mark("topology loaded, ranks placed (%d cores, %d PUs usable)", topo->cores(),
              topo->pus());
  return run(opts, *topo, placement, phases);
}
