// Runs the real shm backend across forked processes. ForkBootstrap plays the launcher's part:
// key/values are files in a per-job temp directory, fences are a process-shared pthread barrier
// in an anonymous MAP_SHARED mapping made before fork. Children report through exit codes.
#pragma once

#include <pthread.h>

#include <cstdint>
#include <functional>
#include <stdexcept>
#include <string>
#include <vector>

#include "btl-rdma/btl.h"
#include "common/bootstrap.h"

namespace mpr::test {

class ForkBootstrap final : public common::Bootstrap {
 public:
  ForkBootstrap(std::string dir, pthread_barrier_t* barrier, int rank, int size,
                std::vector<int> local_peers, std::string job_id, void* scratch);

  int rank() const override { return rank_; }
  int size() const override { return size_; }
  const std::vector<int>& local_peers() const override { return local_peers_; }
  int local_rank() const override { return local_rank_; }
  const std::string& job_id() const override { return job_id_; }
  void put(const std::string& key, const std::vector<uint8_t>& value) override;
  void fence() override;
  bool get_job(int rank, const std::string& key, std::vector<uint8_t>* value) override;
  bool oversubscribed() const override { return true; }

  /// put/get of one trivially copyable value, for tests exchanging addresses.
  template <typename T>
  void put_value(const std::string& key, const T& v) {
    const auto* p = reinterpret_cast<const uint8_t*>(&v);
    put(key, std::vector<uint8_t>(p, p + sizeof v));
  }
  template <typename T>
  T get_value(int rank, const std::string& key) {
    std::vector<uint8_t> bytes;
    if (!get(rank, key, &bytes) || bytes.size() != sizeof(T))
      throw std::runtime_error("test bootstrap: rank " + std::to_string(rank) + " has no " + key);
    T v;
    std::copy(bytes.begin(), bytes.end(), reinterpret_cast<uint8_t*>(&v));
    return v;
  }

  /// kScratchBytes of memory shared by all processes of the job, zero at start.
  void* scratch() const { return scratch_; }
  static constexpr size_t kScratchBytes = 4096;

 private:
  std::string dir_;
  pthread_barrier_t* barrier_;
  int rank_;
  int size_;
  std::vector<int> local_peers_;
  int local_rank_ = -1;
  std::string job_id_;
  void* scratch_;
};

struct ForkJob {
  int size = 2;
  /// Node of each rank (ranks on one node are local peers); empty: all on node 0.
  std::vector<int> node_of_rank;
  /// Environment set in every child before the body runs.
  std::vector<std::pair<std::string, std::string>> env;
  int timeout_s = 120;
};

/// Forks job.size children, each running body(bs) and exiting with its return value (an
/// exception exits 1 after printing it; a hang is ended by SIGALRM). Returns "" when every
/// child exited 0, else one line per failed child.
std::string run_forked(const ForkJob& job, const std::function<int(ForkBootstrap&)>& body);

/// The /dev/shm entries whose name starts with the segment prefix of `job_id`.
std::vector<std::string> shm_entries_for(const std::string& job_id);

/// The runtime's setup sequence: factory, one fence, wire_up. Every rank fences, even when the
/// factory returns nullptr.
std::unique_ptr<btl::Btl> make_and_wire(ForkBootstrap& bs);

/// send_am, calling on_retry (if given) and then progress() after every kRetry.
void send_retry(btl::Btl& b, int peer, int am_id, const void* hdr, size_t hdr_len,
                const struct iovec* iov, int iovcnt,
                const std::function<void()>& on_retry = nullptr);

/// True if /proc/self/maps shows a mapping of this job's segment.
bool segment_mapped(const std::string& job_id);

/// Whether this machine lets a process read a sibling's memory with process_vm_readv (ptrace
/// policy, seccomp). Checked once with a forked child. CMA tests skip, saying so, when it does not.
bool cma_works();

/// Throws (ending the child with exit code 1) with the location when cond is false.
#define FORK_REQUIRE(cond)                                                              \
  do {                                                                                  \
    if (!(cond))                                                                        \
      throw std::runtime_error(std::string(__FILE__) + ":" + std::to_string(__LINE__) + \
                               ": check failed: " #cond);                               \
  } while (0)

}  // namespace mpr::test
