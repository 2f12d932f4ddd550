// mprun's command line: what to start and how. Parsing fails early with a one-line reason so a
// bad invocation never starts a PMIx server or a process.
#pragma once

#include <cstdio>
#include <stdexcept>
#include <string>
#include <vector>

namespace mpr::launch {

enum class Action { kRun, kHelp, kVersion, kParams, kInfo };

/// Which objects --map-by deals ranks round-robin over. On one node kCore and kNode place the
/// same way: rank r on the cores starting at r * cpus_per_rank. kHwthread counts hardware
/// threads (PUs) instead of cores, as --use-hwthread-cpus does.
enum class MapBy { kCore, kNuma, kPackage, kNode, kHwthread };
/// What a rank is bound to. kDefault: core (ranks that outnumber the cores wrap around them).
/// kHwthread: one PU per rank (the first of each of its cores).
enum class BindTo { kDefault, kCore, kNuma, kPackage, kNone, kHwthread };
/// Who reads mprun's stdin: nobody, one rank (stdin_rank), or every rank (a copy each).
enum class StdinMode { kNone, kRank, kAll };

/// One program of the command line: `mprun -n 2 ./a : -n 1 -x V=1 -wdir /tmp ./b` has two
/// (MPMD). Ranks are numbered across them in order: a gets 0-1, b gets 2.
struct AppContext {
  int nprocs = 0;             ///< this program's ranks; 0 until resolved
  bool nprocs_given = false;  ///< -n was given in this context
  int first_rank = 0;
  /// -x / -env settings of this context, in order, as "VAR=value".
  std::vector<std::string> exports;
  std::string wdir;  ///< -wdir / --wdir / --wd; empty = mprun's working directory
  /// The program as found on disk (PATH searched) and the argv handed to it.
  std::string program_path;
  std::vector<std::string> program_argv;
};

struct Options {
  Action action = Action::kRun;
  /// Ranks to start; 0 until parsed (then -n, the hostfile's slots, the Slurm allocation's
  /// tasks, or the CPUs mprun may use).
  int nprocs = 0;
  bool nprocs_given = false;  ///< -n was given (in every context, for MPMD)
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
  /// --timeout came from MPIEXEC_TIMEOUT (named in the timeout message).
  bool timeout_from_env = false;
  std::string output_dir;         ///< --output-filename; empty = forward to mprun's stdout/err
  int slots = 0;                  ///< from --hostfile/--host; 0 = not given
  bool hosts_given = false;       ///< --hostfile or --host: never hand the job to srun
  bool timestamp_output = false;  ///< --timestamp-output
  bool merge_stderr = false;      ///< --merge-stderr-to-stdout
  bool display_map = false;       ///< --display-map
  bool quiet = false;             ///< -q: no warnings from mprun
  bool use_hwthreads = false;     ///< --use-hwthread-cpus: each PU counts as a CPU
  int ppr = 0;                    ///< --map-by ppr:N:obj: N ranks per object; 0 = not given
  int ranks_per_node = 0;         ///< -ppn / --npernode / -N; 0 = not given
  std::string cpu_set;            ///< --cpu-set: the PUs the job may use ("0-3,6")
  std::string prefix;     ///< --prefix: DIR/bin and DIR/lib go first in PATH, LD_LIBRARY_PATH
  bool env_none = false;  ///< -genvnone: ranks get only the variables set explicitly
  /// --rankfile: slot spec of each rank ("2", "0-1", "1:0"), index = rank.
  std::vector<std::string> rankfile_slots;
  std::string rankfile;  ///< its name, for messages
  /// Settings for every context's ranks (-genv, --mca translations), as "VAR=value".
  std::vector<std::string> global_exports;
  /// -x settings of the first context (kept for the srun path, which has one program).
  std::vector<std::string> exports;
  /// The first context's program (the only one without ':').
  std::string program_path;
  std::vector<std::string> program_argv;
  std::vector<AppContext> apps;
  /// mprun's own warnings (an option with no MPR meaning, its MPR equivalent), printed once
  /// each before the job starts unless -q.
  std::vector<std::string> warnings;

  /// The context rank r belongs to.
  const AppContext& app_of(int rank) const;
  /// Its position among the contexts (PMIX_APPNUM, MPR_APPNUM).
  int app_index(int rank) const { return static_cast<int>(&app_of(rank) - apps.data()); }
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

/// Reads an Open MPI rankfile: lines "rank N=HOST slot=SPEC" (HOST this node, or +n0).
/// Returns the slot specs by rank. Throws UsageError naming the file and line.
std::vector<std::string> read_rankfile(const std::string& path);

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
