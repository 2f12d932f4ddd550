// mprun's command line: what to start and how. Parsing fails early with a one-line reason so a
// bad invocation never starts a PMIx server or a process.
#pragma once

#include <cstdio>
#include <stdexcept>
#include <string>
#include <vector>

namespace mpr::launch {

enum class Action { kRun, kHelp, kVersion, kParams };

struct Options {
  Action action = Action::kRun;
  int nprocs = 0;  ///< ranks to start; 0 until parsed (defaults to the usable cores)
  bool tag_output = false;
  bool verbose = false;
  /// -x settings in order as "VAR=value" ("-x VAR" resolved to mprun's value at parse time;
  /// dropped when VAR is unset).
  std::vector<std::string> exports;
  /// The program as found on disk (PATH searched) and the argv handed to it.
  std::string program_path;
  std::vector<std::string> program_argv;
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

/// Number of CPUs this process may run on (its affinity mask), at least 1.
int usable_cpus();

void print_help(std::FILE* out);
void print_version(std::FILE* out);
/// Every MPR_* tunable from common::param_table() with its default and meaning.
void print_params(std::FILE* out);

}  // namespace mpr::launch
