// Datatype queries (predefined types; constructors come with the datatype engine).
#include <cstring>

#include "runtime/api/check.h"
#include "runtime/datatype.h"

using namespace mpr::runtime;
using namespace mpr::runtime::api;

extern "C" int PMPI_Type_size(MPI_Datatype datatype, int* size) {
  constexpr const char* fn = "MPI_Type_size";
  Datatype* dt;
  MPR_TRY(check_arg(fn, nullptr, size, "size is NULL"));
  MPR_TRY(check_type(fn, nullptr, datatype, &dt));
  *size = dt->size > static_cast<size_t>(INT_MAX) ? MPI_UNDEFINED : static_cast<int>(dt->size);
  return MPI_SUCCESS;
}
MPR_WEAK_ALIAS(Type_size);

extern "C" int PMPI_Type_size_x(MPI_Datatype datatype, MPI_Count* size) {
  constexpr const char* fn = "MPI_Type_size_x";
  Datatype* dt;
  MPR_TRY(check_arg(fn, nullptr, size, "size is NULL"));
  MPR_TRY(check_type(fn, nullptr, datatype, &dt));
  *size = static_cast<MPI_Count>(dt->size);
  return MPI_SUCCESS;
}
MPR_WEAK_ALIAS(Type_size_x);

extern "C" int PMPI_Type_get_extent(MPI_Datatype datatype, MPI_Aint* lb, MPI_Aint* extent) {
  constexpr const char* fn = "MPI_Type_get_extent";
  Datatype* dt;
  MPR_TRY(check_arg(fn, nullptr, lb && extent, "lb or extent is NULL"));
  MPR_TRY(check_type(fn, nullptr, datatype, &dt));
  *lb = dt->lb;
  *extent = dt->extent;
  return MPI_SUCCESS;
}
MPR_WEAK_ALIAS(Type_get_extent);

extern "C" int PMPI_Type_get_name(MPI_Datatype datatype, char* type_name, int* resultlen) {
  constexpr const char* fn = "MPI_Type_get_name";
  Datatype* dt;
  MPR_TRY(check_arg(fn, nullptr, type_name && resultlen, "type_name or resultlen is NULL"));
  MPR_TRY(check_type(fn, nullptr, datatype, &dt));
  size_t n = std::strlen(dt->name);
  if (n > MPI_MAX_OBJECT_NAME - 1) n = MPI_MAX_OBJECT_NAME - 1;
  std::memcpy(type_name, dt->name, n);
  type_name[n] = '\0';
  *resultlen = static_cast<int>(n);
  return MPI_SUCCESS;
}
MPR_WEAK_ALIAS(Type_get_name);
