// mprun inside a Slurm allocation: what the allocation's environment says (how many tasks and
// nodes), and which variables of an enclosing task are not the ranks'.
#pragma once

#include <cstdlib>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

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

}  // namespace mpr::launch
