// MPI_Pack / MPI_Unpack / MPI_Pack_size, their "external32" forms, and address arithmetic. The
// packed form is the bytes on the wire: the data of each element in type order, no header (all
// ranks share one data representation), so packed buffers can be sent as MPI_PACKED and received as
// any type with the same signature.
#include <cstdint>
#include <cstring>

#include "runtime/api/check.h"
#include "runtime/dt/cursor.h"
#include "runtime/dt/datatype.h"
#include "runtime/dt/external32.h"

using namespace mpr::runtime;
using namespace mpr::runtime::api;

namespace {

// The checks MPI_Pack and MPI_Unpack share; *bytes is the packed size of `count` elements.
int check_pack(const char* fn, MPI_Comm h, int count, MPI_Datatype type, const int* position,
               int packed_size, const void* packed, Comm** comm, Datatype** dt, size_t* bytes) {
  MPR_TRY(check_comm(fn, h, comm));
  MPR_TRY(check_count(fn, *comm, count));
  MPR_TRY(check_type(fn, *comm, type, dt));
  MPR_TRY(check_arg(fn, *comm, position != nullptr, "position is NULL"));
  if (*position < 0 || packed_size < 0 || *position > packed_size)
    return raise_error(*comm, MPI_ERR_ARG, fn, "position %d outside the %d-byte packed buffer",
                       *position, packed_size);
  *bytes = static_cast<size_t>(count) * (*dt)->size;
  if (*bytes > static_cast<size_t>(packed_size - *position))
    return raise_error(*comm, MPI_ERR_TRUNCATE, fn,
                       "%zu bytes do not fit at position %d of the %d-byte packed buffer", *bytes,
                       *position, packed_size);
  if (*bytes > 0 && !packed) return raise_error(*comm, MPI_ERR_BUFFER, fn, "packed buffer is NULL");
  return MPI_SUCCESS;
}

}  // namespace

extern "C" int PMPI_Pack(const void* inbuf, int incount, MPI_Datatype datatype, void* outbuf,
                         int outsize, int* position, MPI_Comm h) {
  constexpr const char* fn = "MPI_Pack";
  Comm* comm;
  Datatype* dt;
  size_t bytes;
  MPR_TRY(check_pack(fn, h, incount, datatype, position, outsize, outbuf, &comm, &dt, &bytes));
  MPR_TRY(check_buffer(fn, comm, inbuf, incount, dt));
  dt->pack(inbuf, static_cast<size_t>(incount), static_cast<char*>(outbuf) + *position);
  *position += static_cast<int>(bytes);
  return MPI_SUCCESS;
}
MPR_WEAK_ALIAS(Pack);

extern "C" int PMPI_Unpack(const void* inbuf, int insize, int* position, void* outbuf, int outcount,
                           MPI_Datatype datatype, MPI_Comm h) {
  constexpr const char* fn = "MPI_Unpack";
  Comm* comm;
  Datatype* dt;
  size_t bytes;
  MPR_TRY(check_pack(fn, h, outcount, datatype, position, insize, inbuf, &comm, &dt, &bytes));
  MPR_TRY(check_buffer(fn, comm, outbuf, outcount, dt));
  dt->unpack(static_cast<const char*>(inbuf) + *position, bytes, outbuf);
  *position += static_cast<int>(bytes);
  return MPI_SUCCESS;
}
MPR_WEAK_ALIAS(Unpack);

extern "C" int PMPI_Pack_size(int incount, MPI_Datatype datatype, MPI_Comm h, int* size) {
  constexpr const char* fn = "MPI_Pack_size";
  Comm* comm;
  Datatype* dt;
  MPR_TRY(check_comm(fn, h, &comm));
  MPR_TRY(check_count(fn, comm, incount));
  MPR_TRY(check_type(fn, comm, datatype, &dt));
  MPR_TRY(check_arg(fn, comm, size != nullptr, "size is NULL"));
  size_t bytes = static_cast<size_t>(incount) * dt->size;
  if (bytes > static_cast<size_t>(INT_MAX))
    return raise_error(comm, MPI_ERR_COUNT, fn,
                       "%d elements of %s pack to %zu bytes, more than an int can hold", incount,
                       dt->label().c_str(), bytes);
  *size = static_cast<int>(bytes);
  return MPI_SUCCESS;
}
MPR_WEAK_ALIAS(Pack_size);

