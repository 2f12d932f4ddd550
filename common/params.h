// Runtime tunables: every MPR_* environment variable lives in one table (params.cc), read once.
// mprun --params prints the same table, so the documentation cannot drift from what is read.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <string>

namespace mpr::common {

/// How a tunable's text is read: kText by param_string (or param_int when its default is a
/// number), kBool by param_bool. MPI_T's control variables present them as MPI_CHAR,
/// MPI_UNSIGNED_LONG_LONG or an on/off enumeration.
enum class ParamKind { kText, kBool };

struct ParamDef {
  const char* name;           ///< environment variable, e.g. "MPR_SHM_EAGER_LIMIT"
  const char* default_value;  ///< as text; "" means unset
  const char* help;           ///< one line: meaning and unit
  ParamKind kind = ParamKind::kText;
};

/// The whole table, terminated by an entry with name == nullptr.
const ParamDef* param_table();

/// Value of a tunable: the environment if set, else the table's default.
/// Aborts the process with a clear message if `name` is not in the table (a programming error).
std::string param_string(const char* name);
/// Integer value; accepts k/K, m/M, g/G suffixes (powers of 1024). A malformed value is
/// reported once on stderr and the default is used.
int64_t param_int(const char* name);
bool param_bool(const char* name);

/// A T built once, on first use, by its default constructor (which reads the tunables it
/// needs) and kept for the life of the process. For values read on every call of a hot path:
/// one atomic load, where a function-local static's guard measured tens of instructions.
namespace detail {
template <typename T>
std::atomic<const T*>& tunables_slot() {
  static std::atomic<const T*> cached{nullptr};
  return cached;
}
// Kept out of line so the caller's fast path is a load and a test, with no stack frame.
template <typename T>
[[gnu::noinline, gnu::cold]] const T& tunables_build() {
  const T* t = nullptr;
  auto* fresh = new T;
  if (!tunables_slot<T>().compare_exchange_strong(t, fresh, std::memory_order_acq_rel)) {
    delete fresh;
    return *t;
  }
  return *fresh;
}
}  // namespace detail

template <typename T>
inline const T& tunables_once() {
  const T* t = detail::tunables_slot<T>().load(std::memory_order_acquire);
  if (__builtin_expect(t != nullptr, 1)) return *t;
  return detail::tunables_build<T>();
}

}  // namespace mpr::common
