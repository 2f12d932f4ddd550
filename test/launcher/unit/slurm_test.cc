// mprun inside a Slurm allocation: the allocation read from its environment, the variables of
// an enclosing task the ranks must not inherit, and the srun command line for a job across
// nodes. No Slurm needed: the environment is a map.
#include "launcher/slurm.h"

#include <catch2/catch.hpp>
#include <map>
#include <string>
#include <vector>

using namespace mpr::launch;

namespace {

SlurmAllocation from(const std::map<std::string, std::string>& env) {
  return read_slurm_allocation([&](const char* name) -> const char* {
    auto it = env.find(name);
    return it == env.end() ? nullptr : it->second.c_str();
  });
}

Options job(int n) {
  Options o;
  o.nprocs = n;
  o.program_path = "/bin/hostname";
  o.program_argv = {"hostname", "-s"};
  return o;
}

bool has(const std::vector<std::string>& argv, const std::string& word) {
  for (const std::string& a : argv)
    if (a == word) return true;
  return false;
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
  CHECK_FALSE(a.spans_nodes());
}

TEST_CASE("an allocation's ranks: its tasks, else its CPUs", "[slurm]") {
  SlurmAllocation one = from({{"SLURM_JOB_ID", "7"},
                              {"SLURM_NTASKS", "1"},
                              {"SLURM_JOB_NUM_NODES", "1"},
                              {"SLURM_CPUS_ON_NODE", "2"}});
  CHECK(one.inside);
  CHECK(one.default_ranks() == 1);
  CHECK_FALSE(one.spans_nodes());

  SlurmAllocation two = from({{"SLURM_JOB_ID", "8"},
                              {"SLURM_NTASKS", "4"},
                              {"SLURM_JOB_NUM_NODES", "2"},
                              {"SLURM_JOB_CPUS_PER_NODE", "3,1"}});
  CHECK(two.default_ranks() == 4);
  CHECK(two.spans_nodes());
  CHECK(two.capacity() == 4);

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

TEST_CASE("mprun as a task of an srun step stays on its node", "[slurm]") {
  SlurmAllocation a = from({{"SLURM_JOB_ID", "8"},
                            {"SLURM_STEP_ID", "0"},
                            {"SLURM_NTASKS", "2"},
                            {"SLURM_JOB_NUM_NODES", "2"}});
  CHECK(a.in_step);
  CHECK_FALSE(a.spans_nodes());
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

TEST_CASE("the srun command for a job across nodes", "[slurm]") {
  SlurmAllocation a =
      from({{"SLURM_JOB_ID", "8"}, {"SLURM_NTASKS", "4"}, {"SLURM_JOB_NUM_NODES", "2"}});
  Options o = job(4);
  std::vector<std::string> argv = srun_command(o, a, "/usr/bin/srun");
  CHECK(argv == std::vector<std::string>{"/usr/bin/srun", "--mpi=pmix", "--kill-on-bad-exit=1",
                                         "--quit-on-interrupt", "--ntasks=4", "--input=0",
                                         "--export=ALL", "--", "/bin/hostname", "-s"});

  o = job(6);
  o.bind_to = BindTo::kCore;
  o.report_bindings = true;
  o.cpus_per_rank = 2;
  o.map_by = MapBy::kNode;
  o.tag_output = true;
  o.stdin_mode = StdinMode::kNone;
  o.output_dir = "/tmp/out";
  argv = srun_command(o, a, "srun");
  CHECK(has(argv, "--ntasks=6"));
  CHECK(has(argv, "--overcommit"));  // more ranks than the allocation's 4 tasks
  CHECK(has(argv, "--cpus-per-task=2"));
  CHECK(has(argv, "--cpu-bind=verbose,cores"));
  CHECK(has(argv, "--distribution=cyclic"));
  CHECK(has(argv, "--label"));
  CHECK(has(argv, "--input=none"));
  CHECK(has(argv, "--output=/tmp/out/1/rank.%1t/stdout"));
  CHECK(has(argv, "--error=/tmp/out/1/rank.%1t/stderr"));

  o = job(12);
  o.ranks_per_node = 6;
  o.output_dir = "/tmp/out";
  o.merge_stderr = true;
  argv = srun_command(o, a, "srun");
  CHECK(has(argv, "--ntasks-per-node=6"));
  CHECK(has(argv, "--output=/tmp/out/1/rank.%2t/stdout"));  // ranks 00-11
  CHECK_FALSE(has(argv, "--error=/tmp/out/1/rank.%2t/stderr"));

  // MPMD: srun --multi-prog with one line per program, env(1) for its settings.
  o = job(3);
  o.apps.resize(2);
  o.apps[0] = AppContext{2, true, 0, {}, "", "/bin/hostname", {"hostname", "-s"}};
  o.apps[1] = AppContext{1, true, 2, {"V=a b"}, "/tmp", "/bin/echo", {"echo", "it's", "x"}};
  argv = srun_command(o, a, "srun", "/tmp/mp.conf");
  CHECK(std::vector<std::string>(argv.end() - 3, argv.end()) ==
        std::vector<std::string>{"--multi-prog", "--", "/tmp/mp.conf"});
  CHECK(multi_prog_config(o) ==
        "0-1 /bin/hostname -s\n2 env -C /tmp 'V=a b' /bin/echo \"it's\" x\n");

  o = job(2);
  o.bind_to = BindTo::kNone;
  o.stdin_mode = StdinMode::kAll;
  argv = srun_command(o, a, "srun");
  CHECK(has(argv, "--cpu-bind=none"));
  CHECK(has(argv, "--input=all"));
  CHECK_FALSE(has(argv, "--overcommit"));
  CHECK_FALSE(has(argv, "--nodes=2"));

  // One rank on a 2-node allocation: one node, without srun's warning.
  CHECK(has(srun_command(job(1), a, "srun"), "--nodes=1"));
}

TEST_CASE("the srun command as one shell line", "[slurm]") {
  CHECK(shell_line({"srun", "--ntasks=2", "--", "/bin/echo", "a b", "it's", ""}) ==
        "srun --ntasks=2 -- /bin/echo 'a b' 'it'\\''s' ''");
}
