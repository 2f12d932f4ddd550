// mprun --info: the build report. Everything here is known at compile time (configure's
// defines in mpr_config.h, the PMIx and hwloc headers, mpi.h) except the libraries' run-time
// versions, the RDMA devices and the tunables' current values.
#include "launcher/info.h"

#include <dirent.h>
#include <hwloc.h>
#include <pmix.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <string>
#include <string_view>
#include <vector>

#include "common/params.h"
#include "mpi.h"
#include "mpr_config.h"

namespace mpr::launch {

namespace {

void row(std::FILE* out, const char* label, const std::string& value) {
  std::fprintf(out, "  %-24s %s\n", label, value.empty() ? "(none)" : value.c_str());
}

std::string hwloc_version_text(unsigned v) {
  return std::to_string(v >> 16) + "." + std::to_string((v >> 8) & 0xff) + "." +
         std::to_string(v & 0xff);
}

std::string read_line(const std::string& path) {
  std::ifstream in(path);
  std::string line;
  std::getline(in, line);
  return line;
}

std::vector<std::string> dir_entries(const std::string& path) {
  std::vector<std::string> names;
  if (DIR* d = opendir(path.c_str())) {
    while (const dirent* e = readdir(d))
      if (e->d_name[0] != '.') names.emplace_back(e->d_name);
    closedir(d);
  }
  std::sort(names.begin(), names.end());
  return names;
}

// The RDMA devices the kernel shows now (/sys/class/infiniband), each port with its state and
// link layer: "rxe0 (port 1: ACTIVE, Ethernet)". mprun does not link libibverbs, so sysfs it is.
std::string rdma_devices() {
  const std::string root = "/sys/class/infiniband";
  std::string text;
  for (const std::string& dev : dir_entries(root)) {
    std::string ports;
    for (const std::string& port : dir_entries(root + "/" + dev + "/ports")) {
      const std::string base = root + "/" + dev + "/ports/" + port;
      std::string state = read_line(base + "/state");  // "4: ACTIVE"
      if (auto colon = state.find(": "); colon != std::string::npos) state.erase(0, colon + 2);
      const std::string layer = read_line(base + "/link_layer");
      ports += std::string(ports.empty() ? "" : "; ") + "port " + port + ": " +
               (state.empty() ? "?" : state) + (layer.empty() ? "" : ", " + layer);
    }
    text += (text.empty() ? "" : ", ") + dev + (ports.empty() ? "" : " (" + ports + ")");
  }
  return text.empty() ? "none (" + root + " is empty or absent)" : text;
}

std::string backends() {
  std::string b = "self, shm, tcp";
#ifdef MPR_HAVE_VERBS
  b += ", verbs";
#else
  b += " (verbs not built: configured without libibverbs)";
#endif
  return b;
}

bool sanitized() {
#if defined(__SANITIZE_ADDRESS__)
  return true;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
  return true;
#endif
#endif
  return MPR_BUILD_SAN_FLAGS[0] != '\0';
}

std::string compiler() {
  std::string c = MPR_BUILD_CXX;
#if defined(__clang__)
  c += std::string(" (clang ") + __clang_version__ + ")";
#elif defined(__GNUC__)
  c += std::string(" (GCC ") + __VERSION__ + ")";
#endif
  return c;
}

// The tunables that decide which protocol a message takes and how it is cut up.
bool is_threshold(std::string_view name) {
  static constexpr std::string_view kSuffixes[] = {"_EAGER_LIMIT", "_CMA_MIN",   "_MAX_INLINE",
                                                   "_RDMA_CHUNK",  "_GET_CHUNK", "_PACK_CHUNK",
                                                   "_FRAG",        "_SEGMENT",   "_SEGMENT_MAX",
                                                   "_DUPLEX_MIN",  "_DUPLEX_MAX"};
  for (std::string_view s : kSuffixes)
    if (name.size() > s.size() && name.substr(name.size() - s.size()) == s) return true;
  return false;
}

void print_thresholds(std::FILE* out) {
  std::fputs("Protocol thresholds (bytes; the MPR_* variables, all of them in mprun --params):\n",
             out);
  for (const common::ParamDef* p = common::param_table(); p->name; ++p) {
    if (!is_threshold(p->name)) continue;
    const std::string now = common::param_string(p->name);
    const long long bytes = static_cast<long long>(common::param_int(p->name));
    std::string value = now;
    if (now != std::to_string(bytes)) value += " = " + std::to_string(bytes);
    if (std::getenv(p->name))
      value += std::string("  (set in the environment; default ") + p->default_value + ")";
    std::fprintf(out, "  %-26s %s\n", p->name, value.c_str());
  }
}

}  // namespace

void print_info(std::FILE* out) {
  std::fputs("MPR build information\n", out);
  row(out, "MPR version:", PACKAGE_VERSION);
  row(out, "MPI standard:", std::to_string(MPI_VERSION) + "." + std::to_string(MPI_SUBVERSION));
  row(out, "Configure prefix:", MPR_CONFIGURE_PREFIX);
  std::string_view args = MPR_CONFIGURE_ARGS;  // configure's list starts with a space
  args.remove_prefix(std::min(args.find_first_not_of(' '), args.size()));
  row(out, "Configure arguments:", std::string(args));
  row(out, "C++ compiler:", compiler());
  row(out, "C++ flags:",
      std::string(MPR_BUILD_CXXFLAGS) + (MPR_BUILD_CXXFLAGS[0] ? " " : "") +
          "(the build adds -std=c++20 " MPR_BUILD_WARN_FLAGS " -fvisibility=hidden)");
  row(out, "Link-time optimization:",
      MPR_BUILD_LTO_FLAGS[0] ? std::string("yes (") + MPR_BUILD_LTO_FLAGS + ")" : "no");
  row(out, "Sanitizers:",
      sanitized() ? std::string("yes (") + MPR_BUILD_SAN_FLAGS + ")" : std::string("no"));
  row(out, "PMIx:",
      "built with " + std::to_string(PMIX_VERSION_MAJOR) + "." +
          std::to_string(PMIX_VERSION_MINOR) + "." + std::to_string(PMIX_VERSION_RELEASE) +
          ", running " + PMIx_Get_version());
  row(out, "hwloc:",
      std::string("built with ") + HWLOC_VERSION + " (API " +
          hwloc_version_text(HWLOC_API_VERSION) + "), running API " +
          hwloc_version_text(hwloc_get_api_version()));
  row(out, "Backends built:", backends());
  row(out, "RDMA devices now:", rdma_devices());
  print_thresholds(out);
}

}  // namespace mpr::launch
