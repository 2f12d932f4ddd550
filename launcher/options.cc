#include "launcher/options.h"

#include <sched.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <map>
#include <sstream>
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
  if (v == "hwthread") return MapBy::kHwthread;
  throw UsageError("--map-by needs core, numa, package, node, hwthread or ppr:N:OBJ, got '" + v +
                   "'");
}

BindTo parse_bind_to(const std::string& v) {
  if (v == "core") return BindTo::kCore;
  if (v == "numa") return BindTo::kNuma;
  if (v == "package" || v == "socket") return BindTo::kPackage;
  if (v == "none") return BindTo::kNone;
  if (v == "hwthread") return BindTo::kHwthread;
  throw UsageError("--bind-to needs core, hwthread, numa, package or none, got '" + v + "'");
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
    case MapBy::kHwthread:
      return "hwthread";
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
    case BindTo::kHwthread:
      return "hwthread";
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

const AppContext& Options::app_of(int rank) const {
  for (const AppContext& a : apps)
    if (rank < a.first_rank + a.nprocs) return a;
  return apps.back();
}

namespace {

/// "-x VAR" and "-genvlist A,B" pass mprun's current value (resolved now: mprun later drops
/// foreign-launcher variables from its own environment); an unset VAR is skipped.
void add_current_value(const std::string& name, std::vector<std::string>* out) {
  if (const char* v = std::getenv(name.c_str())) out->push_back(name + "=" + v);
}

std::vector<std::string> split_commas(const std::string& s) {
  std::vector<std::string> out;
  size_t start = 0;
  while (start <= s.size()) {
    size_t comma = s.find(',', start);
    if (comma == std::string::npos) comma = s.size();
    if (comma > start) out.push_back(s.substr(start, comma - start));
    start = comma + 1;
  }
  return out;
}

/// Open MPI's btl names as MPR backends; "" for a component MPR has no counterpart of.
std::string btl_equivalent(const std::string& component) {
  if (component == "self") return "self";
  if (component == "vader" || component == "sm" || component == "shm" || component == "smcuda")
    return "shm";
  if (component == "tcp") return "tcp";
  if (component == "openib" || component == "uct" || component == "ofi" || component == "verbs")
    return "verbs";
  return "";
}

/// --mca KEY VALUE: MPR has no MCA parameters. Where an MPR tunable means the same, the
/// ranks get it (unless the caller set it) and the warning names it; otherwise it is ignored.
void translate_mca(const std::string& spelled, const std::string& key, const std::string& value,
                   Options* opts) {
  const std::string what = spelled + " " + key + " " + value + ": ";
  auto set = [&](const std::string& var, const std::string& v) {
    if (std::getenv(var.c_str())) {
      opts->warnings.push_back(what + "MPR has no MCA parameters; " + var +
                               " is already set and stays as it is");
      return;
    }
    opts->global_exports.push_back(var + "=" + v);
    opts->warnings.push_back(what + "MPR has no MCA parameters; the ranks get " + var + "=" + v +
                             " instead");
  };
  if (key == "btl") {
    bool exclude = !value.empty() && value[0] == '^';
    std::vector<std::string> mine, unknown;
    for (const std::string& c : split_commas(exclude ? value.substr(1) : value)) {
      std::string m = btl_equivalent(c);
      if (m.empty())
        unknown.push_back(c);
      else if (std::find(mine.begin(), mine.end(), m) == mine.end())
        mine.push_back(m);
    }
    if (exclude) {
      std::vector<std::string> keep;
      for (const char* b : {"self", "shm", "verbs", "tcp"})
        if (std::find(mine.begin(), mine.end(), b) == mine.end()) keep.emplace_back(b);
      mine = keep;
    }
    std::string list;
    for (const std::string& m : mine) list += (list.empty() ? "" : ",") + m;
    if (list.empty()) {
      opts->warnings.push_back(what +
                               "no MPR backend matches; ignored (backends: self, shm, "
                               "verbs, tcp; see MPR_BTL in mprun --params)");
      return;
    }
    set("MPR_BTL", list);
    for (const std::string& u : unknown)
      opts->warnings.push_back(what + "'" + u + "' has no MPR counterpart and is left out");
    return;
  }
  if (key == "btl_tcp_if_include" || key == "oob_tcp_if_include")
    return set("MPR_TCP_IF_INCLUDE", value);
  if (key == "btl_tcp_if_exclude" || key == "oob_tcp_if_exclude")
    return set("MPR_TCP_IF_EXCLUDE", value);
  if (key == "pml" || key == "mtl" || key == "osc" || key == "coll" ||
      key == "btl_vader_single_copy_mechanism")
    opts->warnings.push_back(what +
                             "MPR has no MCA parameters and picks its protocols itself; "
                             "ignored (mprun --params lists MPR's tunables)");
  else
    opts->warnings.push_back(what +
                             "MPR has no MCA parameters; ignored (mprun --params lists "
                             "MPR's tunables)");
}

/// --map-by OBJ[:PE=N][:modifier...] or ppr:N:OBJ[:PE=N], as Open MPI spells them.
void parse_map_spec(const std::string& spelled, const std::string& v, Options* opts, int* pe) {
  std::vector<std::string> parts;
  size_t start = 0;
  for (;;) {
    size_t colon = v.find(':', start);
    parts.push_back(
        v.substr(start, colon == std::string::npos ? std::string::npos : colon - start));
    if (colon == std::string::npos) break;
    start = colon + 1;
  }
  size_t next = 1;
  auto lower = [](std::string s) {
    for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return s;
  };
  if (lower(parts[0]) == "ppr") {
    if (parts.size() < 3)
      throw UsageError(spelled + " ppr needs ppr:N:core|numa|package|node, got '" + v + "'");
    opts->ppr = static_cast<int>(
        parse_positive(spelled + " ppr", parts[1], "a number of ranks", kMaxRanks));
    opts->map_by = parse_map_by(lower(parts[2]));
    next = 3;
  } else {
    opts->map_by = parse_map_by(lower(parts[0]));
  }
  for (; next < parts.size(); ++next) {
    std::string m = lower(parts[next]);
    if (m.rfind("pe=", 0) == 0) {
      *pe = static_cast<int>(
          parse_positive(spelled + " PE", parts[next].substr(3), "a number of cores", 4096));
    } else if (m == "oversubscribe" || m == "nooversubscribe" || m == "span" || m == "nolocal" ||
               m == "inherit" || m == "noinherit" || m == "fill") {
      // Placement on one node is the same with or without these.
    } else {
      throw UsageError(spelled + ": unknown modifier '" + parts[next] + "' in '" + v +
                       "' (PE=N, oversubscribe, span)");
    }
  }
}

/// The options that only switch something on, under each of their spellings.
bool Options::*flag_option(const std::string& name) {
  static const std::pair<const char*, bool Options::*> kFlags[] = {
      {"report-bindings", &Options::report_bindings},
      {"display-map", &Options::display_map},
      {"debug-startup", &Options::debug_startup},
      {"tag-output", &Options::tag_output},
      {"l", &Options::tag_output},
      {"prepend-rank", &Options::tag_output},
      {"timestamp-output", &Options::timestamp_output},
      {"merge-stderr-to-stdout", &Options::merge_stderr},
      {"verbose", &Options::verbose},
      {"v", &Options::verbose},
      {"q", &Options::quiet},
      {"quiet", &Options::quiet},
      {"use-hwthread-cpus", &Options::use_hwthreads},
  };
  for (const auto& [spelling, member] : kFlags)
    if (name == spelling) return member;
  return nullptr;
}

std::string check_wdir(const std::string& spelled, const std::string& dir) {
  struct stat st;
  if (dir.empty()) throw UsageError(spelled + " needs a directory, got ''");
  if (::stat(dir.c_str(), &st) != 0)
    throw UsageError(spelled + " " + dir + ": " + std::strerror(errno));
  if (!S_ISDIR(st.st_mode)) throw UsageError(spelled + " " + dir + ": not a directory");
  return dir;
}

}  // namespace

std::vector<std::string> read_rankfile(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw UsageError("cannot read rankfile '" + path + "': " + std::strerror(errno));
  std::map<int, std::string> slots;
  std::string line;
  for (int lineno = 1; std::getline(in, line); ++lineno) {
    auto fail = [&](const std::string& why) {
      return UsageError("rankfile " + path + " line " + std::to_string(lineno) + ": " + why);
    };
    line = line.substr(0, line.find('#'));
    std::istringstream words(line);
    std::string w1, w2, w3;
    if (!(words >> w1)) continue;
    // "rank 0=host slot=1:0"
    words >> w2 >> w3;
    size_t eq = w2.find('=');
    if (w1 != "rank" || eq == std::string::npos || w3.rfind("slot=", 0) != 0)
      throw fail("cannot parse '" + line + "' (expected: rank N=host slot=SPEC)");
    std::string num = w2.substr(0, eq), host = w2.substr(eq + 1);
    if (num.empty() || num.find_first_not_of("0123456789") != std::string::npos || num.size() > 6)
      throw fail("'" + num + "' is not a rank number");
    if (host != "+n0" && !is_this_node(host))
      throw fail("host '" + host +
                 "' is not this node (mprun starts ranks on this node only; "
                 "across nodes run the job with srun --mpi=pmix)");
    std::string spec = w3.substr(5);
    if (spec.empty() || spec.find_first_not_of("0123456789,-:") != std::string::npos)
      throw fail("cannot parse slot '" + spec + "' (cores: 2, 0-1, 0,2; package:core: 1:0)");
    int r = std::atoi(num.c_str());
    if (!slots.emplace(r, spec).second) throw fail("rank " + num + " is given twice");
  }
  std::vector<std::string> out;
  for (const auto& [r, spec] : slots) {
    if (r != static_cast<int>(out.size()))
      throw UsageError("rankfile " + path + " gives no slot for rank " +
                       std::to_string(out.size()) + " (ranks must be 0, 1, 2, ...)");
    out.push_back(spec);
  }
  if (out.empty()) throw UsageError("rankfile " + path + " names no rank");
  return out;
}

Options parse_options(int argc, char** argv) {
  Options opts;
  SeenOptions seen;
  std::string hostfile, hosts;
  int pe = 0;
  bool timeout_given = false;
  int i = 1;
  for (size_t ctx = 0;; ++ctx) {
    opts.apps.emplace_back();
    AppContext& app = opts.apps.back();
    // Conflicts within one context ("-n 2 -np 3"); every context may have its own -n.
    const std::string ctx_key = ctx == 0 ? "" : "#" + std::to_string(ctx);
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
        if (has_inline_value) {
          has_inline_value = false;  // a second value comes from the next argument
          return value;
        }
        if (i + 1 >= argc) throw UsageError(arg + " needs " + what);
        return std::string(argv[++i]);
      };
      auto no_value = [&] {
        if (has_inline_value) throw UsageError("option --" + name + " takes no value");
      };
      auto env_setting = [&](const char* what) {
        std::string var = take_value(what);
        if (!valid_env_name(var))
          throw UsageError(spelled + " needs a variable name and a value, got '" + var + "'");
        return var + "=" + take_value(what);
      };

      if (bool Options::*flag = flag_option(name)) {
        no_value();
        opts.*flag = true;
      } else if (name == "n" || name == "np" || name == "c") {
        std::string v = take_value("a number of ranks");
        app.nprocs = parse_rank_count(spelled, v);
        app.nprocs_given = true;
        seen.note("n" + ctx_key, spelled, std::to_string(app.nprocs));
      } else if (name == "x") {
        std::string spec = take_value("VAR or VAR=value");
        if (!valid_env_name(spec.substr(0, spec.find('='))))
          throw UsageError("-x needs VAR or VAR=value, got '" + spec + "'");
        if (spec.find('=') == std::string::npos)
          add_current_value(spec, &app.exports);
        else
          app.exports.push_back(spec);
      } else if (name == "env") {
        app.exports.push_back(env_setting("VAR value"));
      } else if (name == "envlist") {
        for (const std::string& v : split_commas(take_value("a list of variables")))
          add_current_value(v, &app.exports);
      } else if (name == "genv") {
        opts.global_exports.push_back(env_setting("VAR value"));
      } else if (name == "genvlist") {
        for (const std::string& v : split_commas(take_value("a list of variables")))
          add_current_value(v, &opts.global_exports);
      } else if (name == "genvall" || name == "envall") {
        no_value();  // the default: the whole environment goes to the ranks
      } else if (name == "genvnone" || name == "envnone") {
        no_value();
        opts.env_none = true;
      } else if (name == "wdir" || name == "wd") {
        app.wdir = check_wdir(spelled, take_value("a directory"));
        seen.note("wdir" + ctx_key, spelled, app.wdir);
      } else if (name == "map-by") {
        std::string v = take_value("core, numa, package, node, hwthread or ppr:N:OBJ");
        parse_map_spec(spelled, v, &opts, &pe);
        seen.note("map-by", spelled, v);
      } else if (name == "bind-to") {
        std::string v = take_value("core, hwthread, numa, package or none");
        opts.bind_to = parse_bind_to(v.substr(0, v.find(':')));
        seen.note("bind-to", spelled, bind_to_name(opts.bind_to));
      } else if (name == "cpus-per-rank" || name == "cpus-per-proc") {
        std::string v = take_value("a number of cores");
        opts.cpus_per_rank =
            static_cast<int>(parse_positive(spelled, v, "a number of cores", 4096));
        seen.note("cpus-per-rank", spelled, std::to_string(opts.cpus_per_rank));
      } else if (name == "cpu-set" || name == "cpu-list") {
        std::string v = take_value("a list of CPUs (0-3,6)");
        if (v.empty() || v.find_first_not_of("0123456789,-") != std::string::npos)
          throw UsageError(spelled + " needs a list of CPUs such as 0-3,6, got '" + v + "'");
        opts.cpu_set = v;
        seen.note("cpu-set", spelled, v);
      } else if (name == "rankfile" || name == "rf") {
        opts.rankfile = take_value("a file name");
        seen.note("rankfile", spelled, opts.rankfile);
      } else if (name == "ppn" || name == "npernode" || name == "N" || name == "perhost") {
        std::string v = take_value("a number of ranks per node");
        opts.ranks_per_node = parse_rank_count(spelled, v);
        seen.note("ppn", spelled, v);
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
        timeout_given = true;
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
      } else if (name == "hostfile" || name == "machinefile" || name == "f") {
        hostfile = take_value("a file name");
        seen.note("hostfile", spelled, hostfile);
      } else if (name == "H" || name == "host" || name == "hosts") {
        hosts = take_value("a host list (host[:slots],...)");
        seen.note("host", spelled, hosts);
      } else if (name == "prefix") {
        opts.prefix = check_wdir(spelled, take_value("a directory"));
        seen.note("prefix", spelled, opts.prefix);
      } else if (name == "mca" || name == "gmca") {
        std::string key = take_value("a parameter name and a value");
        translate_mca(spelled, key, take_value("a parameter name and a value"), &opts);
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
      } else if (name == "info") {
        opts.action = Action::kInfo;
        return opts;
      } else {
        throw UsageError("unknown option '" + arg + "' (see mprun --help)");
      }
    }
    if (i >= argc || std::string_view(argv[i]) == ":")
      throw UsageError(ctx == 0 ? "no program given (usage: mprun -n N [options] program [args])"
                                : "no program after ':' (MPMD: mprun -n 1 ./a : -n 1 ./b)");
    int end = i;
    while (end < argc && std::string_view(argv[end]) != ":") ++end;
    app.program_path = resolve_program(argv[i]);
    app.program_argv.assign(argv + i, argv + end);
    if (end >= argc) break;
    i = end + 1;
    if (i >= argc) throw UsageError("no program after ':' (MPMD: mprun -n 1 ./a : -n 1 ./b)");
  }

  if (!hostfile.empty() && !hosts.empty())
    throw UsageError("conflicting options: " + seen.spelled("hostfile") + " and " +
                     seen.spelled("host") + " (give the slots in one place)");
  if (pe > 0) {
    if (seen.has("cpus-per-rank") && pe != opts.cpus_per_rank)
      throw UsageError("conflicting options: " + seen.spelled("cpus-per-rank") + " " +
                       std::to_string(opts.cpus_per_rank) + " and " + seen.spelled("map-by") +
                       " ...:PE=" + std::to_string(pe));
    opts.cpus_per_rank = pe;
  }
  if (opts.bind_to == BindTo::kHwthread && opts.cpus_per_rank > 1 && !opts.use_hwthreads)
    opts.use_hwthreads = true;  // PE=N then counts hardware threads, as in Open MPI
  if (!opts.rankfile.empty()) opts.rankfile_slots = read_rankfile(opts.rankfile);
  // Open MPI's and MPICH's -H: each mention of a host is one slot ("a,a" = 2).
  if (!hostfile.empty()) opts.slots = hostfile_slots(hostfile, usable_cpus());
  if (!hosts.empty()) opts.slots = host_list_slots(hosts, 1);
  opts.hosts_given = opts.slots > 0;

  const SlurmAllocation alloc = read_slurm_allocation();
  const bool across_nodes = alloc.spans_nodes() && !opts.hosts_given;
  if (opts.apps.size() > 1) {
    for (size_t k = 0; k < opts.apps.size(); ++k)
      if (!opts.apps[k].nprocs_given)
        throw UsageError("MPMD: '" + opts.apps[k].program_argv[0] + "' (program " +
                         std::to_string(k + 1) + " of " + std::to_string(opts.apps.size()) +
                         ") needs its own -n");
  } else if (!opts.apps[0].nprocs_given) {
    // As Open MPI's and MPICH's mpirun: inside an allocation, its tasks (or its CPUs).
    const int slurm_ranks = alloc.default_ranks();
    int n = !opts.rankfile_slots.empty() ? static_cast<int>(opts.rankfile_slots.size())
            : opts.slots > 0             ? opts.slots
            : opts.ranks_per_node > 0    ? opts.ranks_per_node * (across_nodes ? alloc.nodes : 1)
            : slurm_ranks > 0            ? slurm_ranks
                                         : usable_cpus();
    opts.apps[0].nprocs = n;
  }
  opts.nprocs = 0;
  for (AppContext& a : opts.apps) {
    a.first_rank = opts.nprocs;
    opts.nprocs += a.nprocs;
    if (opts.nprocs > kMaxRanks)
      throw UsageError("the programs' -n add up to more ranks than one node can run (max " +
                       std::to_string(kMaxRanks) + ")");
  }
  opts.nprocs_given = opts.apps.size() > 1 || opts.apps[0].nprocs_given;
  if (opts.ranks_per_node > 0 && !across_nodes && opts.nprocs > opts.ranks_per_node)
    throw UsageError(seen.spelled("ppn") + " " + std::to_string(opts.ranks_per_node) + " allows " +
                     std::to_string(opts.ranks_per_node) +
                     (opts.ranks_per_node == 1 ? " rank" : " ranks") +
                     " on this node, but the job has " + std::to_string(opts.nprocs) +
                     " (mprun starts ranks on this node only; inside a Slurm allocation of "
                     "several nodes it runs them with srun)");
  if (!opts.rankfile_slots.empty() && opts.nprocs > static_cast<int>(opts.rankfile_slots.size()))
    throw UsageError("rankfile " + opts.rankfile + " gives slots for " +
                     std::to_string(opts.rankfile_slots.size()) + " ranks, but the job has " +
                     std::to_string(opts.nprocs));
  if (opts.stdin_mode == StdinMode::kRank && opts.stdin_rank >= opts.nprocs)
    throw UsageError("--stdin " + std::to_string(opts.stdin_rank) + " names no rank (the job has " +
                     std::to_string(opts.nprocs) + (opts.nprocs == 1 ? " rank" : " ranks") + ")");
  if (!seen.has("startup-timeout"))
    opts.startup_timeout_s = static_cast<double>(common::param_int("MPR_STARTUP_TIMEOUT"));
  if (!timeout_given) {
    // Open MPI's and MPICH's launchers read the job's time limit from here too.
    if (const char* t = std::getenv("MPIEXEC_TIMEOUT"); t && *t) {
      opts.timeout_s = parse_seconds("MPIEXEC_TIMEOUT", t, true);
      opts.timeout_from_env = opts.timeout_s > 0;
    }
  }
  opts.debug_startup = opts.debug_startup || common::param_bool("MPR_DEBUG_STARTUP");
  opts.exports = opts.global_exports;
  opts.exports.insert(opts.exports.end(), opts.apps[0].exports.begin(), opts.apps[0].exports.end());
  opts.program_path = opts.apps[0].program_path;
  opts.program_argv = opts.apps[0].program_argv;
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
