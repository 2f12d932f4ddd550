// mprun inside a Slurm allocation: the allocation read from its environment and the variables
// of an enclosing task the ranks must not inherit. No Slurm needed: the environment is a map.
#include "launcher/slurm.h"

#include <catch2/catch.hpp>
#include <map>
#include <string>

using namespace mpr::launch;

namespace {

SlurmAllocation from(const std::map<std::string, std::string>& env) {
  return read_slurm_allocation([&](const char* name) -> const char* {
    auto it = env.find(name);
    return it == env.end() ? nullptr : it->second.c_str();
  });
}

}  // namespace

TEST_CASE("Slurm count lists", "[slurm]") {
  CHECK(slurm_count_list_sum("4") == 4);
  CHECK(slurm_count_list_sum("3,1") == 4);
  CHECK(slurm_count_list_sum("4(x2)") == 8);
  CHECK(slurm_count_list_sum("2(x3),1") == 7);
  CHECK(slurm_count_list_sum("") == -1);
  CHECK(slurm_count_list_sum("2(x)") == -1);
  CHECK(slurm_count_list_sum("2(x3") == -1);
  CHECK(slurm_count_list_sum("a,1") == -1);
}

TEST_CASE("outside an allocation nothing changes", "[slurm]") {
  SlurmAllocation a = from({{"SLURM_NTASKS", "4"}, {"SLURM_JOB_NUM_NODES", "2"}});
  CHECK_FALSE(a.inside);
  CHECK(a.default_ranks() == 0);
}

TEST_CASE("an allocation's ranks: its tasks, else its CPUs", "[slurm]") {
  SlurmAllocation one = from({{"SLURM_JOB_ID", "7"},
                              {"SLURM_NTASKS", "1"},
                              {"SLURM_JOB_NUM_NODES", "1"},
                              {"SLURM_CPUS_ON_NODE", "2"}});
  CHECK(one.inside);
  CHECK(one.default_ranks() == 1);

  SlurmAllocation two = from({{"SLURM_JOB_ID", "8"},
                              {"SLURM_NTASKS", "4"},
                              {"SLURM_JOB_NUM_NODES", "2"},
                              {"SLURM_JOB_CPUS_PER_NODE", "3,1"}});
  CHECK(two.default_ranks() == 4);

  // sbatch -N 2 without -n: no SLURM_NTASKS; the allocation's CPUs on all its nodes.
  SlurmAllocation cpus = from({{"SLURM_JOBID", "9"},
                               {"SLURM_NNODES", "2"},
                               {"SLURM_JOB_CPUS_PER_NODE", "4(x2)"},
                               {"SLURM_CPUS_ON_NODE", "4"}});
  CHECK(cpus.default_ranks() == 8);
  // One node: this node's CPUs.
  SlurmAllocation here = from({{"SLURM_JOB_ID", "10"},
                               {"SLURM_JOB_NUM_NODES", "1"},
                               {"SLURM_JOB_CPUS_PER_NODE", "3"},
                               {"SLURM_CPUS_ON_NODE", "3"}});
  CHECK(here.default_ranks() == 3);
}

TEST_CASE("mprun as a task of an srun step uses its own CPUs", "[slurm]") {
  SlurmAllocation a = from({{"SLURM_JOB_ID", "8"},
                            {"SLURM_STEP_ID", "0"},
                            {"SLURM_NTASKS", "2"},
                            {"SLURM_JOB_NUM_NODES", "2"}});
  CHECK(a.in_step);
  CHECK(a.default_ranks() == 0);
}

TEST_CASE("an enclosing task's identity is not the ranks'", "[slurm]") {
  for (const char* stale :
       {"SLURM_PROCID=1", "SLURM_LOCALID=0", "SLURM_TASK_PID=42", "SLURM_STEP_ID=0",
        "SLURM_STEPID=0", "SLURM_STEP_NUM_TASKS=2", "SLURM_STEP_NODELIST=n[1-2]", "SLURM_NODEID=1",
        "SLURM_GTIDS=0,1", "SLURM_SRUN_COMM_PORT=1234", "SLURM_CPU_BIND=quiet,mask_cpu:0x1",
        "SLURM_MPI_TYPE=pmi2"})
    CHECK(is_slurm_task_variable(stale));
  for (const char* kept :
       {"SLURM_JOB_ID=8", "SLURM_JOB_NUM_NODES=2", "SLURM_NTASKS=4", "SLURM_NODELIST=n[1-2]",
        "SLURM_CONF=/x/slurm.conf", "SLURM_PROCIDX=3", "SLURMD_NODENAME=n1", "PATH=/bin"})
    CHECK_FALSE(is_slurm_task_variable(kept));
}
