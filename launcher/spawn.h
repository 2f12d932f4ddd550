// Starting one rank: its environment, its pipes, and a clean process state before exec.
#pragma once

#include <sys/types.h>

#include "launcher/env_block.h"
#include "launcher/fd.h"
#include "launcher/options.h"

namespace mpr::launch {

/// Variable prefixes an enclosing launcher (Open MPI, Slurm, another mprun) leaves behind.
/// Ranks must not see them: PMIx_server_setup_fork adds ours but never removes theirs.
inline constexpr const char* kForeignLauncherPrefixes[] = {"PMIX_", "OMPI_", "SLURM_PMIX"};

/// Fills `env` with mprun's environment minus kForeignLauncherPrefixes, then the -x settings,
/// then MPR_VERBOSE=1 under --verbose. PMIx_server_setup_fork adds the rank's PMIx variables.
void build_rank_environment(const Options& opts, EnvBlock* env);

/// Removes an enclosing job's PMIX_* identity from mprun's own environment (PMIX_MCA_*
/// settings stay: they configure our server and setup_fork hands them to the ranks).
void scrub_own_environment();

struct RankProcess {
  pid_t pid = -1;
  UniqueFd out;  ///< read end of the rank's stdout
  UniqueFd err;  ///< read end of the rank's stderr
};

/// Forks and execs opts.program_path as `rank` with environment `env` and `stdin_fd` as its
/// stdin. The child gets default signal dispositions and an empty signal mask, dies with
/// SIGKILL when mprun dies, and leads its own process group (so signals reach its children).
/// Throws std::system_error if pipes or fork fail.
RankProcess spawn_rank(const Options& opts, int rank, char** env, int stdin_fd);

}  // namespace mpr::launch
