// Dynamic process management: starting processes (MPI_Comm_spawn, _multiple) through the
// launcher's PMIx_Spawn, connecting groups through ports (MPI_Open_port, MPI_Comm_accept,
// MPI_Comm_connect) or a socket (MPI_Comm_join): runtime/comm/dpm.h. Names (MPI_Publish_name,
// MPI_Lookup_name, MPI_Unpublish_name) go through the launcher's PMIx name service; ports are
// listening sockets of this process (runtime/core/ports.h).
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "runtime/api/handles.h"
#include "runtime/comm/dpm.h"
#include "runtime/core/ports.h"
#include "runtime/core/state.h"

using namespace mpr::runtime;
using namespace mpr::runtime::api;

namespace {

constexpr size_t kMaxServiceName = 256;

int deliver(Comm* c, MPI_Comm* out) {
  *out = c ? c->handle() : MPI_COMM_NULL;
  return MPI_SUCCESS;
}

// The checks every process of the group makes (the rest matter only at the root).
int check_group_call(const char* fn, MPI_Comm h, int root, MPI_Comm* newcomm, Comm** comm) {
  MPR_TRY(check_running(fn));
  MPR_TRY(check_comm(fn, h, comm));
  MPR_TRY(check_intra(fn, *comm));
  MPR_TRY(check_root(fn, *comm, root));
  return check_arg(fn, *comm, newcomm, "the new communicator's address is NULL");
}

// One program of a spawn, as the root gives it. `info` may be null.
int read_app(const char* fn, Comm* comm, const char* command, char* argv[], int maxprocs,
             const Info* info, JobBootstrap::SpawnApp* app) {
  if (!command || !*command)
    return raise_error(comm, MPI_ERR_SPAWN, fn, "command is %s", command ? "empty" : "NULL");
  if (maxprocs <= 0)
    return raise_error(comm, MPI_ERR_SPAWN, fn, "maxprocs %d for '%s' (at least 1)", maxprocs,
                       command);
  app->command = command;
  for (char** a = argv; a && *a; ++a) app->argv.emplace_back(*a);
  app->maxprocs = maxprocs;
  if (!info) return MPI_SUCCESS;
  for (const auto& [key, value] : info->entries()) {
    if (key == "wdir") {
      app->wdir = value;
    } else if (key == "path") {
      app->path = value;
    } else if (key == "host") {
      // One node: every process starts on the launcher's; another host cannot be honoured.
      const std::string& me = g_state.bootstrap->hostname();
      if (value != me && value != "localhost" && value.rfind(me + ".", 0) != 0)
        return raise_error(comm, MPI_ERR_SPAWN, fn,
                           "info host=%s: the launcher starts processes on its own node (%s) "
                           "only",
                           value.c_str(), me.c_str());
    }
    // Other keys (arch, file, soft, ...) are hints MPR does not need; MPI lets it ignore them.
  }
  return MPI_SUCCESS;
}

void fill_errcodes(int* errcodes, int n, int code) {
  if (errcodes == MPI_ERRCODES_IGNORE) return;
  for (int i = 0; i < n; ++i) errcodes[i] = code;
}

}  // namespace

