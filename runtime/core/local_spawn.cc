// MPI_Comm_spawn in a process no launcher started (a singleton): it has no PMIx server to ask, so
// it runs mprun itself, as its child, with the programs as mprun's job (MPMD contexts when there
// are several). mprun serves that job as any other; its processes connect back to the port that
// the environment names, exactly as PMIx-spawned ones do.
#include "runtime/core/local_spawn.h"

#include <dlfcn.h>
#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>

#include "common/params.h"
#include "mpr_config.h"

extern char** environ;

namespace mpr::runtime {

namespace {

bool executable(const std::string& path) {
  return !path.empty() && ::access(path.c_str(), X_OK) == 0;
}

// Where this libmpi was loaded from: its directory, for the mprun of the same installation.
std::string library_dir() {
  Dl_info info{};
  if (!::dladdr(reinterpret_cast<void*>(&library_dir), &info) || !info.dli_fname) return "";
  const std::string path = info.dli_fname;
  const size_t slash = path.rfind('/');
  return slash == std::string::npos ? "." : path.substr(0, slash);
}

}  // namespace

std::string find_mprun() {
  const std::string given = common::param_string("MPR_MPRUN");
  if (!given.empty()) return executable(given) ? given : "";
  // The installation this library belongs to: <prefix>/lib/libmpi.so next to <prefix>/bin,
  // or a build tree (.libs/libmpi.so next to launcher/).
  const std::string lib = library_dir();
  for (const char* rel : {"/../bin/mprun", "/../launcher/mprun", "/launcher/mprun"})
    if (!lib.empty() && executable(lib + rel)) return lib + rel;
  if (executable(std::string(MPR_CONFIGURE_PREFIX) + "/bin/mprun"))
    return std::string(MPR_CONFIGURE_PREFIX) + "/bin/mprun";
  const char* path = std::getenv("PATH");
  for (std::string dirs = path ? path : ""; !dirs.empty();) {
    const size_t colon = dirs.find(':');
    const std::string dir = dirs.substr(0, colon);
    dirs = colon == std::string::npos ? "" : dirs.substr(colon + 1);
    if (!dir.empty() && executable(dir + "/mprun")) return dir + "/mprun";
  }
  return "";
}

std::vector<std::string> mprun_arguments(const std::vector<JobBootstrap::SpawnApp>& apps) {
  std::vector<std::string> args;
  for (size_t i = 0; i < apps.size(); ++i) {
    const JobBootstrap::SpawnApp& a = apps[i];
    if (i > 0) args.emplace_back(":");
    args.insert(args.end(), {"-n", std::to_string(a.maxprocs)});
    if (!a.wdir.empty()) args.insert(args.end(), {"-wdir", a.wdir});
    for (const std::string& e : a.env) args.insert(args.end(), {"-x", e});
    // "path": the directories to look for the program in, before mprun's PATH.
    std::string program = a.command;
    for (size_t start = 0;
         a.command.find('/') == std::string::npos && !a.path.empty() && start <= a.path.size();) {
      size_t end = a.path.find(':', start);
      if (end == std::string::npos) end = a.path.size();
      const std::string dir = a.path.substr(start, end - start);
      start = end + 1;
      if (!dir.empty() && executable(dir + "/" + a.command)) {
        program = dir + "/" + a.command;
        break;
      }
    }
    args.push_back(program);
    args.insert(args.end(), a.argv.begin(), a.argv.end());
  }
  return args;
}

LocalSpawner::~LocalSpawner() { reap(); }

bool LocalSpawner::spawn(const std::vector<JobBootstrap::SpawnApp>& apps, std::string* job_id,
                         std::string* detail) {
  reap();
  const std::string mprun = find_mprun();
  if (mprun.empty()) {
    *detail =
        "this process was started without a launcher, and no mprun was found to start the "
        "processes (set MPR_MPRUN, or put MPR's bin directory on PATH)";
    return false;
  }
  std::vector<std::string> args = mprun_arguments(apps);
  args.insert(args.begin(), mprun);
  std::vector<char*> argv;
  for (std::string& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  // Its stdin is not the program's to give away; its output goes where this process's goes.
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, STDIN_FILENO, "/dev/null", O_RDONLY, 0);
  pid_t pid = -1;
  const int rc = posix_spawn(&pid, mprun.c_str(), &actions, nullptr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  if (rc != 0) {
    *detail = "cannot start " + mprun + ": " + std::strerror(rc);
    return false;
  }
  children_.push_back(pid);
  last_ = pid;
  *job_id = "mprun (pid " + std::to_string(pid) + ")";
  return true;
}

bool LocalSpawner::gone(std::string* why) {
  if (last_ <= 0) return false;
  int status = 0;
  const pid_t r = ::waitpid(last_, &status, WNOHANG);
  if (r != last_) return false;
  children_.erase(std::remove(children_.begin(), children_.end(), last_), children_.end());
  last_ = -1;
  if (WIFEXITED(status))
    *why = "its mprun ended with exit code " + std::to_string(WEXITSTATUS(status)) +
           " before the processes connected (its message above says why)";
  else
    *why = "its mprun was killed by signal " + std::to_string(WTERMSIG(status)) +
           " before the processes connected";
  return true;
}

void LocalSpawner::reap() {
  for (size_t i = 0; i < children_.size();) {
    if (::waitpid(children_[i], nullptr, WNOHANG) == children_[i]) {
      if (children_[i] == last_) last_ = -1;
      children_[i] = children_.back();
      children_.pop_back();
    } else {
      ++i;
    }
  }
}

}  // namespace mpr::runtime
