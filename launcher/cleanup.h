// What must not outlive a job: the PMIx tmpdir, shared-memory segments of ranks that died
// before unlinking them, and mprun itself when libpmix wedges during teardown.
#pragma once

#include <chrono>
#include <condition_variable>
#include <functional>
#include <mutex>
#include <string>
#include <string_view>
#include <thread>

namespace mpr::launch {

/// Creates a private directory $TMPDIR/mprun.<pid>.XXXXXX (or under /tmp). Throws
/// std::system_error.
std::string make_private_tmpdir();

/// Removes a directory tree; best effort, never follows symlinks.
void remove_tree(const std::string& path);

/// Unlinks the job's shared-memory objects, /dev/shm/mpr.<sanitized nspace>.*, and those of the
/// jobs it spawned (namespaces "<nspace>.<n>": /dev/shm/mpr.<sanitized nspace>_*), matched by
/// common/shm_object.h, which also names them. Returns how many were removed.
int remove_job_shm(std::string_view nspace);

/// The job's files when mprun itself is killed (SIGKILL, the OOM killer): a small process
/// forked before anything of the job exists, in a session of its own, holding the read end of
/// a pipe. mprun tells it the tmpdir and every rank's pid (= process group) as they come; when
/// the pipe closes without "done" (mprun died), it kills those groups, waits up to 3 s for
/// them to be gone (PR_SET_PDEATHSIG already sent them SIGKILL), then removes the tmpdir and
/// the job's /dev/shm objects. mprun's normal end says "done" and the process leaves at once.
class JobReaper {
 public:
  /// Forks the process (call while mprun has one thread). Failure to fork only loses this
  /// safety net; mprun then runs without it.
  explicit JobReaper(const std::string& nspace);
  /// Sends "done": mprun cleans up itself.
  ~JobReaper();
  JobReaper(const JobReaper&) = delete;
  JobReaper& operator=(const JobReaper&) = delete;

  void tmpdir(const std::string& path);
  void rank_started(int pid);

 private:
  void send(const std::string& line);
  int fd_ = -1;
};

/// Runs `on_expire` on its own thread if not cancelled within `limit`. on_expire is expected
/// not to return (it _exits); cancel() waits for the thread.
class Watchdog {
 public:
  Watchdog(std::chrono::milliseconds limit, std::function<void()> on_expire);
  ~Watchdog();
  Watchdog(const Watchdog&) = delete;
  Watchdog& operator=(const Watchdog&) = delete;
  void cancel();

 private:
  std::mutex mutex_;
  std::condition_variable cv_;
  bool cancelled_ = false;
  std::thread thread_;
};

}  // namespace mpr::launch
