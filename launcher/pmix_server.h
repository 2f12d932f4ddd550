// mprun's side of PMIx: the server library, the job's namespace and one client per rank.
// libpmix 4.2.2 allows one server per process, so PmixServer is a singleton in practice.
#pragma once

#include <chrono>
#include <functional>
#include <string>
#include <vector>

#include "launcher/env_block.h"

struct hwloc_topology;

namespace mpr::launch {

struct Placement;

/// One program of an MPI_Comm_spawn (a PMIx_Spawn request): `maxprocs` processes of `command`
/// with `argv` (without argv[0]) in `wdir` (empty: mprun's), `env` added ("NAME=value"), the
/// program looked for in `path` (colon-separated) before mprun's PATH.
struct SpawnApp {
  std::string command;
  std::vector<std::string> argv;
  std::vector<std::string> env;
  std::string wdir;
  std::string path;
  int maxprocs = 0;
};

/// A PMIx_Spawn request. `done` must be called exactly once, from any thread: with 0 and the
/// new job's namespace once its processes are started, or with a PMIx error status.
struct SpawnRequest {
  int requester = -1;  ///< the asking process (see ServerListener)
  std::vector<SpawnApp> apps;
  std::function<void(int status, const std::string& nspace)> done;
};

/// Receives the server library's upcalls. Called on libpmix's progress thread, never on the
/// thread that owns PmixServer: implementations must be thread-safe and must not block.
/// Processes are numbered across namespaces: the job's ranks 0..N-1, then the processes of each
/// spawned job in the order the jobs were registered (register_spawned's `first`).
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
  /// Rank `rank` is about to enter its first fence (the modex in MPI_Init). Only ranks that see
  /// common::kKeyStartupWatch say so, which MPR's runtime does.
  virtual void client_at_startup_fence(int rank) = 0;
  /// Ranks that lost their PMIx connection without finalizing or whose process ended, in
  /// rank order; called from the library's thread when a fence completes. Those not yet
  /// known as lost count as lost now: they, not the ranks whose fence fails, are the cause.
  virtual std::vector<int> gone_ranks() = 0;
  /// A process asked for a new job (MPI_Comm_spawn). Queue it; never block here.
  virtual void spawn_requested(SpawnRequest request) = 0;
};

/// What register_job needs to describe a single-node job.
struct JobLayout {
  std::string nspace;
  int nprocs = 0;
  std::string hostname;
  int slots = 1;  ///< CPUs the job may use (PMIX_NUM_SLOTS)
  /// Each rank's CPUs (PMIX_CPUSET, PMIX_LOCALITY_STRING) and whether the node is
  /// oversubscribed. Must outlive register_job().
  const Placement* placement = nullptr;
  /// The program (MPMD context) of each rank (PMIX_APPNUM, MPI_APPNUM); empty = all 0.
  std::vector<uint32_t> appnum;
};

class PmixServer {
 public:
  /// Starts the server library with all its files under `tmpdir`, describing the node with
  /// `topology` (which must outlive the server). Each registration step may take up to
  /// `step_limit`. Throws std::runtime_error (message names the PMIx call and status).
  PmixServer(const std::string& tmpdir, hwloc_topology* topology,
             std::chrono::milliseconds step_limit);
  ~PmixServer();
  PmixServer(const PmixServer&) = delete;
  PmixServer& operator=(const PmixServer&) = delete;

  /// Where upcalls go from now on (nullptr: nowhere). The listener must stay alive until it is
  /// replaced or shutdown() returned true.
  void set_listener(ServerListener* listener);

  /// Registers the namespace with the job, node and per-rank data clients read in PMIx_Init.
  /// Throws std::runtime_error.
  void register_job(const JobLayout& layout);
  /// Registers a job MPI_Comm_spawn asked for, whose processes are numbered from `first` on
  /// (see ServerListener). Throws std::runtime_error.
  /// `running`: processes of earlier jobs still running (counted in MPI_UNIVERSE_SIZE).
  void register_spawned(const JobLayout& layout, int first, int running = 0);
  /// Registers process `index`'s client (our uid/gid) and adds its PMIx variables to `env`.
  /// Throws std::runtime_error.
  void prepare_client(int index, EnvBlock* env);

  /// Deregisters the job and finalizes the library, each step bounded by `limit`. libpmix can
  /// wedge its progress thread after some client failures; then this returns false and the
  /// library must not be touched again (the process should _exit). `clients_clean` false
  /// (a client connected and never finalized) skips both steps: with a fence of dead clients
  /// unfinished, libpmix 4.2.2's PMIx_server_finalize can crash and deregistration can hang,
  /// and the process is about to exit anyway.
  bool shutdown(std::chrono::milliseconds limit, bool clients_clean = true);

 private:
  std::chrono::milliseconds step_limit_;
  bool finalized_ = false;
  bool registered_ = false;
};

}  // namespace mpr::launch
