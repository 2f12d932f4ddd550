// MPI_Comm_spawn without a PMIx launcher (a singleton): the process runs mprun itself, as its
// child, to start the programs as a job of their own (local_spawn.cc).
#pragma once

#include <sys/types.h>

#include <string>
#include <vector>

#include "runtime/core/bootstrap.h"

namespace mpr::runtime {

/// The mprun of this installation: MPR_MPRUN, else next to the loaded libmpi (<prefix>/bin, or
/// launcher/ in a build tree), else configure's prefix, else PATH. Empty if none is found.
std::string find_mprun();

/// mprun's arguments for `apps`: one MPMD context each ("-n N [-wdir D] [-x NAME=value]...
/// program args"), joined by ":".
std::vector<std::string> mprun_arguments(const std::vector<JobBootstrap::SpawnApp>& apps);

/// The mpruns a process started. Not thread-safe (the runtime calls it from one thread).
class LocalSpawner {
 public:
  LocalSpawner() = default;
  ~LocalSpawner();
  LocalSpawner(const LocalSpawner&) = delete;
  LocalSpawner& operator=(const LocalSpawner&) = delete;

  /// JobBootstrap::spawn's contract: starts mprun with `apps`; false with `detail` when there
  /// is no mprun or it cannot be started.
  bool spawn(const std::vector<JobBootstrap::SpawnApp>& apps, std::string* job_id,
             std::string* detail);
  /// True, with `why`, when the mprun the last spawn() started has ended (its processes will
  /// never connect). Reaps it.
  bool gone(std::string* why);

 private:
  /// Reaps the mpruns that ended (their jobs are over); a job still running keeps its mprun.
  void reap();

  std::vector<pid_t> children_;
  pid_t last_ = -1;
};

}  // namespace mpr::runtime
