// Dynamic process management. Names (MPI_Publish_name, MPI_Lookup_name, MPI_Unpublish_name)
// go through the launcher's PMIx name service; ports (MPI_Open_port, MPI_Close_port) are
// listening sockets of this process (runtime/core/ports.h). Spawning, accepting, connecting
// and joining are not there yet: those calls fail through the error handler with
// MPI_ERR_UNSUPPORTED_OPERATION and the call's name.
#include <cstdio>
#include <cstring>
#include <string>

#include "runtime/api/handles.h"
#include "runtime/core/ports.h"
#include "runtime/core/state.h"

using namespace mpr::runtime;
using namespace mpr::runtime::api;

namespace {

constexpr const char* kWhy =
    "starting processes and connecting jobs (MPR jobs keep the processes mprun or srun "
    "started)";

constexpr size_t kMaxServiceName = 256;

int refuse(const char* fn, MPI_Comm h) {
  MPR_TRY(check_running(fn));
  Comm* comm = h == MPI_COMM_NULL ? nullptr : to_comm(h);
  return unsupported(fn, comm, kWhy);
}

}  // namespace

extern "C" int PMPI_Comm_spawn(const char*, char*[], int, MPI_Info, int, MPI_Comm comm, MPI_Comm*,
                               int[]) {
  return refuse("MPI_Comm_spawn", comm);
}
MPR_WEAK_ALIAS(Comm_spawn);

extern "C" int PMPI_Comm_spawn_multiple(int, char*[], char**[], const int[], const MPI_Info[], int,
                                        MPI_Comm comm, MPI_Comm*, int[]) {
  return refuse("MPI_Comm_spawn_multiple", comm);
}
MPR_WEAK_ALIAS(Comm_spawn_multiple);

extern "C" int PMPI_Open_port(MPI_Info info, char* port_name) {
  constexpr const char* fn = "MPI_Open_port";
  MPR_TRY(check_running(fn));
  Info* ip = nullptr;
  MPR_TRY(check_info(fn, nullptr, info, true, &ip));
  if (!port_name) return raise_error(nullptr, MPI_ERR_ARG, fn, "port_name is NULL");
  std::string name;
  if (int rc = open_port(fn, &name); rc != MPI_SUCCESS) return raise(nullptr, rc);
  std::snprintf(port_name, MPI_MAX_PORT_NAME, "%s", name.c_str());
  return MPI_SUCCESS;
}
MPR_WEAK_ALIAS(Open_port);

extern "C" int PMPI_Close_port(const char* port_name) {
  constexpr const char* fn = "MPI_Close_port";
  MPR_TRY(check_running(fn));
  if (!port_name) return raise_error(nullptr, MPI_ERR_ARG, fn, "port_name is NULL");
  if (!close_port(port_name))
    return raise_error(nullptr, MPI_ERR_PORT, fn,
                       "port '%s' is not open in this process (MPI_Open_port gives the names "
                       "MPI_Close_port takes)",
                       port_name);
  return MPI_SUCCESS;
}
MPR_WEAK_ALIAS(Close_port);

extern "C" int PMPI_Comm_accept(const char*, MPI_Info, int, MPI_Comm comm, MPI_Comm*) {
  return refuse("MPI_Comm_accept", comm);
}
MPR_WEAK_ALIAS(Comm_accept);

extern "C" int PMPI_Comm_connect(const char*, MPI_Info, int, MPI_Comm comm, MPI_Comm*) {
  return refuse("MPI_Comm_connect", comm);
}
MPR_WEAK_ALIAS(Comm_connect);

extern "C" int PMPI_Comm_join(int, MPI_Comm*) { return refuse("MPI_Comm_join", MPI_COMM_NULL); }
MPR_WEAK_ALIAS(Comm_join);

namespace {

// Service names become PMIx keys: bounded, and non-empty.
int check_service(const char* fn, const char* service) {
  if (!service) return raise_error(nullptr, MPI_ERR_ARG, fn, "service_name is NULL");
  const size_t n = std::strlen(service);
  if (n == 0) return raise_error(nullptr, MPI_ERR_SERVICE, fn, "service_name is empty");
  if (n > kMaxServiceName)
    return raise_error(nullptr, MPI_ERR_SERVICE, fn,
                       "service_name '%.40s...' has %zu characters (at most %zu)", service, n,
                       kMaxServiceName);
  return MPI_SUCCESS;
}

int name_unavailable(const char* fn, const char* service, const std::string& detail) {
  return raise_error(nullptr, MPI_ERR_SERVICE, fn,
                     "service '%s': the launcher's name service failed (%s); mprun serves "
                     "names, Slurm's PMIx server offers none",
                     service, detail.c_str());
}

}  // namespace

