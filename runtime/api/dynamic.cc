// Dynamic process management (spawn, ports, names, join): outside what MPR supports. The
// calls exist so programs that mention them link, and each one fails loudly through the
// error handler with MPI_ERR_UNSUPPORTED_OPERATION and the call's name.
#include "runtime/api/handles.h"

using namespace mpr::runtime;
using namespace mpr::runtime::api;

namespace {

constexpr const char* kWhy =
    "dynamic process management (MPR jobs have a fixed set of processes started by mprun or "
    "srun)";

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

extern "C" int PMPI_Open_port(MPI_Info, char*) { return refuse("MPI_Open_port", MPI_COMM_NULL); }
MPR_WEAK_ALIAS(Open_port);

extern "C" int PMPI_Close_port(const char*) { return refuse("MPI_Close_port", MPI_COMM_NULL); }
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

extern "C" int PMPI_Publish_name(const char*, MPI_Info, const char*) {
  return refuse("MPI_Publish_name", MPI_COMM_NULL);
}
MPR_WEAK_ALIAS(Publish_name);

extern "C" int PMPI_Unpublish_name(const char*, MPI_Info, const char*) {
  return refuse("MPI_Unpublish_name", MPI_COMM_NULL);
}
MPR_WEAK_ALIAS(Unpublish_name);

extern "C" int PMPI_Lookup_name(const char*, MPI_Info, char*) {
  return refuse("MPI_Lookup_name", MPI_COMM_NULL);
}
MPR_WEAK_ALIAS(Lookup_name);
