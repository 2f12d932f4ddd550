// Every predefined operation on every predefined type: which pairs exist (MPI-4.0 6.9.2) and
// what the kernels compute.
#include <catch2/catch.hpp>
#include <complex>
#include <cstdint>
#include <vector>

#include "runtime/dt/datatype.h"
#include "runtime/dt/op.h"

using namespace mpr::runtime;

namespace {

constexpr int kNumOps = static_cast<int>(OpId::kNumPredefined);

// kFInt: Fortran integers (no logical operations on them).
enum class Group { kNone, kInt, kFInt, kFloat, kComplex, kLogical, kByte, kPair };

// clang-format off: the type groups read as lists
Group group_of(Basic b) {
  switch (b) {
    case Basic::kChar:  // a C integer type for reductions, as both peers take it
    case Basic::kCharacter:
    case Basic::kSignedChar:
    case Basic::kUnsignedChar:
    case Basic::kShort:
    case Basic::kUShort:
    case Basic::kInt:
    case Basic::kUInt:
    case Basic::kLong:
    case Basic::kULong:
    case Basic::kLongLong:
    case Basic::kULongLong:
    case Basic::kInt8:
    case Basic::kInt16:
    case Basic::kInt32:
    case Basic::kInt64:
    case Basic::kUInt8:
    case Basic::kUInt16:
    case Basic::kUInt32:
    case Basic::kUInt64:
    case Basic::kAint:
    case Basic::kOffset:
    case Basic::kCount:
      return Group::kInt;
    case Basic::kInteger:
    case Basic::kInteger1:
    case Basic::kInteger2:
    case Basic::kInteger4:
    case Basic::kInteger8:
      return Group::kFInt;
    case Basic::kFloat:
    case Basic::kDouble:
    case Basic::kLongDouble:
    case Basic::kReal:
    case Basic::kDoublePrecision:
    case Basic::kReal4:
    case Basic::kReal8:
    case Basic::kReal16:
      return Group::kFloat;
    case Basic::kCFloatComplex:
    case Basic::kCDoubleComplex:
    case Basic::kCLongDoubleComplex:
    case Basic::kCxxFloatComplex:
    case Basic::kCxxDoubleComplex:
    case Basic::kCxxLongDoubleComplex:
    case Basic::kComplex:
    case Basic::kDoubleComplex:
    case Basic::kComplex8:
    case Basic::kComplex16:
    case Basic::kComplex32:
      return Group::kComplex;
    case Basic::kCBool:
    case Basic::kCxxBool:
    case Basic::kLogical:
    case Basic::kLogical1:
    case Basic::kLogical2:
    case Basic::kLogical4:
    case Basic::kLogical8:
      return Group::kLogical;
    case Basic::kByte:
      return Group::kByte;
    case Basic::kFloatInt:
    case Basic::kDoubleInt:
    case Basic::kLongInt:
    case Basic::k2Int:
    case Basic::kShortInt:
    case Basic::kLongDoubleInt:
    case Basic::k2Real:
    case Basic::k2DoublePrecision:
    case Basic::k2Integer:
      return Group::kPair;
    default:
      return Group::kNone;  // MPI_WCHAR, MPI_PACKED
  }
}
// clang-format on

bool expected_defined(OpId op, Group g) {
  switch (op) {
    case OpId::kMax:
    case OpId::kMin:
      return g == Group::kInt || g == Group::kFInt || g == Group::kFloat;
    case OpId::kSum:
    case OpId::kProd:
      return g == Group::kInt || g == Group::kFInt || g == Group::kFloat || g == Group::kComplex;
    case OpId::kLand:
    case OpId::kLor:
    case OpId::kLxor:
      return g == Group::kInt || g == Group::kLogical;
    case OpId::kBand:
    case OpId::kBor:
    case OpId::kBxor:
      return g == Group::kInt || g == Group::kFInt || g == Group::kByte;
    case OpId::kMaxloc:
    case OpId::kMinloc:
      return g == Group::kPair;
    case OpId::kReplace:
    case OpId::kNoOp:
      return g != Group::kNone;
    default:
      return false;
  }
}

template <class T>
std::vector<T> run(OpId op, Basic b, std::vector<T> in, std::vector<T> inout) {
  Kernel k = op_kernel(op, b);
  REQUIRE(k != nullptr);
  k(in.data(), inout.data(), in.size());
  return inout;
}

// Integer semantics, checked on every integer type through one template.
template <class T>
void check_integer(Basic b) {
  INFO("type " << predefined_datatype(b)->name);
  std::vector<T> a{T(1), T(6), T(0), T(5)}, c{T(3), T(4), T(0), T(5)};
  CHECK(run(OpId::kMax, b, a, c) == std::vector<T>{T(3), T(6), T(0), T(5)});
  CHECK(run(OpId::kMin, b, a, c) == std::vector<T>{T(1), T(4), T(0), T(5)});
  CHECK(run(OpId::kSum, b, a, c) == std::vector<T>{T(4), T(10), T(0), T(10)});
  CHECK(run(OpId::kProd, b, a, c) == std::vector<T>{T(3), T(24), T(0), T(25)});
  CHECK(run(OpId::kLand, b, a, c) == std::vector<T>{T(1), T(1), T(0), T(1)});
  CHECK(run(OpId::kLor, b, a, c) == std::vector<T>{T(1), T(1), T(0), T(1)});
  CHECK(run(OpId::kLxor, b, a, c) == std::vector<T>{T(0), T(0), T(0), T(0)});
  CHECK(run(OpId::kBand, b, a, c) == std::vector<T>{T(1), T(4), T(0), T(5)});
  CHECK(run(OpId::kBor, b, a, c) == std::vector<T>{T(3), T(6), T(0), T(5)});
  CHECK(run(OpId::kBxor, b, a, c) == std::vector<T>{T(2), T(2), T(0), T(0)});
  CHECK(run(OpId::kReplace, b, a, c) == a);
  CHECK(run(OpId::kNoOp, b, a, c) == c);
  if constexpr (std::is_signed_v<T>) {
    std::vector<T> n{T(-7)}, p{T(2)};
    CHECK(run(OpId::kMax, b, n, p) == std::vector<T>{T(2)});
    CHECK(run(OpId::kMin, b, n, p) == std::vector<T>{T(-7)});
    CHECK(run(OpId::kSum, b, n, p) == std::vector<T>{T(-5)});
  }
}

template <class T>
void check_float(Basic b) {
  INFO("type " << predefined_datatype(b)->name);
  std::vector<T> a{T(1.5), T(-2)}, c{T(0.25), T(8)};
  CHECK(run(OpId::kMax, b, a, c) == std::vector<T>{T(1.5), T(8)});
  CHECK(run(OpId::kMin, b, a, c) == std::vector<T>{T(0.25), T(-2)});
  CHECK(run(OpId::kSum, b, a, c) == std::vector<T>{T(1.75), T(6)});
  CHECK(run(OpId::kProd, b, a, c) == std::vector<T>{T(0.375), T(-16)});
}

template <class R>
void check_complex(Basic b) {
  INFO("type " << predefined_datatype(b)->name);
  using C = std::complex<R>;
  std::vector<C> a{C(1, 2)}, c{C(3, -1)};
  CHECK(run(OpId::kSum, b, a, c) == std::vector<C>{C(4, 1)});
  CHECK(run(OpId::kProd, b, a, c) == std::vector<C>{C(5, 5)});
}

template <class V, class I = int>
struct Pair {
  V value;
  I index;
  bool operator==(const Pair& o) const { return value == o.value && index == o.index; }
};

template <class V, class I = int>
void check_pair(Basic b) {
  INFO("type " << predefined_datatype(b)->name);
  using P = Pair<V, I>;
  REQUIRE(static_cast<size_t>(predefined_datatype(b)->extent) == sizeof(P));
  std::vector<P> a{{V(5), 1}, {V(2), 7}, {V(3), 9}}, c{{V(4), 0}, {V(6), 3}, {V(3), 2}};
  // Equal values keep the smaller index.
  CHECK(run(OpId::kMaxloc, b, a, c) == std::vector<P>{{V(5), 1}, {V(6), 3}, {V(3), 2}});
  CHECK(run(OpId::kMinloc, b, a, c) == std::vector<P>{{V(4), 0}, {V(2), 7}, {V(3), 2}});
}

}  // namespace

