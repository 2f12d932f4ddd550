// MPI_Info objects: ordered (key, value) string pairs. MPI_INFO_ENV describes how the job was
// started (filled at first use from the launcher's data and this process's command line).
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "mpi.h"

namespace mpr::runtime {

class Info {
 public:
  static constexpr unsigned kMagic = 0x496e666f;  // "Info"

  bool valid() const { return magic_ == kMagic; }
  /// Value of `key`, or nullptr.
  const std::string* get(const std::string& key) const;
  /// Replace or append (new keys go last, so MPI_Info_get_nthkey is stable).
  void set(const std::string& key, const std::string& value);
  /// False if the key was not set.
  bool erase(const std::string& key);
  int nkeys() const { return static_cast<int>(entries_.size()); }
  const std::string& key(int n) const { return entries_[n].first; }
  const std::vector<std::pair<std::string, std::string>>& entries() const { return entries_; }

  MPI_Info handle() const { return reinterpret_cast<MPI_Info>(const_cast<Info*>(this)); }
  ~Info() { magic_ = 0; }

 private:
  unsigned magic_ = kMagic;
  std::vector<std::pair<std::string, std::string>> entries_;
};

/// The object behind a handle (MPI_INFO_ENV included), or nullptr if null or invalid.
Info* to_info(MPI_Info h);
/// MPI_INFO_ENV's object (built on first use; read-only for users).
Info* info_env();

}  // namespace mpr::runtime
