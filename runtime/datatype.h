// Datatypes. Today only the predefined ones exist; the object already carries what a datatype
// engine needs (size, lb, extent, a contiguity flag, the layout of one element as byte blocks,
// the basic element type reductions work on), so derived-type constructors only have to build
// these fields.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "mpi.h"

namespace mpr::runtime {

/// The predefined types, in handle order: the handle of Basic b is 0x200 + b.
enum class Basic : uint8_t {
  kNone = 0,  // derived type whose elements are not all of one basic type
  kChar, kSignedChar, kUnsignedChar, kByte, kWchar, kShort, kUShort, kInt, kUInt, kLong,
  kULong, kLongLong, kULongLong, kFloat, kDouble, kLongDouble, kCBool, kInt8, kInt16, kInt32,
  kInt64, kUInt8, kUInt16, kUInt32, kUInt64, kCFloatComplex, kCDoubleComplex,
  kCLongDoubleComplex, kAint, kOffset, kCount, kPacked, kCxxBool, kCxxFloatComplex,
  kCxxDoubleComplex, kCxxLongDoubleComplex, kFloatInt, kDoubleInt, kLongInt, k2Int, kShortInt,
  kLongDoubleInt,
  kNumBasic
};
constexpr uintptr_t kDatatypeHandleBase = 0x200;

class Datatype {
 public:
  static constexpr unsigned kMagic = 0x44747970;  // "Dtyp"

  /// A run of bytes of one element, at `disp` from the element's start.
  struct Block {
    ptrdiff_t disp;
    size_t len;
  };

  unsigned magic = kMagic;
  const char* name = "";
  size_t size = 0;          ///< bytes of data in one element (MPI_Type_size)
  ptrdiff_t lb = 0;         ///< MPI_Type_get_extent
  ptrdiff_t extent = 0;
  /// One block at displacement 0 covering the whole extent: a buffer of n elements is n*size
  /// contiguous bytes and goes to the pml as it is.
  bool contiguous = true;
  bool committed = true;
  bool predefined = true;
  Basic basic = Basic::kNone;            ///< element type reduction kernels operate on
  std::vector<Block> blocks;             ///< one element's data (disp from the element start)
  std::vector<uint16_t> element_sizes;   ///< sizes of one element's basic elements, in order
  MPI_Datatype handle = MPI_DATATYPE_NULL;

  /// Copy `count` elements at `buf` into `out` (count * size bytes, no gaps).
  void pack(const void* buf, size_t count, void* out) const;
  /// Inverse of pack for the first `bytes` packed bytes (a short or truncated message).
  void unpack(const void* in, size_t bytes, void* buf) const;
  /// Number of basic elements in `bytes` packed bytes, or -1 if `bytes` ends inside one.
  int64_t elements_in(size_t bytes) const;
  /// Packed bytes holding the first `n` basic elements (inverse of elements_in).
  size_t bytes_for_elements(int64_t n) const;
  /// Number of whole elements in `bytes` packed bytes, or -1 if it is not a whole number.
  int64_t count_in(size_t bytes) const;
};

/// The datatype behind a handle, or nullptr if null or invalid.
Datatype* to_datatype(MPI_Datatype h);
/// The predefined type for b (b != kNone).
Datatype* predefined_datatype(Basic b);

}  // namespace mpr::runtime
