#include "launcher/oom.h"

#include <fstream>
#include <sstream>
#include <vector>

namespace mpr::launch {

namespace {

struct CgroupMount {
  std::string root;   ///< the part of the hierarchy mounted (4th mountinfo field)
  std::string point;  ///< where
};

/// The cgroup2 mount (want_v1 false) or the v1 mount carrying the memory controller.
std::optional<CgroupMount> find_mount(bool want_v1) {
  std::ifstream in("/proc/self/mountinfo");
  std::string line;
  while (std::getline(in, line)) {
    // id parent major:minor root mountpoint options [optional fields] - fstype source superopts
    std::istringstream f(line);
    std::string id, parent, dev, root, point;
    f >> id >> parent >> dev >> root >> point;
    size_t dash = line.find(" - ");
    if (dash == std::string::npos) continue;
    std::istringstream tail(line.substr(dash + 3));
    std::string fstype, source, super;
    tail >> fstype >> source >> super;
    bool hit = want_v1
                   ? fstype == "cgroup" && ("," + super + ",").find(",memory,") != std::string::npos
                   : fstype == "cgroup2";
    if (hit) return CgroupMount{root, point};
  }
  return std::nullopt;
}

/// This process's path in the v2 hierarchy ("0::/path") or the v1 memory one
/// ("N:...memory...:/path").
std::optional<std::string> own_cgroup(bool want_v1) {
  std::ifstream in("/proc/self/cgroup");
  std::string line;
  while (std::getline(in, line)) {
    size_t a = line.find(':'), b = line.find(':', a + 1);
    if (a == std::string::npos || b == std::string::npos) continue;
    std::string controllers = line.substr(a + 1, b - a - 1);
    bool hit = want_v1 ? ("," + controllers + ",").find(",memory,") != std::string::npos
                       : line.compare(0, 3, "0::") == 0;
    if (hit) return line.substr(b + 1);
  }
  return std::nullopt;
}

std::string join(const CgroupMount& m, const std::string& path) {
  // Inside a container the mount's root is the container's cgroup and /proc/self/cgroup may
  // show the full path below it.
  std::string rel = path;
  if (m.root != "/" && rel.compare(0, m.root.size(), m.root) == 0) rel = rel.substr(m.root.size());
  return m.point + (rel.empty() || rel[0] == '/' ? "" : "/") + rel;
}

}  // namespace

OomWatch::OomWatch() {
  for (bool v1 : {false, true}) {
    std::optional<CgroupMount> mount = find_mount(v1);
    std::optional<std::string> path = own_cgroup(v1);
    if (!mount || !path) continue;
    file_ = join(*mount, *path) + (v1 ? "/memory.oom_control" : "/memory.events");
    cgroup_ = *path;
    if (std::optional<uint64_t> n = read()) {
      baseline_ = *n;
      return;
    }
    file_.clear();
  }
}

std::optional<uint64_t> OomWatch::read() const {
  if (file_.empty()) return std::nullopt;
  std::ifstream in(file_);
  std::string key;
  uint64_t value;
  while (in >> key >> value)
    if (key == "oom_kill") return value;
  return std::nullopt;
}

std::optional<std::string> OomWatch::evidence() const {
  std::optional<uint64_t> now = read();
  if (!now || *now <= baseline_) return std::nullopt;
  return "memory cgroup " + cgroup_ + ": oom_kill " + std::to_string(baseline_) + " -> " +
         std::to_string(*now);
}

}  // namespace mpr::launch
