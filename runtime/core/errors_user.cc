#include "runtime/core/errors_user.h"

#include <unordered_map>

#include "runtime/core/errors.h"

namespace mpr::runtime {

namespace {

constexpr int kMaxClass = (1 << kClassBits) - 1;
constexpr int kFirstUserSeq = (MPI_ERR_LASTCODE >> kClassBits) - kUserCodeSeqs;

int g_last_class = kLastClass;
int g_next_seq = kFirstUserSeq;
int g_last_code = 0;
std::unordered_map<int, std::string> g_strings;  // user class or code -> text
std::unordered_map<int, bool> g_codes;           // user codes issued

}  // namespace

int add_error_class() {
  if (g_last_class >= kMaxClass) return -1;
  ++g_last_class;
  if (g_last_class > g_last_code) g_last_code = g_last_class;
  return g_last_class;
}

int add_error_code(int err_class) {
  if (g_next_seq > (MPI_ERR_LASTCODE >> kClassBits)) return -1;
  int code = (g_next_seq++ << kClassBits) | err_class;
  g_codes[code] = true;
  if (code > g_last_code) g_last_code = code;
  return code;
}

bool is_user_class(int err_class) { return err_class > kLastClass && err_class <= g_last_class; }

bool is_user_error(int code) { return is_user_class(code) || g_codes.count(code) > 0; }

bool set_user_error_string(int code, const std::string& text) {
  if (!is_user_error(code)) return false;
  g_strings[code] = text;
  return true;
}

std::string user_error_string(int code) {
  if (!is_user_error(code)) return {};
  auto it = g_strings.find(code);
  if (it != g_strings.end()) return it->second;
  // MPI leaves this empty; a name is kinder in a fatal-error message.
  return is_user_class(code) ? "user-defined error class " + std::to_string(code)
                             : "user-defined error code " + std::to_string(code);
}

int last_user_code() { return g_last_code; }

}  // namespace mpr::runtime
