// Evidence that the kernel's OOM killer, not a person or a bug, sent a rank its SIGKILL: the
// memory cgroup's oom_kill counter (cgroup v2 memory.events, v1 memory.oom_control) went up
// while the job ran.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

namespace mpr::launch {

class OomWatch {
 public:
  /// Finds mprun's memory cgroup (the ranks inherit it) and reads the counter once.
  OomWatch();

  /// When the counter rose since construction: a description for the failure report, e.g.
  /// "memory cgroup /job: oom_kill 0 -> 1". nullopt when it did not or cannot be read.
  std::optional<std::string> evidence() const;

 private:
  std::optional<uint64_t> read() const;

  std::string file_;  ///< empty when no counter was found
  std::string cgroup_;
  uint64_t baseline_ = 0;
};

}  // namespace mpr::launch
