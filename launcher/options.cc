#include "launcher/options.h"

#include <sched.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <string_view>

#include "common/params.h"
#include "mpr_config.h"

namespace mpr::launch {

namespace {

// Larger jobs would exhaust the pid and fd limits of one node long before they are useful.
constexpr long kMaxRanks = 65536;

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

}  // namespace

int usable_cpus() {
  cpu_set_t set;
  CPU_ZERO(&set);
  if (::sched_getaffinity(0, sizeof set, &set) == 0 && CPU_COUNT(&set) > 0) return CPU_COUNT(&set);
  long n = ::sysconf(_SC_NPROCESSORS_ONLN);
  return n > 0 ? static_cast<int>(n) : 1;
}

std::string resolve_program(const std::string& name) {
  if (name.find('/') != std::string::npos) {
    switch (check_file(name)) {
      case FileCheck::kOk: return name;
      case FileCheck::kMissing: throw UsageError("program '" + name + "' not found");
      case FileCheck::kNotRegular:
        throw UsageError("program '" + name + "' is not an executable file");
      case FileCheck::kNotExecutable: throw UsageError("program '" + name + "' is not executable");
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
    auto take_value = [&](const char* what) {
      if (has_inline_value) return value;
      if (i + 1 >= argc) throw UsageError(arg + " needs " + what);
      return std::string(argv[++i]);
    };
    auto no_value = [&] {
      if (has_inline_value) throw UsageError("option --" + name + " takes no value");
    };

    if (name == "n" || name == "np" || name == "c") {
      opts.nprocs = parse_rank_count(arg.substr(0, arg.find('=')), take_value("a number of ranks"));
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
  if (i >= argc) throw UsageError("no program given (usage: mprun -n N [options] program [args])");
  opts.program_path = resolve_program(argv[i]);
  opts.program_argv.assign(argv + i, argv + argc);
  if (opts.nprocs == 0) opts.nprocs = usable_cpus();
  return opts;
}

void print_version(std::FILE* out) { std::fprintf(out, "mprun (MPR) %s\n", PACKAGE_VERSION); }

void print_help(std::FILE* out) {
  std::fputs(
      "Usage: mprun -n N [options] program [args...]\n"
      "Start N ranks of program on this node, each with its PMIx environment.\n"
      "Also installed as mpirun and mpiexec.\n"
      "\n"
      "Options (single or double dash; --opt=value also works):\n"
      "  -n N, -np N, --np N, -c N\n"
      "                      number of ranks (default: the CPUs mprun may use). More ranks\n"
      "                      than cores is always allowed.\n"
      "  -x VAR              pass VAR with mprun's value to the ranks (the whole environment\n"
      "                      is passed anyway; -x keeps VAR even if it is a PMIX_*/OMPI_*\n"
      "                      variable mprun would otherwise drop)\n"
      "  -x VAR=value        set VAR=value in every rank's environment\n"
      "  --tag-output        prefix every output line with \"[rank] \"\n"
      "  --verbose           set MPR_VERBOSE=1 for the ranks and report mprun's own steps\n"
      "  --oversubscribe, --allow-run-as-root\n"
      "                      accepted for Open MPI compatibility; both are always allowed\n"
      "  --params, --help-params\n"
      "                      list every MPR_* tunable with its default and meaning\n"
      "  -V, --version       print the version and exit\n"
      "  -h, --help          print this help and exit\n"
      "  --                  end of options (the next argument is the program)\n"
      "\n"
      "Input and output:\n"
      "  Each rank's stdout and stderr are forwarded line by line (lines of different ranks\n"
      "  never mix). Rank 0 reads mprun's stdin; the other ranks read /dev/null.\n"
      "\n"
      "Environment:\n"
      "  The ranks get mprun's environment minus PMIX_*, OMPI_* and SLURM_PMIX* variables\n"
      "  of an enclosing launcher, plus their own PMIx variables (PMIX_RANK, ...).\n"
      "  mprun uses PMIx's hash store (PMIX_MCA_gds=hash) unless PMIX_MCA_gds is set.\n"
      "  MPR_DEBUG_STARTUP=1 makes mprun print its startup phases with timings.\n"
      "\n"
      "Signals: SIGINT, SIGTERM and SIGHUP are forwarded to every rank; a second one kills\n"
      "the ranks with SIGKILL.\n"
      "\n"
      "Exit status:\n"
      "  0 when every rank exited 0. When a rank exits non-zero, is killed by a signal,\n"
      "  calls MPI_Abort, or connects to PMIx and exits without finalizing while other\n"
      "  ranks still run, the other ranks get SIGTERM, then SIGKILL 1 s later; mprun prints\n"
      "  one line naming the rank, its pid and the cause, and exits with that rank's code\n"
      "  (128+N for signal N, the MPI_Abort error code, 1 for a missing finalize).\n"
      "  1 for a bad invocation (nothing is started).\n",
      out);
}

void print_params(std::FILE* out) {
  std::fputs(
      "MPR tunables: environment variables read by the ranks (set them before mprun, or with\n"
      "-x VAR=value). Default shown after '='; empty means unset.\n\n",
      out);
  for (const common::ParamDef* p = common::param_table(); p->name; ++p)
    std::fprintf(out, "%s=%s\n    %s\n", p->name, p->default_value, p->help);
}

}  // namespace mpr::launch
