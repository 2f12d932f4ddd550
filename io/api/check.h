// Argument checks of the MPI_File_* entry points. Errors go to the file's error handler, or to
// MPI_FILE_NULL's when there is no valid file (MPI-4.1 section 14.7), never to a
// communicator's; each returns MPI_SUCCESS or the code the handler returned.
#pragma once

#include "io/file.h"
#include "runtime/api/check.h"

namespace mpr::io::api {

using runtime::Datatype;

/// A call on an open file: the library is up and `h` is a valid, open file.
inline int enter(const char* fn, MPI_File h, File** out) {
  MPR_TRY(runtime::api::check_running(fn));
  *out = to_file(h);
  if (*out) return MPI_SUCCESS;
  if (h == MPI_FILE_NULL) return file_error(nullptr, MPI_ERR_FILE, fn, "invalid file MPI_FILE_NULL");
  return file_error(nullptr, MPI_ERR_FILE, fn, "invalid file handle %p", static_cast<void*>(h));
}

inline int check_arg(const char* fn, File* f, bool ok, const char* what) {
  if (ok) return MPI_SUCCESS;
  return file_error(f, MPI_ERR_ARG, fn, "%s", what);
}

/// A committed datatype.
inline int check_type(const char* fn, File* f, MPI_Datatype h, const char* what, Datatype** out) {
  *out = runtime::to_datatype(h);
  if (!*out) {
    if (h == MPI_DATATYPE_NULL)
      return file_error(f, MPI_ERR_TYPE, fn, "invalid %s MPI_DATATYPE_NULL", what);
    return file_error(f, MPI_ERR_TYPE, fn, "invalid %s handle %p", what, static_cast<void*>(h));
  }
  if (!(*out)->committed)
    return file_error(f, MPI_ERR_TYPE, fn, "%s %s is not committed", what,
                      (*out)->label().c_str());
  return MPI_SUCCESS;
}

}  // namespace mpr::io::api
