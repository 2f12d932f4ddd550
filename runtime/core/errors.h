// Error classes, specific error codes and error handlers.
//
// Every failure the runtime reports gets a specific code: the class in the low 7 bits and a
// sequence number above them, so MPI_Error_class is a mask and MPI_Error_string can return the
// message that produced the code ("MPI_Send: invalid rank 7 (communicator size 4)") while the
// message is still among the last kMessageRing ones. Older codes fall back to the class text.
#pragma once

#include <string>

#include "mpi.h"

namespace mpr::runtime {

class Comm;

constexpr int kLastClass = MPI_T_ERR_NOT_ACCESSIBLE;
constexpr int kClassBits = 8;
static_assert(kLastClass < (1 << kClassBits));

/// An error handler object. Predefined ones live in a static table (see handles in errors.cc).
struct Errhandler {
  enum class Kind { kFatal, kReturn, kAbort, kUser };
  static constexpr unsigned kMagic = 0x45726848;  // "ErhH"
  unsigned magic = kMagic;
  Kind kind = Kind::kFatal;
  MPI_Comm_errhandler_function* fn = nullptr;
  bool predefined = false;
  int refs = 1;
  MPI_Errhandler handle = MPI_ERRHANDLER_NULL;
  MPI_Win_errhandler_function* win_fn = nullptr;  ///< made by MPI_Win_create_errhandler
  MPI_Session_errhandler_function* session_fn = nullptr;  ///< MPI_Session_create_errhandler
  MPI_File_errhandler_function* file_fn = nullptr;  ///< MPI_File_create_errhandler
};

/// The handler behind a user handle, or nullptr if it is not a valid error handler.
Errhandler* to_errhandler(MPI_Errhandler h);
Errhandler* errhandler_fatal();
Errhandler* errhandler_return();
void errhandler_retain(Errhandler* e);
void errhandler_release(Errhandler* e);

/// Record "<fn>: <message>" (just the message if fn is null) and return a fresh code of class
/// `err_class`. Does not invoke any handler (used for codes stored in statuses).
int make_error(int err_class, const char* fn, const char* fmt, ...)
    __attribute__((format(printf, 3, 4)));
/// make_error, then hand the code to `comm`'s error handler (see raise()).
int raise_error(Comm* comm, int err_class, const char* fn, const char* fmt, ...)
    __attribute__((format(printf, 4, 5)));
/// Invoke `comm`'s error handler on `code` and return `code` if the handler returns.
/// comm == nullptr: an error with no valid communicator, handled by MPI_COMM_SELF's handler if
/// the user set one, else by MPI_COMM_WORLD's; before MPI_Init / after MPI_Finalize it is fatal.
int raise(Comm* comm, int code);

/// True for MPI_SUCCESS, every predefined class and code, and live user classes and codes.
bool is_error_code(int code);
/// The class of a code (MPI_SUCCESS for 0; MPI_ERR_UNKNOWN for codes we never issued).
int error_class_of(int code);
/// Text for a code or class: the recorded message for a specific code if still known, else
/// "MPI_ERR_RANK: invalid rank" style class text; a user class's or code's own string (empty
/// until MPI_Add_error_string). Empty for an invalid code.
std::string error_string(int code);
/// "MPI_ERR_RANK" etc., or nullptr if `err_class` is not a class.
const char* error_class_name(int err_class);

}  // namespace mpr::runtime
