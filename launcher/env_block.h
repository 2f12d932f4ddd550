// A rank's environment in the form PMIx_server_setup_fork edits in place.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace mpr::launch {

/// NULL-terminated array of "NAME=value" strings; the array and every string come from malloc
/// because libpmix reallocs and frees entries when it adds its variables. Owns its contents.
class EnvBlock {
 public:
  EnvBlock();
  ~EnvBlock();
  EnvBlock(const EnvBlock&) = delete;
  EnvBlock& operator=(const EnvBlock&) = delete;

  /// Adds a "NAME=value" entry as is; the caller knows NAME is not present yet.
  void append(const char* entry);
  /// Replaces NAME's entry or adds "NAME=value".
  void set(std::string_view name, std::string_view value);
  /// Removes every entry whose name starts with `prefix`.
  void erase_prefix(std::string_view prefix);
  /// Value of NAME, or nullptr.
  const char* get(std::string_view name) const;

  char** data() { return env_; }
  /// For PMIx_server_setup_fork, which may replace the array.
  char*** address() { return &env_; }

 private:
  size_t size() const;
  char** env_;
};

}  // namespace mpr::launch