namespace {

// The checks of the external32 calls; *dt is committed, datarep is "external32".
int check_external(const char* fn, const char* datarep, int count, MPI_Datatype type,
                   Datatype** dt) {
  MPR_TRY(check_arg(fn, nullptr, datarep != nullptr, "datarep is NULL"));
  if (std::strcmp(datarep, "external32") != 0)
    return raise_error(nullptr, MPI_ERR_UNSUPPORTED_DATAREP, fn,
                       "unsupported data representation \"%s\" (only \"external32\")", datarep);
  MPR_TRY(check_count(fn, nullptr, count));
  return check_type(fn, nullptr, type, dt);
}

int check_position(const char* fn, const MPI_Aint* position, MPI_Aint size, size_t bytes,
                   const void* packed) {
  MPR_TRY(check_arg(fn, nullptr, position != nullptr, "position is NULL"));
  if (*position < 0 || size < 0 || *position > size)
    return raise_error(nullptr, MPI_ERR_ARG, fn, "position %ld outside the %ld-byte packed buffer",
                       static_cast<long>(*position), static_cast<long>(size));
  if (bytes > static_cast<size_t>(size - *position))
    return raise_error(nullptr, MPI_ERR_TRUNCATE, fn,
                       "%zu bytes do not fit at position %ld of the %ld-byte packed buffer", bytes,
                       static_cast<long>(*position), static_cast<long>(size));
  if (bytes > 0 && !packed)
    return raise_error(nullptr, MPI_ERR_BUFFER, fn, "packed buffer is NULL");
  return MPI_SUCCESS;
}

}  // namespace

extern "C" int PMPI_Pack_external(const char datarep[], const void* inbuf, int incount,
                                  MPI_Datatype datatype, void* outbuf, MPI_Aint outsize,
                                  MPI_Aint* position) {
  constexpr const char* fn = "MPI_Pack_external";
  Datatype* dt;
  MPR_TRY(check_external(fn, datarep, incount, datatype, &dt));
  MPR_TRY(check_buffer(fn, nullptr, inbuf, incount, dt));
  const auto count = static_cast<size_t>(incount);
  const size_t bytes = dt::external32_size(dt, count);
  MPR_TRY(check_position(fn, position, outsize, bytes, outbuf));
  if (bytes > 0) dt::external32_pack(dt, inbuf, count, static_cast<char*>(outbuf) + *position);
  *position += static_cast<MPI_Aint>(bytes);
  return MPI_SUCCESS;
}
MPR_WEAK_ALIAS(Pack_external);

extern "C" int PMPI_Unpack_external(const char datarep[], const void* inbuf, MPI_Aint insize,
                                    MPI_Aint* position, void* outbuf, int outcount,
                                    MPI_Datatype datatype) {
  constexpr const char* fn = "MPI_Unpack_external";
  Datatype* dt;
  MPR_TRY(check_external(fn, datarep, outcount, datatype, &dt));
  MPR_TRY(check_buffer(fn, nullptr, outbuf, outcount, dt));
  const auto count = static_cast<size_t>(outcount);
  const size_t bytes = dt::external32_size(dt, count);
  MPR_TRY(check_position(fn, position, insize, bytes, inbuf));
  if (bytes > 0)
    dt::external32_unpack(dt, static_cast<const char*>(inbuf) + *position, count, outbuf);
  *position += static_cast<MPI_Aint>(bytes);
  return MPI_SUCCESS;
}
MPR_WEAK_ALIAS(Unpack_external);

extern "C" int PMPI_Pack_external_size(const char datarep[], int incount, MPI_Datatype datatype,
                                       MPI_Aint* size) {
  constexpr const char* fn = "MPI_Pack_external_size";
  Datatype* dt;
  MPR_TRY(check_external(fn, datarep, incount, datatype, &dt));
  MPR_TRY(check_arg(fn, nullptr, size != nullptr, "size is NULL"));
  *size = static_cast<MPI_Aint>(dt::external32_size(dt, static_cast<size_t>(incount)));
  return MPI_SUCCESS;
}
MPR_WEAK_ALIAS(Pack_external_size);

extern "C" int PMPI_Get_address(const void* location, MPI_Aint* address) {
  MPR_TRY(check_arg("MPI_Get_address", nullptr, address != nullptr, "address is NULL"));
  *address = reinterpret_cast<MPI_Aint>(location);
  return MPI_SUCCESS;
}
MPR_WEAK_ALIAS(Get_address);

// Wrap-around arithmetic: addresses are unsigned underneath, and MPI_BOTTOM-relative
// displacements may cross zero.
extern "C" MPI_Aint PMPI_Aint_add(MPI_Aint base, MPI_Aint disp) {
  return static_cast<MPI_Aint>(static_cast<uintptr_t>(base) + static_cast<uintptr_t>(disp));
}
MPR_WEAK_ALIAS(Aint_add);

extern "C" MPI_Aint PMPI_Aint_diff(MPI_Aint addr1, MPI_Aint addr2) {
  return static_cast<MPI_Aint>(static_cast<uintptr_t>(addr1) - static_cast<uintptr_t>(addr2));
}
MPR_WEAK_ALIAS(Aint_diff);
