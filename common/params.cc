#include "common/params.h"

#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace mpr::common {

namespace {

// Keep sorted by subsystem. Each line is what `mprun --params` shows.
const ParamDef kParams[] = {
    {"MPR_VERBOSE", "0",
     "1: print once per job which backend serves which peers and the protocol thresholds"},
    {"MPR_STATS", "0",
     "1: print per rank at finalize messages/bytes per protocol, unexpected-queue peak, "
     "rendezvous count"},
    {"MPR_BTL", "",
     "comma list of backends to use (self,shm,verbs,tcp); empty = all available"},
    {"MPR_SPIN_COUNT", "2000",
     "progress polls a blocking wait makes before it starts yielding the CPU"},
    {"MPR_SHM_EAGER_LIMIT", "4096", "shm: largest message (bytes) sent eagerly"},
    {"MPR_SHM_CMA", "1",
     "shm: 0 disables the single-copy cross-memory-attach get (rendezvous uses the copy pipeline)"},
    {"MPR_SHM_RING_SLOTS", "64", "shm: slots per sender->receiver ring"},
    {"MPR_SHM_SLOT_SIZE", "16384", "shm: bytes per ring slot (bounds the largest active message)"},
    {"MPR_VERBS_DEVICE", "",
     "verbs: device[:port] to use (e.g. rxe0:1); empty = nearest to the rank's cores"},
    {"MPR_VERBS_EAGER_LIMIT", "8192", "verbs: largest message (bytes) sent eagerly"},
    {"MPR_VERBS_RCACHE", "1", "verbs: 0 disables the registration cache"},
    {"MPR_DEBUG_STARTUP", "0", "1: print each startup phase with timings"},
    {nullptr, nullptr, nullptr},
};

const ParamDef* find(const char* name) {
  for (const ParamDef* p = kParams; p->name; ++p)
    if (std::strcmp(p->name, name) == 0) return p;
  std::fprintf(stderr, "mpr: internal error: tunable %s is not in the parameter table\n", name);
  std::abort();
}

}  // namespace

const ParamDef* param_table() { return kParams; }

std::string param_string(const char* name) {
  const ParamDef* p = find(name);
  const char* v = std::getenv(name);
  return v ? std::string(v) : std::string(p->default_value);
}

int64_t param_int(const char* name) {
  const ParamDef* p = find(name);
  const char* v = std::getenv(name);
  const char* text = v ? v : p->default_value;
  char* end = nullptr;
  long long n = std::strtoll(text, &end, 0);
  if (end == text) n = -1;
  switch (*end) {
    case 'k': case 'K': n <<= 10; ++end; break;
    case 'm': case 'M': n <<= 20; ++end; break;
    case 'g': case 'G': n <<= 30; ++end; break;
    default: break;
  }
  if (*end != '\0' || n < 0) {
    std::fprintf(stderr, "mpr: ignoring %s=%s (not a non-negative integer); using %s\n", name,
                 text, p->default_value);
    n = std::strtoll(p->default_value, nullptr, 0);
  }
  return n;
}

bool param_bool(const char* name) {
  std::string v = param_string(name);
  return !(v.empty() || v == "0" || v == "no" || v == "false" || v == "off");
}

}  // namespace mpr::common
