// MPI_Pack / MPI_Unpack / MPI_Pack_size, their "external32" forms, and address arithmetic. The
// packed form is the bytes on the wire: the data of each element in type order, no header (all
// ranks share one data representation), so packed buffers can be sent as MPI_PACKED and received as
// any type with the same signature.
#include <cstdint>
#include <cstring>
#include <limits>

#include "runtime/api/check.h"
#include "runtime/dt/cursor.h"
#include "runtime/dt/datatype.h"
#include "runtime/dt/external32.h"

using namespace mpr::runtime;
using namespace mpr::runtime::api;

namespace {

// MPI_Pack, MPI_Unpack and MPI_Pack_size, shared by the int and _c forms: Pos is the type of
// the position and size arguments (int or MPI_Count).

// The checks MPI_Pack and MPI_Unpack share; *bytes is the packed size of `count` elements.
template <class Pos>
int check_pack(const char* fn, MPI_Comm h, MPI_Count count, MPI_Datatype type, const Pos* position,
               Pos packed_size, const void* packed, Comm** comm, Datatype** dt, size_t* bytes) {
  MPR_TRY(check_comm(fn, h, comm));
  MPR_TRY(check_count(fn, *comm, count));
  MPR_TRY(check_type(fn, *comm, type, dt));
  MPR_TRY(check_arg(fn, *comm, position != nullptr, "position is NULL"));
  const auto at = static_cast<long long>(*position), size = static_cast<long long>(packed_size);
  if (at < 0 || size < 0 || at > size)
    return raise_error(*comm, MPI_ERR_ARG, fn, "position %lld outside the %lld-byte packed buffer",
                       at, size);
  *bytes = static_cast<size_t>(count) * (*dt)->size;
  if (*bytes > static_cast<size_t>(size - at))
    return raise_error(*comm, MPI_ERR_TRUNCATE, fn,
                       "%zu bytes do not fit at position %lld of the %lld-byte packed buffer",
                       *bytes, at, size);
  if (*bytes > 0 && !packed) return raise_error(*comm, MPI_ERR_BUFFER, fn, "packed buffer is NULL");
  return MPI_SUCCESS;
}

template <class Pos>
int pack(const char* fn, const void* inbuf, MPI_Count incount, MPI_Datatype datatype, void* outbuf,
         Pos outsize, Pos* position, MPI_Comm h) {
  Comm* comm;
  Datatype* dt;
  size_t bytes;
  MPR_TRY(check_pack(fn, h, incount, datatype, position, outsize, outbuf, &comm, &dt, &bytes));
  MPR_TRY(check_buffer(fn, comm, inbuf, incount, dt));
  dt->pack(inbuf, static_cast<size_t>(incount), static_cast<char*>(outbuf) + *position);
  *position += static_cast<Pos>(bytes);  // fits: at most outsize
  return MPI_SUCCESS;
}

template <class Pos>
int unpack(const char* fn, const void* inbuf, Pos insize, Pos* position, void* outbuf,
           MPI_Count outcount, MPI_Datatype datatype, MPI_Comm h) {
  Comm* comm;
  Datatype* dt;
  size_t bytes;
  MPR_TRY(check_pack(fn, h, outcount, datatype, position, insize, inbuf, &comm, &dt, &bytes));
  MPR_TRY(check_buffer(fn, comm, outbuf, outcount, dt));
  dt->unpack(static_cast<const char*>(inbuf) + *position, bytes, outbuf);
  *position += static_cast<Pos>(bytes);
  return MPI_SUCCESS;
}

template <class Pos>
int pack_size(const char* fn, MPI_Count incount, MPI_Datatype datatype, MPI_Comm h, Pos* size) {
  Comm* comm;
  Datatype* dt;
  MPR_TRY(check_comm(fn, h, &comm));
  MPR_TRY(check_count(fn, comm, incount));
  MPR_TRY(check_type(fn, comm, datatype, &dt));
  MPR_TRY(check_arg(fn, comm, size != nullptr, "size is NULL"));
  const auto max = static_cast<size_t>(std::numeric_limits<Pos>::max());
  if (dt->size > 0 && static_cast<size_t>(incount) > max / dt->size)
    return raise_error(comm, MPI_ERR_COUNT, fn,
                       "%lld elements of %s pack to more than %zu bytes, more than %s can hold",
                       static_cast<long long>(incount), dt->label().c_str(), max,
                       sizeof(Pos) == sizeof(int) ? "an int" : "an MPI_Count");
  *size = static_cast<Pos>(static_cast<size_t>(incount) * dt->size);
  return MPI_SUCCESS;
}

}  // namespace

