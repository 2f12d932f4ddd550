// What a transport needs from the job's bootstrap (PMIx in production, an in-process fake in
// tests): identity, locality, and a key/value exchange ("modex") with one collective fence.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <vector>

namespace mpr::common {

class Bootstrap {
 public:
  virtual ~Bootstrap() = default;
  /// This process's rank in the job (0..size()-1) and the job size.
  virtual int rank() const = 0;
  virtual int size() const = 0;
  /// Job ranks on this node (sorted, includes rank()), and this rank's index among them.
  virtual const std::vector<int>& local_peers() const = 0;
  virtual int local_rank() const = 0;
  /// A string unique per job (e.g. PMIx namespace); used to name per-job resources.
  virtual const std::string& job_id() const = 0;
  /// Publish a value under `key` for every other rank. Visible to others after fence().
  /// Throws std::runtime_error on failure.
  virtual void put(const std::string& key, const std::vector<uint8_t>& value) = 0;
  /// Collective over all ranks of the job: commits puts and waits for everybody.
  /// Throws std::runtime_error on failure (message names what failed).
  virtual void fence() = 0;
  /// fence() without the data exchange, calling poll() until everybody arrived, so this rank
  /// keeps answering its peers meanwhile (the pml's last fence: a peer may still wait for a
  /// reply). poll returns whether it did something. The default blocks in fence().
  virtual void fence_while(const std::function<bool()>& poll) {
    (void)poll;
    fence();
  }
  /// True when more ranks run on this node than it has cores (wait loops yield sooner).
  virtual bool oversubscribed() const = 0;

  /// A process of another job this one connected to (MPI_Comm_connect/accept, spawn): who it
  /// is and the entries it would have published in its own job's modex.
  struct RemoteProcess {
    std::string job_id;
    int rank = -1;
    std::map<std::string, std::vector<uint8_t>> entries;
  };

  /// Peers 0..size()-1 are the job's ranks; processes of other jobs added with add_remote()
  /// follow them, numbered in the order they were added (so the numbering is this process's
  /// own: other processes may number them differently).
  int npeers() const { return size() + static_cast<int>(remote_.size()); }
  /// Makes `p` a peer and returns its number (npeers() - 1 afterwards).
  int add_remote(RemoteProcess p) {
    remote_.push_back(std::move(p));
    return npeers() - 1;
  }
  /// The peer that is rank `rank` of job `job_id`, or -1 when it is not known.
  int find_peer(const std::string& job_id, int rank) const {
    if (job_id == this->job_id()) return rank >= 0 && rank < size() ? rank : -1;
    for (size_t i = 0; i < remote_.size(); ++i)
      if (remote_[i].rank == rank && remote_[i].job_id == job_id)
        return size() + static_cast<int>(i);
    return -1;
  }
  /// The job and the rank in it of `peer` (0 <= peer < npeers()).
  const std::string& peer_job(int peer) const {
    return peer < size() ? job_id() : remote_[static_cast<size_t>(peer - size())].job_id;
  }
  int peer_rank(int peer) const {
    return peer < size() ? peer : remote_[static_cast<size_t>(peer - size())].rank;
  }

  /// Value another rank published (after a fence), or an entry a process of another job
  /// handed over (add_remote). Returns false if absent.
  bool get(int peer, const std::string& key, std::vector<uint8_t>* value) {
    if (peer < size()) return get_job(peer, key, value);
    if (peer >= npeers()) return false;
    const auto& entries = remote_[static_cast<size_t>(peer - size())].entries;
    auto it = entries.find(key);
    if (it == entries.end()) return false;
    *value = it->second;
    return true;
  }

 protected:
  /// get() for a rank of the job.
  virtual bool get_job(int rank, const std::string& key, std::vector<uint8_t>* value) = 0;

 private:
  std::vector<RemoteProcess> remote_;
};

}  // namespace mpr::common
