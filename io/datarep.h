// Data representations (MPI-4.1 section 14.5): how a file holds the bytes of typed data.
// "native" (and "internal", the same here) is the memory layout itself; "external32" is the
// standard's portable big-endian form (runtime/dt/external32.h); users add their own with
// MPI_Register_datarep, giving conversion callbacks and the file extent of each basic type.
//
// A view's data stream (io/view.h) is in the file's representation: writing converts the
// user's elements into it, reading converts back. Where a basic type takes another size in the
// file than in memory (MPI_LONG is 4 bytes in external32), the filetype's layout in the file
// is the filetype rebuilt from its constructor arguments with each basic type replaced by a
// block of its file size, as MPI_File_get_type_extent describes it.
#pragma once

#include <cstddef>
#include <string>

#include "mpi.h"
#include "runtime/dt/datatype.h"

namespace mpr::io {

using runtime::Datatype;

struct Datarep {
  enum class Kind { kNative, kExternal32, kUser };
  std::string name;
  Kind kind = Kind::kNative;
  // kUser: the callbacks of MPI_Register_datarep(_c); one of each pair is set; a null
  // conversion function (MPI_CONVERSION_FN_NULL) means the data is moved without conversion.
  MPI_Datarep_conversion_function* read_fn = nullptr;
  MPI_Datarep_conversion_function* write_fn = nullptr;
  MPI_Datarep_conversion_function_c* read_fn_c = nullptr;
  MPI_Datarep_conversion_function_c* write_fn_c = nullptr;
  MPI_Datarep_extent_function* extent_fn = nullptr;
  void* extra_state = nullptr;

  bool native() const { return kind == Kind::kNative; }
  /// Conversions may run on the I/O thread (io/async.h): not user callbacks.
  bool thread_safe() const { return kind != Kind::kUser; }
};

/// The representation named `name` ("native", "internal", "external32" or registered), or
/// nullptr.
const Datarep* find_datarep(const char* name);
/// MPI_Register_datarep(_c). Returns an MPI error class (not a code): MPI_ERR_DUP_DATAREP for
/// a name already taken.
int register_datarep(const Datarep& rep);

/// Bytes one element of `type` takes in the file. Returns an MPI error class (a user extent
/// callback may fail).
int file_size(const Datarep& rep, const Datatype* type, size_t* out);
/// The layout of `type` in the file (see above): `type` itself, retained, when every basic
/// type keeps its size, else a rebuilt committed type. The caller releases *out.
int file_type(const Datarep& rep, const Datatype* type, const Datatype** out);

/// Convert elements [first, first + n) of `count` elements of `type` at `buf` into the file
/// representation at `out` (n * file size bytes). Returns an MPI error class.
int to_file(const Datarep& rep, const Datatype* type, const void* buf, size_t first, size_t n,
            void* out);
/// The inverse: n elements' file bytes at `in` into elements [first, first + n) at `buf`.
int from_file(const Datarep& rep, const Datatype* type, void* buf, size_t first, size_t n,
              const void* in);

}  // namespace mpr::io
