// What a transport needs from the job's bootstrap (PMIx in production, an in-process fake in
// tests): identity, locality, and a key/value exchange ("modex") with one collective fence.
#pragma once

#include <cstdint>
#include <functional>
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
  /// Value another rank published (after a fence). Returns false if absent.
  virtual bool get(int rank, const std::string& key, std::vector<uint8_t>* value) = 0;
  /// True when more ranks run on this node than it has cores (wait loops yield sooner).
  virtual bool oversubscribed() const = 0;
};

}  // namespace mpr::common
