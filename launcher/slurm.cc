// The Slurm allocation's environment (no processes here: the unit tests run all of it).
#include "launcher/slurm.h"

#include <cstring>

namespace mpr::launch {

namespace {

constexpr long kMaxCount = 1 << 24;

// A positive decimal number, or -1.
long parse_count(std::string_view text) {
  if (text.empty() || text.size() > 8 || text.find_first_not_of("0123456789") != text.npos)
    return -1;
  long n = 0;
  for (char c : text) n = n * 10 + (c - '0');
  return n;
}

int env_count(const std::function<const char*(const char*)>& getenv_fn, const char* name,
              const char* fallback) {
  const char* v = getenv_fn(name);
  if ((!v || !*v) && fallback) v = getenv_fn(fallback);
  long n = v ? parse_count(v) : -1;
  return n > 0 ? static_cast<int>(n) : 0;
}

bool env_set(const std::function<const char*(const char*)>& getenv_fn, const char* name) {
  const char* v = getenv_fn(name);
  return v && *v;
}

}  // namespace

int SlurmAllocation::default_ranks() const {
  if (!inside || in_step) return 0;
  if (ntasks > 0) return ntasks;
  if (nodes > 1) return cpus;
  return cpus_here > 0 ? cpus_here : cpus;
}

SlurmAllocation read_slurm_allocation(const std::function<const char*(const char*)>& getenv_fn) {
  SlurmAllocation a;
  a.inside = env_set(getenv_fn, "SLURM_JOB_ID") || env_set(getenv_fn, "SLURM_JOBID");
  if (!a.inside) return a;
  a.in_step = env_set(getenv_fn, "SLURM_STEP_ID") || env_set(getenv_fn, "SLURM_STEPID");
  a.nodes = env_count(getenv_fn, "SLURM_JOB_NUM_NODES", "SLURM_NNODES");
  a.ntasks = env_count(getenv_fn, "SLURM_NTASKS", "SLURM_NPROCS");
  a.cpus_here = env_count(getenv_fn, "SLURM_CPUS_ON_NODE", nullptr);
  if (const char* v = getenv_fn("SLURM_JOB_CPUS_PER_NODE")) {
    long sum = slurm_count_list_sum(v);
    a.cpus = sum > 0 ? static_cast<int>(sum) : 0;
  }
  return a;
}

long slurm_count_list_sum(std::string_view list) {
  long total = 0;
  if (list.empty()) return -1;
  for (;;) {
    size_t comma = list.find(',');
    std::string_view item = list.substr(0, comma);
    long reps = 1;
    if (size_t paren = item.find("(x"); paren != item.npos) {
      if (item.back() != ')') return -1;
      reps = parse_count(item.substr(paren + 2, item.size() - paren - 3));
      item = item.substr(0, paren);
    }
    long n = parse_count(item);
    if (n < 0 || reps < 0) return -1;
    total += n * reps;
    if (total > kMaxCount) return -1;
    if (comma == list.npos) break;
    list.remove_prefix(comma + 1);
  }
  return total;
}

bool is_slurm_task_variable(std::string_view entry) {
  static constexpr const char* kNames[] = {"SLURM_PROCID",   "SLURM_LOCALID",
                                           "SLURM_NODEID",   "SLURM_GTIDS",
                                           "SLURM_TASK_PID", "SLURM_LAUNCH_NODE_IPADDR",
                                           "SLURM_MPI_TYPE"};
  static constexpr const char* kPrefixes[] = {"SLURM_STEP", "SLURM_SRUN_COMM_", "SLURM_CPU_BIND"};
  std::string_view name = entry.substr(0, entry.find('='));
  for (const char* n : kNames)
    if (name == n) return true;
  for (const char* p : kPrefixes)
    if (name.starts_with(p)) return true;
  return false;
}

}  // namespace mpr::launch
