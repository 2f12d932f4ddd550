// How a process learns about its job: PMIx when a launcher started it, an in-memory singleton
// otherwise. Extends the transports' common::Bootstrap with what the C API needs.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "common/bootstrap.h"

namespace mpr::runtime {

class JobBootstrap : public common::Bootstrap {
 public:
  /// MPI_UNIVERSE_SIZE and MPI_APPNUM; -1 when the launcher did not say.
  virtual int universe_size() const = 0;
  virtual int appnum() const = 0;
  /// The node's name as the launcher knows it (MPI_Get_processor_name).
  virtual const std::string& hostname() const = 0;
  /// Ask the launcher to kill the whole job with exit status `code`. May return (the caller
  /// then exits by itself).
  virtual void abort(int code, const std::string& msg) = 0;
  /// Disconnect from the launcher (MPI_Finalize, after the pml's last fence).
  virtual void finalize() = 0;

  /// The launcher's name service (MPI_Publish_name, MPI_Lookup_name, MPI_Unpublish_name).
  /// kUnavailable: the launcher offers none, or failed; `detail` then says what it answered.
  enum class NameResult { kOk, kExists, kNotFound, kUnavailable };
  virtual NameResult publish_name(const std::string& service, const std::string& port,
                                  std::string* detail) = 0;
  virtual NameResult lookup_name(const std::string& service, std::string* port,
                                 std::string* detail) = 0;
  virtual NameResult unpublish_name(const std::string& service, std::string* detail) = 0;

  /// One program of MPI_Comm_spawn(_multiple): `maxprocs` processes of `command` with `argv`
  /// (without argv[0]), started in `wdir` (empty: the launcher's choice) with `env` added to
  /// their environment ("NAME=value").
  struct SpawnApp {
    std::string command;
    std::vector<std::string> argv;
    int maxprocs = 0;
    std::string wdir;
    std::string path;  ///< directories to look for `command` in (info key "path"), or empty
    std::vector<std::string> env;
  };
  /// Has the launcher start `apps` as one new job (PMIx_Spawn). True with its job id in
  /// *job_id once the processes are started; false with `detail` saying what the launcher
  /// answered (or that there is none).
  virtual bool spawn(const std::vector<SpawnApp>& apps, std::string* job_id,
                     std::string* detail) = 0;
  /// True, with `why`, when the job the last spawn() started ended before its processes could
  /// connect (the caller stops waiting for them). A launcher that watches its jobs ends the
  /// caller's job itself instead, and says false.
  virtual bool spawn_gone(std::string* why) {
    (void)why;
    return false;
  }
};

/// The key a service name is published under (PMIx keys starting "pmix." are reserved).
std::string service_key(const std::string& service);

/// A job of one process (started without a launcher). Its fence is a no-op and get() sees only
/// this process's own puts.
std::unique_ptr<JobBootstrap> make_singleton_bootstrap();

/// For a process started without PMIx that the environment calls one task of a Slurm step of
/// several (SLURM_STEP_ID and SLURM_PROCID set, SLURM_STEP_NUM_TASKS or else SLURM_NTASKS above
/// 1: srun --mpi=pmi2 or --mpi=none), the one-line warning `fn` prints before it runs as a
/// singleton anyway; empty otherwise.
std::string slurm_step_warning(const char* fn);

/// PMIx client. Throws std::runtime_error naming the launcher variables seen and PMIx's status
/// if PMIx_Init or a mandatory job key fails.
std::unique_ptr<JobBootstrap> make_pmix_bootstrap();

/// True when the environment shows a PMIx launcher (PMIX_NAMESPACE, PMIX_RANK or
/// PMIX_SERVER_URI*). Fills `seen` with the names found, for error messages.
bool launcher_detected(std::string* seen);

}  // namespace mpr::runtime
