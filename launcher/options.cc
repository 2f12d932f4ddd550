#include "launcher/options.h"

#include <sched.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <map>
#include <string_view>

#include "common/params.h"
#include "launcher/hostfile.h"
#include "launcher/slurm.h"
#include "mpr_config.h"

namespace mpr::launch {

namespace {

// Larger jobs would exhaust the pid and fd limits of one node long before they are useful.
constexpr long kMaxRanks = 65536;
// A week: anything longer is a typo, and it keeps the deadline arithmetic far from overflow.
constexpr double kMaxSeconds = 7 * 24 * 3600;

long parse_positive(std::string_view opt, const std::string& text, const char* what, long max) {
  if (text.empty() || text.find_first_not_of("0123456789") != std::string::npos)
    throw UsageError(std::string(opt) + " needs " + what + ", got '" + text + "'");
  errno = 0;
  long n = std::strtol(text.c_str(), nullptr, 10);
  if (n <= 0) throw UsageError(std::string(opt) + " needs at least 1, got '" + text + "'");
  if (errno == ERANGE || n > max)
    throw UsageError(std::string(opt) + " " + text + " is too large (max " + std::to_string(max) +
                     ")");
  return n;
}

int parse_rank_count(std::string_view opt, const std::string& text) {
  if (text.empty() || text.find_first_not_of("0123456789") != std::string::npos)
    throw UsageError(std::string(opt) + " needs a positive number of ranks, got '" + text + "'");
  errno = 0;
  long n = std::strtol(text.c_str(), nullptr, 10);
  if (n <= 0) throw UsageError(std::string(opt) + " needs at least 1 rank, got '" + text + "'");
  if (errno == ERANGE || n > kMaxRanks)
    throw UsageError(std::string(opt) + " " + text + " is more ranks than one node can run (max " +
                     std::to_string(kMaxRanks) + ")");
  return static_cast<int>(n);
}

double parse_seconds(std::string_view opt, const std::string& text, bool zero_ok) {
  char* end = nullptr;
  errno = 0;
  double s = text.empty() ? -1 : std::strtod(text.c_str(), &end);
  bool bad = text.empty() || *end != '\0' || errno != 0 || !std::isfinite(s) || s < 0 ||
             (s == 0 && !zero_ok) || text.find_first_of("xXpPeEnNiI") != std::string::npos;
  if (bad)
    throw UsageError(std::string(opt) + " needs a number of seconds" +
                     (zero_ok ? " (0 = no limit)" : " greater than 0") + ", got '" + text + "'");
  if (s > kMaxSeconds) throw UsageError(std::string(opt) + " " + text + " is more than a week");
  return s;
}

MapBy parse_map_by(const std::string& v) {
  // Open MPI's spellings: "slot" is its default (the next free core), "socket" its package.
  if (v == "core" || v == "slot") return MapBy::kCore;
  if (v == "numa") return MapBy::kNuma;
  if (v == "package" || v == "socket") return MapBy::kPackage;
  if (v == "node") return MapBy::kNode;
  throw UsageError("--map-by needs core, numa, package or node, got '" + v + "'");
}

BindTo parse_bind_to(const std::string& v) {
  if (v == "core") return BindTo::kCore;
  if (v == "numa") return BindTo::kNuma;
  if (v == "package" || v == "socket") return BindTo::kPackage;
  if (v == "none") return BindTo::kNone;
  throw UsageError("--bind-to needs core, numa, package or none, got '" + v + "'");
}

bool valid_env_name(std::string_view name) {
  if (name.empty() || (name[0] >= '0' && name[0] <= '9')) return false;
  for (char c : name)
    if (!(c == '_' || (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9')))
      return false;
  return true;
}

enum class FileCheck { kMissing, kNotRegular, kNotExecutable, kOk };

FileCheck check_file(const std::string& path) {
  struct stat st;
  if (::stat(path.c_str(), &st) != 0) return FileCheck::kMissing;
  if (!S_ISREG(st.st_mode)) return FileCheck::kNotRegular;
  return ::access(path.c_str(), X_OK) == 0 ? FileCheck::kOk : FileCheck::kNotExecutable;
}

/// Remembers what each option was set to, so that giving it twice with different values is an
/// error rather than "the last one wins" by surprise.
class SeenOptions {
 public:
  void note(const std::string& key, const std::string& spelled, const std::string& value) {
    auto [it, fresh] = seen_.try_emplace(key, spelled, value);
    if (!fresh && it->second.second != value)
      throw UsageError("conflicting options: " + it->second.first + " " + it->second.second +
                       " and " + spelled + " " + value);
  }
  bool has(const std::string& key) const { return seen_.count(key) != 0; }
  const std::string& spelled(const std::string& key) const { return seen_.at(key).first; }

 private:
  std::map<std::string, std::pair<std::string, std::string>> seen_;
};

}  // namespace

int usable_cpus() {
  cpu_set_t set;
  CPU_ZERO(&set);
  if (::sched_getaffinity(0, sizeof set, &set) == 0 && CPU_COUNT(&set) > 0) return CPU_COUNT(&set);
  long n = ::sysconf(_SC_NPROCESSORS_ONLN);
  return n > 0 ? static_cast<int>(n) : 1;
}

std::string rank_list(const std::vector<int>& ranks) {
  std::string out;
  for (size_t i = 0; i < ranks.size();) {
    size_t j = i;
    while (j + 1 < ranks.size() && ranks[j + 1] == ranks[j] + 1) ++j;
    if (!out.empty()) out += ',';
    out += std::to_string(ranks[i]);
    if (j > i) out += (j == i + 1 ? "," : "-") + std::to_string(ranks[j]);
    i = j + 1;
  }
  return out;
}

const char* map_by_name(MapBy m) {
  switch (m) {
    case MapBy::kCore:
      return "core";
    case MapBy::kNuma:
      return "numa";
    case MapBy::kPackage:
      return "package";
    case MapBy::kNode:
      return "node";
  }
  return "?";
}

const char* bind_to_name(BindTo b) {
  switch (b) {
    case BindTo::kDefault:
      return "default";
    case BindTo::kCore:
      return "core";
    case BindTo::kNuma:
      return "numa";
    case BindTo::kPackage:
      return "package";
    case BindTo::kNone:
      return "none";
  }
  return "?";
}

std::string resolve_program(const std::string& name) {
  if (name.find('/') != std::string::npos) {
    switch (check_file(name)) {
      case FileCheck::kOk:
        return name;
      case FileCheck::kMissing:
        throw UsageError("program '" + name + "' not found");
      case FileCheck::kNotRegular:
        throw UsageError("program '" + name + "' is not an executable file");
      case FileCheck::kNotExecutable:
        throw UsageError("program '" + name + "' is not executable");
    }
  }
  const char* path_env = std::getenv("PATH");
  std::string path = path_env ? path_env : "/usr/local/bin:/usr/bin:/bin";
  bool seen_non_executable = false;
  size_t start = 0;
  while (start <= path.size()) {
    size_t end = path.find(':', start);
    if (end == std::string::npos) end = path.size();
    std::string dir = path.substr(start, end - start);
    // An empty PATH element means the current directory, as for execvp.
    std::string candidate = (dir.empty() ? std::string(".") : dir) + "/" + name;
    FileCheck c = check_file(candidate);
    if (c == FileCheck::kOk) return candidate;
    seen_non_executable |= c == FileCheck::kNotExecutable;
    start = end + 1;
  }
  if (seen_non_executable) throw UsageError("program '" + name + "' is not executable");
  throw UsageError("program '" + name + "' not found in PATH");
}

Options parse_options(int argc, char** argv) {
  Options opts;
  SeenOptions seen;
  std::string hostfile, hosts;
  int i = 1;
  for (; i < argc; ++i) {
    std::string arg = argv[i];
    if (arg == "--") {
      ++i;
      break;
    }
    if (arg.size() < 2 || arg[0] != '-') break;
    // Open MPI accepts "-np" and "--np" alike; so do we, for every long option.
    std::string name = arg.substr(arg[1] == '-' ? 2 : 1);
    std::string value;
    bool has_inline_value = false;
    if (size_t eq = name.find('='); eq != std::string::npos && arg[1] == '-') {
      value = name.substr(eq + 1);
      name.resize(eq);
      has_inline_value = true;
    }
    std::string spelled = arg.substr(0, arg.find('='));
    auto take_value = [&](const char* what) {
      if (has_inline_value) return value;
      if (i + 1 >= argc) throw UsageError(arg + " needs " + what);
      return std::string(argv[++i]);
    };
    auto no_value = [&] {
      if (has_inline_value) throw UsageError("option --" + name + " takes no value");
    };

    if (name == "n" || name == "np" || name == "c") {
      std::string v = take_value("a number of ranks");
      opts.nprocs = parse_rank_count(spelled, v);
      opts.nprocs_given = true;
      seen.note("n", spelled, std::to_string(opts.nprocs));
    } else if (name == "x") {
      std::string spec = take_value("VAR or VAR=value");
      if (!valid_env_name(spec.substr(0, spec.find('='))))
        throw UsageError("-x needs VAR or VAR=value, got '" + spec + "'");
      // Resolve "-x VAR" now: mprun later drops foreign-launcher variables from its own
      // environment, and -x must still pass them on.
      if (spec.find('=') == std::string::npos) {
        const char* v = std::getenv(spec.c_str());
        if (!v) continue;
        spec += std::string("=") + v;
      }
      opts.exports.push_back(spec);
    } else if (name == "map-by") {
      std::string v = take_value("core, numa, package or node");
      opts.map_by = parse_map_by(v);
      seen.note("map-by", spelled, map_by_name(opts.map_by));
    } else if (name == "bind-to") {
      std::string v = take_value("core, numa, package or none");
      opts.bind_to = parse_bind_to(v);
      seen.note("bind-to", spelled, bind_to_name(opts.bind_to));
    } else if (name == "cpus-per-rank" || name == "cpus-per-proc") {
      std::string v = take_value("a number of cores");
      opts.cpus_per_rank = static_cast<int>(parse_positive(spelled, v, "a number of cores", 4096));
      seen.note("cpus-per-rank", spelled, std::to_string(opts.cpus_per_rank));
    } else if (name == "report-bindings") {
      no_value();
      opts.report_bindings = true;
    } else if (name == "stdin") {
      std::string v = take_value("none, all or a rank");
      if (v == "none") {
        opts.stdin_mode = StdinMode::kNone;
      } else if (v == "all") {
        opts.stdin_mode = StdinMode::kAll;
      } else if (!v.empty() && v.find_first_not_of("0123456789") == std::string::npos &&
                 v.size() < 7) {
        opts.stdin_mode = StdinMode::kRank;
        opts.stdin_rank = std::atoi(v.c_str());
        v = std::to_string(opts.stdin_rank);
      } else {
        throw UsageError("--stdin needs none, all or a rank number, got '" + v + "'");
      }
      seen.note("stdin", spelled, v);
    } else if (name == "timeout") {
      std::string v = take_value("a number of seconds");
      opts.timeout_s = parse_seconds(spelled, v, false);
      seen.note("timeout", spelled, v);
    } else if (name == "startup-timeout") {
      std::string v = take_value("a number of seconds");
      opts.startup_timeout_s = parse_seconds(spelled, v, true);
      seen.note("startup-timeout", spelled, v);
    } else if (name == "output-filename") {
      std::string v = take_value("a directory");
      if (v.empty()) throw UsageError(spelled + " needs a directory, got ''");
      opts.output_dir = v;
      seen.note("output-filename", spelled, v);
    } else if (name == "hostfile" || name == "machinefile") {
      hostfile = take_value("a file name");
      seen.note("hostfile", spelled, hostfile);
    } else if (name == "H" || name == "host") {
      hosts = take_value("a host list (host[:slots],...)");
      seen.note("host", spelled, hosts);
    } else if (name == "debug-startup") {
      no_value();
      opts.debug_startup = true;
    } else if (name == "tag-output") {
      no_value();
      opts.tag_output = true;
    } else if (name == "verbose") {
      no_value();
      opts.verbose = true;
    } else if (name == "oversubscribe" || name == "allow-run-as-root") {
      // Accepted for scripts written for Open MPI: mprun always allows both.
      no_value();
    } else if (name == "h" || name == "help") {
      opts.action = Action::kHelp;
      return opts;
    } else if (name == "V" || name == "version") {
      opts.action = Action::kVersion;
      return opts;
    } else if (name == "params" || name == "help-params") {
      opts.action = Action::kParams;
      return opts;
    } else {
      throw UsageError("unknown option '" + arg + "' (see mprun --help)");
    }
  }

  if (!hostfile.empty() && !hosts.empty())
    throw UsageError("conflicting options: " + seen.spelled("hostfile") + " and " +
                     seen.spelled("host") + " (give the slots in one place)");
  if (i >= argc) throw UsageError("no program given (usage: mprun -n N [options] program [args])");
  if (!hostfile.empty()) opts.slots = hostfile_slots(hostfile, usable_cpus());
  if (!hosts.empty()) opts.slots = host_list_slots(hosts, usable_cpus());
  opts.hosts_given = opts.slots > 0;
  if (opts.nprocs == 0) {
    // As Open MPI's and MPICH's mpirun: inside an allocation, its tasks (or its CPUs).
    const int slurm_ranks = read_slurm_allocation().default_ranks();
    opts.nprocs = opts.slots > 0 ? opts.slots : slurm_ranks > 0 ? slurm_ranks : usable_cpus();
  }
  if (opts.stdin_mode == StdinMode::kRank && opts.stdin_rank >= opts.nprocs)
    throw UsageError("--stdin " + std::to_string(opts.stdin_rank) + " names no rank (the job has " +
                     std::to_string(opts.nprocs) + (opts.nprocs == 1 ? " rank" : " ranks") + ")");
  if (!seen.has("startup-timeout"))
    opts.startup_timeout_s = static_cast<double>(common::param_int("MPR_STARTUP_TIMEOUT"));
  opts.debug_startup = opts.debug_startup || common::param_bool("MPR_DEBUG_STARTUP");
  opts.program_path = resolve_program(argv[i]);
  opts.program_argv.assign(argv + i, argv + argc);
  return opts;
}

void print_version(std::FILE* out) { std::fprintf(out, "mprun (MPR) %s\n", PACKAGE_VERSION); }

void print_params(std::FILE* out) {
  std::fputs(
      "MPR tunables: environment variables read by the ranks (set them before mprun, or with\n"
      "-x VAR=value) and, for MPR_STARTUP_TIMEOUT and MPR_DEBUG_STARTUP, by mprun itself.\n"
      "Default shown after '='; empty means unset.\n\n",
      out);
  for (const common::ParamDef* p = common::param_table(); p->name; ++p)
    std::fprintf(out, "%s=%s\n    %s\n", p->name, p->default_value, p->help);
}

}  // namespace mpr::launch
