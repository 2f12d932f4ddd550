// Environment: init/finalize, abort, versions, clocks, processor name.
#include <pmix.h>
#include <time.h>

#include <cstdio>
#include <cstring>

#include "common/log.h"
#include "mpr_config.h"
#include "runtime/api/check.h"
#include "runtime/comm/comm.h"
#include "runtime/core/state.h"

using namespace mpr::runtime;
using namespace mpr::runtime::api;

namespace {

int copy_string(const std::string& s, char* out, int max, int* len) {
  size_t n = s.size() < static_cast<size_t>(max - 1) ? s.size() : static_cast<size_t>(max - 1);
  std::memcpy(out, s.data(), n);
  out[n] = '\0';
  *len = static_cast<int>(n);
  return MPI_SUCCESS;
}

}  // namespace

extern "C" int PMPI_Init(int* argc, char*** argv) {
  (void)argc;
  (void)argv;
  return init("MPI_Init", MPI_THREAD_SINGLE, nullptr);
}
MPR_WEAK_ALIAS(Init);

extern "C" int PMPI_Init_thread(int* argc, char*** argv, int required, int* provided) {
  (void)argc;
  (void)argv;
  if (required < MPI_THREAD_SINGLE || required > MPI_THREAD_MULTIPLE)
    return raise_error(nullptr, MPI_ERR_ARG, "MPI_Init_thread",
                       "invalid thread level %d (MPI_THREAD_SINGLE..MPI_THREAD_MULTIPLE)",
                       required);
  if (!provided) return raise_error(nullptr, MPI_ERR_ARG, "MPI_Init_thread", "provided is NULL");
  return init("MPI_Init_thread", required, provided);
}
MPR_WEAK_ALIAS(Init_thread);

extern "C" int PMPI_Query_thread(int* provided) {
  MPR_TRY(check_running("MPI_Query_thread"));
  MPR_TRY(check_arg("MPI_Query_thread", nullptr, provided, "provided is NULL"));
  *provided = g_state.thread_level;
  return MPI_SUCCESS;
}
MPR_WEAK_ALIAS(Query_thread);

extern "C" int PMPI_Is_thread_main(int* flag) {
  MPR_TRY(check_running("MPI_Is_thread_main"));
  MPR_TRY(check_arg("MPI_Is_thread_main", nullptr, flag, "flag is NULL"));
  *flag = pthread_equal(pthread_self(), g_state.main_thread) ? 1 : 0;
  return MPI_SUCCESS;
}
MPR_WEAK_ALIAS(Is_thread_main);

extern "C" int PMPI_Initialized(int* flag) {
  *flag = g_state.world_initialized;
  return MPI_SUCCESS;
}
MPR_WEAK_ALIAS(Initialized);

extern "C" int PMPI_Finalized(int* flag) {
  *flag = g_state.world_finalized;
  return MPI_SUCCESS;
}
MPR_WEAK_ALIAS(Finalized);

extern "C" int PMPI_Finalize(void) {
  MPR_ENTRY;
  MPR_TRY(check_running("MPI_Finalize"));
  if (!g_state.world_initialized || g_state.world_finalized)
    return raise_error(nullptr, MPI_ERR_OTHER, "MPI_Finalize",
                       g_state.world_finalized ? "called twice"
                                               : "called without MPI_Init (sessions end with "
                                                 "MPI_Session_finalize)");
  return finalize("MPI_Finalize");
}
MPR_WEAK_ALIAS(Finalize);

extern "C" int PMPI_Abort(MPI_Comm comm, int errorcode) {
  const char* name = "the communicator";
  if (Comm* c = running() ? to_comm(comm) : nullptr)
    if (!c->name().empty()) name = c->name().c_str();
  char msg[256];
  std::snprintf(msg, sizeof msg, "MPI_Abort(%s, %d) called", name, errorcode);
  mpr::common::log_error("%s", msg);
  // Exit statuses are 8 bits: keep a non-zero code non-zero.
  int status = errorcode & 0xff;
  if (errorcode != 0 && status == 0) status = 1;
  abort_job(status, msg);
}
MPR_WEAK_ALIAS(Abort);

extern "C" int PMPI_Get_processor_name(char* name, int* resultlen) {
  MPR_ENTRY;
  MPR_TRY(check_running("MPI_Get_processor_name"));
  MPR_TRY(
      check_arg("MPI_Get_processor_name", nullptr, name && resultlen, "name or resultlen is NULL"));
  return copy_string(g_state.bootstrap->hostname(), name, MPI_MAX_PROCESSOR_NAME, resultlen);
}
MPR_WEAK_ALIAS(Get_processor_name);

extern "C" int PMPI_Get_version(int* version, int* subversion) {
  *version = MPI_VERSION;
  *subversion = MPI_SUBVERSION;
  return MPI_SUCCESS;
}
MPR_WEAK_ALIAS(Get_version);

extern "C" int PMPI_Get_library_version(char* version, int* resultlen) {
  std::string v = std::string("MPR ") + PACKAGE_VERSION + " (MPI " + std::to_string(MPI_VERSION) +
                  "." + std::to_string(MPI_SUBVERSION) + " subset; PMIx " + PMIx_Get_version() +
                  ")";
  return copy_string(v, version, MPI_MAX_LIBRARY_VERSION_STRING, resultlen);
}
MPR_WEAK_ALIAS(Get_library_version);

extern "C" double PMPI_Wtime(void) {
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) * 1e-9;
}
MPR_WEAK_ALIAS(Wtime);

extern "C" double PMPI_Wtick(void) {
  timespec ts;
  clock_getres(CLOCK_MONOTONIC, &ts);
  return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) * 1e-9;
}
MPR_WEAK_ALIAS(Wtick);
