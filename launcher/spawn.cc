#include "launcher/spawn.h"

#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <string>
#include <system_error>
#include <vector>

#include "launcher/slurm.h"

extern char** environ;

namespace mpr::launch {

namespace {

bool from_foreign_launcher(const char* entry) {
  for (const char* prefix : kForeignLauncherPrefixes)
    if (std::strncmp(entry, prefix, std::strlen(prefix)) == 0) return true;
  return false;
}

void pipe_or_throw(UniqueFd* read_end, UniqueFd* write_end) {
  int fds[2];
  if (::pipe2(fds, O_CLOEXEC) != 0) throw std::system_error(errno, std::generic_category(), "pipe");
  read_end->reset(fds[0]);
  write_end->reset(fds[1]);
}

// The kernel's struct sigaction (x86-64, aarch64 layout): glibc's sigaction() refuses the
// signals it keeps for itself (32 and 33), which an ignoring parent may still have set.
struct KernelSigaction {
  void (*handler)(int);
  unsigned long flags;
  void (*restorer)();
  unsigned long mask;
};

void reset_disposition(int sig) {
  struct sigaction dfl;
  std::memset(&dfl, 0, sizeof dfl);
  dfl.sa_handler = SIG_DFL;
  if (::sigaction(sig, &dfl, nullptr) == 0 || errno != EINVAL) return;
  KernelSigaction raw{SIG_DFL, 0, nullptr, 0};
  ::syscall(SYS_rt_sigaction, sig, &raw, nullptr, sizeof raw.mask);
}

void child_fail(const char* what, const char* path) {
  const char* why = std::strerror(errno);
  const char* parts[] = {"mprun: ", what, " ", path, ": ", why, "\n"};
  for (const char* p : parts) {
    ssize_t ignored = ::write(STDERR_FILENO, p, std::strlen(p));
    (void)ignored;
  }
}

// Only async-signal-safe calls from here on: mprun has other threads (libpmix) when it forks.
[[noreturn]] void exec_child(const char* path, char* const* argv, char* const* env, pid_t parent,
                             int stdin_fd, int out_fd, int err_fd,
                             const std::vector<unsigned long>& affinity, const char* rank_text) {
  // Ignored signals and the blocked mask survive exec; the rank must start clean.
  for (int sig = 1; sig < NSIG; ++sig)
    if (sig != SIGKILL && sig != SIGSTOP) reset_disposition(sig);
  sigset_t none;
  sigemptyset(&none);
  ::sigprocmask(SIG_SETMASK, &none, nullptr);

  ::prctl(PR_SET_PDEATHSIG, SIGKILL);
  if (::getppid() != parent) ::_exit(127);  // mprun died before prctl took effect
  ::setpgid(0, 0);

  if (stdin_fd != STDIN_FILENO) ::dup2(stdin_fd, STDIN_FILENO);
  ::dup2(out_fd, STDOUT_FILENO);
  ::dup2(err_fd, STDERR_FILENO);
  // Bound before exec, so the program's first instruction, its allocations (first touch
  // places pages on the local NUMA node) and every thread it starts run where they belong.
  if (!affinity.empty() &&
      ::sched_setaffinity(0, affinity.size() * sizeof(unsigned long),
                          reinterpret_cast<const cpu_set_t*>(affinity.data())) != 0) {
    child_fail("cannot bind rank", rank_text);
    ::_exit(127);
  }
  ::execve(path, argv, env);
  child_fail("cannot execute", path);
  ::_exit(127);
}

}  // namespace

void build_rank_environment(const Options& opts, EnvBlock* env) {
  for (char** e = environ; *e; ++e)
    if (!from_foreign_launcher(*e) && !is_slurm_task_variable(*e)) env->append(*e);
  for (const std::string& spec : opts.exports) {
    size_t eq = spec.find('=');
    if (eq != std::string::npos) env->set(spec.substr(0, eq), spec.substr(eq + 1));
  }
  if (opts.verbose) env->set("MPR_VERBOSE", "1");
}

void scrub_own_environment() {
  std::vector<std::string> names;
  for (char** e = environ; *e; ++e) {
    std::string_view entry(*e);
    if (entry.starts_with("PMIX_") && !entry.starts_with("PMIX_MCA_"))
      names.emplace_back(entry.substr(0, entry.find('=')));
  }
  for (const std::string& name : names) ::unsetenv(name.c_str());
}

RankProcess spawn_rank(const Options& opts, const RankLaunch& how) {
  RankProcess proc;
  UniqueFd out_w, err_w;
  if (how.output_fd < 0) {
    pipe_or_throw(&proc.out, &out_w);
    pipe_or_throw(&proc.err, &err_w);
  }
  const int out_fd = how.output_fd < 0 ? out_w.get() : how.output_fd;
  const int err_fd = how.output_fd < 0 ? err_w.get() : how.output_fd;
  const std::string rank_text = std::to_string(how.rank);

  std::vector<char*> argv;
  for (const std::string& a : opts.program_argv) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);

  pid_t parent = ::getpid();
  pid_t pid = ::fork();
  if (pid < 0)
    throw std::system_error(errno, std::generic_category(), "fork for rank " + rank_text);
  if (pid == 0)
    exec_child(opts.program_path.c_str(), argv.data(), how.env, parent, how.stdin_fd, out_fd,
               err_fd, how.affinity, rank_text.c_str());
  // Also set here, so the group exists before mprun may signal it.
  ::setpgid(pid, pid);
  proc.pid = pid;
  return proc;
}

void make_output_dir(const std::string& dir) {
  std::string path;
  size_t pos = 0;
  while (pos != std::string::npos) {
    pos = dir.find('/', pos + 1);
    path = dir.substr(0, pos);
    if (path.empty() || ::mkdir(path.c_str(), 0755) == 0 || errno == EEXIST) continue;
    throw UsageError("--output-filename: cannot create '" + path + "': " + std::strerror(errno));
  }
  struct stat st;
  if (::stat(dir.c_str(), &st) != 0 || !S_ISDIR(st.st_mode))
    throw UsageError("--output-filename: '" + dir + "' is not a directory");
  if (::access(dir.c_str(), W_OK | X_OK) != 0)
    throw UsageError("--output-filename: cannot write in '" + dir + "': " + std::strerror(errno));
}

UniqueFd open_rank_output(const std::string& dir, int rank) {
  std::string path = dir + "/rank." + std::to_string(rank);
  UniqueFd fd(::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_APPEND | O_CLOEXEC, 0644));
  if (!fd.valid()) throw std::system_error(errno, std::generic_category(), "open " + path);
  return fd;
}

}  // namespace mpr::launch
