#include "launcher/cleanup.h"

#include <dirent.h>
#include <fcntl.h>
#include <ftw.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>
#include <system_error>
#include <thread>
#include <vector>

#include "common/shm_object.h"

namespace mpr::launch {

namespace {

std::string tmpdir_base() {
  const char* base = std::getenv("TMPDIR");
  return base && *base ? base : "/tmp";
}

}  // namespace

std::string make_private_tmpdir() {
  std::string pattern = tmpdir_base() + "/mprun." + std::to_string(::getpid()) + ".XXXXXX";
  std::vector<char> buf(pattern.begin(), pattern.end());
  buf.push_back('\0');
  if (!::mkdtemp(buf.data()))
    throw std::system_error(errno, std::generic_category(), "mkdtemp " + pattern);
  return buf.data();
}

void remove_tree(const std::string& path) {
  if (path.empty()) return;
  auto remove_entry = [](const char* p, const struct stat*, int, struct FTW*) -> int {
    ::remove(p);
    return 0;
  };
  ::nftw(path.c_str(), remove_entry, 16, FTW_DEPTH | FTW_PHYS);
}

int remove_job_shm(std::string_view nspace) {
  return common::remove_job_shm_objects(nspace, "/dev/shm", true);
}

namespace {

bool is_zombie(pid_t pid) {
  std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
  std::string text;
  std::getline(stat, text);
  size_t paren = text.rfind(')');
  return paren != std::string::npos && paren + 2 < text.size() && text[paren + 2] == 'Z';
}

[[noreturn]] void reaper_main(int in, const std::string& nspace, pid_t parent) {
  // Out of mprun's session: a terminal's Ctrl-C or a kill of mprun's process group must not
  // take the cleanup with it; no inherited stdio, so `out=$(mprun ...)` ends with mprun.
  ::setsid();
  for (int sig : {SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGPIPE, SIGTSTP, SIGTTIN, SIGTTOU})
    ::signal(sig, SIG_IGN);
  int null = ::open("/dev/null", O_RDWR);
  for (int fd = 0; fd <= 2; ++fd) ::dup2(null, fd);
  for (int fd = 3; fd < 1024; ++fd)
    if (fd != in) ::close(fd);
  std::string text;
  char buf[4096];
  for (;;) {
    ssize_t n = ::read(in, buf, sizeof buf);
    if (n > 0) {
      text.append(buf, static_cast<size_t>(n));
      continue;
    }
    if (n < 0 && errno == EINTR) continue;
    break;
  }
  std::istringstream lines(text);
  std::string line, tmpdir;
  std::vector<pid_t> groups;
  bool done = false;
  while (std::getline(lines, line)) {
    if (line == "done")
      done = true;
    else if (line.rfind("tmpdir ", 0) == 0)
      tmpdir = line.substr(7);
    else if (line.rfind("rank ", 0) == 0)
      groups.push_back(std::atoi(line.c_str() + 5));
  }
  if (done) ::_exit(0);
  for (pid_t g : groups)
    if (g > 1) ::kill(-g, SIGKILL);
  const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(3);
  for (;;) {
    bool alive = false;
    // SIGKILL is pending in every member now, so none runs user code again; a leader that
    // is a zombie (its new parent has not reaped it yet) counts as gone.
    for (pid_t g : groups)
      if (g > 1 && (::kill(-g, 0) == 0 || errno == EPERM) && !is_zombie(g)) alive = true;
    if (!alive || std::chrono::steady_clock::now() >= until) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  remove_job_shm(nspace);
  if (!tmpdir.empty()) remove_tree(tmpdir);
  // mprun may have died after mkdtemp but before it told us the name: its tmpdirs are
  // mprun.<pid>.XXXXXX (make_private_tmpdir), and only ours, owned by us, are removed.
  const std::string base = tmpdir_base();
  const std::string prefix = "mprun." + std::to_string(parent) + ".";
  if (DIR* d = ::opendir(base.c_str())) {
    while (dirent* e = ::readdir(d)) {
      struct stat st;
      const std::string path = base + "/" + e->d_name;
      if (std::strncmp(e->d_name, prefix.c_str(), prefix.size()) == 0 &&
          ::lstat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode) && st.st_uid == ::geteuid())
        remove_tree(path);
    }
    ::closedir(d);
  }
  ::_exit(0);
}

}  // namespace

JobReaper::JobReaper(const std::string& nspace) {
  int fds[2];
  if (::pipe2(fds, O_CLOEXEC) != 0) return;
  const pid_t parent = ::getpid();
  pid_t pid = ::fork();
  if (pid == 0) {
    ::close(fds[1]);
    reaper_main(fds[0], nspace, parent);
  }
  ::close(fds[0]);
  if (pid < 0) {
    ::close(fds[1]);
    return;
  }
  fd_ = fds[1];
}

JobReaper::~JobReaper() {
  if (fd_ < 0) return;
  send("done");
  ::close(fd_);
}

void JobReaper::tmpdir(const std::string& path) { send("tmpdir " + path); }

void JobReaper::rank_started(int pid) { send("rank " + std::to_string(pid)); }

void JobReaper::send(const std::string& line) {
  if (fd_ < 0) return;
  std::string text = line + "\n";
  const char* p = text.data();
  size_t left = text.size();
  while (left > 0) {
    ssize_t n = ::write(fd_, p, left);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return;
    p += n;
    left -= static_cast<size_t>(n);
  }
}

Watchdog::Watchdog(std::chrono::milliseconds limit, std::function<void()> on_expire) {
  thread_ = std::thread([this, limit, fn = std::move(on_expire)] {
    std::unique_lock lock(mutex_);
    if (cv_.wait_for(lock, limit, [this] { return cancelled_; })) return;
    lock.unlock();
    fn();
  });
}

Watchdog::~Watchdog() { cancel(); }

void Watchdog::cancel() {
  {
    std::lock_guard lock(mutex_);
    cancelled_ = true;
  }
  cv_.notify_all();
  if (thread_.joinable()) thread_.join();
}

}  // namespace mpr::launch
