// The predefined datatype table against the C types, and the pack/unpack/element arithmetic
// non-contiguous pair types rely on.
#include <catch2/catch.hpp>
#include <complex>
#include <cstddef>
#include <cstring>
#include <string>
#include <vector>

#include "runtime/dt/datatype.h"

using namespace mpr::runtime;

namespace {

struct Expect {
  MPI_Datatype handle;
  const char* name;
  size_t size;
  size_t extent;
};

template <class V, class I = int>
struct Pair {
  V value;
  I index;
};

template <class V, class I = int>
constexpr Expect pair(MPI_Datatype h, const char* name) {
  return {h, name, sizeof(V) + sizeof(I), sizeof(Pair<V, I>)};
}

template <class T>
constexpr Expect scalar(MPI_Datatype h, const char* name) {
  return {h, name, sizeof(T), sizeof(T)};
}

const Expect kExpected[] = {
    scalar<char>(MPI_CHAR, "MPI_CHAR"),
    scalar<signed char>(MPI_SIGNED_CHAR, "MPI_SIGNED_CHAR"),
    scalar<unsigned char>(MPI_UNSIGNED_CHAR, "MPI_UNSIGNED_CHAR"),
    scalar<unsigned char>(MPI_BYTE, "MPI_BYTE"),
    scalar<wchar_t>(MPI_WCHAR, "MPI_WCHAR"),
    scalar<short>(MPI_SHORT, "MPI_SHORT"),
    scalar<unsigned short>(MPI_UNSIGNED_SHORT, "MPI_UNSIGNED_SHORT"),
    scalar<int>(MPI_INT, "MPI_INT"),
    scalar<unsigned>(MPI_UNSIGNED, "MPI_UNSIGNED"),
    scalar<long>(MPI_LONG, "MPI_LONG"),
    scalar<unsigned long>(MPI_UNSIGNED_LONG, "MPI_UNSIGNED_LONG"),
    scalar<long long>(MPI_LONG_LONG_INT, "MPI_LONG_LONG_INT"),
    scalar<long long>(MPI_LONG_LONG, "MPI_LONG_LONG_INT"),
    scalar<unsigned long long>(MPI_UNSIGNED_LONG_LONG, "MPI_UNSIGNED_LONG_LONG"),
    scalar<float>(MPI_FLOAT, "MPI_FLOAT"),
    scalar<double>(MPI_DOUBLE, "MPI_DOUBLE"),
    scalar<long double>(MPI_LONG_DOUBLE, "MPI_LONG_DOUBLE"),
    scalar<bool>(MPI_C_BOOL, "MPI_C_BOOL"),
    scalar<int8_t>(MPI_INT8_T, "MPI_INT8_T"),
    scalar<int16_t>(MPI_INT16_T, "MPI_INT16_T"),
    scalar<int32_t>(MPI_INT32_T, "MPI_INT32_T"),
    scalar<int64_t>(MPI_INT64_T, "MPI_INT64_T"),
    scalar<uint8_t>(MPI_UINT8_T, "MPI_UINT8_T"),
    scalar<uint16_t>(MPI_UINT16_T, "MPI_UINT16_T"),
    scalar<uint32_t>(MPI_UINT32_T, "MPI_UINT32_T"),
    scalar<uint64_t>(MPI_UINT64_T, "MPI_UINT64_T"),
    scalar<std::complex<float>>(MPI_C_COMPLEX, "MPI_C_COMPLEX"),  // one type, the two names synonyms: MPI_C_COMPLEX is the one reported
    scalar<std::complex<float>>(MPI_C_FLOAT_COMPLEX, "MPI_C_COMPLEX"),
    scalar<std::complex<double>>(MPI_C_DOUBLE_COMPLEX, "MPI_C_DOUBLE_COMPLEX"),
    scalar<std::complex<long double>>(MPI_C_LONG_DOUBLE_COMPLEX, "MPI_C_LONG_DOUBLE_COMPLEX"),
    scalar<MPI_Aint>(MPI_AINT, "MPI_AINT"),
    scalar<MPI_Offset>(MPI_OFFSET, "MPI_OFFSET"),
    scalar<MPI_Count>(MPI_COUNT, "MPI_COUNT"),
    scalar<char>(MPI_PACKED, "MPI_PACKED"),
    scalar<bool>(MPI_CXX_BOOL, "MPI_CXX_BOOL"),
    scalar<std::complex<float>>(MPI_CXX_FLOAT_COMPLEX, "MPI_CXX_FLOAT_COMPLEX"),
    scalar<std::complex<double>>(MPI_CXX_DOUBLE_COMPLEX, "MPI_CXX_DOUBLE_COMPLEX"),
    scalar<std::complex<long double>>(MPI_CXX_LONG_DOUBLE_COMPLEX, "MPI_CXX_LONG_DOUBLE_COMPLEX"),
    pair<float>(MPI_FLOAT_INT, "MPI_FLOAT_INT"),
    pair<double>(MPI_DOUBLE_INT, "MPI_DOUBLE_INT"),
    pair<long>(MPI_LONG_INT, "MPI_LONG_INT"),
    pair<int>(MPI_2INT, "MPI_2INT"),
    pair<short>(MPI_SHORT_INT, "MPI_SHORT_INT"),
    pair<long double>(MPI_LONG_DOUBLE_INT, "MPI_LONG_DOUBLE_INT"),
    {MPI_INTEGER, "MPI_INTEGER", 4, 4},
    {MPI_REAL, "MPI_REAL", 4, 4},
    {MPI_DOUBLE_PRECISION, "MPI_DOUBLE_PRECISION", 8, 8},
    {MPI_COMPLEX, "MPI_COMPLEX", 8, 8},
    {MPI_DOUBLE_COMPLEX, "MPI_DOUBLE_COMPLEX", 16, 16},
    {MPI_LOGICAL, "MPI_LOGICAL", 4, 4},
    {MPI_CHARACTER, "MPI_CHARACTER", 1, 1},
    {MPI_2REAL, "MPI_2REAL", 8, 8},
    {MPI_2DOUBLE_PRECISION, "MPI_2DOUBLE_PRECISION", 16, 16},
    {MPI_2INTEGER, "MPI_2INTEGER", 8, 8},
    {MPI_INTEGER1, "MPI_INTEGER1", 1, 1},
    {MPI_INTEGER2, "MPI_INTEGER2", 2, 2},
    {MPI_INTEGER4, "MPI_INTEGER4", 4, 4},
    {MPI_INTEGER8, "MPI_INTEGER8", 8, 8},
    {MPI_REAL4, "MPI_REAL4", 4, 4},
    {MPI_REAL8, "MPI_REAL8", 8, 8},
    {MPI_REAL16, "MPI_REAL16", 16, 16},
    {MPI_COMPLEX8, "MPI_COMPLEX8", 8, 8},
    {MPI_COMPLEX16, "MPI_COMPLEX16", 16, 16},
    {MPI_COMPLEX32, "MPI_COMPLEX32", 32, 32},
    {MPI_LOGICAL1, "MPI_LOGICAL1", 1, 1},
    {MPI_LOGICAL2, "MPI_LOGICAL2", 2, 2},
    {MPI_LOGICAL4, "MPI_LOGICAL4", 4, 4},
    {MPI_LOGICAL8, "MPI_LOGICAL8", 8, 8},
};

}  // namespace