extern "C" int PMPI_Pack(const void* inbuf, int incount, MPI_Datatype datatype, void* outbuf,
                         int outsize, int* position, MPI_Comm h) {
  MPR_ENTRY;
  return pack("MPI_Pack", inbuf, incount, datatype, outbuf, outsize, position, h);
}
MPR_WEAK_ALIAS(Pack);

extern "C" int PMPI_Pack_c(const void* inbuf, MPI_Count incount, MPI_Datatype datatype,
                           void* outbuf, MPI_Count outsize, MPI_Count* position, MPI_Comm h) {
  MPR_ENTRY;
  return pack("MPI_Pack_c", inbuf, incount, datatype, outbuf, outsize, position, h);
}
MPR_WEAK_ALIAS(Pack_c);

extern "C" int PMPI_Unpack(const void* inbuf, int insize, int* position, void* outbuf, int outcount,
                           MPI_Datatype datatype, MPI_Comm h) {
  MPR_ENTRY;
  return unpack("MPI_Unpack", inbuf, insize, position, outbuf, outcount, datatype, h);
}
MPR_WEAK_ALIAS(Unpack);

extern "C" int PMPI_Unpack_c(const void* inbuf, MPI_Count insize, MPI_Count* position, void* outbuf,
                             MPI_Count outcount, MPI_Datatype datatype, MPI_Comm h) {
  MPR_ENTRY;
  return unpack("MPI_Unpack_c", inbuf, insize, position, outbuf, outcount, datatype, h);
}
MPR_WEAK_ALIAS(Unpack_c);

extern "C" int PMPI_Pack_size(int incount, MPI_Datatype datatype, MPI_Comm h, int* size) {
  MPR_ENTRY;
  return pack_size("MPI_Pack_size", incount, datatype, h, size);
}
MPR_WEAK_ALIAS(Pack_size);

extern "C" int PMPI_Pack_size_c(MPI_Count incount, MPI_Datatype datatype, MPI_Comm h,
                                MPI_Count* size) {
  MPR_ENTRY;
  return pack_size("MPI_Pack_size_c", incount, datatype, h, size);
}
MPR_WEAK_ALIAS(Pack_size_c);

namespace {

// The external32 calls, int and _c forms: Pos is MPI_Aint or MPI_Count.

// The checks of the external32 calls; *dt is committed, datarep is "external32".
int check_external(const char* fn, const char* datarep, MPI_Count count, MPI_Datatype type,
                   Datatype** dt) {
  MPR_TRY(check_arg(fn, nullptr, datarep != nullptr, "datarep is NULL"));
  if (std::strcmp(datarep, "external32") != 0)
    return raise_error(nullptr, MPI_ERR_UNSUPPORTED_DATAREP, fn,
                       "unsupported data representation \"%s\" (only \"external32\")", datarep);
  MPR_TRY(check_count(fn, nullptr, count));
  return check_type(fn, nullptr, type, dt);
}

template <class Pos>
int check_position(const char* fn, const Pos* position, Pos size, size_t bytes,
                   const void* packed) {
  MPR_TRY(check_arg(fn, nullptr, position != nullptr, "position is NULL"));
  const auto at = static_cast<long long>(*position), total = static_cast<long long>(size);
  if (at < 0 || total < 0 || at > total)
    return raise_error(nullptr, MPI_ERR_ARG, fn,
                       "position %lld outside the %lld-byte packed buffer", at, total);
  if (bytes > static_cast<size_t>(total - at))
    return raise_error(nullptr, MPI_ERR_TRUNCATE, fn,
                       "%zu bytes do not fit at position %lld of the %lld-byte packed buffer",
                       bytes, at, total);
  if (bytes > 0 && !packed)
    return raise_error(nullptr, MPI_ERR_BUFFER, fn, "packed buffer is NULL");
  return MPI_SUCCESS;
}

template <class Pos>
int pack_external(const char* fn, const char* datarep, const void* inbuf, MPI_Count incount,
                  MPI_Datatype datatype, void* outbuf, Pos outsize, Pos* position) {
  Datatype* dt;
  MPR_TRY(check_external(fn, datarep, incount, datatype, &dt));
  MPR_TRY(check_buffer(fn, nullptr, inbuf, incount, dt));
  const auto count = static_cast<size_t>(incount);
  const size_t bytes = dt::external32_size(dt, count);
  MPR_TRY(check_position(fn, position, outsize, bytes, outbuf));
  if (bytes > 0) dt::external32_pack(dt, inbuf, count, static_cast<char*>(outbuf) + *position);
  *position += static_cast<Pos>(bytes);
  return MPI_SUCCESS;
}

template <class Pos>
int unpack_external(const char* fn, const char* datarep, const void* inbuf, Pos insize,
                    Pos* position, void* outbuf, MPI_Count outcount, MPI_Datatype datatype) {
  Datatype* dt;
  MPR_TRY(check_external(fn, datarep, outcount, datatype, &dt));
  MPR_TRY(check_buffer(fn, nullptr, outbuf, outcount, dt));
  const auto count = static_cast<size_t>(outcount);
  const size_t bytes = dt::external32_size(dt, count);
  MPR_TRY(check_position(fn, position, insize, bytes, inbuf));
  if (bytes > 0)
    dt::external32_unpack(dt, static_cast<const char*>(inbuf) + *position, count, outbuf);
  *position += static_cast<Pos>(bytes);
  return MPI_SUCCESS;
}

template <class Pos>
int pack_external_size(const char* fn, const char* datarep, MPI_Count incount,
                       MPI_Datatype datatype, Pos* size) {
  Datatype* dt;
  MPR_TRY(check_external(fn, datarep, incount, datatype, &dt));
  MPR_TRY(check_arg(fn, nullptr, size != nullptr, "size is NULL"));
  *size = static_cast<Pos>(dt::external32_size(dt, static_cast<size_t>(incount)));
  return MPI_SUCCESS;
}

}  // namespace

