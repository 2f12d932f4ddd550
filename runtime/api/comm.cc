// Communicator queries and management: rank/size, dup/free, compare, names.
#include <cstring>

#include "runtime/api/check.h"
#include "runtime/comm.h"

using namespace mpr::runtime;
using namespace mpr::runtime::api;

extern "C" int PMPI_Comm_rank(MPI_Comm h, int* rank) {
  constexpr const char* fn = "MPI_Comm_rank";
  Comm* comm;
  MPR_TRY(check_running(fn));
  MPR_TRY(check_comm(fn, h, &comm));
  MPR_TRY(check_arg(fn, comm, rank, "rank is NULL"));
  *rank = comm->rank();
  return MPI_SUCCESS;
}
MPR_WEAK_ALIAS(Comm_rank);

extern "C" int PMPI_Comm_size(MPI_Comm h, int* size) {
  constexpr const char* fn = "MPI_Comm_size";
  Comm* comm;
  MPR_TRY(check_running(fn));
  MPR_TRY(check_comm(fn, h, &comm));
  MPR_TRY(check_arg(fn, comm, size, "size is NULL"));
  *size = comm->size();
  return MPI_SUCCESS;
}
MPR_WEAK_ALIAS(Comm_size);

extern "C" int PMPI_Comm_dup(MPI_Comm h, MPI_Comm* newcomm) {
  constexpr const char* fn = "MPI_Comm_dup";
  Comm* comm;
  MPR_TRY(check_running(fn));
  MPR_TRY(check_comm(fn, h, &comm));
  MPR_TRY(check_arg(fn, comm, newcomm, "newcomm is NULL"));
  Comm* dup = nullptr;
  MPR_TRY(raise(comm, comm_dup(comm, &dup)));
  *newcomm = dup->handle();
  return MPI_SUCCESS;
}
MPR_WEAK_ALIAS(Comm_dup);

extern "C" int PMPI_Comm_free(MPI_Comm* h) {
  constexpr const char* fn = "MPI_Comm_free";
  MPR_TRY(check_running(fn));
  MPR_TRY(check_arg(fn, nullptr, h, "comm is NULL"));
  Comm* comm;
  MPR_TRY(check_comm(fn, *h, &comm));
  if (comm->predefined())
    return raise_error(comm, MPI_ERR_COMM, fn, "cannot free %s", comm->name().c_str());
  comm->mark_freed();
  comm->release();
  *h = MPI_COMM_NULL;
  return MPI_SUCCESS;
}
MPR_WEAK_ALIAS(Comm_free);

extern "C" int PMPI_Comm_compare(MPI_Comm h1, MPI_Comm h2, int* result) {
  constexpr const char* fn = "MPI_Comm_compare";
  Comm *a, *b;
  MPR_TRY(check_running(fn));
  MPR_TRY(check_comm(fn, h1, &a));
  MPR_TRY(check_comm(fn, h2, &b));
  MPR_TRY(check_arg(fn, a, result, "result is NULL"));
  *result = comm_compare(a, b);
  return MPI_SUCCESS;
}
MPR_WEAK_ALIAS(Comm_compare);

extern "C" int PMPI_Comm_get_name(MPI_Comm h, char* comm_name, int* resultlen) {
  constexpr const char* fn = "MPI_Comm_get_name";
  Comm* comm;
  MPR_TRY(check_running(fn));
  MPR_TRY(check_comm(fn, h, &comm));
  MPR_TRY(check_arg(fn, comm, comm_name && resultlen, "comm_name or resultlen is NULL"));
  size_t n = comm->name().size();
  if (n > MPI_MAX_OBJECT_NAME - 1) n = MPI_MAX_OBJECT_NAME - 1;
  std::memcpy(comm_name, comm->name().data(), n);
  comm_name[n] = '\0';
  *resultlen = static_cast<int>(n);
  return MPI_SUCCESS;
}
MPR_WEAK_ALIAS(Comm_get_name);

extern "C" int PMPI_Comm_set_name(MPI_Comm h, const char* comm_name) {
  constexpr const char* fn = "MPI_Comm_set_name";
  Comm* comm;
  MPR_TRY(check_running(fn));
  MPR_TRY(check_comm(fn, h, &comm));
  MPR_TRY(check_arg(fn, comm, comm_name, "comm_name is NULL"));
  comm->set_name(std::string(comm_name, strnlen(comm_name, MPI_MAX_OBJECT_NAME - 1)));
  return MPI_SUCCESS;
}
MPR_WEAK_ALIAS(Comm_set_name);
