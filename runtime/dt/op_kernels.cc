// Kernels of the predefined reduction operations, generated for each (operation, type) pair
// MPI defines. The table is built at compile time from type categories, so adding a type
// means adding one line to kTypes below.
//
// The element loops are the reductions' whole cost for large messages. g++ -O2 vectorizes only
// loops that need no runtime alias check, and in/inout may alias here, so these loops get the
// dynamic cost model (measured on MPI_Accumulate into a mapped window: docs/MEASUREMENTS.md).
#pragma GCC optimize("tree-vectorize", "vect-cost-model=dynamic")
#include <array>
#include <complex>
#include <cstdint>

#include "runtime/dt/op.h"

namespace mpr::runtime {

namespace {

// Which operations apply, by MPI's type groups (MPI-4.0 section 6.9.2).
// kFInt: Fortran integers, which the logical operations are not defined on.
enum class Cat { kNone, kInt, kFInt, kFloat, kComplex, kLogical, kByte, kPair };

template <class V, class I = int>
struct Pair {
  V value;
  I index;
};

template <OpId O, class T>
T combine(const T& a, const T& b) {
  if constexpr (O == OpId::kMax) return a > b ? a : b;
  if constexpr (O == OpId::kMin) return a < b ? a : b;
  if constexpr (O == OpId::kSum) return static_cast<T>(a + b);
  if constexpr (O == OpId::kProd) return static_cast<T>(a * b);
  if constexpr (O == OpId::kLand) return static_cast<T>(a && b);
  if constexpr (O == OpId::kLor) return static_cast<T>(a || b);
  if constexpr (O == OpId::kLxor) return static_cast<T>(!a != !b);
  if constexpr (O == OpId::kBand) return static_cast<T>(a & b);
  if constexpr (O == OpId::kBor) return static_cast<T>(a | b);
  if constexpr (O == OpId::kBxor) return static_cast<T>(a ^ b);
  if constexpr (O == OpId::kMaxloc || O == OpId::kMinloc) {
    // Ties keep the smaller index, so the result does not depend on combination order.
    if (a.value == b.value) return a.index < b.index ? a : b;
    bool a_wins = O == OpId::kMaxloc ? a.value > b.value : a.value < b.value;
    return a_wins ? a : b;
  }
  if constexpr (O == OpId::kReplace) return a;
  if constexpr (O == OpId::kNoOp) return b;
}

template <OpId O, class T>
void run(const void* in, void* inout, size_t n) {
  const T* a = static_cast<const T*>(in);
  T* b = static_cast<T*>(inout);
  for (size_t i = 0; i < n; ++i) b[i] = combine<O>(a[i], b[i]);
}

constexpr bool defined_on(OpId op, Cat c) {
  switch (op) {
    case OpId::kMax:
    case OpId::kMin:
      return c == Cat::kInt || c == Cat::kFInt || c == Cat::kFloat;
    case OpId::kSum:
    case OpId::kProd:
      return c == Cat::kInt || c == Cat::kFInt || c == Cat::kFloat || c == Cat::kComplex;
    case OpId::kLand:
    case OpId::kLor:
    case OpId::kLxor:
      return c == Cat::kInt || c == Cat::kLogical;
    case OpId::kBand:
    case OpId::kBor:
    case OpId::kBxor:
      return c == Cat::kInt || c == Cat::kFInt || c == Cat::kByte;
    case OpId::kMaxloc:
    case OpId::kMinloc:
      return c == Cat::kPair;
    case OpId::kReplace:
    case OpId::kNoOp:
      return c != Cat::kNone;
    default:
      return false;
  }
}

template <class T, Cat C, OpId O>
constexpr Kernel kernel_if_defined() {
  if constexpr (defined_on(O, C))
    return &run<O, T>;
  else
    return nullptr;
}

using Row = std::array<Kernel, static_cast<size_t>(OpId::kNumPredefined)>;

template <class T, Cat C>
constexpr Row row() {
  using O = OpId;
  return {kernel_if_defined<T, C, O::kMax>(),     kernel_if_defined<T, C, O::kMin>(),
          kernel_if_defined<T, C, O::kSum>(),     kernel_if_defined<T, C, O::kProd>(),
          kernel_if_defined<T, C, O::kLand>(),    kernel_if_defined<T, C, O::kBand>(),
          kernel_if_defined<T, C, O::kLor>(),     kernel_if_defined<T, C, O::kBor>(),
          kernel_if_defined<T, C, O::kLxor>(),    kernel_if_defined<T, C, O::kBxor>(),
          kernel_if_defined<T, C, O::kMaxloc>(),  kernel_if_defined<T, C, O::kMinloc>(),
          kernel_if_defined<T, C, O::kReplace>(), kernel_if_defined<T, C, O::kNoOp>()};
}

using CF = std::complex<float>;
using CD = std::complex<double>;
using CLD = std::complex<long double>;
using CQ = std::complex<__float128>;

// One row per Basic, in enum order (checked below by the table size).
constexpr std::array<Row, static_cast<size_t>(Basic::kNumBasic)> kTable = {
    Row{},                                    // kNone
    row<char, Cat::kInt>(),                   // MPI_CHAR: a C integer type, as both peers treat it
    row<signed char, Cat::kInt>(),            // MPI_SIGNED_CHAR
    row<unsigned char, Cat::kInt>(),          // MPI_UNSIGNED_CHAR
    row<unsigned char, Cat::kByte>(),         // MPI_BYTE
    row<wchar_t, Cat::kNone>(),               // MPI_WCHAR
    row<short, Cat::kInt>(),                  // MPI_SHORT
    row<unsigned short, Cat::kInt>(),         // MPI_UNSIGNED_SHORT
    row<int, Cat::kInt>(),                    // MPI_INT
    row<unsigned, Cat::kInt>(),               // MPI_UNSIGNED
    row<long, Cat::kInt>(),                   // MPI_LONG
    row<unsigned long, Cat::kInt>(),          // MPI_UNSIGNED_LONG
    row<long long, Cat::kInt>(),              // MPI_LONG_LONG_INT
    row<unsigned long long, Cat::kInt>(),     // MPI_UNSIGNED_LONG_LONG
    row<float, Cat::kFloat>(),                // MPI_FLOAT
    row<double, Cat::kFloat>(),               // MPI_DOUBLE
    row<long double, Cat::kFloat>(),          // MPI_LONG_DOUBLE
    row<bool, Cat::kLogical>(),               // MPI_C_BOOL
    row<int8_t, Cat::kInt>(),                 // MPI_INT8_T
    row<int16_t, Cat::kInt>(),                // MPI_INT16_T
    row<int32_t, Cat::kInt>(),                // MPI_INT32_T
    row<int64_t, Cat::kInt>(),                // MPI_INT64_T
    row<uint8_t, Cat::kInt>(),                // MPI_UINT8_T
    row<uint16_t, Cat::kInt>(),               // MPI_UINT16_T
    row<uint32_t, Cat::kInt>(),               // MPI_UINT32_T
    row<uint64_t, Cat::kInt>(),               // MPI_UINT64_T
    row<CF, Cat::kComplex>(),                 // MPI_C_FLOAT_COMPLEX
    row<CD, Cat::kComplex>(),                 // MPI_C_DOUBLE_COMPLEX
    row<CLD, Cat::kComplex>(),                // MPI_C_LONG_DOUBLE_COMPLEX
    row<MPI_Aint, Cat::kInt>(),               // MPI_AINT
    row<MPI_Offset, Cat::kInt>(),             // MPI_OFFSET
    row<MPI_Count, Cat::kInt>(),              // MPI_COUNT
    row<unsigned char, Cat::kNone>(),         // MPI_PACKED
    row<bool, Cat::kLogical>(),               // MPI_CXX_BOOL
    row<CF, Cat::kComplex>(),                 // MPI_CXX_FLOAT_COMPLEX
    row<CD, Cat::kComplex>(),                 // MPI_CXX_DOUBLE_COMPLEX
    row<CLD, Cat::kComplex>(),                // MPI_CXX_LONG_DOUBLE_COMPLEX
    row<Pair<float>, Cat::kPair>(),           // MPI_FLOAT_INT
    row<Pair<double>, Cat::kPair>(),          // MPI_DOUBLE_INT
    row<Pair<long>, Cat::kPair>(),            // MPI_LONG_INT
    row<Pair<int>, Cat::kPair>(),             // MPI_2INT
    row<Pair<short>, Cat::kPair>(),           // MPI_SHORT_INT
    row<Pair<long double>, Cat::kPair>(),     // MPI_LONG_DOUBLE_INT
    row<int32_t, Cat::kFInt>(),               // MPI_INTEGER
    row<float, Cat::kFloat>(),                // MPI_REAL
    row<double, Cat::kFloat>(),               // MPI_DOUBLE_PRECISION
    row<CF, Cat::kComplex>(),                 // MPI_COMPLEX
    row<CD, Cat::kComplex>(),                 // MPI_DOUBLE_COMPLEX
    row<int32_t, Cat::kLogical>(),            // MPI_LOGICAL: nonzero is true, results are 1 or 0
    row<char, Cat::kInt>(),                   // MPI_CHARACTER: like MPI_CHAR, as both peers do
    row<Pair<float, float>, Cat::kPair>(),    // MPI_2REAL
    row<Pair<double, double>, Cat::kPair>(),  // MPI_2DOUBLE_PRECISION
    row<Pair<int32_t, int32_t>, Cat::kPair>(),  // MPI_2INTEGER
    row<int8_t, Cat::kFInt>(),                  // MPI_INTEGER1
    row<int16_t, Cat::kFInt>(),                 // MPI_INTEGER2
    row<int32_t, Cat::kFInt>(),                 // MPI_INTEGER4
    row<int64_t, Cat::kFInt>(),                 // MPI_INTEGER8
    row<float, Cat::kFloat>(),                  // MPI_REAL4
    row<double, Cat::kFloat>(),                 // MPI_REAL8
    row<__float128, Cat::kFloat>(),             // MPI_REAL16
    row<CF, Cat::kComplex>(),                   // MPI_COMPLEX8
    row<CD, Cat::kComplex>(),                   // MPI_COMPLEX16
    row<CQ, Cat::kComplex>(),                   // MPI_COMPLEX32
    row<int8_t, Cat::kLogical>(),               // MPI_LOGICAL1
    row<int16_t, Cat::kLogical>(),              // MPI_LOGICAL2
    row<int32_t, Cat::kLogical>(),              // MPI_LOGICAL4
    row<int64_t, Cat::kLogical>(),              // MPI_LOGICAL8
};

}  // namespace

Kernel op_kernel(OpId op, Basic b) {
  if (op >= OpId::kNumPredefined || b >= Basic::kNumBasic) return nullptr;
  return kTable[static_cast<size_t>(b)][static_cast<size_t>(op)];
}

}  // namespace mpr::runtime
