// User-defined error classes, codes and strings (MPI_Add_error_class / _code / _string and
// MPI 4.1's MPI_Remove_error_class / _code / _string). Both classes and codes take numbers above
// MPI_ERR_LASTCODE, as the standard asks (so MPI_LASTUSEDCODE grows past it), from one counter:
// a user number never collides with a predefined class or with a code errors.cc makes for a
// recorded message, and a removed number is never handed out again.
#pragma once

#include <string>

namespace mpr::runtime {

/// New class, or -1 if all numbers are taken.
int add_error_class();
/// New code of a user or predefined class, or -1 if none are left.
int add_error_code(int err_class);
/// True for classes and codes made by add_error_class / add_error_code (and not removed).
bool is_user_error(int code);
bool is_user_class(int err_class);
/// The class of a user code (the class itself for a user class); -1 if not a user error.
int user_error_class(int code);
/// False if `code` is not a user class or code.
bool set_user_error_string(int code, const std::string& text);
/// The text set for a user class or code; empty if none was set (as MPI says).
std::string user_error_string(int code);
/// Largest user code or class so far (MPI_LASTUSEDCODE), 0 if none.
int last_user_code();

/// Removal: an empty result means done, otherwise the reason it was refused.
std::string remove_error_class(int err_class);
std::string remove_error_code(int code);
std::string remove_error_string(int code);

}  // namespace mpr::runtime
