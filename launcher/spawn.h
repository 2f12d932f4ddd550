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

/// Fills `env` with mprun's environment minus kForeignLauncherPrefixes and minus the task
/// identity of an enclosing Slurm step or batch script (is_slurm_task_variable: SLURM_PROCID,
/// SLURM_LOCALID, SLURM_STEP_*, ...; the allocation's SLURM_JOB_* and SLURM_NTASKS stay), then
/// the -x settings, then MPR_VERBOSE=1 under --verbose. PMIx_server_setup_fork adds the rank's
/// PMIx variables.
void build_rank_environment(const Options& opts, EnvBlock* env);

/// Removes an enclosing job's PMIX_* identity from mprun's own environment (PMIX_MCA_*
/// settings stay: they configure our server and setup_fork hands them to the ranks).
void scrub_own_environment();

/// How one rank is started.
struct RankLaunch {
  int rank = 0;
  char** env = nullptr;
  int stdin_fd = -1;
  /// sched_setaffinity words for the rank (bit N = CPU N); empty: inherit mprun's.
  std::vector<unsigned long> affinity;
  /// Receives both stdout and stderr when valid (--output-filename); otherwise pipes.
  int output_fd = -1;
};

struct RankProcess {
  pid_t pid = -1;
  UniqueFd out;  ///< read end of the rank's stdout (invalid with an output file)
  UniqueFd err;  ///< read end of the rank's stderr (invalid with an output file)
};

/// Forks and execs opts.program_path as described by `how`. The child gets default signal
/// dispositions and an empty signal mask, its CPU binding, dies with SIGKILL when mprun dies,
/// and leads its own process group (so signals reach its children). A binding or exec failure
/// is printed by the child, which then exits 127. Throws std::system_error if pipes or fork
/// fail.
RankProcess spawn_rank(const Options& opts, const RankLaunch& how);

/// Creates `dir` (and missing parents, mode 0755) for --output-filename. Throws UsageError.
void make_output_dir(const std::string& dir);

/// Opens dir/rank.R for a rank's combined output (truncated, O_APPEND so stdout and stderr
/// writes keep their order). Throws std::system_error.
UniqueFd open_rank_output(const std::string& dir, int rank);

}  // namespace mpr::launch