TEST_CASE("each predefined op exists exactly for the types MPI defines it on", "[op]") {
  for (int bi = 1; bi < static_cast<int>(Basic::kNumBasic); ++bi) {
    auto b = static_cast<Basic>(bi);
    for (int oi = 0; oi < kNumOps; ++oi) {
      auto op = static_cast<OpId>(oi);
      INFO(predefined_op(op)->name << " on " << predefined_datatype(b)->name);
      CHECK((op_kernel(op, b) != nullptr) == expected_defined(op, group_of(b)));
      CHECK(op_valid_for(predefined_op(op), predefined_datatype(b)) ==
            expected_defined(op, group_of(b)));
    }
  }
}

TEST_CASE("integer kernels on every integer type", "[op]") {
  check_integer<signed char>(Basic::kSignedChar);
  check_integer<unsigned char>(Basic::kUnsignedChar);
  check_integer<short>(Basic::kShort);
  check_integer<unsigned short>(Basic::kUShort);
  check_integer<int>(Basic::kInt);
  check_integer<unsigned>(Basic::kUInt);
  check_integer<long>(Basic::kLong);
  check_integer<unsigned long>(Basic::kULong);
  check_integer<long long>(Basic::kLongLong);
  check_integer<unsigned long long>(Basic::kULongLong);
  check_integer<int8_t>(Basic::kInt8);
  check_integer<int16_t>(Basic::kInt16);
  check_integer<int32_t>(Basic::kInt32);
  check_integer<int64_t>(Basic::kInt64);
  check_integer<uint8_t>(Basic::kUInt8);
  check_integer<uint16_t>(Basic::kUInt16);
  check_integer<uint32_t>(Basic::kUInt32);
  check_integer<uint64_t>(Basic::kUInt64);
  check_integer<MPI_Aint>(Basic::kAint);
  check_integer<MPI_Offset>(Basic::kOffset);
  check_integer<MPI_Count>(Basic::kCount);
  check_integer<char>(Basic::kChar);
  check_integer<char>(Basic::kCharacter);
}

