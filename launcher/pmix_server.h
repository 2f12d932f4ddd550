// mprun's side of PMIx: the server library, the job's namespace and one client per rank.
// libpmix 4.2.2 allows one server per process, so PmixServer is a singleton in practice.
#pragma once

#include <chrono>
#include <string>

#include "launcher/env_block.h"

struct hwloc_topology;

namespace mpr::launch {

/// Receives the server library's upcalls. Called on libpmix's progress thread, never on the
/// thread that owns PmixServer: implementations must be thread-safe and must not block.
class ServerListener {
 public:
  virtual ~ServerListener() = default;
  /// Rank `rank` of the job completed PMIx_Init.
  virtual void client_connected(int rank) = 0;
  /// Rank `rank` called PMIx_Finalize. Delivered before the client's PMIx_Finalize returns,
  /// hence before that process can exit.
  virtual void client_finalized(int rank) = 0;
  /// Rank `rank` called PMIx_Abort (MPI_Abort). Delivered before its PMIx_Abort returns.
  virtual void client_aborted(int rank, int status, const std::string& message) = 0;
  /// The connection to rank `rank` dropped before it finalized (it exited or died). Comes in
  /// the order the connections dropped, usually before mprun can reap the process.
  virtual void client_lost(int rank) = 0;
};

/// What register_job needs to describe a single-node job.
struct JobLayout {
  std::string nspace;
  int nprocs = 0;
  std::string hostname;
  int cpus = 1;  ///< usable cores; more ranks than this is marked oversubscribed
};

class PmixServer {
 public:
  /// Starts the server library with all its files under `tmpdir`. Throws std::runtime_error
  /// (message names the PMIx call and status).
  explicit PmixServer(const std::string& tmpdir);
  ~PmixServer();
  PmixServer(const PmixServer&) = delete;
  PmixServer& operator=(const PmixServer&) = delete;

  /// Where upcalls go from now on (nullptr: nowhere). The listener must stay alive until it is
  /// replaced or shutdown() returned true.
  void set_listener(ServerListener* listener);

  /// Registers the namespace with the job, node and per-rank data clients read in PMIx_Init.
  /// Throws std::runtime_error.
  void register_job(const JobLayout& layout);
  /// Registers rank's client (our uid/gid) and adds its PMIx variables to `env`.
  /// Throws std::runtime_error.
  void prepare_client(int rank, EnvBlock* env);

  /// Deregisters the job and finalizes the library, each step bounded by `limit`. libpmix can
  /// wedge its progress thread after some client failures; then this returns false and the
  /// library must not be touched again (the process should _exit).
  bool shutdown(std::chrono::milliseconds limit);

 private:
  hwloc_topology* topology_ = nullptr;  ///< handed to libpmix; must outlive it
  bool finalized_ = false;
  bool registered_ = false;
};

}  // namespace mpr::launch
