// Starting one rank: its environment, its pipes, and a clean process state before exec.
#pragma once

#include <sys/types.h>

#include <vector>

#include "launcher/env_block.h"
#include "launcher/fd.h"
#include "launcher/options.h"

namespace mpr::launch {

/// Variable prefixes an enclosing launcher (Open MPI, Slurm, another mprun, a PMI-1/PMI-2
/// launcher such as srun --mpi=pmi2 or MPICH's Hydra) leaves behind. Ranks must not see them:
/// PMIx_server_setup_fork adds ours but never removes theirs.
inline constexpr const char* kForeignLauncherPrefixes[] = {"PMIX_", "OMPI_", "SLURM_PMIX", "PMI_"};

/// Fills `env` for `rank` of context `app`: mprun's environment (none with -genvnone) minus
/// kForeignLauncherPrefixes (their OMPI_MCA_* and PMIX_MCA_* settings stay) and minus the task
/// identity of an enclosing Slurm step or batch script (is_slurm_task_variable: SLURM_PROCID,
/// SLURM_LOCALID, SLURM_STEP_*, ...; the allocation's SLURM_JOB_* and SLURM_NTASKS stay), then
/// --prefix's PATH and LD_LIBRARY_PATH, the -genv settings, the context's -x/-env settings,
/// MPR_VERBOSE=1 under --verbose, and the rank's identity (rank_identity_variables).
/// PMIx_server_setup_fork adds the rank's PMIx variables.
void build_rank_environment(const Options& opts, const AppContext& app, int rank, EnvBlock* env);

/// Who a process is in its job, for the identity variables: the job's ranks take theirs from
/// the options; a job MPI_Comm_spawn started has its own size and programs.
struct RankIdentity {
  int rank = 0;
  int size = 1;
  int appnum = 0;
};

/// The environment of a process of a spawned job: as build_rank_environment (mprun's own,
/// -genv, --prefix, --verbose; not the -x settings of the job's programs), its identity in
/// its own job, then `extra` ("NAME=value": what MPI_Comm_spawn's caller passed along).
void build_spawned_environment(const Options& opts, const RankIdentity& who,
                               const std::vector<std::string>& extra, EnvBlock* env);

/// --prefix DIR: PATH and LD_LIBRARY_PATH with DIR/bin and DIR/lib first (mprun's own values
/// after them unless `alone`); empty without --prefix.
std::vector<std::pair<std::string, std::string>> prefix_variables(const Options& opts, bool alone);

/// The rank's identity under the names launchers and wrapper scripts read: MPR_RANK,
/// MPR_SIZE, MPR_LOCAL_RANK, MPR_LOCAL_SIZE, MPR_NODE_RANK, MPR_APPNUM, OMPI_COMM_WORLD_RANK,
/// _SIZE, _LOCAL_RANK, _LOCAL_SIZE, _NODE_RANK, PMI_RANK, PMI_SIZE, MPI_LOCALRANKID,
/// MPI_LOCALNRANKS. All ranks of an mprun job share this node, so local = global.
std::vector<std::pair<std::string, std::string>> rank_identity_variables(const RankIdentity& who);

/// Removes an enclosing job's PMIX_* identity from mprun's own environment (PMIX_MCA_*
/// settings stay: they configure our server and setup_fork hands them to the ranks).
void scrub_own_environment();

/// How one rank is started.
struct RankLaunch {
  int rank = 0;
  const AppContext* app = nullptr;  ///< its program, arguments and working directory
  char** env = nullptr;
  int stdin_fd = -1;
  /// sched_setaffinity words for the rank (bit N = CPU N); empty: inherit mprun's.
  std::vector<unsigned long> affinity;
  /// Receive stdout and stderr when valid (--output-filename); otherwise pipes. err_file
  /// may be invalid with a valid output_fd: stderr goes to output_fd too.
  int output_fd = -1;
  int err_file = -1;
  /// --merge-stderr-to-stdout: the rank's stderr is its stdout.
  bool merge_stderr = false;
};

struct RankProcess {
  pid_t pid = -1;
  UniqueFd out;  ///< read end of the rank's stdout (invalid with an output file)
  UniqueFd err;  ///< read end of the rank's stderr (invalid with an output file)
};

/// Forks and execs how.app's program as described by `how`, in its working directory. The child
/// gets default signal dispositions and an empty signal mask, its CPU binding, dies with SIGKILL
/// when mprun dies, and leads its own process group (so signals reach its children). A binding or
/// exec failure is printed by the child, which then exits 127. Throws std::system_error if pipes or
/// fork fail.
RankProcess spawn_rank(const RankLaunch& how);

/// Creates `dir` (and missing parents, mode 0755) and dir/1 for --output-filename. An existing
/// dir or dir/1 must be a directory of mprun's user (another user's directory could hold
/// links planted to make mprun overwrite the user's files). Throws UsageError.
void make_output_dir(const std::string& dir);

/// The Open MPI layout of --output-filename: DIR/1/rank.R/stdout and stderr, R zero-padded to
/// the width of the largest rank ("rank.07" in a job of 12).
std::string rank_output_dir(const std::string& dir, int rank, int nprocs);

struct RankOutput {
  UniqueFd out;
  UniqueFd err;  ///< invalid when merged
};

/// Creates DIR/1/rank.R and opens its stdout and stderr (or only stdout, for both, when
/// `merged`), truncated and O_APPEND. Never follows a symbolic link and never truncates a file
/// with other links or another owner. Throws std::system_error naming the path.
RankOutput open_rank_output(const std::string& dir, int rank, int nprocs, bool merged);

}  // namespace mpr::launch