TEST_CASE("predefined datatypes have the size and extent of their C types", "[datatype]") {
  for (const Expect& e : kExpected) {
    INFO(e.name);
    const Datatype* d = to_datatype(e.handle);
    REQUIRE(d != nullptr);
    CHECK(std::string(d->name) == e.name);
    CHECK(d->size == e.size);
    CHECK(static_cast<size_t>(d->extent) == e.extent);
    CHECK(d->lb == 0);
    CHECK(d->committed);
    CHECK(d->predefined);
    CHECK(d->handle == e.handle);
    CHECK(d->contiguous == (e.size == e.extent));
  }
}

TEST_CASE("every predefined handle in the range maps to its own table entry",
          "[datatype][handles]") {
  for (int b = 1; b < static_cast<int>(Basic::kNumBasic); ++b) {
    auto h = reinterpret_cast<MPI_Datatype>(kDatatypeHandleBase + b);
    const Datatype* d = to_datatype(h);
    REQUIRE(d != nullptr);
    CHECK(d->basic == static_cast<Basic>(b));
    CHECK(d == predefined_datatype(static_cast<Basic>(b)));
  }
  CHECK(to_datatype(MPI_DATATYPE_NULL) == nullptr);
  CHECK(to_datatype(reinterpret_cast<MPI_Datatype>(kDatatypeHandleBase)) == nullptr);
  CHECK(to_datatype(reinterpret_cast<MPI_Datatype>(kDatatypeHandleBase +
                                                   static_cast<int>(Basic::kNumBasic))) == nullptr);
  CHECK(to_datatype(reinterpret_cast<MPI_Datatype>(MPI_SUM)) == nullptr);
}

