#include "common/log.h"

#include <cstdio>
#include <string>

#include "common/params.h"

namespace mpr::common {

namespace {
int g_rank = -1;

void vlog(const char* fmt, va_list ap) {
  char msg[1024];
  std::vsnprintf(msg, sizeof msg, fmt, ap);
  // One fprintf per line so lines from several ranks do not interleave mid-line.
  if (g_rank >= 0)
    std::fprintf(stderr, "mpr[rank %d]: %s\n", g_rank, msg);
  else
    std::fprintf(stderr, "mpr: %s\n", msg);
}
}  // namespace

void log_set_rank(int rank) { g_rank = rank; }

bool verbose() {
  static const bool v = param_bool("MPR_VERBOSE");
  return v;
}

void log_error(const char* fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vlog(fmt, ap);
  va_end(ap);
}

void log_verbose(const char* fmt, ...) {
  if (!verbose()) return;
  va_list ap;
  va_start(ap, fmt);
  vlog(fmt, ap);
  va_end(ap);
}

}  // namespace mpr::common
