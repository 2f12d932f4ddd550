// The "external32" data representation (MPI-4.0 section 14.5.2): every basic element
// big-endian, in the standard's fixed sizes (MPI_LONG and MPI_UNSIGNED_LONG take 4 bytes,
// MPI_LONG_DOUBLE 16 as IEEE binary128, MPI_WCHAR 4, bools 1), with no gaps, in type-map
// order. MPI_Pack_external and MPI_Unpack_external use it; so will the MPI-IO layer's
// "external32" files.
#pragma once

#include <cstddef>

#include "runtime/dt/datatype.h"

namespace mpr::runtime::dt {

/// Bytes `count` elements of `type` take in external32.
size_t external32_size(const Datatype* type, size_t count);
/// Convert `count` elements at `buf` (in the type's memory layout) into external32 at `out`
/// (external32_size(type, count) bytes).
void external32_pack(const Datatype* type, const void* buf, size_t count, void* out);
/// The inverse: external32_size(type, count) bytes at `in` into `count` elements at `buf`,
/// leaving the gaps of the layout untouched. Integers narrower in external32 than in memory
/// (MPI_LONG) are sign- or zero-extended.
void external32_unpack(const Datatype* type, const void* in, size_t count, void* buf);

}  // namespace mpr::runtime::dt
