#include "test/unit/shm/fork_harness.h"

#include <dirent.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>

#include "btl-rdma/shm/cma.h"
#include "btl-rdma/shm/segment.h"

namespace mpr::test {

namespace {

std::string kv_path(const std::string& dir, int rank, const std::string& key) {
  return dir + "/" + std::to_string(rank) + "." + key;
}

// Barrier and scratch area live in one mapping shared by parent and children.
struct SharedArea {
  pthread_barrier_t barrier;
  alignas(64) unsigned char scratch[ForkBootstrap::kScratchBytes];
};

std::string describe_status(int rank, int status) {
  if (WIFEXITED(status))
    return "rank " + std::to_string(rank) + " exited with " + std::to_string(WEXITSTATUS(status));
  if (WIFSIGNALED(status))
    return "rank " + std::to_string(rank) + " killed by signal " +
           std::to_string(WTERMSIG(status)) + (WTERMSIG(status) == SIGALRM ? " (timeout)" : "");
  return "rank " + std::to_string(rank) + " ended with status " + std::to_string(status);
}

}  // namespace

ForkBootstrap::ForkBootstrap(std::string dir, pthread_barrier_t* barrier, int rank, int size,
                             std::vector<int> local_peers, std::string job_id, void* scratch)
    : dir_(std::move(dir)),
      barrier_(barrier),
      rank_(rank),
      size_(size),
      local_peers_(std::move(local_peers)),
      job_id_(std::move(job_id)),
      scratch_(scratch) {
  for (size_t i = 0; i < local_peers_.size(); ++i)
    if (local_peers_[i] == rank_) local_rank_ = int(i);
}

void ForkBootstrap::put(const std::string& key, const std::vector<uint8_t>& value) {
  std::string path = kv_path(dir_, rank_, key);
  std::string tmp = path + ".tmp";
  {
    std::ofstream f(tmp, std::ios::binary | std::ios::trunc);
    f.write(reinterpret_cast<const char*>(value.data()), std::streamsize(value.size()));
    if (!f) throw std::runtime_error("test bootstrap: cannot write " + tmp);
  }
  if (std::rename(tmp.c_str(), path.c_str()) != 0)
    throw std::runtime_error("test bootstrap: rename to " + path + ": " + std::strerror(errno));
}

void ForkBootstrap::fence() {
  int rc = pthread_barrier_wait(barrier_);
  if (rc != 0 && rc != PTHREAD_BARRIER_SERIAL_THREAD)
    throw std::runtime_error("test bootstrap: pthread_barrier_wait: " + std::string(strerror(rc)));
}

bool ForkBootstrap::get_job(int rank, const std::string& key, std::vector<uint8_t>* value) {
  std::ifstream f(kv_path(dir_, rank, key), std::ios::binary);
  if (!f) return false;
  value->assign(std::istreambuf_iterator<char>(f), std::istreambuf_iterator<char>());
  return true;
}

std::vector<std::string> shm_entries_for(const std::string& job_id) {
  std::string prefix = "mpr." + btl::shm::sanitize_job_id(job_id) + ".";
  std::vector<std::string> found;
  if (DIR* d = opendir("/dev/shm")) {
    while (dirent* e = readdir(d))
      if (std::strncmp(e->d_name, prefix.c_str(), prefix.size()) == 0) found.push_back(e->d_name);
    closedir(d);
  }
  return found;
}

std::unique_ptr<btl::Btl> make_and_wire(ForkBootstrap& bs) {
  std::unique_ptr<btl::Btl> b = btl::make_shm_btl(bs);
  bs.fence();
  if (b) b->wire_up(bs);
  return b;
}

void send_retry(btl::Btl& b, int peer, int am_id, const void* hdr, size_t hdr_len,
                const struct iovec* iov, int iovcnt, const std::function<void()>& on_retry) {
  while (b.send_am(peer, am_id, hdr, hdr_len, iov, iovcnt) == btl::Status::kRetry) {
    if (on_retry) on_retry();
    b.progress();
  }
}

bool segment_mapped(const std::string& job_id) {
  std::ifstream maps("/proc/self/maps");
  std::string needle = "/dev/shm/mpr." + btl::shm::sanitize_job_id(job_id) + ".";
  for (std::string line; std::getline(maps, line);)
    if (line.find(needle) != std::string::npos) return true;
  return false;
}

bool cma_works() {
  static const bool works = [] {
    std::fflush(nullptr);
    pid_t child = fork();
    if (child == 0) {
      pause();
      _exit(0);
    }
    if (child < 0) return false;
    uint64_t word = 0;
    int err = btl::shm::cma_copy(child, &word, btl::shm::cma_probe_address(), sizeof word,
                                 btl::shm::CmaDir::kRead);
    kill(child, SIGKILL);
    waitpid(child, nullptr, 0);
    return err == 0 && word == btl::shm::kCmaProbeValue;
  }();
  return works;
}

std::string run_forked(const ForkJob& job, const std::function<int(ForkBootstrap&)>& body) {
  static std::atomic<int> counter{0};
  // '/' and ':' are there on purpose: the segment name must sanitize them.
  std::string job_id = "unit/shm:" + std::to_string(getpid()) + ":" + std::to_string(++counter);
  char dir_template[] = "/tmp/mpr-shm-test.XXXXXX";
  if (!mkdtemp(dir_template)) return std::string("mkdtemp: ") + std::strerror(errno);
  std::string dir = dir_template;

  void* mem =
      mmap(nullptr, sizeof(SharedArea), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
  if (mem == MAP_FAILED) return std::string("mmap: ") + std::strerror(errno);
  auto* area = new (mem) SharedArea;
  pthread_barrierattr_t attr;
  pthread_barrierattr_init(&attr);
  pthread_barrierattr_setpshared(&attr, PTHREAD_PROCESS_SHARED);
  pthread_barrier_init(&area->barrier, &attr, unsigned(job.size));
  pthread_barrierattr_destroy(&attr);

  std::vector<int> node(job.node_of_rank);
  node.resize(size_t(job.size), 0);
  std::vector<pid_t> pids;
  std::fflush(nullptr);
  for (int r = 0; r < job.size; ++r) {
    pid_t pid = fork();
    if (pid == 0) {
      alarm(unsigned(job.timeout_s));
      int code = 1;
      try {
        for (const auto& [k, v] : job.env) setenv(k.c_str(), v.c_str(), 1);
        std::vector<int> local;
        for (int p = 0; p < job.size; ++p)
          if (node[size_t(p)] == node[size_t(r)]) local.push_back(p);
        ForkBootstrap bs(dir, &area->barrier, r, job.size, local, job_id, area->scratch);
        code = body(bs);
      } catch (const std::exception& e) {
        std::fprintf(stderr, "[rank %d] %s\n", r, e.what());
      }
      std::fflush(nullptr);
      _exit(code);
    }
    if (pid < 0) {
      std::fprintf(stderr, "fork: %s\n", std::strerror(errno));
      break;
    }
    pids.push_back(pid);
  }

  // Wait for any child; after the first failure end the others, which would otherwise sit in
  // a fence until their alarm.
  std::string failures;
  if (int(pids.size()) != job.size) {
    failures += "could not fork every rank\n";
    for (pid_t pid : pids) kill(pid, SIGKILL);
  }
  size_t running = pids.size();
  while (running > 0) {
    int status = 0;
    pid_t pid = waitpid(-1, &status, 0);
    if (pid < 0) {
      if (errno == EINTR) continue;
      break;
    }
    size_t r = 0;
    while (r < pids.size() && pids[r] != pid) ++r;
    if (r == pids.size()) continue;
    pids[r] = -1;
    --running;
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
      failures += describe_status(int(r), status) + "\n";
      for (pid_t other : pids)
        if (other > 0) kill(other, SIGKILL);
    }
  }
  // Invariant of every job: nothing of it is left in /dev/shm once its processes are gone.
  for (const std::string& left : shm_entries_for(job_id)) {
    failures += "left in /dev/shm: " + left + "\n";
    std::remove(("/dev/shm/" + left).c_str());
  }

  // No pthread_barrier_destroy: it waits for waiters that a killed child never releases.
  munmap(mem, sizeof(SharedArea));
  std::error_code ec;
  std::filesystem::remove_all(dir, ec);
  return failures;
}

}  // namespace mpr::test
