#include "launcher/spawn.h"

#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
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
  // Settings of the caller's for Open MPI or PMIx components, not a launcher's identity.
  if (std::strncmp(entry, "OMPI_MCA_", 9) == 0 || std::strncmp(entry, "PMIX_MCA_", 9) == 0)
    return false;
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
                             const std::vector<unsigned long>& affinity, const char* rank_text,
                             const char* wdir) {
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
  if (wdir && ::chdir(wdir) != 0) {
    child_fail("cannot change to the working directory", wdir);
    ::_exit(127);
  }
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

std::vector<std::pair<std::string, std::string>> rank_identity_variables(const RankIdentity& who) {
  const std::string r = std::to_string(who.rank), n = std::to_string(who.size);
  const std::string app = std::to_string(who.appnum);
  return {{"MPR_RANK", r},
          {"MPR_SIZE", n},
          {"MPR_LOCAL_RANK", r},
          {"MPR_LOCAL_SIZE", n},
          {"MPR_NODE_RANK", r},
          {"MPR_APPNUM", app},
          {"OMPI_COMM_WORLD_RANK", r},
          {"OMPI_COMM_WORLD_SIZE", n},
          {"OMPI_COMM_WORLD_LOCAL_RANK", r},
          {"OMPI_COMM_WORLD_LOCAL_SIZE", n},
          {"OMPI_COMM_WORLD_NODE_RANK", r},
          {"PMI_RANK", r},
          {"PMI_SIZE", n},
          {"MPI_LOCALRANKID", r},
          {"MPI_LOCALNRANKS", n}};
}

std::vector<std::pair<std::string, std::string>> prefix_variables(const Options& opts, bool alone) {
  std::vector<std::pair<std::string, std::string>> out;
  if (opts.prefix.empty()) return out;
  // Open MPI's --prefix: the ranks find that installation's programs and libraries first.
  for (const char* var : {"PATH", "LD_LIBRARY_PATH"}) {
    const char* old = std::getenv(var);
    std::string first = opts.prefix + (var[0] == 'P' ? "/bin" : "/lib");
    out.emplace_back(var, old && *old && !alone ? first + ":" + old : first);
  }
  return out;
}

namespace {

void set_all(const std::vector<std::string>& specs, EnvBlock* env) {
  for (const std::string& spec : specs) {
    size_t eq = spec.find('=');
    if (eq != std::string::npos) env->set(spec.substr(0, eq), spec.substr(eq + 1));
  }
}

void build_environment(const Options& opts, const std::vector<std::string>* app_exports,
                       const RankIdentity& who, EnvBlock* env) {
  if (!opts.env_none)
    for (char** e = environ; *e; ++e)
      if (!from_foreign_launcher(*e) && !is_slurm_task_variable(*e)) env->append(*e);
  for (const auto& [name, value] : prefix_variables(opts, opts.env_none)) env->set(name, value);
  set_all(opts.global_exports, env);
  if (app_exports) set_all(*app_exports, env);
  if (opts.verbose) env->set("MPR_VERBOSE", "1");
  for (const auto& [name, value] : rank_identity_variables(who)) env->set(name, value);
}

}  // namespace

void build_rank_environment(const Options& opts, const AppContext& app, int rank, EnvBlock* env) {
  build_environment(opts, &app.exports, {rank, opts.nprocs, opts.app_index(rank)}, env);
}

void build_spawned_environment(const Options& opts, const RankIdentity& who,
                               const std::vector<std::string>& extra, EnvBlock* env) {
  build_environment(opts, nullptr, who, env);
  set_all(extra, env);
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

RankProcess spawn_rank(const RankLaunch& how) {
  RankProcess proc;
  UniqueFd out_w, err_w;
  if (how.output_fd < 0) {
    pipe_or_throw(&proc.out, &out_w);
    if (!how.merge_stderr) pipe_or_throw(&proc.err, &err_w);
  }
  const int out_fd = how.output_fd < 0 ? out_w.get() : how.output_fd;
  const int err_fd = how.merge_stderr     ? out_fd
                     : how.output_fd >= 0 ? (how.err_file >= 0 ? how.err_file : how.output_fd)
                                          : err_w.get();
  const std::string rank_text = std::to_string(how.rank);
  const AppContext& app = *how.app;

  std::vector<char*> argv;
  for (const std::string& a : app.program_argv) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);

  pid_t parent = ::getpid();
  pid_t pid = ::fork();
  if (pid < 0)
    throw std::system_error(errno, std::generic_category(), "fork for rank " + rank_text);
  if (pid == 0)
    exec_child(app.program_path.c_str(), argv.data(), how.env, parent, how.stdin_fd, out_fd, err_fd,
               how.affinity, rank_text.c_str(), app.wdir.empty() ? nullptr : app.wdir.c_str());
  // Also set here, so the group exists before mprun may signal it.
  ::setpgid(pid, pid);
  proc.pid = pid;
  return proc;
}

namespace {

/// A directory mprun may write its output files in: a real directory (fd opened without
/// following a link when `nofollow`) that belongs to mprun's user.
UniqueFd open_own_dir(int at, const std::string& name, const std::string& shown, bool nofollow) {
  UniqueFd fd(
      ::openat(at, name.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC | (nofollow ? O_NOFOLLOW : 0)));
  if (!fd.valid()) {
    if (errno == ELOOP || errno == ENOTDIR)
      throw UsageError("--output-filename: '" + shown +
                       "' is a symbolic link or not a directory; refusing to write through it");
    throw UsageError("--output-filename: cannot open '" + shown + "': " + std::strerror(errno));
  }
  struct stat st;
  if (::fstat(fd.get(), &st) != 0 || st.st_uid != ::geteuid())
    throw UsageError("--output-filename: '" + shown + "' belongs to uid " +
                     std::to_string(st.st_uid) + ", not to you (uid " +
                     std::to_string(::geteuid()) + "); choose a directory of your own");
  return fd;
}

UniqueFd make_own_dir(int at, const std::string& name, const std::string& shown) {
  if (::mkdirat(at, name.c_str(), 0755) != 0 && errno != EEXIST)
    throw UsageError("--output-filename: cannot create '" + shown + "': " + std::strerror(errno));
  return open_own_dir(at, name, shown, true);
}

UniqueFd open_output_file(int dir, const std::string& name, const std::string& shown) {
  // No O_TRUNC before the checks: a planted hard link must not cost its target its contents.
  UniqueFd fd(::openat(dir, name.c_str(),
                       O_WRONLY | O_CREAT | O_APPEND | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK, 0644));
  if (!fd.valid()) {
    int err = errno;
    throw std::system_error(
        err, std::generic_category(),
        err == ELOOP ? "refusing to follow the symbolic link " + shown : "open " + shown);
  }
  struct stat st;
  if (::fstat(fd.get(), &st) != 0 || !S_ISREG(st.st_mode) || st.st_nlink != 1 ||
      st.st_uid != ::geteuid())
    throw std::system_error(
        EPERM, std::generic_category(),
        "refusing to overwrite " + shown + " (not a regular file of yours with a single link)");
  if (::ftruncate(fd.get(), 0) != 0 ||
      ::fcntl(fd.get(), F_SETFL, ::fcntl(fd.get(), F_GETFL) & ~O_NONBLOCK) != 0)
    throw std::system_error(errno, std::generic_category(), "truncate " + shown);
  return fd;
}

}  // namespace

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
  // The directory named may be a link the user made; what it leads to must be theirs.
  UniqueFd top = open_own_dir(AT_FDCWD, dir, dir, false);
  make_own_dir(top.get(), "1", dir + "/1");
}

std::string rank_output_dir(const std::string& dir, int rank, int nprocs) {
  const size_t width = std::to_string(std::max(nprocs - 1, 0)).size();
  std::string r = std::to_string(rank);
  if (r.size() < width) r.insert(0, width - r.size(), '0');
  return dir + "/1/rank." + r;
}

RankOutput open_rank_output(const std::string& dir, int rank, int nprocs, bool merged) {
  const std::string rank_dir = rank_output_dir(dir, rank, nprocs);
  UniqueFd top, job, mine;
  try {
    top = open_own_dir(AT_FDCWD, dir, dir, false);
    job = open_own_dir(top.get(), "1", dir + "/1", true);
    mine = make_own_dir(job.get(), rank_dir.substr(rank_dir.rfind('/') + 1), rank_dir);
  } catch (const UsageError& e) {
    throw std::system_error(EPERM, std::generic_category(), e.what());
  }
  RankOutput out;
  out.out = open_output_file(mine.get(), "stdout", rank_dir + "/stdout");
  if (!merged) out.err = open_output_file(mine.get(), "stderr", rank_dir + "/stderr");
  return out;
}

}  // namespace mpr::launch
