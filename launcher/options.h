// mprun's command line: what to start and how. Parsing fails early with a one-line reason so a
// bad invocation never starts a PMIx server or a process.
#pragma once

#include <cstdio>
#include <stdexcept>
#include <string>
#include <vector>

namespace mpr::launch {

enum class Action { kRun, kHelp, kVersion, kParams };

/// Which objects --map-by deals ranks round-robin over. On one node kCore and kNode place the
/// same way: rank r on the cores starting at r * cpus_per_rank.
enum class MapBy { kCore, kNuma, kPackage, kNode };
/// What a rank is bound to. kDefault: core when the ranks fit on the cores, else none.
enum class BindTo { kDefault, kCore, kNuma, kPackage, kNone };
/// Who reads mprun's stdin: nobody, one rank (stdin_rank), or every rank (a copy each).
enum class StdinMode { kNone, kRank, kAll };

struct Options {
  Action action = Action::kRun;
  /// Ranks to start; 0 until parsed (then -n, the hostfile's slots, the Slurm allocation's
  /// tasks, or the CPUs mprun may use).
  int nprocs = 0;
  bool nprocs_given = false;  ///< -n was given
  bool tag_output = false;
  bool verbose = false;
  bool report_bindings = false;
  bool debug_startup = false;  ///< --debug-startup or MPR_DEBUG_STARTUP=1
  MapBy map_by = MapBy::kCore;
  BindTo bind_to = BindTo::kDefault;
  int cpus_per_rank = 1;
  StdinMode stdin_mode = StdinMode::kRank;
  int stdin_rank = 0;
  double timeout_s = 0;          ///< --timeout; 0 = none
  double startup_timeout_s = 0;  ///< per startup step; 0 = none (MPR_STARTUP_TIMEOUT default)
  std::string output_dir;        ///< --output-filename; empty = forward to mprun's stdout/err
  int slots = 0;                 ///< from --hostfile/--host; 0 = not given
  bool hosts_given = false;      ///< --hostfile or --host: never hand the job to srun
  /// -x settings in order as "VAR=value" ("-x VAR" resolved to mprun's value at parse time;
  /// dropped when VAR is unset).
  std::vector<std::string> exports;
  /// The program as found on disk (PATH searched) and the argv handed to it.
  std::string program_path;
  std::vector<std::string> program_argv;
};

/// A bad invocation; what() is the reason without the "mprun: " prefix.
class UsageError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// Parses argv (argv[0] is mprun itself). Throws UsageError.
Options parse_options(int argc, char** argv);

/// Finds `name` the way execvp would (PATH search unless it contains a '/'). Throws UsageError
/// when it does not exist or is not an executable file.
std::string resolve_program(const std::string& name);

/// Number of CPUs this process may run on (its affinity mask), at least 1.
int usable_cpus();

/// "0-3,5" for a sorted list of ranks (compact in messages about large jobs).
std::string rank_list(const std::vector<int>& ranks);

const char* map_by_name(MapBy m);
const char* bind_to_name(BindTo b);

void print_help(std::FILE* out);
void print_version(std::FILE* out);
/// Every MPR_* tunable from common::param_table() with its default and meaning.
void print_params(std::FILE* out);

}  // namespace mpr::launch