TEST_CASE("Fortran integer, real, complex and logical kernels", "[op]") {
  std::vector<int32_t> a{1, 6, -3}, c{3, 4, 5};
  CHECK(run(OpId::kSum, Basic::kInteger, a, c) == std::vector<int32_t>{4, 10, 2});
  CHECK(run(OpId::kMax, Basic::kInteger4, a, c) == std::vector<int32_t>{3, 6, 5});
  CHECK(run(OpId::kBor, Basic::kInteger, a, c) == std::vector<int32_t>{3, 6, -3});
  std::vector<int64_t> a8{1LL << 40}, c8{5};
  CHECK(run(OpId::kSum, Basic::kInteger8, a8, c8) == std::vector<int64_t>{(1LL << 40) + 5});
  check_float<float>(Basic::kReal);
  check_float<double>(Basic::kDoublePrecision);
  check_float<float>(Basic::kReal4);
  check_float<double>(Basic::kReal8);
  {  // quad precision: checked through double, which holds these values exactly
    __float128 q[2] = {1.5, -2}, r[2] = {0.25, 8};
    op_kernel(OpId::kProd, Basic::kReal16)(q, r, 2);
    CHECK(static_cast<double>(r[0]) == 0.375);
    CHECK(static_cast<double>(r[1]) == -16);
    std::complex<__float128> u(1, 2), v(3, -1);
    op_kernel(OpId::kProd, Basic::kComplex32)(&u, &v, 1);
    CHECK(static_cast<double>(v.real()) == 5);
    CHECK(static_cast<double>(v.imag()) == 5);
  }
  check_complex<float>(Basic::kComplex);
  check_complex<double>(Basic::kDoubleComplex);
  check_complex<float>(Basic::kComplex8);
  check_complex<double>(Basic::kComplex16);
  // Any nonzero value is true; results are 1 or 0.
  std::vector<int32_t> la{7, 7, 0, 0}, lc{-1, 0, 2, 0};
  CHECK(run(OpId::kLand, Basic::kLogical, la, lc) == std::vector<int32_t>{1, 0, 0, 0});
  CHECK(run(OpId::kLor, Basic::kLogical, la, lc) == std::vector<int32_t>{1, 1, 1, 0});
  CHECK(run(OpId::kLxor, Basic::kLogical, la, lc) == std::vector<int32_t>{0, 1, 1, 0});
  std::vector<int8_t> l1a{5, 0}, l1c{5, 0};
  CHECK(run(OpId::kLand, Basic::kLogical1, l1a, l1c) == std::vector<int8_t>{1, 0});
  std::vector<int64_t> l8a{0, 1LL << 40}, l8c{0, 0};
  CHECK(run(OpId::kLor, Basic::kLogical8, l8a, l8c) == std::vector<int64_t>{0, 1});
}

TEST_CASE("unsigned sums wrap and do not saturate", "[op]") {
  std::vector<uint8_t> a{200}, c{100};
  CHECK(run(OpId::kSum, Basic::kUInt8, a, c) == std::vector<uint8_t>{44});
}

