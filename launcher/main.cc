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
#include <string>

#include "common/log.h"
#include "common/params.h"
#include "launcher/cleanup.h"
#include "launcher/job.h"
#include "launcher/options.h"
#include "launcher/pmix_server.h"
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

/// Startup phases with timings under MPR_DEBUG_STARTUP=1.
class PhaseLog {
 public:
  PhaseLog() : enabled_(common::param_bool("MPR_DEBUG_STARTUP")) {}
  void mark(const char* fmt, ...) __attribute__((format(printf, 2, 3))) {
    if (!enabled_) return;
    char msg[512];
    va_list ap;
    va_start(ap, fmt);
    std::vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() -
                                                          start_)
                    .count();
    std::fprintf(stderr, "mprun: +%.1f ms %s\n", ms, msg);
  }

 private:
  bool enabled_;
  std::chrono::steady_clock::time_point start_ = std::chrono::steady_clock::now();
};

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

int run(const Options& opts) {
  PhaseLog phases;
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
  block_job_signals();

  const std::string nspace = "mprun." + std::to_string(::getpid());
  std::string tmpdir;
  try {
    tmpdir = make_private_tmpdir();
  } catch (const std::exception& e) {
    std::fprintf(stderr, "mprun: cannot create the PMIx directory: %s\n", e.what());
    return 1;
  }

  int code = 1;
  try {
    PmixServer server(tmpdir);
    phases.mark("PMIx server up (tmpdir %s)", tmpdir.c_str());
    JobLayout layout{nspace, opts.nprocs, "localhost", usable_cpus()};
    char host[256] = {};
    if (::gethostname(host, sizeof host - 1) == 0 && host[0]) layout.hostname = host;
    server.register_job(layout);
    phases.mark("job %s registered (%d ranks)", nspace.c_str(), opts.nprocs);
    if (common::verbose())
      std::fprintf(stderr, "mprun: job %s: %d rank%s of %s on %s (%d usable cpus%s)\n",
                   nspace.c_str(), opts.nprocs, opts.nprocs == 1 ? "" : "s",
                   opts.program_path.c_str(), layout.hostname.c_str(), layout.cpus,
                   opts.nprocs > layout.cpus ? ", oversubscribed" : "");
    {
      Job job(opts, &server);
      code = job.run();
    }
    phases.mark("all ranks done, exit code %d", code);

    Watchdog watchdog(kTeardownLimit, [&] {
      std::fprintf(stderr, "mprun: PMIx server teardown hung; exiting without it\n");
      remove_job_files(nspace, tmpdir);
      ::_exit(code);
    });
    if (!server.shutdown(kDeregisterLimit)) {
      watchdog.cancel();
      std::fprintf(stderr, "mprun: PMIx namespace deregistration hung; exiting without it\n");
      remove_job_files(nspace, tmpdir);
      std::fflush(nullptr);
      ::_exit(code);
    }
    watchdog.cancel();
    phases.mark("PMIx server finalized");
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
    case Action::kRun:
      break;
  }
  if (opts.verbose) ::setenv("MPR_VERBOSE", "1", 1);
  return run(opts);
}
