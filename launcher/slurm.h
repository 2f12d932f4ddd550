// mprun inside a Slurm allocation: what the allocation's environment says (how many tasks and
// nodes), and the srun command that runs a job across its nodes, as Open MPI's and MPICH's
// mpirun do. Slurm is the distributed engine; mprun never starts daemons on other nodes.
#pragma once

#include <cstdlib>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "launcher/options.h"

namespace mpr::launch {

/// The enclosing Slurm allocation as its environment describes it (sbatch's batch script,
/// salloc's shell, or a task of an srun step).
struct SlurmAllocation {
  bool inside = false;   ///< SLURM_JOB_ID (or SLURM_JOBID) is set
  bool in_step = false;  ///< SLURM_STEP_ID is set: mprun itself is a task of an srun step
  int nodes = 0;         ///< SLURM_JOB_NUM_NODES (SLURM_NNODES); 0 when not said
  int ntasks = 0;        ///< SLURM_NTASKS (SLURM_NPROCS); 0 when not said (sbatch -N 2 alone)
  int cpus = 0;          ///< the sum of SLURM_JOB_CPUS_PER_NODE ("3,1", "4(x2)"); 0 = not said
  int cpus_here = 0;     ///< SLURM_CPUS_ON_NODE; 0 when not said

  /// The rank count when -n and a host list are not given: SLURM_NTASKS, else the
  /// allocation's CPUs (this node's when it has one node). 0 outside an allocation and inside
  /// a step (the step's task count is not mprun's to use).
  int default_ranks() const;
  /// How many ranks the allocation holds without oversubscription (SLURM_NTASKS, else its
  /// CPUs); 0 when it does not say.
  int capacity() const;
  /// True when mprun hands the job to srun: an allocation of several nodes, with mprun not
  /// itself running as a task of a step (srun there would wait for the step's own CPUs).
  bool spans_nodes() const { return inside && !in_step && nodes > 1; }
};

/// Reads the allocation through `getenv` (a stand-in in the unit tests).
SlurmAllocation read_slurm_allocation(const std::function<const char*(const char*)>& getenv_fn =
                                          [](const char* n) { return std::getenv(n); });

/// The sum of a Slurm count list such as "2(x3),1" (SLURM_JOB_CPUS_PER_NODE,
/// SLURM_TASKS_PER_NODE); -1 when it does not parse.
long slurm_count_list_sum(std::string_view list);

/// True for an environment entry ("NAME=value") that describes the task of an enclosing Slurm
/// step or batch script rather than a rank mprun starts: SLURM_PROCID, SLURM_LOCALID,
/// SLURM_NODEID, SLURM_GTIDS, SLURM_TASK_PID, SLURM_LAUNCH_NODE_IPADDR, SLURM_MPI_TYPE,
/// SLURM_STEP* (SLURM_STEP_ID, SLURM_STEPID, SLURM_STEP_NUM_TASKS, ...), SLURM_SRUN_COMM_*,
/// SLURM_CPU_BIND*. The allocation's own variables (SLURM_JOB_*, SLURM_NTASKS, SLURM_NODELIST,
/// SLURM_CONF, ...) are not.
bool is_slurm_task_variable(std::string_view entry);

/// The srun command line (argv, srun's path first) that runs the job of `opts` across the
/// allocation: --mpi=pmix, --kill-on-bad-exit=1, --quit-on-interrupt, --ntasks (and --nodes
/// when the ranks are fewer than the nodes), the equivalents of --cpus-per-rank,
/// --bind-to/--report-bindings (--cpu-bind), --map-by (--distribution), --tag-output
/// (--label), --stdin (--input), --output-filename (--output, --error), -ppn
/// (--ntasks-per-node), ppr (--ntasks-per-node/-socket/-core), --overcommit when the ranks
/// outnumber the allocation, and --export=ALL (the -x settings are put in srun's
/// environment). --timeout is enforced by mprun itself; --startup-timeout does not apply.
/// Several programs (MPMD) run as --multi-prog `multi_prog_file` (multi_prog_config).
std::vector<std::string> srun_command(const Options& opts, const SlurmAllocation& alloc,
                                      const std::string& srun_path,
                                      const std::string& multi_prog_file = "");

/// The --multi-prog configuration of an MPMD job: one line per program, "first-last
/// [env [-C wdir] VAR=value...] program args".
std::string multi_prog_config(const Options& opts);

/// `argv` as one line a shell would run again unchanged (words quoted where needed).
std::string shell_line(const std::vector<std::string>& argv);

/// Runs the job through srun as mprun's child: forwards SIGINT/SIGTERM/SIGHUP to it, enforces
/// --timeout (SIGTERM to srun, SIGKILL 5 s later, exit status 124) and returns srun's exit
/// status (128+N when it was killed by signal N). Under --verbose prints the command first.
/// Problems before srun starts (no srun in PATH, an output directory that cannot be created)
/// are one "mprun: " line and status 1.
int run_with_srun(const Options& opts, const SlurmAllocation& alloc);

}  // namespace mpr::launch