TEST_CASE("floating-point and complex kernels", "[op]") {
  check_float<float>(Basic::kFloat);
  check_float<double>(Basic::kDouble);
  check_float<long double>(Basic::kLongDouble);
  check_complex<float>(Basic::kCFloatComplex);
  check_complex<double>(Basic::kCDoubleComplex);
  check_complex<long double>(Basic::kCLongDoubleComplex);
  check_complex<float>(Basic::kCxxFloatComplex);
  check_complex<double>(Basic::kCxxDoubleComplex);
  check_complex<long double>(Basic::kCxxLongDoubleComplex);
}

TEST_CASE("logical kernels on C and C++ bool, bitwise on MPI_BYTE", "[op]") {
  for (Basic b : {Basic::kCBool, Basic::kCxxBool}) {
    bool a[4] = {true, true, false, false}, c[4] = {true, false, true, false};
    bool land[4], lor[4], lxor[4];
    std::copy(c, c + 4, land);
    std::copy(c, c + 4, lor);
    std::copy(c, c + 4, lxor);
    op_kernel(OpId::kLand, b)(a, land, 4);
    op_kernel(OpId::kLor, b)(a, lor, 4);
    op_kernel(OpId::kLxor, b)(a, lxor, 4);
    CHECK(std::vector<bool>(land, land + 4) == std::vector<bool>{true, false, false, false});
    CHECK(std::vector<bool>(lor, lor + 4) == std::vector<bool>{true, true, true, false});
    CHECK(std::vector<bool>(lxor, lxor + 4) == std::vector<bool>{false, true, true, false});
  }
  std::vector<uint8_t> a{0xf0, 0x0f}, c{0x3c, 0x3c};
  CHECK(run(OpId::kBand, Basic::kByte, a, c) == std::vector<uint8_t>{0x30, 0x0c});
  CHECK(run(OpId::kBor, Basic::kByte, a, c) == std::vector<uint8_t>{0xfc, 0x3f});
  CHECK(run(OpId::kBxor, Basic::kByte, a, c) == std::vector<uint8_t>{0xcc, 0x33});
}

TEST_CASE("MAXLOC and MINLOC on every pair type", "[op]") {
  check_pair<float>(Basic::kFloatInt);
  check_pair<double>(Basic::kDoubleInt);
  check_pair<long>(Basic::kLongInt);
  check_pair<int>(Basic::k2Int);
  check_pair<short>(Basic::kShortInt);
  check_pair<long double>(Basic::kLongDoubleInt);
  check_pair<float, float>(Basic::k2Real);
  check_pair<double, double>(Basic::k2DoublePrecision);
  check_pair<int32_t, int32_t>(Basic::k2Integer);
}

namespace {
// x op y = 2x + y: not commutative, so the argument order is visible.
void twice_left_plus_right(void* in, void* inout, int* len, MPI_Datatype* dt) {
  CHECK(*dt == MPI_INT);
  auto* a = static_cast<int*>(in);
  auto* b = static_cast<int*>(inout);
  for (int i = 0; i < *len; ++i) b[i] = 2 * a[i] + b[i];
}
}  // namespace

TEST_CASE("user ops get (in, inout, len, datatype handle) and accept any type", "[op]") {
  Op op;
  op.fn = twice_left_plus_right;
  op.commute = false;
  CHECK(op_valid_for(&op, predefined_datatype(Basic::kChar)));
  int in[2] = {1, 10}, inout[2] = {100, 1000};
  op_apply(&op, in, inout, 2, predefined_datatype(Basic::kInt));
  CHECK(inout[0] == 102);
  CHECK(inout[1] == 1020);
}

TEST_CASE("op handles map to the predefined ops", "[op][handles]") {
  CHECK(to_op(MPI_MAX) == predefined_op(OpId::kMax));
  CHECK(to_op(MPI_SUM)->id == OpId::kSum);
  CHECK(to_op(MPI_NO_OP)->id == OpId::kNoOp);
  CHECK(to_op(MPI_OP_NULL) == nullptr);
  CHECK(to_op(reinterpret_cast<MPI_Op>(0x2f)) == nullptr);
  CHECK(to_op(reinterpret_cast<MPI_Op>(0x201)) == nullptr);  // a datatype handle
  CHECK(predefined_op(OpId::kSum)->commute);
  CHECK_FALSE(predefined_op(OpId::kReplace)->commute);
  CHECK(std::string(to_op(MPI_MINLOC)->name) == "MPI_MINLOC");
}
