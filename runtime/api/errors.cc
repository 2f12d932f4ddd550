// Error handlers and error codes.
#include <cstring>

#include "runtime/api/check.h"
#include "runtime/core/errors.h"

using namespace mpr::runtime;
using namespace mpr::runtime::api;

namespace {

int check_errhandler(const char* fn, Comm* comm, MPI_Errhandler h, Errhandler** out) {
  *out = to_errhandler(h);
  if (*out) return MPI_SUCCESS;
  return raise_error(comm, MPI_ERR_ARG, fn, "invalid error handler %p", static_cast<void*>(h));
}

}  // namespace

extern "C" int PMPI_Comm_set_errhandler(MPI_Comm h, MPI_Errhandler errhandler) {
  MPR_ENTRY;
  constexpr const char* fn = "MPI_Comm_set_errhandler";
  Comm* comm;
  Errhandler* eh;
  MPR_TRY(check_running(fn));
  MPR_TRY(check_comm(fn, h, &comm));
  MPR_TRY(check_errhandler(fn, comm, errhandler, &eh));
  comm->set_errhandler(eh);
  return MPI_SUCCESS;
}
MPR_WEAK_ALIAS(Comm_set_errhandler);

extern "C" int PMPI_Comm_get_errhandler(MPI_Comm h, MPI_Errhandler* errhandler) {
  MPR_ENTRY;
  constexpr const char* fn = "MPI_Comm_get_errhandler";
  Comm* comm;
  MPR_TRY(check_running(fn));
  MPR_TRY(check_comm(fn, h, &comm));
  MPR_TRY(check_arg(fn, comm, errhandler, "errhandler is NULL"));
  // The caller gets a reference of its own, dropped by MPI_Errhandler_free.
  errhandler_retain(comm->errhandler());
  *errhandler = comm->errhandler()->handle;
  return MPI_SUCCESS;
}
MPR_WEAK_ALIAS(Comm_get_errhandler);

// The MPI-1 names MPI 3.0 removed, kept for older codes.
extern "C" int PMPI_Errhandler_set(MPI_Comm comm, MPI_Errhandler errhandler) {
  MPR_ENTRY;
  return PMPI_Comm_set_errhandler(comm, errhandler);
}
MPR_WEAK_ALIAS(Errhandler_set);

extern "C" int PMPI_Errhandler_get(MPI_Comm comm, MPI_Errhandler* errhandler) {
  MPR_ENTRY;
  return PMPI_Comm_get_errhandler(comm, errhandler);
}
MPR_WEAK_ALIAS(Errhandler_get);

extern "C" int PMPI_Errhandler_create(MPI_Handler_function* function, MPI_Errhandler* errhandler) {
  MPR_ENTRY;
  return PMPI_Comm_create_errhandler(function, errhandler);
}
MPR_WEAK_ALIAS(Errhandler_create);

extern "C" int PMPI_Comm_create_errhandler(MPI_Comm_errhandler_function* function,
                                           MPI_Errhandler* errhandler) {
  MPR_ENTRY;
  constexpr const char* fn = "MPI_Comm_create_errhandler";
  MPR_TRY(check_running(fn));
  MPR_TRY(check_arg(fn, nullptr, function && errhandler, "function or errhandler is NULL"));
  auto* eh = new Errhandler;
  eh->kind = Errhandler::Kind::kUser;
  eh->fn = function;
  eh->handle = reinterpret_cast<MPI_Errhandler>(eh);
  *errhandler = eh->handle;
  return MPI_SUCCESS;
}
MPR_WEAK_ALIAS(Comm_create_errhandler);

extern "C" int PMPI_Comm_call_errhandler(MPI_Comm h, int errorcode) {
  MPR_ENTRY;
  constexpr const char* fn = "MPI_Comm_call_errhandler";
  Comm* comm;
  MPR_TRY(check_running(fn));
  MPR_TRY(check_comm(fn, h, &comm));
  raise(comm, errorcode);
  return MPI_SUCCESS;
}
MPR_WEAK_ALIAS(Comm_call_errhandler);

extern "C" int PMPI_Errhandler_free(MPI_Errhandler* errhandler) {
  MPR_ENTRY;
  constexpr const char* fn = "MPI_Errhandler_free";
  Errhandler* eh;
  MPR_TRY(check_running(fn));
  MPR_TRY(check_arg(fn, nullptr, errhandler, "errhandler is NULL"));
  MPR_TRY(check_errhandler(fn, nullptr, *errhandler, &eh));
  errhandler_release(eh);
  *errhandler = MPI_ERRHANDLER_NULL;
  return MPI_SUCCESS;
}
MPR_WEAK_ALIAS(Errhandler_free);

extern "C" int PMPI_Error_string(int errorcode, char* string, int* resultlen) {
  MPR_ENTRY;
  constexpr const char* fn = "MPI_Error_string";
  MPR_TRY(check_arg(fn, nullptr, string && resultlen, "string or resultlen is NULL"));
  if (!is_error_code(errorcode))
    return raise_error(nullptr, MPI_ERR_ARG, fn, "invalid error code %d", errorcode);
  std::string text = error_string(errorcode);
  size_t n = text.size() < MPI_MAX_ERROR_STRING - 1 ? text.size() : MPI_MAX_ERROR_STRING - 1;
  std::memcpy(string, text.data(), n);
  string[n] = '\0';
  *resultlen = static_cast<int>(n);
  return MPI_SUCCESS;
}
MPR_WEAK_ALIAS(Error_string);

extern "C" int PMPI_Error_class(int errorcode, int* errorclass) {
  MPR_ENTRY;
  constexpr const char* fn = "MPI_Error_class";
  MPR_TRY(check_arg(fn, nullptr, errorclass, "errorclass is NULL"));
  if (!is_error_code(errorcode))
    return raise_error(nullptr, MPI_ERR_ARG, fn, "invalid error code %d", errorcode);
  *errorclass = error_class_of(errorcode);
  return MPI_SUCCESS;
}
MPR_WEAK_ALIAS(Error_class);
