// MPI_Init / MPI_Finalize / job abort: bootstrap, backends, pml, predefined communicators.
#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <exception>
#include <string>

#include "common/entry_lock.h"
#include "common/log.h"
#include "common/params.h"
#include "runtime/comm/comm.h"
#include "runtime/comm/dpm.h"
#include "runtime/core/errors.h"
#include "runtime/core/ports.h"
#include "runtime/core/state.h"
#include "runtime/p2p/bsend.h"
#include "runtime/p2p/request.h"
#include "runtime/rma/win.h"

namespace mpr::runtime {

State g_state;

namespace {

// Seconds an abort may take before the process ends itself: the launcher normally kills the
// job well before that.
constexpr unsigned kAbortGraceSeconds = 5;

int g_abort_code = 1;

void abort_watchdog(int) { _exit(g_abort_code); }

// A backend lost its connection to a peer mid-job: that process is gone or its node is
// unreachable, and every call that needs it would wait forever. The launcher normally ends the
// job first (it watches the process that died), so wait a moment to let its one line be the
// only one; then end the job, naming the peer.
void on_peer_lost(int, const char* why) {
  for (int i = 0; i < 20; ++i) usleep(50000);
  common::log_error("%s; ending the job", why);
  abort_job(MPI_ERR_OTHER, why);
}

std::unique_ptr<JobBootstrap> make_bootstrap(const char* fn) {
  std::string seen;
  if (launcher_detected(&seen)) return make_pmix_bootstrap();
  // Each task of such a step would otherwise be a silent MPI_COMM_WORLD of one.
  if (std::string warning = slurm_step_warning(fn); !warning.empty())
    common::log_error("%s", warning.c_str());
  return make_singleton_bootstrap();
}

void print_stats() {
  const pml::Stats& s = the_pml().stats();
  // One write, so blocks of different ranks do not interleave.
  char buf[1024];
  std::snprintf(
      buf, sizeof buf,
      "mpr[rank %d]: MPR_STATS\n"
      "  eager:       %llu msgs, %llu bytes\n"
      "  rendezvous:  %llu msgs, %llu bytes (%llu through the copy fallback)\n"
      "  synchronous: %llu msgs\n"
      "  self:        %llu msgs\n"
      "  unexpected:  %llu arrivals, queue peak %llu\n",
      job_rank(), static_cast<unsigned long long>(s.eager_msgs),
      static_cast<unsigned long long>(s.eager_bytes), static_cast<unsigned long long>(s.rndv_msgs),
      static_cast<unsigned long long>(s.rndv_bytes),
      static_cast<unsigned long long>(s.rndv_fallback_msgs),
      static_cast<unsigned long long>(s.sync_msgs), static_cast<unsigned long long>(s.self_msgs),
      static_cast<unsigned long long>(s.unexpected_msgs),
      static_cast<unsigned long long>(s.unexpected_peak));
  const std::string btls = g_state.btls ? g_state.btls->stats() : "";
  std::string out = std::string(buf) + btls;
  std::fputs(out.c_str(), stderr);
  std::fflush(stderr);
}

}  // namespace

int job_rank() { return g_state.bootstrap ? g_state.bootstrap->rank() : -1; }

namespace {

// MPI_THREAD_MULTIPLE turns the entry lock on (common/entry_lock.h). A later MPI_Init_thread
// or session that asks for more than the library was brought up with gets it: no other thread
// can be inside MPI then, since the level granted before did not allow it.
void grant_thread_level(int required) {
  if (required <= g_state.thread_level) return;
  g_state.thread_level = std::min(required, static_cast<int>(MPI_THREAD_MULTIPLE));
  if (g_state.thread_level == MPI_THREAD_MULTIPLE) common::EntryLock::turn_on();
}

// Bring the library up: bootstrap, backends, pml, communicators.
void bring_up(const char* fn, int required) {
  try {
    g_state.bootstrap = make_bootstrap(fn);
  } catch (const std::exception& e) {
    common::log_error("%s: %s", fn, e.what());
    _exit(1);
  }
  common::log_set_rank(g_state.bootstrap->rank());
  btl::set_peer_lost_handler(&on_peer_lost);
  try {
    g_state.btls = btl::Registry::create(*g_state.bootstrap);
    g_state.pml = pml::Pml::create(*g_state.bootstrap, *g_state.btls);
  } catch (const std::exception& e) {
    std::string msg = std::string(fn) + ": " + e.what();
    common::log_error("%s", msg.c_str());
    abort_job(MPI_ERR_OTHER, msg.c_str());
  }
  g_state.thread_level = MPI_THREAD_SINGLE;
  grant_thread_level(required);
  g_state.main_thread = pthread_self();
  g_state.bsend = std::make_unique<BsendBuffer>();
  rma::transport_init();
  comms_init();
  g_state.phase = Phase::kRunning;
  // A spawned job meets its parents before MPI_Init returns (MPI_Comm_get_parent).
  if (int rc = connect_parent(fn); rc != MPI_SUCCESS) {
    std::string msg =
        std::string("cannot connect to the processes that spawned this job: ") + error_string(rc);
    common::log_error("%s", msg.c_str());
    abort_job(MPI_ERR_SPAWN, msg.c_str());
  }
  if (g_state.bootstrap->rank() == 0 && common::verbose()) {
    std::string d = the_pml().describe();
    common::log_verbose("%s", d.c_str());
  }
}

// One user fewer; after the last, bring the library down.
int release(const char* fn) {
  if (--g_state.users > 0) return MPI_SUCCESS;
  BsendBuffer::drain_all();  // the process's, every communicator's and session's
  reap_orphans(true);
  try {
    the_pml().finalize();
  } catch (const std::exception& e) {
    return raise_error(g_state.world, MPI_ERR_OTHER, fn, "%s", e.what());
  }
  if (common::param_bool("MPR_STATS")) print_stats();
  g_state.final_stats = the_pml().stats();
  close_all_ports();
  comms_fini();
  g_state.phase = Phase::kFinalized;
  g_state.bsend.reset();
  g_state.pml.reset();
  g_state.btls.reset();
  g_state.bootstrap->finalize();
  return MPI_SUCCESS;
}

constexpr const char* kEnded =
    "MPI already ended in this process (its last MPI_Finalize or MPI_Session_finalize ran); it "
    "cannot start again";

}  // namespace

int init(const char* fn, int required, int* provided) {
  if (g_state.world_initialized)
    return raise_error(
        nullptr, MPI_ERR_OTHER, fn,
        g_state.world_finalized ? "called after MPI_Finalize" : "MPI is already initialized");
  if (g_state.phase == Phase::kFinalized)
    return raise_error(nullptr, MPI_ERR_OTHER, fn, "%s", kEnded);
  if (g_state.phase == Phase::kBefore) bring_up(fn, required);
  grant_thread_level(required);
  g_state.world_initialized = true;
  ++g_state.users;
  if (provided) *provided = g_state.thread_level;
  return MPI_SUCCESS;
}

int finalize(const char* fn) {
  comms_finalize_attrs();
  g_state.bsend->drain();
  g_state.world_finalized = true;
  return release(fn);
}

int session_begin(const char* fn, int required, int* provided) {
  if (g_state.phase == Phase::kFinalized) return make_error(MPI_ERR_SESSION, fn, "%s", kEnded);
  if (g_state.phase == Phase::kBefore) bring_up(fn, required);
  grant_thread_level(required);
  ++g_state.users;
  if (provided) *provided = g_state.thread_level;
  return MPI_SUCCESS;
}

int session_end(const char* fn) { return release(fn); }

void abort_job(int code, const char* why) {
  g_abort_code = code;
  // Whatever happens in the launcher, this process is gone after the grace period.
  signal(SIGALRM, abort_watchdog);
  alarm(kAbortGraceSeconds);
  std::fflush(stdout);
  std::fflush(stderr);
  if (g_state.bootstrap && g_state.phase != Phase::kFinalized)
    g_state.bootstrap->abort(code, why ? why : "");
  _exit(code);
}

}  // namespace mpr::runtime
