// User-defined error classes, codes and strings (MPI_Add_error_class / _code / _string).
// Classes take the class numbers after the predefined ones (up to the 7 class bits); codes take
// sequence numbers above the range errors.cc uses for its recorded messages, so a user code
// never collides with a runtime-made one and stays valid forever.
#pragma once

#include <string>

namespace mpr::runtime {

/// Sequence numbers (code >> kClassBits) reserved for user codes.
constexpr int kUserCodeSeqs = 4096;

/// New class, or -1 if all class numbers are taken.
int add_error_class();
/// New code of a user or predefined class, or -1 if none are left.
int add_error_code(int err_class);
/// True for classes and codes made by add_error_class / add_error_code.
bool is_user_error(int code);
bool is_user_class(int err_class);
/// False if `code` is not a user class or code.
bool set_user_error_string(int code, const std::string& text);
/// The text set for a user class or code (a default text if none was set); empty otherwise.
std::string user_error_string(int code);
/// Largest user code or class so far (MPI_LASTUSEDCODE), 0 if none.
int last_user_code();

}  // namespace mpr::runtime
