// The Slurm allocation's environment and the srun command line (no processes here: the unit
// tests run all of it).
#include "launcher/slurm.h"

#include <algorithm>
#include <cctype>
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

bool needs_quotes(const std::string& word) {
  if (word.empty()) return true;
  for (char c : word)
    if (!(std::isalnum(static_cast<unsigned char>(c)) || std::strchr("%+,-./:=@_", c))) return true;
  return false;
}

const char* cpu_bind_type(BindTo b) {
  switch (b) {
    case BindTo::kCore:
      return "cores";
    case BindTo::kNuma:
      return "ldoms";
    case BindTo::kPackage:
      return "sockets";
    case BindTo::kNone:
      return "none";
    case BindTo::kHwthread:
      return "threads";
    case BindTo::kDefault:
      break;
  }
  return nullptr;
}

/// A word of a --multi-prog line: srun's parser knows single and double quotes only.
std::string multi_prog_word(const std::string& w) {
  if (!w.empty() && w.find_first_of(" \t'\"\\") == std::string::npos) return w;
  const char q = w.find('\'') == std::string::npos ? '\'' : '"';
  return q + w + q;
}

}  // namespace

int SlurmAllocation::default_ranks() const {
  if (!inside || in_step) return 0;
  if (ntasks > 0) return ntasks;
  if (nodes > 1) return cpus;
  return cpus_here > 0 ? cpus_here : cpus;
}

int SlurmAllocation::capacity() const { return ntasks > 0 ? ntasks : cpus; }

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

std::vector<std::string> srun_command(const Options& opts, const SlurmAllocation& alloc,
                                      const std::string& srun_path,
                                      const std::string& multi_prog_file) {
  std::vector<std::string> argv = {srun_path, "--mpi=pmix", "--kill-on-bad-exit=1",
                                   "--quit-on-interrupt",
                                   "--ntasks=" + std::to_string(opts.nprocs)};
  // Fewer ranks than nodes: srun would warn and use as many nodes as ranks anyway.
  if (alloc.nodes > opts.nprocs) argv.push_back("--nodes=" + std::to_string(opts.nprocs));
  // mprun always allows more ranks than slots; srun refuses them without --overcommit.
  if (alloc.capacity() > 0 && opts.nprocs > alloc.capacity()) argv.push_back("--overcommit");
  if (opts.cpus_per_rank > 1)
    argv.push_back("--cpus-per-task=" + std::to_string(opts.cpus_per_rank));
  if (opts.ranks_per_node > 0)
    argv.push_back("--ntasks-per-node=" + std::to_string(opts.ranks_per_node));
  if (opts.ppr > 0) {
    if (opts.map_by == MapBy::kNode)
      argv.push_back("--ntasks-per-node=" + std::to_string(opts.ppr));
    else if (opts.map_by == MapBy::kPackage)
      argv.push_back("--ntasks-per-socket=" + std::to_string(opts.ppr));
    else if (opts.map_by == MapBy::kCore || opts.map_by == MapBy::kHwthread)
      argv.push_back("--ntasks-per-core=" + std::to_string(opts.ppr));
  }
  if (opts.use_hwthreads) argv.push_back("--hint=multithread");
  // Without --bind-to, the site's own default binding (TaskPluginParam) applies, as for srun.
  std::string bind;
  if (opts.report_bindings) bind = "verbose";
  if (const char* type = cpu_bind_type(opts.bind_to))
    bind += (bind.empty() ? "" : ",") + std::string(type);
  if (!bind.empty()) argv.push_back("--cpu-bind=" + bind);
  switch (opts.map_by) {
    case MapBy::kNode:
      argv.push_back("--distribution=cyclic");
      break;
    case MapBy::kNuma:
    case MapBy::kPackage:
      argv.push_back("--distribution=block:cyclic");
      break;
    case MapBy::kCore:
    case MapBy::kHwthread:
      break;  // srun's default, block: consecutive ranks share a node
  }
  if (opts.tag_output) argv.push_back("--label");
  switch (opts.stdin_mode) {
    case StdinMode::kNone:
      argv.push_back("--input=none");
      break;
    case StdinMode::kAll:
      argv.push_back("--input=all");
      break;
    case StdinMode::kRank:
      argv.push_back("--input=" + std::to_string(opts.stdin_rank));
      break;
  }
  if (!opts.output_dir.empty()) {
    // Open MPI's layout, DIR/1/rank.R/stdout and stderr; srun pads %Nt to N digits, and the
    // rank directories exist already (run_with_srun makes them).
    const std::string width = std::to_string(std::to_string(std::max(opts.nprocs - 1, 0)).size());
    const std::string base = opts.output_dir + "/1/rank.%" + width + "t/";
    argv.push_back("--output=" + base + "stdout");
    if (!opts.merge_stderr) argv.push_back("--error=" + base + "stderr");
  }
  argv.push_back("--export=ALL");
  if (!multi_prog_file.empty()) {
    argv.push_back("--multi-prog");
    argv.push_back("--");
    argv.push_back(multi_prog_file);
    return argv;
  }
  argv.push_back("--");
  argv.push_back(opts.program_path);
  argv.insert(argv.end(), opts.program_argv.begin() + 1, opts.program_argv.end());
  return argv;
}

std::string multi_prog_config(const Options& opts) {
  std::string text;
  for (const AppContext& a : opts.apps) {
    std::string line = std::to_string(a.first_rank);
    if (a.nprocs > 1) line += "-" + std::to_string(a.first_rank + a.nprocs - 1);
    // env(1) gives each program its own settings and working directory.
    if (!a.exports.empty() || !a.wdir.empty()) {
      line += " env";
      if (!a.wdir.empty()) line += " -C " + multi_prog_word(a.wdir);
      for (const std::string& e : a.exports) line += " " + multi_prog_word(e);
    }
    line += " " + multi_prog_word(a.program_path);
    for (size_t k = 1; k < a.program_argv.size(); ++k)
      line += " " + multi_prog_word(a.program_argv[k]);
    text += line + "\n";
  }
  return text;
}

std::string shell_line(const std::vector<std::string>& argv) {
  std::string line;
  for (const std::string& word : argv) {
    if (!line.empty()) line += ' ';
    if (!needs_quotes(word)) {
      line += word;
      continue;
    }
    line += '\'';
    for (char c : word) line += c == '\'' ? std::string("'\\''") : std::string(1, c);
    line += '\'';
  }
  return line;
}

}  // namespace mpr::launch