extern "C" int PMPI_Open_port(MPI_Info info, char* port_name) {
  MPR_ENTRY;
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
  MPR_ENTRY;
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

extern "C" int PMPI_Comm_accept(const char* port_name, MPI_Info info, int root, MPI_Comm h,
                                MPI_Comm* newcomm) {
  MPR_ENTRY;
  constexpr const char* fn = "MPI_Comm_accept";
  Comm* comm;
  MPR_TRY(check_group_call(fn, h, root, newcomm, &comm));
  std::string port;
  if (comm->rank() == root) {
    Info* ip = nullptr;
    MPR_TRY(check_info(fn, comm, info, true, &ip));
    MPR_TRY(check_arg(fn, comm, port_name, "port_name is NULL"));
    port = port_name;
  }
  Comm* c = nullptr;
  MPR_TRY(raise(comm, comm_accept(fn, port, comm, root, &c)));
  return deliver(c, newcomm);
}
MPR_WEAK_ALIAS(Comm_accept);

extern "C" int PMPI_Comm_connect(const char* port_name, MPI_Info info, int root, MPI_Comm h,
                                 MPI_Comm* newcomm) {
  MPR_ENTRY;
  constexpr const char* fn = "MPI_Comm_connect";
  Comm* comm;
  MPR_TRY(check_group_call(fn, h, root, newcomm, &comm));
  std::string port;
  int64_t timeout_ms = -1;
  if (comm->rank() == root) {
    Info* ip = nullptr;
    MPR_TRY(check_info(fn, comm, info, true, &ip));
    MPR_TRY(check_arg(fn, comm, port_name, "port_name is NULL"));
    port = port_name;
    // "timeout" (seconds), as MPICH reads it: how long to wait for the port's owner to accept.
    if (const std::string* t = ip ? ip->get("timeout") : nullptr) {
      char* end = nullptr;
      const double secs = std::strtod(t->c_str(), &end);
      if (end == t->c_str() || *end || secs < 0)
        return raise_error(comm, MPI_ERR_INFO_VALUE, fn, "info timeout=%s (seconds, a number >= 0)",
                           t->c_str());
      timeout_ms = static_cast<int64_t>(secs * 1000);
    }
  }
  Comm* c = nullptr;
  MPR_TRY(raise(comm, comm_connect(fn, port, comm, root, timeout_ms, &c)));
  return deliver(c, newcomm);
}
MPR_WEAK_ALIAS(Comm_connect);

extern "C" int PMPI_Comm_join(int fd, MPI_Comm* intercomm) {
  MPR_ENTRY;
  constexpr const char* fn = "MPI_Comm_join";
  MPR_TRY(check_running(fn));
  MPR_TRY(check_arg(fn, nullptr, intercomm, "intercomm is NULL"));
  if (fd < 0) return raise_error(nullptr, MPI_ERR_ARG, fn, "invalid socket %d", fd);
  Comm* c = nullptr;
  MPR_TRY(raise(nullptr, comm_join(fn, fd, &c)));
  return deliver(c, intercomm);
}
MPR_WEAK_ALIAS(Comm_join);

extern "C" int PMPI_Comm_spawn(const char* command, char* argv[], int maxprocs, MPI_Info info,
                               int root, MPI_Comm h, MPI_Comm* intercomm, int errcodes[]) {
  MPR_ENTRY;
  constexpr const char* fn = "MPI_Comm_spawn";
  Comm* comm;
  MPR_TRY(check_group_call(fn, h, root, intercomm, &comm));
  std::vector<JobBootstrap::SpawnApp> apps(1);
  if (comm->rank() == root) {
    Info* ip = nullptr;
    MPR_TRY(check_info(fn, comm, info, true, &ip));
    MPR_TRY(read_app(fn, comm, command, argv, maxprocs, ip, &apps[0]));
  }
  Comm* c = nullptr;
  const int rc = comm_spawn(fn, apps, comm, root, &c);
  if (rc != MPI_SUCCESS) {
    if (comm->rank() == root) fill_errcodes(errcodes, maxprocs, rc);
    *intercomm = MPI_COMM_NULL;
    return raise(comm, rc);
  }
  // Every process learns how many started: the remote group's size.
  fill_errcodes(errcodes, c->remote_size(), MPI_SUCCESS);
  return deliver(c, intercomm);
}
MPR_WEAK_ALIAS(Comm_spawn);

extern "C" int PMPI_Comm_spawn_multiple(int count, char* commands[], char** argvs[],
                                        const int maxprocs[], const MPI_Info infos[], int root,
                                        MPI_Comm h, MPI_Comm* intercomm, int errcodes[]) {
  MPR_ENTRY;
  constexpr const char* fn = "MPI_Comm_spawn_multiple";
  Comm* comm;
  MPR_TRY(check_group_call(fn, h, root, intercomm, &comm));
  std::vector<JobBootstrap::SpawnApp> apps;
  int total = 0;
  if (comm->rank() == root) {
    if (count <= 0) return raise_error(comm, MPI_ERR_ARG, fn, "count %d (at least 1)", count);
    MPR_TRY(check_arg(fn, comm, commands, "array_of_commands is NULL"));
    MPR_TRY(check_arg(fn, comm, maxprocs, "array_of_maxprocs is NULL"));
    apps.resize(static_cast<size_t>(count));
    for (int i = 0; i < count; ++i) {
      Info* ip = nullptr;
      MPR_TRY(check_info(fn, comm, infos ? infos[i] : MPI_INFO_NULL, true, &ip));
      char** argv = argvs == MPI_ARGVS_NULL ? MPI_ARGV_NULL : argvs[i];
      MPR_TRY(read_app(fn, comm, commands[i], argv, maxprocs[i], ip, &apps[i]));
      total += maxprocs[i];
    }
  }
  Comm* c = nullptr;
  const int rc = comm_spawn(fn, apps, comm, root, &c);
  if (rc != MPI_SUCCESS) {
    if (comm->rank() == root) fill_errcodes(errcodes, total, rc);
    *intercomm = MPI_COMM_NULL;
    return raise(comm, rc);
  }
  fill_errcodes(errcodes, c->remote_size(), MPI_SUCCESS);
  return deliver(c, intercomm);
}
MPR_WEAK_ALIAS(Comm_spawn_multiple);

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
  MPR_ENTRY;
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
  MPR_ENTRY;
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
  MPR_ENTRY;
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
