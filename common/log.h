// Diagnostics shared by every layer. Errors name the rank, the call and the cause.
#pragma once

#include <cstdarg>

namespace mpr::common {

/// Set once at init: this process's job rank (-1 before it is known) for message prefixes.
void log_set_rank(int rank);
/// True when MPR_VERBOSE is on (read once).
bool verbose();
/// "mpr[rank N]: <message>" on stderr, one line, always printed.
void log_error(const char* fmt, ...) __attribute__((format(printf, 1, 2)));
/// Same prefix; printed only when verbose().
void log_verbose(const char* fmt, ...) __attribute__((format(printf, 1, 2)));

}  // namespace mpr::common
