// A job across the nodes of a Slurm allocation: srun runs it, as mprun's child. mprun stays
// in between only to forward signals, enforce --timeout to the second (srun's own --time
// counts minutes) and pass srun's exit status on.
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <string>
#include <vector>

#include "common/log.h"
#include "launcher/slurm.h"
#include "launcher/spawn.h"

namespace mpr::launch {

namespace {

// How long srun gets to end the step after --timeout's SIGTERM before it is killed.
constexpr double kSrunGraceSeconds = 5;

double monotonic_s() {
  timespec ts;
  ::clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) * 1e-9;
}

timespec to_timespec(double s) {
  if (s < 0) s = 0;
  timespec ts;
  ts.tv_sec = static_cast<time_t>(s);
  ts.tv_nsec = static_cast<long>((s - std::floor(s)) * 1e9);
  return ts;
}

int exit_status(int status) {
  if (WIFEXITED(status)) return WEXITSTATUS(status);
  if (WIFSIGNALED(status)) return 128 + WTERMSIG(status);
  return 1;
}

}  // namespace

int run_with_srun(const Options& opts, const SlurmAllocation& alloc) {
  std::string srun;
  try {
    srun = resolve_program("srun");
    if (!opts.output_dir.empty()) {
      make_output_dir(opts.output_dir);
      for (int r = 0; r < opts.nprocs; ++r) {
        const std::string d = rank_output_dir(opts.output_dir, r, opts.nprocs);
        if (::mkdir(d.c_str(), 0755) != 0 && errno != EEXIST)
          throw UsageError("--output-filename: cannot create '" + d + "': " + std::strerror(errno));
      }
    }
  } catch (const UsageError& e) {
    std::fprintf(stderr, "mprun: the Slurm allocation spans %d nodes, which needs srun: %s\n",
                 alloc.nodes, e.what());
    return 1;
  }
  // MPMD: srun --multi-prog reads the programs from a file (removed when srun is done).
  std::string multi_prog;
  if (opts.apps.size() > 1) {
    const char* tmp = std::getenv("TMPDIR");
    std::string path = std::string(tmp && *tmp ? tmp : "/tmp") + "/mprun-multiprog.XXXXXX";
    int fd = ::mkstemp(path.data());
    const std::string text = multi_prog_config(opts);
    if (fd < 0 || !write_all(fd, text)) {
      std::fprintf(stderr, "mprun: cannot write the --multi-prog file %s: %s\n", path.c_str(),
                   std::strerror(errno));
      if (fd >= 0) ::close(fd), ::unlink(path.c_str());
      return 1;
    }
    ::close(fd);
    multi_prog = path;
  }
  struct RemoveFile {
    std::string path;
    ~RemoveFile() {
      if (!path.empty()) ::unlink(path.c_str());
    }
  } remove_multi_prog{multi_prog};
  const std::vector<std::string> argv = srun_command(opts, alloc, srun, multi_prog);
  // With several programs each one's own settings are in the --multi-prog lines.
  const std::vector<std::string>& exports =
      opts.apps.size() > 1 ? opts.global_exports : opts.exports;
  if (common::verbose()) {
    // srun by name, as the user would type it; the -x settings go through its environment,
    // which keeps values with commas intact (--export=ALL,VAR=value would split them).
    std::vector<std::string> shown = argv;
    shown[0] = "srun";
    std::string line = shell_line(shown);
    if (!exports.empty()) line += " with " + shell_line(exports) + " in its environment";
    std::fprintf(stderr, "mprun: allocation spans %d nodes; running the job with: %s\n",
                 alloc.nodes, line.c_str());
  }
  std::fflush(stderr);

  // srun gives the ranks its own PMIx identity; an enclosing launcher's must not reach them.
  scrub_own_environment();
  for (const auto& [name, value] : prefix_variables(opts, false))
    ::setenv(name.c_str(), value.c_str(), 1);
  for (const std::string& spec : exports) {
    size_t eq = spec.find('=');
    ::setenv(spec.substr(0, eq).c_str(), spec.substr(eq + 1).c_str(), 1);
  }

  sigset_t set;
  sigemptyset(&set);
  for (int sig : {SIGCHLD, SIGINT, SIGTERM, SIGHUP}) sigaddset(&set, sig);
  ::signal(SIGCHLD, SIG_DFL);
  sigset_t old;
  ::sigprocmask(SIG_BLOCK, &set, &old);

  std::vector<char*> cargv;
  for (const std::string& a : argv) cargv.push_back(const_cast<char*>(a.c_str()));
  cargv.push_back(nullptr);
  pid_t pid = ::fork();
  if (pid < 0) {
    std::fprintf(stderr, "mprun: cannot start srun: fork: %s\n", std::strerror(errno));
    return 1;
  }
  if (pid == 0) {
    // srun stays in mprun's process group, so a terminal's Ctrl-C reaches it directly too
    // (--quit-on-interrupt makes the extra forwarded SIGINT harmless) and it may read the
    // terminal for --input.
    ::sigprocmask(SIG_SETMASK, &old, nullptr);
    ::execv(cargv[0], cargv.data());
    std::fprintf(stderr, "mprun: cannot execute %s: %s\n", cargv[0], std::strerror(errno));
    ::_exit(127);
  }

  const double start = monotonic_s();
  double deadline = opts.timeout_s > 0 ? start + opts.timeout_s : 0;
  bool timed_out = false;
  for (;;) {
    int status = 0;
    pid_t done = ::waitpid(pid, &status, WNOHANG);
    if (done == pid) {
      if (timed_out) return 124;
      return exit_status(status);
    }
    siginfo_t info;
    int sig;
    if (deadline > 0) {
      timespec wait = to_timespec(deadline - monotonic_s());
      sig = ::sigtimedwait(&set, &info, &wait);
    } else {
      sig = ::sigwaitinfo(&set, &info);
    }
    if (sig == SIGINT || sig == SIGTERM || sig == SIGHUP) {
      ::kill(pid, sig);
    } else if (sig < 0 && errno == EAGAIN && deadline > 0 && monotonic_s() >= deadline) {
      if (!timed_out) {
        std::fprintf(
            stderr, "mprun: job timed out after %g s (--timeout): stopping srun and its job step\n",
            opts.timeout_s);
        timed_out = true;
        ::kill(pid, SIGTERM);
        deadline = monotonic_s() + kSrunGraceSeconds;
      } else {
        ::kill(pid, SIGKILL);
        deadline = 0;
      }
    }
  }
}

}  // namespace mpr::launch
