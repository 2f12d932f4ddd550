#include "launcher/cleanup.h"

#include <ftw.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <system_error>
#include <vector>

#include "common/shm_object.h"

namespace mpr::launch {

std::string make_private_tmpdir() {
  const char* base = std::getenv("TMPDIR");
  std::string pattern = std::string(base && *base ? base : "/tmp") + "/mprun." +
                        std::to_string(::getpid()) + ".XXXXXX";
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

int remove_job_shm(std::string_view nspace) { return common::remove_job_shm_objects(nspace); }

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
