#include "runtime/core/errors_user.h"

#include <map>

#include "mpi.h"

namespace mpr::runtime {

namespace {

constexpr int kFirstUser = MPI_ERR_LASTCODE + 1;
constexpr int kLastUser = 0x7fffffff;

struct UserError {
  int cls;  // the class; equal to the number itself for a class
  bool has_text = false;
  std::string text;
};

int g_next = kFirstUser;
int g_last_code = 0;
std::map<int, UserError> g_errors;  // user class or code -> what it is

UserError* find(int code) {
  auto it = g_errors.find(code);
  return it == g_errors.end() ? nullptr : &it->second;
}

int take_number(int cls_or_self) {
  if (g_next == kLastUser) return -1;
  int n = g_next++;
  g_errors[n] = UserError{cls_or_self < 0 ? n : cls_or_self, false, {}};
  g_last_code = n;
  return n;
}

}  // namespace

int add_error_class() { return take_number(-1); }

int add_error_code(int err_class) { return take_number(err_class); }

bool is_user_error(int code) { return find(code) != nullptr; }

bool is_user_class(int err_class) {
  const UserError* e = find(err_class);
  return e && e->cls == err_class;
}

int user_error_class(int code) {
  const UserError* e = find(code);
  return e ? e->cls : -1;
}

bool set_user_error_string(int code, const std::string& text) {
  UserError* e = find(code);
  if (!e) return false;
  e->has_text = true;
  e->text = text;
  return true;
}

std::string user_error_string(int code) {
  const UserError* e = find(code);
  return e ? e->text : std::string();
}

int last_user_code() { return g_last_code; }

std::string remove_error_class(int err_class) {
  if (!is_user_class(err_class))
    return std::to_string(err_class) + " is not a user-defined error class";
  for (const auto& [n, e] : g_errors)
    if (n != err_class && e.cls == err_class)
      return "error class " + std::to_string(err_class) + " still has error code " +
             std::to_string(n) + " (remove its codes first)";
  if (find(err_class)->has_text)
    return "error class " + std::to_string(err_class) +
           " still has a string (MPI_Remove_error_string first)";
  g_errors.erase(err_class);
  return {};
}

std::string remove_error_code(int code) {
  const UserError* e = find(code);
  if (!e || e->cls == code) return std::to_string(code) + " is not a user-defined error code";
  if (e->has_text)
    return "error code " + std::to_string(code) +
           " still has a string (MPI_Remove_error_string first)";
  g_errors.erase(code);
  return {};
}

std::string remove_error_string(int code) {
  UserError* e = find(code);
  if (!e) return std::to_string(code) + " is not a user-defined error class or code";
  if (!e->has_text) return "error " + std::to_string(code) + " has no string";
  e->has_text = false;
  e->text.clear();
  return {};
}

}  // namespace mpr::runtime