extern "C" int PMPI_Publish_name(const char* service_name, MPI_Info info, const char* port_name) {
  constexpr const char* fn = "MPI_Publish_name";
  MPR_TRY(check_running(fn));
  MPR_TRY(check_service(fn, service_name));
  Info* ip = nullptr;
  MPR_TRY(check_info(fn, nullptr, info, true, &ip));
  if (!port_name) return raise_error(nullptr, MPI_ERR_ARG, fn, "port_name is NULL");
  if (std::strlen(port_name) >= MPI_MAX_PORT_NAME)
    return raise_error(nullptr, MPI_ERR_PORT, fn,
                       "port_name has %zu characters (MPI_MAX_PORT_NAME is %d)",
                       std::strlen(port_name), MPI_MAX_PORT_NAME);
  std::string detail;
  switch (g_state.bootstrap->publish_name(service_name, port_name, &detail)) {
    case JobBootstrap::NameResult::kOk:
      return MPI_SUCCESS;
    case JobBootstrap::NameResult::kExists:
      return raise_error(nullptr, MPI_ERR_SERVICE, fn,
                         "service '%s' is already published (MPI_Unpublish_name it first)",
                         service_name);
    default:
      return name_unavailable(fn, service_name, detail);
  }
}
MPR_WEAK_ALIAS(Publish_name);

extern "C" int PMPI_Unpublish_name(const char* service_name, MPI_Info info, const char* port_name) {
  constexpr const char* fn = "MPI_Unpublish_name";
  MPR_TRY(check_running(fn));
  MPR_TRY(check_service(fn, service_name));
  Info* ip = nullptr;
  MPR_TRY(check_info(fn, nullptr, info, true, &ip));
  if (!port_name) return raise_error(nullptr, MPI_ERR_ARG, fn, "port_name is NULL");
  std::string detail, published;
  JobBootstrap::NameResult r = g_state.bootstrap->lookup_name(service_name, &published, &detail);
  if (r == JobBootstrap::NameResult::kOk && published != port_name)
    return raise_error(nullptr, MPI_ERR_SERVICE, fn,
                       "service '%s' is published with port '%s', not '%s'", service_name,
                       published.c_str(), port_name);
  if (r == JobBootstrap::NameResult::kOk)
    r = g_state.bootstrap->unpublish_name(service_name, &detail);
  switch (r) {
    case JobBootstrap::NameResult::kOk:
      return MPI_SUCCESS;
    case JobBootstrap::NameResult::kNotFound:
      return raise_error(nullptr, MPI_ERR_SERVICE, fn,
                         "service '%s' is not published (by this job)", service_name);
    default:
      return name_unavailable(fn, service_name, detail);
  }
}
MPR_WEAK_ALIAS(Unpublish_name);

extern "C" int PMPI_Lookup_name(const char* service_name, MPI_Info info, char* port_name) {
  constexpr const char* fn = "MPI_Lookup_name";
  MPR_TRY(check_running(fn));
  MPR_TRY(check_service(fn, service_name));
  Info* ip = nullptr;
  MPR_TRY(check_info(fn, nullptr, info, true, &ip));
  if (!port_name) return raise_error(nullptr, MPI_ERR_ARG, fn, "port_name is NULL");
  std::string detail, port;
  switch (g_state.bootstrap->lookup_name(service_name, &port, &detail)) {
    case JobBootstrap::NameResult::kOk:
      std::snprintf(port_name, MPI_MAX_PORT_NAME, "%s", port.c_str());
      return MPI_SUCCESS;
    case JobBootstrap::NameResult::kNotFound:
      return raise_error(nullptr, MPI_ERR_NAME, fn, "service '%s' is not published", service_name);
    default:
      return name_unavailable(fn, service_name, detail);
  }
}
MPR_WEAK_ALIAS(Lookup_name);