extern "C" int PMPI_Pack_external(const char datarep[], const void* inbuf, int incount,
                                  MPI_Datatype datatype, void* outbuf, MPI_Aint outsize,
                                  MPI_Aint* position) {
  MPR_ENTRY;
  return pack_external("MPI_Pack_external", datarep, inbuf, incount, datatype, outbuf, outsize,
                       position);
}
MPR_WEAK_ALIAS(Pack_external);

extern "C" int PMPI_Pack_external_c(const char datarep[], const void* inbuf, MPI_Count incount,
                                    MPI_Datatype datatype, void* outbuf, MPI_Count outsize,
                                    MPI_Count* position) {
  MPR_ENTRY;
  return pack_external("MPI_Pack_external_c", datarep, inbuf, incount, datatype, outbuf, outsize,
                       position);
}
MPR_WEAK_ALIAS(Pack_external_c);

extern "C" int PMPI_Unpack_external(const char datarep[], const void* inbuf, MPI_Aint insize,
                                    MPI_Aint* position, void* outbuf, int outcount,
                                    MPI_Datatype datatype) {
  MPR_ENTRY;
  return unpack_external("MPI_Unpack_external", datarep, inbuf, insize, position, outbuf, outcount,
                         datatype);
}
MPR_WEAK_ALIAS(Unpack_external);

extern "C" int PMPI_Unpack_external_c(const char datarep[], const void* inbuf, MPI_Count insize,
                                      MPI_Count* position, void* outbuf, MPI_Count outcount,
                                      MPI_Datatype datatype) {
  MPR_ENTRY;
  return unpack_external("MPI_Unpack_external_c", datarep, inbuf, insize, position, outbuf,
                         outcount, datatype);
}
MPR_WEAK_ALIAS(Unpack_external_c);

extern "C" int PMPI_Pack_external_size(const char datarep[], int incount, MPI_Datatype datatype,
                                       MPI_Aint* size) {
  MPR_ENTRY;
  return pack_external_size("MPI_Pack_external_size", datarep, incount, datatype, size);
}
MPR_WEAK_ALIAS(Pack_external_size);

extern "C" int PMPI_Pack_external_size_c(const char datarep[], MPI_Count incount,
                                         MPI_Datatype datatype, MPI_Count* size) {
  MPR_ENTRY;
  return pack_external_size("MPI_Pack_external_size_c", datarep, incount, datatype, size);
}
MPR_WEAK_ALIAS(Pack_external_size_c);

extern "C" int PMPI_Get_address(const void* location, MPI_Aint* address) {
  MPR_ENTRY;
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
