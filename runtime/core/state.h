// The process-wide runtime state: bootstrap, backends, pml, predefined communicators, init phase.
// One instance (g_state); under MPI_THREAD_MULTIPLE the entry lock (common/entry_lock.h) guards it.
#pragma once

#include <pthread.h>

#include <cstdint>
#include <memory>

#include "btl-rdma/registry.h"
#include "mpi.h"
#include "pml/pml.h"
#include "runtime/core/bootstrap.h"

namespace mpr::runtime {

class Comm;
class BsendBuffer;

/// The library's life in this process: up from the first MPI_Init or MPI_Session_init until
/// the last of MPI_Finalize and MPI_Session_finalize.
enum class Phase { kBefore, kRunning, kFinalized };

struct State {
  Phase phase = Phase::kBefore;
  /// The world model (MPI_Init .. MPI_Finalize), what MPI_Initialized / MPI_Finalized report.
  bool world_initialized = false;
  bool world_finalized = false;
  /// The world model (while initialized) plus the live sessions: the library stays up while
  /// this is above zero.
  int users = 0;
  std::unique_ptr<JobBootstrap> bootstrap;
  /// The backends; the pml and one-sided communication reach them through it. Declared before
  /// the pml, so it outlives it.
  std::unique_ptr<btl::Registry> btls;
  std::unique_ptr<pml::Pml> pml;
  /// The pml's counters as they were when it went down (MPI_T reads them after finalize).
  pml::Stats final_stats;
  int thread_level = MPI_THREAD_SINGLE;
  pthread_t main_thread{};
  Comm* world = nullptr;
  Comm* self = nullptr;
  /// A spawned process's intercommunicator to its parents (MPI_Comm_get_parent) until it is
  /// freed or disconnected; nullptr otherwise.
  Comm* parent = nullptr;
  std::unique_ptr<BsendBuffer> bsend;
};

extern State g_state;

inline bool running() { return g_state.phase == Phase::kRunning; }
inline pml::Pml& the_pml() { return *g_state.pml; }
inline btl::Registry& the_btls() { return *g_state.btls; }

/// MPI_Init_thread's work. Returns an MPI error code (already raised if fatal).
int init(const char* fn, int required, int* provided);
/// MPI_Finalize's work.
int finalize(const char* fn);
/// MPI_Session_init / MPI_Session_finalize: bring the library up if it is not, count one more
/// user; one user fewer, and bring it down after the last. Return MPI error codes (not raised).
int session_begin(const char* fn, int required, int* provided);
int session_end(const char* fn);
/// Print nothing; end the whole job with `code` as exit status, never returning and never
/// hanging (a watchdog _exits if the launcher does not kill us in time).
[[noreturn]] void abort_job(int code, const char* why);
/// This process's job rank, or -1 before init.
int job_rank();

}  // namespace mpr::runtime