TEST_CASE("pair types with padding pack to value+index and unpack back", "[datatype]") {
  struct DI {
    double v;
    int i;
  };
  const Datatype* d = to_datatype(MPI_DOUBLE_INT);
  REQUIRE_FALSE(d->contiguous);
  DI in[3] = {{1.5, 1}, {2.5, 2}, {3.5, 3}};
  std::vector<char> packed(3 * d->size);
  d->pack(in, 3, packed.data());
  double v1;
  int i1;
  std::memcpy(&v1, packed.data() + d->size, sizeof v1);
  std::memcpy(&i1, packed.data() + d->size + sizeof(double), sizeof i1);
  CHECK(v1 == 2.5);
  CHECK(i1 == 2);

  DI out[3] = {{0, -1}, {0, -1}, {0, -1}};
  // A short message: one whole element and the value of the second one.
  d->unpack(packed.data(), d->size + sizeof(double), out);
  CHECK(out[0].v == 1.5);
  CHECK(out[0].i == 1);
  CHECK(out[1].v == 2.5);
  CHECK(out[1].i == -1);
  CHECK(out[2].v == 0);
}

TEST_CASE("short-int pairs have a hole between value and index", "[datatype]") {
  const Datatype* d = to_datatype(MPI_SHORT_INT);
  REQUIRE(d->prog.segs().size() == 2);
  struct SI {
    short v;
    int i;
  };
  SI in[2] = {{7, 70}, {8, 80}}, out[2] = {};
  std::vector<char> packed(2 * d->size);
  d->pack(in, 2, packed.data());
  d->unpack(packed.data(), packed.size(), out);
  CHECK(out[1].v == 8);
  CHECK(out[1].i == 80);
}

TEST_CASE("element and count arithmetic for MPI_Get_elements / MPI_Get_count", "[datatype]") {
  const Datatype* di = to_datatype(MPI_DOUBLE_INT);  // size 12: double + int
  CHECK(di->count_in(24) == 2);
  CHECK(di->count_in(20) == -1);
  CHECK(di->elements_in(24) == 4);
  CHECK(di->elements_in(32) == 5);   // two pairs and one more double
  CHECK(di->elements_in(30) == -1);  // ends inside a double
  CHECK(di->bytes_for_elements(5) == 32);
  CHECK(di->bytes_for_elements(4) == 24);

  const Datatype* i = to_datatype(MPI_INT);
  CHECK(i->count_in(0) == 0);
  CHECK(i->count_in(12) == 3);
  CHECK(i->count_in(13) == -1);
  CHECK(i->elements_in(12) == 3);
  CHECK(i->bytes_for_elements(3) == 12);
}
