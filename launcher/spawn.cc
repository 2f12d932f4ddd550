#include "launcher/spawn.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/prctl.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <string>
#include <system_error>
#include <vector>

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

// Only async-signal-safe calls from here on: mprun has other threads (libpmix) when it forks.
[[noreturn]] void exec_child(const char* path, char* const* argv, char* const* env, pid_t parent,
                             int stdin_fd, int out_fd, int err_fd) {
  // Ignored signals and the blocked mask survive exec; the rank must start clean.
  struct sigaction dfl;
  std::memset(&dfl, 0, sizeof dfl);
  dfl.sa_handler = SIG_DFL;
  for (int sig = 1; sig < NSIG; ++sig)
    if (sig != SIGKILL && sig != SIGSTOP) ::sigaction(sig, &dfl, nullptr);
  sigset_t none;
  sigemptyset(&none);
  ::sigprocmask(SIG_SETMASK, &none, nullptr);

  ::prctl(PR_SET_PDEATHSIG, SIGKILL);
  if (::getppid() != parent) ::_exit(127);  // mprun died before prctl took effect
  ::setpgid(0, 0);

  if (stdin_fd != STDIN_FILENO) ::dup2(stdin_fd, STDIN_FILENO);
  ::dup2(out_fd, STDOUT_FILENO);
  ::dup2(err_fd, STDERR_FILENO);
  ::execve(path, argv, env);

  const char* why = std::strerror(errno);
  const char* parts[] = {"mprun: cannot execute ", path, ": ", why, "\n"};
  for (const char* p : parts) {
    ssize_t ignored = ::write(STDERR_FILENO, p, std::strlen(p));
    (void)ignored;
  }
  ::_exit(127);
}

}  // namespace

void build_rank_environment(const Options& opts, EnvBlock* env) {
  for (char** e = environ; *e; ++e)
    if (!from_foreign_launcher(*e)) env->append(*e);
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

RankProcess spawn_rank(const Options& opts, int rank, char** env, int stdin_fd) {
  RankProcess proc;
  UniqueFd out_w, err_w;
  pipe_or_throw(&proc.out, &out_w);
  pipe_or_throw(&proc.err, &err_w);

  std::vector<char*> argv;
  for (const std::string& a : opts.program_argv) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);

  pid_t parent = ::getpid();
  pid_t pid = ::fork();
  if (pid < 0)
    throw std::system_error(errno, std::generic_category(),
                            "fork for rank " + std::to_string(rank));
  if (pid == 0)
    exec_child(opts.program_path.c_str(), argv.data(), env, parent, stdin_fd, out_w.get(),
               err_w.get());
  // Also set here, so the group exists before mprun may signal it.
  ::setpgid(pid, pid);
  proc.pid = pid;
  return proc;
}

}  // namespace mpr::launch
