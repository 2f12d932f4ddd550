// Datatypes: the predefined table and derived types built by the MPI_Type_* constructors.
// A type's layout is a compact loop program (dt/program.h) that dt::Cursor packs and unpacks in
// one pass; its signature (dt/signature.h) counts basic elements; constructors (dt/build.h)
// also record what MPI_Type_get_contents returns.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "mpi.h"
#include "runtime/dt/program.h"
#include "runtime/dt/signature.h"

namespace mpr::runtime {

class AttrSet;

/// The predefined types, in handle order: the handle of Basic b is 0x200 + b.
// clang-format off: one type a word, packed, reads better than one a line
enum class Basic : uint8_t {
  kNone = 0,  // derived type whose elements are not all of one basic type
  kChar,
  kSignedChar,
  kUnsignedChar,
  kByte,
  kWchar,
  kShort,
  kUShort,
  kInt,
  kUInt,
  kLong,
  kULong,
  kLongLong,
  kULongLong,
  kFloat,
  kDouble,
  kLongDouble,
  kCBool,
  kInt8,
  kInt16,
  kInt32,
  kInt64,
  kUInt8,
  kUInt16,
  kUInt32,
  kUInt64,
  kCFloatComplex,
  kCDoubleComplex,
  kCLongDoubleComplex,
  kAint,
  kOffset,
  kCount,
  kPacked,
  kCxxBool,
  kCxxFloatComplex,
  kCxxDoubleComplex,
  kCxxLongDoubleComplex,
  kFloatInt,
  kDoubleInt,
  kLongInt,
  k2Int,
  kShortInt,
  kLongDoubleInt,
  // Fortran types (gfortran's kinds), usable from C
  kInteger,
  kReal,
  kDoublePrecision,
  kComplex,
  kDoubleComplex,
  kLogical,
  kCharacter,
  k2Real,
  k2DoublePrecision,
  k2Integer,
  kInteger1,
  kInteger2,
  kInteger4,
  kInteger8,
  kReal4,
  kReal8,
  kReal16,
  kComplex8,
  kComplex16,
  kComplex32,
  kLogical1,
  kLogical2,
  kLogical4,
  kLogical8,
  kNumBasic
};
// clang-format on
constexpr uintptr_t kDatatypeHandleBase = 0x200;

class Datatype {
 public:
  static constexpr unsigned kMagic = 0x44747970;  // "Dtyp"

  unsigned magic = kMagic;
  const char* name = "";  ///< MPI_Type_get_name; points at a literal or at name_storage
  /// For messages: the name, or for an unnamed derived type what built it and its handle
  /// ("(unnamed, from MPI_Type_vector, handle 0x55d0c0a1b2c0)").
  std::string label() const;
  size_t size = 0;   ///< bytes of data in one element (MPI_Type_size)
  ptrdiff_t lb = 0;  ///< MPI_Type_get_extent
  ptrdiff_t extent = 0;
  ptrdiff_t true_lb = 0;  ///< MPI_Type_get_true_extent: where the data really lies
  ptrdiff_t true_extent = 0;
  size_t align = 1;  ///< strictest alignment of its basic types (struct extent padding)
  /// n elements are n * size contiguous bytes starting at buf + true_lb: they go to the pml
  /// as they are, without packing.
  bool contiguous = true;
  bool committed = true;
  bool predefined = true;
  /// Built from a resized type somewhere: its bounds were set by the user, so constructors
  /// containing it do not pad their extent to the alignment.
  bool explicit_bounds = false;
  Basic basic = Basic::kNone;  ///< the one basic type of all elements (reductions), or kNone
  dt::Program prog;            ///< layout of one element, displacements from the element start
  std::shared_ptr<const dt::Sig> sig;  ///< basic elements of one element
  MPI_Datatype handle = MPI_DATATYPE_NULL;
  /// MPI_Type_set_attr's attributes (comm/attr.h), made on first use; MPI_Type_free runs their
  /// delete callbacks and deletes the set.
  AttrSet* attrs = nullptr;

  // Derived types only.
  mutable int refs = 1;  ///< the user's handle, derived types using it, requests
  int combiner = MPI_COMBINER_NAMED;
  std::vector<int> ints;  ///< MPI_Type_get_contents arguments
  std::vector<MPI_Aint> aints;
  /// MPI_Type_get_contents_c's large counts: the MPI_Count arguments of a type built by a _c
  /// constructor. Non-empty means the int MPI_Type_get_envelope/_get_contents cannot describe
  /// the type (MPI-4.0 5.1.13).
  std::vector<MPI_Count> large_counts;
  std::vector<Datatype*> types;  ///< retained
  std::string name_storage;

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
  /// True if `count` elements are one contiguous run of count * size bytes; *offset is where
  /// it starts relative to the buffer.
  bool dense(size_t count, ptrdiff_t* offset) const;
  /// The memory `count` elements occupy, data, gaps and bounds: [buf + lo, buf + lo + bytes).
  void span(size_t count, ptrdiff_t* lo, size_t* bytes) const;
  /// Copy the data of `count` elements from `src` to `dst` (same layout), leaving the gaps of
  /// `dst` untouched.
  void copy(const void* src, void* dst, size_t count) const;

  void set_name(const char* n);
  /// Reference counting of derived types; no-ops on predefined ones. The last release deletes
  /// the type and releases the types it was built from.
  void retain() const;
  void release() const;
};

/// The datatype behind a handle, or nullptr if null or invalid.
Datatype* to_datatype(MPI_Datatype h);

namespace detail {
/// The predefined types, indexed by Basic, once they exist (their first use builds them).
extern std::atomic<Datatype*> g_predefined;
}  // namespace detail

/// to_datatype() for a predefined handle, inline for the argument checks of every call:
/// nullptr for any other handle, and before the predefined types exist.
inline Datatype* predefined_from_handle(MPI_Datatype h) {
  const uintptr_t i = reinterpret_cast<uintptr_t>(h) - kDatatypeHandleBase;
  if (i - 1 >= static_cast<uintptr_t>(Basic::kNumBasic) - 1) return nullptr;  // also NULL's 0
  Datatype* types = detail::g_predefined.load(std::memory_order_acquire);
  return types ? types + i : nullptr;
}
/// The predefined type for b (b != kNone).
Datatype* predefined_datatype(Basic b);

}  // namespace mpr::runtime
