// The MPI tool information interface (MPI_T). Control variables are the tunables table
// (common/params.cc: every MPR_* environment variable, under its own name), performance
// variables are the pml's counters (the ones MPR_STATS prints), categories group both by
// subsystem, and one event source is the monotonic clock. MPR defines no events.
//
// Like the peers, MPI_T works before MPI_Init and after MPI_Finalize. A control variable
// written before the library comes up takes effect when it does (the write sets the
// variable in this process's environment, which is where MPR reads its tunables); once it is
// up, only the forced collective algorithms can change, and only with MPR_COLL_ALG_DYNAMIC=1
// (the collectives then re-read them at every call). MPI_T calls return their error classes
// directly and never call an error handler, as the standard says.
#include <climits>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <mutex>
#include <string>
#include <vector>

#include "common/params.h"
#include "runtime/api/check.h"
#include "runtime/core/info.h"

using namespace mpr::runtime;
using mpr::common::ParamDef;
using mpr::common::ParamKind;

// The handle types mpi.h names; defined here only.
struct mpr_t_enum_s {
  const char* name;
  struct Item {
    int value;
    const char* name;
  };
  std::vector<Item> items;
};
struct mpr_t_cvar_handle_s {
  static constexpr unsigned kMagic = 0x54637661;  // "Tcva"
  unsigned magic = kMagic;
  int index;
};
struct mpr_t_pvar_session_s;
struct mpr_t_pvar_handle_s {
  static constexpr unsigned kMagic = 0x54707661;  // "Tpva"
  unsigned magic = kMagic;
  mpr_t_pvar_session_s* session;
  int index;
  bool started = false;
  uint64_t base = 0;   ///< the counter when this handle was last started, written or reset
  uint64_t accum = 0;  ///< what it counted in earlier start..stop intervals (or was written)
};
struct mpr_t_pvar_session_s {
  static constexpr unsigned kMagic = 0x54736573;  // "Tses"
  unsigned magic = kMagic;
  std::vector<mpr_t_pvar_handle_s*> handles;
};

namespace {

std::mutex g_mutex;  // MPI_T may be called from any thread (and before MPI_Init)
int g_inits = 0;     // MPI_T_init_thread calls not yet matched by MPI_T_finalize

const mpr_t_enum_s kOnOff{"mpr_on_off", {{0, "off"}, {1, "on"}}};

// ---- categories ---------------------------------------------------------------------------

struct Category {
  const char* name;
  const char* prefix;  ///< control variables whose name starts with this; nullptr: the rest
  const char* desc;
};
const Category kCategories[] = {
    {"mpr_general", nullptr, "MPR: logging, statistics, startup and waiting"},
    {"mpr_self", "MPR_SELF_", "MPR: messages a rank sends to itself"},
    {"mpr_shm", "MPR_SHM_", "MPR: shared-memory transport between ranks of a node"},
    {"mpr_verbs", "MPR_VERBS_", "MPR: RDMA transport (InfiniBand, RoCE) through verbs"},
    {"mpr_tcp", "MPR_TCP_", "MPR: TCP transport"},
    {"mpr_pml", "MPR_PML_",
     "MPR: point-to-point protocols (eager, rendezvous) and their message counters"},
    {"mpr_rma", "MPR_RMA_", "MPR: one-sided communication"},
    {"mpr_coll", "MPR_COLL_", "MPR: collective algorithms and their selection"},
};
constexpr int kNumCategories = sizeof(kCategories) / sizeof(kCategories[0]);
constexpr int kPvarCategory = 5;  // mpr_pml

bool starts_with(const char* s, const char* prefix) {
  return std::strncmp(s, prefix, std::strlen(prefix)) == 0;
}

int category_of_param(const char* name) {
  for (int c = 1; c < kNumCategories; ++c)
    if (starts_with(name, kCategories[c].prefix)) return c;
  return 0;
}

// ---- control variables --------------------------------------------------------------------

constexpr int kTextCount = 1024;  // bytes a text variable's buffer must hold

std::vector<const ParamDef*>& params() {
  static std::vector<const ParamDef*> all = [] {
    std::vector<const ParamDef*> v;
    for (const ParamDef* p = mpr::common::param_table(); p->name; ++p) v.push_back(p);
    return v;
  }();
  return all;
}

enum class CvarType { kBool, kNumber, kText };

// A number is what param_int accepts: digits with an optional k/m/g suffix.
bool is_number(const char* text) {
  if (!*text) return false;
  char* end = nullptr;
  std::strtoll(text, &end, 0);
  if (end == text) return false;
  if (*end && std::strchr("kKmMgG", *end)) ++end;
  return *end == '\0';
}

CvarType cvar_type(const ParamDef* p) {
  if (p->kind == ParamKind::kBool) return CvarType::kBool;
  return is_number(p->default_value) ? CvarType::kNumber : CvarType::kText;
}

MPI_Datatype cvar_datatype(CvarType t) {
  switch (t) {
    case CvarType::kBool:
      return MPI_INT;
    case CvarType::kNumber:
      return MPI_UNSIGNED_LONG_LONG;
    case CvarType::kText:
      break;
  }
  return MPI_CHAR;
}

bool settable_while_running(const ParamDef* p);

// Who must agree on a value: a rank's own logging and waiting are its business; protocol
// limits and algorithm choices must be the same on every rank. Once the library is up, a
// variable it read as it came up cannot be written any more: read-only from then on (tools
// such as MPICH's cvarwrite test write every variable not read-only and expect to read the
// value back).
int cvar_scope(const ParamDef* p) {
  if (g_state.phase != Phase::kBefore && !settable_while_running(p)) return MPI_T_SCOPE_READONLY;
  static const char* const kLocal[] = {"MPR_VERBOSE",
                                       "MPR_STATS",
                                       "MPR_DEBUG_STARTUP",
                                       "MPR_SPIN_COUNT",
                                       "MPR_EXCHANGE_SPIN_COUNT",
                                       "MPR_COLL_SPIN_US"};
  for (const char* n : kLocal)
    if (std::strcmp(p->name, n) == 0) return MPI_T_SCOPE_LOCAL;
  return MPI_T_SCOPE_ALL_EQ;
}

int cvar_verbosity(const ParamDef* p) {
  switch (category_of_param(p->name)) {
    case 0:
      return MPI_T_VERBOSITY_USER_BASIC;
    case 7:
      return MPI_T_VERBOSITY_TUNER_BASIC;
    default:
      return MPI_T_VERBOSITY_TUNER_DETAIL;
  }
}

// The forced collective algorithms, which MPR_COLL_ALG_DYNAMIC=1 makes settable at run time.
bool settable_while_running(const ParamDef* p) {
  size_t n = std::strlen(p->name);
  return starts_with(p->name, "MPR_COLL_") && n > 4 && std::strcmp(p->name + n - 4, "_ALG") == 0 &&
         mpr::common::param_bool("MPR_COLL_ALG_DYNAMIC");
}

// ---- performance variables ----------------------------------------------------------------

struct Pvar {
  const char* name;
  int var_class;
  uint64_t mpr::pml::Stats::*field;
  const char* desc;
};
const Pvar kPvars[] = {
    {"mpr_eager_msgs", MPI_T_PVAR_CLASS_COUNTER, &mpr::pml::Stats::eager_msgs,
     "messages this rank sent eagerly (the data went with the envelope)"},
    {"mpr_eager_bytes", MPI_T_PVAR_CLASS_COUNTER, &mpr::pml::Stats::eager_bytes,
     "bytes this rank sent eagerly"},
    {"mpr_rndv_msgs", MPI_T_PVAR_CLASS_COUNTER, &mpr::pml::Stats::rndv_msgs,
     "messages this rank sent by rendezvous (the receiver fetched the data)"},
    {"mpr_rndv_bytes", MPI_T_PVAR_CLASS_COUNTER, &mpr::pml::Stats::rndv_bytes,
     "bytes this rank sent by rendezvous"},
    {"mpr_rndv_fallback_msgs", MPI_T_PVAR_CLASS_COUNTER, &mpr::pml::Stats::rndv_fallback_msgs,
     "rendezvous messages that went through the copy pipeline instead of a get"},
    {"mpr_sync_msgs", MPI_T_PVAR_CLASS_COUNTER, &mpr::pml::Stats::sync_msgs,
     "synchronous-mode sends (MPI_Ssend and friends)"},
    {"mpr_self_msgs", MPI_T_PVAR_CLASS_COUNTER, &mpr::pml::Stats::self_msgs,
     "messages this rank sent to itself"},
    {"mpr_unexpected_msgs", MPI_T_PVAR_CLASS_COUNTER, &mpr::pml::Stats::unexpected_msgs,
     "arrivals that found no posted receive and were queued as unexpected"},
    {"mpr_unexpected_peak", MPI_T_PVAR_CLASS_HIGHWATERMARK, &mpr::pml::Stats::unexpected_peak,
     "deepest the unexpected-message queue has been since the library came up"},
};
constexpr int kNumPvars = sizeof(kPvars) / sizeof(kPvars[0]);

// Counters run only while a handle is started; the high-water mark is the library's own,
// continuous and read-only.
bool pvar_continuous(int i) { return kPvars[i].var_class != MPI_T_PVAR_CLASS_COUNTER; }

uint64_t pvar_now(int i) {
  const mpr::pml::Stats& s = g_state.pml ? g_state.pml->stats() : g_state.final_stats;
  return s.*(kPvars[i].field);
}

uint64_t pvar_value(const mpr_t_pvar_handle_s* h) {
  if (pvar_continuous(h->index)) return pvar_now(h->index);
  return h->accum + (h->started ? pvar_now(h->index) - h->base : 0);
}

// ---- the one event source -----------------------------------------------------------------

MPI_Count clock_now() {
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<MPI_Count>(ts.tv_sec) * 1000000000 + ts.tv_nsec;
}

// ---- helpers ------------------------------------------------------------------------------

// The standard's string convention: with *len == 0 (or no buffer) only the length needed,
// terminator included, is returned; otherwise at most *len - 1 characters and a terminator
// are written and *len says how many were written, terminator included.
void put_string(const char* s, char* out, int* len) {
  if (!len) return;
  int need = static_cast<int>(std::strlen(s)) + 1;
  if (!out || *len <= 0) {
    *len = need;
    return;
  }
  int n = need < *len ? need : *len;
  std::memcpy(out, s, n - 1);
  out[n - 1] = '\0';
  *len = n;
}

template <typename T>
void put(T* out, T value) {
  if (out) *out = value;
}

bool cvar_valid(const mpr_t_cvar_handle_s* h) {
  return h && h != MPI_T_CVAR_HANDLE_NULL && h->magic == mpr_t_cvar_handle_s::kMagic;
}
bool session_valid(const mpr_t_pvar_session_s* s) {
  return s && s->magic == mpr_t_pvar_session_s::kMagic;
}
bool pvar_handle_of(const mpr_t_pvar_session_s* s, const mpr_t_pvar_handle_s* h) {
  if (!h || h == MPI_T_PVAR_ALL_HANDLES || h->magic != mpr_t_pvar_handle_s::kMagic) return false;
  return h->session == s;
}

#define MPR_T_ENTER()                         \
  std::lock_guard<std::mutex> lock_(g_mutex); \
  if (g_inits == 0) return MPI_T_ERR_NOT_INITIALIZED

int num_params() { return static_cast<int>(params().size()); }

// Index list of category `c`: its control variables, or its performance variables.
std::vector<int> category_cvars(int c) {
  std::vector<int> v;
  for (int i = 0; i < num_params(); ++i)
    if (category_of_param(params()[i]->name) == c) v.push_back(i);
  return v;
}
std::vector<int> category_pvars(int c) {
  std::vector<int> v;
  if (c == kPvarCategory)
    for (int i = 0; i < kNumPvars; ++i) v.push_back(i);
  return v;
}

void put_indices(const std::vector<int>& v, int len, int indices[]) {
  for (int i = 0; i < len && i < static_cast<int>(v.size()); ++i) indices[i] = v[i];
}

int do_start(mpr_t_pvar_handle_s* h) {
  if (pvar_continuous(h->index)) return MPI_T_ERR_PVAR_NO_STARTSTOP;
  if (!h->started) {
    h->base = pvar_now(h->index);
    h->started = true;
  }
  return MPI_SUCCESS;
}
int do_stop(mpr_t_pvar_handle_s* h) {
  if (pvar_continuous(h->index)) return MPI_T_ERR_PVAR_NO_STARTSTOP;
  if (h->started) {
    h->accum += pvar_now(h->index) - h->base;
    h->started = false;
  }
  return MPI_SUCCESS;
}
int do_reset(mpr_t_pvar_handle_s* h) {
  if (pvar_continuous(h->index)) return MPI_T_ERR_PVAR_NO_WRITE;
  h->accum = 0;
  h->base = pvar_now(h->index);
  return MPI_SUCCESS;
}

// start/stop/reset of one handle, or of every handle of the session that allows it.
int for_handles(mpr_t_pvar_session_s* s, mpr_t_pvar_handle_s* h, int (*act)(mpr_t_pvar_handle_s*)) {
  if (!session_valid(s)) return MPI_T_ERR_INVALID_SESSION;
  if (h == MPI_T_PVAR_ALL_HANDLES) {
    for (mpr_t_pvar_handle_s* each : s->handles)
      if (!pvar_continuous(each->index)) act(each);
    return MPI_SUCCESS;
  }
  if (!pvar_handle_of(s, h)) return MPI_T_ERR_INVALID_HANDLE;
  return act(h);
}

}  // namespace

// ---- life ---------------------------------------------------------------------------------

extern "C" int PMPI_T_init_thread(int required, int* provided) {
  MPR_ENTRY;
  std::lock_guard<std::mutex> lock(g_mutex);
  ++g_inits;
  // The calls here are serialized by their own lock as well as by the entry lock, which
  // MPI_THREAD_MULTIPLE turns on for the whole library.
  int level = required > MPI_THREAD_MULTIPLE ? MPI_THREAD_MULTIPLE : required;
  if (level == MPI_THREAD_MULTIPLE) mpr::common::EntryLock::turn_on();
  put(provided, level < MPI_THREAD_SINGLE ? MPI_THREAD_SINGLE : level);
  return MPI_SUCCESS;
}
MPR_WEAK_ALIAS(T_init_thread);

extern "C" int PMPI_T_finalize(void) {
  MPR_ENTRY;
  std::lock_guard<std::mutex> lock(g_mutex);
  if (g_inits == 0) return MPI_T_ERR_NOT_INITIALIZED;
  --g_inits;
  return MPI_SUCCESS;
}
MPR_WEAK_ALIAS(T_finalize);

// ---- enumerations -------------------------------------------------------------------------

extern "C" int PMPI_T_enum_get_info(MPI_T_enum e, int* num, char* name, int* name_len) {
  MPR_ENTRY;
  MPR_T_ENTER();
  if (e != &kOnOff) return MPI_T_ERR_INVALID_HANDLE;
  put(num, static_cast<int>(e->items.size()));
  put_string(e->name, name, name_len);
  return MPI_SUCCESS;
}
MPR_WEAK_ALIAS(T_enum_get_info);

extern "C" int PMPI_T_enum_get_item(MPI_T_enum e, int index, int* value, char* name,
                                    int* name_len) {
  MPR_ENTRY;
  MPR_T_ENTER();
  if (e != &kOnOff) return MPI_T_ERR_INVALID_HANDLE;
  if (index < 0 || index >= static_cast<int>(e->items.size())) return MPI_T_ERR_INVALID_ITEM;
  put(value, e->items[index].value);
  put_string(e->items[index].name, name, name_len);
  return MPI_SUCCESS;
}
MPR_WEAK_ALIAS(T_enum_get_item);

// ---- control variables --------------------------------------------------------------------

extern "C" int PMPI_T_cvar_get_num(int* num_cvar) {
  MPR_ENTRY;
  MPR_T_ENTER();
  put(num_cvar, num_params());
  return MPI_SUCCESS;
}
MPR_WEAK_ALIAS(T_cvar_get_num);

extern "C" int PMPI_T_cvar_get_info(int cvar_index, char* name, int* name_len, int* verbosity,
                                    MPI_Datatype* datatype, MPI_T_enum* enumtype, char* desc,
                                    int* desc_len, int* bind, int* scope) {
  MPR_ENTRY;
  MPR_T_ENTER();
  if (cvar_index < 0 || cvar_index >= num_params()) return MPI_T_ERR_INVALID_INDEX;
  const ParamDef* p = params()[cvar_index];
  CvarType t = cvar_type(p);
  put_string(p->name, name, name_len);
  put(verbosity, cvar_verbosity(p));
  put(datatype, cvar_datatype(t));
  put(enumtype, t == CvarType::kBool ? const_cast<MPI_T_enum>(&kOnOff) : MPI_T_ENUM_NULL);
  std::string text =
      std::string(p->help) + " (default: " + (*p->default_value ? p->default_value : "unset") + ")";
  put_string(text.c_str(), desc, desc_len);
  put(bind, MPI_T_BIND_NO_OBJECT);
  put(scope, cvar_scope(p));
  return MPI_SUCCESS;
}
MPR_WEAK_ALIAS(T_cvar_get_info);

extern "C" int PMPI_T_cvar_get_index(const char* name, int* cvar_index) {
  MPR_ENTRY;
  MPR_T_ENTER();
  if (!name || !cvar_index) return MPI_T_ERR_INVALID;
  for (int i = 0; i < num_params(); ++i)
    if (std::strcmp(params()[i]->name, name) == 0) {
      *cvar_index = i;
      return MPI_SUCCESS;
    }
  return MPI_T_ERR_INVALID_NAME;
}
MPR_WEAK_ALIAS(T_cvar_get_index);

extern "C" int PMPI_T_cvar_handle_alloc(int cvar_index, void* obj_handle, MPI_T_cvar_handle* handle,
                                        int* count) {
  MPR_ENTRY;
  (void)obj_handle;  // every MPR control variable is bound to no object
  MPR_T_ENTER();
  if (cvar_index < 0 || cvar_index >= num_params()) return MPI_T_ERR_INVALID_INDEX;
  if (!handle) return MPI_T_ERR_INVALID;
  auto* h = new mpr_t_cvar_handle_s;
  h->index = cvar_index;
  *handle = h;
  put(count, cvar_type(params()[cvar_index]) == CvarType::kText ? kTextCount : 1);
  return MPI_SUCCESS;
}
MPR_WEAK_ALIAS(T_cvar_handle_alloc);

extern "C" int PMPI_T_cvar_handle_free(MPI_T_cvar_handle* handle) {
  MPR_ENTRY;
  MPR_T_ENTER();
  if (!handle || !cvar_valid(*handle)) return MPI_T_ERR_INVALID_HANDLE;
  (*handle)->magic = 0;
  delete *handle;
  *handle = MPI_T_CVAR_HANDLE_NULL;
  return MPI_SUCCESS;
}
MPR_WEAK_ALIAS(T_cvar_handle_free);

extern "C" int PMPI_T_cvar_read(MPI_T_cvar_handle handle, void* buf) {
  MPR_ENTRY;
  MPR_T_ENTER();
  if (!cvar_valid(handle)) return MPI_T_ERR_INVALID_HANDLE;
  if (!buf) return MPI_T_ERR_INVALID;
  const ParamDef* p = params()[handle->index];
  switch (cvar_type(p)) {
    case CvarType::kBool:
      *static_cast<int*>(buf) = mpr::common::param_bool(p->name) ? 1 : 0;
      break;
    case CvarType::kNumber:
      *static_cast<unsigned long long*>(buf) =
          static_cast<unsigned long long>(mpr::common::param_int(p->name));
      break;
    case CvarType::kText: {
      std::string v = mpr::common::param_string(p->name);
      size_t n = v.size() < kTextCount - 1 ? v.size() : kTextCount - 1;
      std::memcpy(buf, v.data(), n);
      static_cast<char*>(buf)[n] = '\0';
      break;
    }
  }
  return MPI_SUCCESS;
}
MPR_WEAK_ALIAS(T_cvar_read);

extern "C" int PMPI_T_cvar_write(MPI_T_cvar_handle handle, const void* buf) {
  MPR_ENTRY;
  MPR_T_ENTER();
  if (!cvar_valid(handle)) return MPI_T_ERR_INVALID_HANDLE;
  if (!buf) return MPI_T_ERR_INVALID;
  const ParamDef* p = params()[handle->index];
  // The library reads its tunables as it comes up; it cannot come up again once down.
  if (g_state.phase == Phase::kFinalized) return MPI_T_ERR_CVAR_SET_NEVER;
  if (g_state.phase == Phase::kRunning && !settable_while_running(p))
    return MPI_T_ERR_CVAR_SET_NOT_NOW;
  std::string text;
  switch (cvar_type(p)) {
    case CvarType::kBool:
      text = *static_cast<const int*>(buf) ? "1" : "0";
      break;
    case CvarType::kNumber:
      text = std::to_string(*static_cast<const unsigned long long*>(buf));
      break;
    case CvarType::kText:
      text.assign(static_cast<const char*>(buf),
                  strnlen(static_cast<const char*>(buf), kTextCount));
      if (text.size() >= kTextCount) return MPI_T_ERR_INVALID;
      break;
  }
  if (setenv(p->name, text.c_str(), 1) != 0) return MPI_T_ERR_MEMORY;
  return MPI_SUCCESS;
}
MPR_WEAK_ALIAS(T_cvar_write);

// ---- performance variables ----------------------------------------------------------------

extern "C" int PMPI_T_pvar_get_num(int* num_pvar) {
  MPR_ENTRY;
  MPR_T_ENTER();
  put(num_pvar, kNumPvars);
  return MPI_SUCCESS;
}
MPR_WEAK_ALIAS(T_pvar_get_num);

extern "C" int PMPI_T_pvar_get_info(int pvar_index, char* name, int* name_len, int* verbosity,
                                    int* var_class, MPI_Datatype* datatype, MPI_T_enum* enumtype,
                                    char* desc, int* desc_len, int* bind, int* readonly,
                                    int* continuous, int* atomic) {
  MPR_ENTRY;
  MPR_T_ENTER();
  if (pvar_index < 0 || pvar_index >= kNumPvars) return MPI_T_ERR_INVALID_INDEX;
  const Pvar& v = kPvars[pvar_index];
  put_string(v.name, name, name_len);
  put(verbosity, MPI_T_VERBOSITY_USER_DETAIL);
  put(var_class, v.var_class);
  put(datatype, MPI_UNSIGNED_LONG_LONG);
  put(enumtype, MPI_T_ENUM_NULL);
  put_string(v.desc, desc, desc_len);
  put(bind, MPI_T_BIND_NO_OBJECT);
  put(readonly, pvar_continuous(pvar_index) ? 1 : 0);
  put(continuous, pvar_continuous(pvar_index) ? 1 : 0);
  put(atomic, 0);
  return MPI_SUCCESS;
}
MPR_WEAK_ALIAS(T_pvar_get_info);

extern "C" int PMPI_T_pvar_get_index(const char* name, int var_class, int* pvar_index) {
  MPR_ENTRY;
  MPR_T_ENTER();
  if (!name || !pvar_index) return MPI_T_ERR_INVALID;
  for (int i = 0; i < kNumPvars; ++i)
    if (kPvars[i].var_class == var_class && std::strcmp(kPvars[i].name, name) == 0) {
      *pvar_index = i;
      return MPI_SUCCESS;
    }
  return MPI_T_ERR_INVALID_NAME;
}
MPR_WEAK_ALIAS(T_pvar_get_index);

extern "C" int PMPI_T_pvar_session_create(MPI_T_pvar_session* session) {
  MPR_ENTRY;
  MPR_T_ENTER();
  if (!session) return MPI_T_ERR_INVALID;
  *session = new mpr_t_pvar_session_s;
  return MPI_SUCCESS;
}
MPR_WEAK_ALIAS(T_pvar_session_create);

extern "C" int PMPI_T_pvar_session_free(MPI_T_pvar_session* session) {
  MPR_ENTRY;
  MPR_T_ENTER();
  if (!session || !session_valid(*session)) return MPI_T_ERR_INVALID_SESSION;
  for (mpr_t_pvar_handle_s* h : (*session)->handles) {
    h->magic = 0;
    delete h;
  }
  (*session)->magic = 0;
  delete *session;
  *session = MPI_T_PVAR_SESSION_NULL;
  return MPI_SUCCESS;
}
MPR_WEAK_ALIAS(T_pvar_session_free);

extern "C" int PMPI_T_pvar_handle_alloc(MPI_T_pvar_session session, int pvar_index,
                                        void* obj_handle, MPI_T_pvar_handle* handle, int* count) {
  MPR_ENTRY;
  (void)obj_handle;  // every MPR performance variable is bound to no object
  MPR_T_ENTER();
  if (!session_valid(session)) return MPI_T_ERR_INVALID_SESSION;
  if (pvar_index < 0 || pvar_index >= kNumPvars) return MPI_T_ERR_INVALID_INDEX;
  if (!handle) return MPI_T_ERR_INVALID;
  auto* h = new mpr_t_pvar_handle_s;
  h->session = session;
  h->index = pvar_index;
  session->handles.push_back(h);
  *handle = h;
  put(count, 1);
  return MPI_SUCCESS;
}
MPR_WEAK_ALIAS(T_pvar_handle_alloc);

extern "C" int PMPI_T_pvar_handle_free(MPI_T_pvar_session session, MPI_T_pvar_handle* handle) {
  MPR_ENTRY;
  MPR_T_ENTER();
  if (!session_valid(session)) return MPI_T_ERR_INVALID_SESSION;
  if (!handle || !pvar_handle_of(session, *handle)) return MPI_T_ERR_INVALID_HANDLE;
  auto& v = session->handles;
  for (size_t i = 0; i < v.size(); ++i)
    if (v[i] == *handle) {
      v.erase(v.begin() + static_cast<std::ptrdiff_t>(i));
      break;
    }
  (*handle)->magic = 0;
  delete *handle;
  *handle = MPI_T_PVAR_HANDLE_NULL;
  return MPI_SUCCESS;
}
MPR_WEAK_ALIAS(T_pvar_handle_free);

extern "C" int PMPI_T_pvar_start(MPI_T_pvar_session session, MPI_T_pvar_handle handle) {
  MPR_ENTRY;
  MPR_T_ENTER();
  return for_handles(session, handle, do_start);
}
MPR_WEAK_ALIAS(T_pvar_start);

extern "C" int PMPI_T_pvar_stop(MPI_T_pvar_session session, MPI_T_pvar_handle handle) {
  MPR_ENTRY;
  MPR_T_ENTER();
  return for_handles(session, handle, do_stop);
}
MPR_WEAK_ALIAS(T_pvar_stop);

extern "C" int PMPI_T_pvar_reset(MPI_T_pvar_session session, MPI_T_pvar_handle handle) {
  MPR_ENTRY;
  MPR_T_ENTER();
  return for_handles(session, handle, do_reset);
}
MPR_WEAK_ALIAS(T_pvar_reset);

extern "C" int PMPI_T_pvar_read(MPI_T_pvar_session session, MPI_T_pvar_handle handle, void* buf) {
  MPR_ENTRY;
  MPR_T_ENTER();
  if (!session_valid(session)) return MPI_T_ERR_INVALID_SESSION;
  if (!pvar_handle_of(session, handle)) return MPI_T_ERR_INVALID_HANDLE;
  if (!buf) return MPI_T_ERR_INVALID;
  *static_cast<unsigned long long*>(buf) = pvar_value(handle);
  return MPI_SUCCESS;
}
MPR_WEAK_ALIAS(T_pvar_read);

extern "C" int PMPI_T_pvar_write(MPI_T_pvar_session session, MPI_T_pvar_handle handle,
                                 const void* buf) {
  MPR_ENTRY;
  MPR_T_ENTER();
  if (!session_valid(session)) return MPI_T_ERR_INVALID_SESSION;
  if (!pvar_handle_of(session, handle)) return MPI_T_ERR_INVALID_HANDLE;
  if (pvar_continuous(handle->index)) return MPI_T_ERR_PVAR_NO_WRITE;
  if (!buf) return MPI_T_ERR_INVALID;
  // The handle's own view: other handles and the library's counters are untouched.
  handle->accum = *static_cast<const unsigned long long*>(buf);
  handle->base = pvar_now(handle->index);
  return MPI_SUCCESS;
}
MPR_WEAK_ALIAS(T_pvar_write);

extern "C" int PMPI_T_pvar_readreset(MPI_T_pvar_session session, MPI_T_pvar_handle handle,
                                     void* buf) {
  MPR_ENTRY;
  MPR_T_ENTER();
  if (!session_valid(session)) return MPI_T_ERR_INVALID_SESSION;
  if (!pvar_handle_of(session, handle)) return MPI_T_ERR_INVALID_HANDLE;
  if (pvar_continuous(handle->index)) return MPI_T_ERR_PVAR_NO_WRITE;
  if (!buf) return MPI_T_ERR_INVALID;
  *static_cast<unsigned long long*>(buf) = pvar_value(handle);
  return do_reset(handle);
}
MPR_WEAK_ALIAS(T_pvar_readreset);

// ---- categories ---------------------------------------------------------------------------

extern "C" int PMPI_T_category_get_num(int* num_cat) {
  MPR_ENTRY;
  MPR_T_ENTER();
  put(num_cat, kNumCategories);
  return MPI_SUCCESS;
}
MPR_WEAK_ALIAS(T_category_get_num);

extern "C" int PMPI_T_category_get_info(int cat_index, char* name, int* name_len, char* desc,
                                        int* desc_len, int* num_cvars, int* num_pvars,
                                        int* num_categories) {
  MPR_ENTRY;
  MPR_T_ENTER();
  if (cat_index < 0 || cat_index >= kNumCategories) return MPI_T_ERR_INVALID_INDEX;
  put_string(kCategories[cat_index].name, name, name_len);
  put_string(kCategories[cat_index].desc, desc, desc_len);
  put(num_cvars, static_cast<int>(category_cvars(cat_index).size()));
  put(num_pvars, static_cast<int>(category_pvars(cat_index).size()));
  put(num_categories, 0);
  return MPI_SUCCESS;
}
MPR_WEAK_ALIAS(T_category_get_info);

extern "C" int PMPI_T_category_get_num_events(int cat_index, int* num_events) {
  MPR_ENTRY;
  MPR_T_ENTER();
  if (cat_index < 0 || cat_index >= kNumCategories) return MPI_T_ERR_INVALID_INDEX;
  put(num_events, 0);
  return MPI_SUCCESS;
}
MPR_WEAK_ALIAS(T_category_get_num_events);

extern "C" int PMPI_T_category_get_index(const char* name, int* cat_index) {
  MPR_ENTRY;
  MPR_T_ENTER();
  if (!name || !cat_index) return MPI_T_ERR_INVALID;
  for (int c = 0; c < kNumCategories; ++c)
    if (std::strcmp(kCategories[c].name, name) == 0) {
      *cat_index = c;
      return MPI_SUCCESS;
    }
  return MPI_T_ERR_INVALID_NAME;
}
MPR_WEAK_ALIAS(T_category_get_index);

extern "C" int PMPI_T_category_get_cvars(int cat_index, int len, int indices[]) {
  MPR_ENTRY;
  MPR_T_ENTER();
  if (cat_index < 0 || cat_index >= kNumCategories) return MPI_T_ERR_INVALID_INDEX;
  if (len < 0 || (len > 0 && !indices)) return MPI_T_ERR_INVALID;
  put_indices(category_cvars(cat_index), len, indices);
  return MPI_SUCCESS;
}
MPR_WEAK_ALIAS(T_category_get_cvars);

extern "C" int PMPI_T_category_get_pvars(int cat_index, int len, int indices[]) {
  MPR_ENTRY;
  MPR_T_ENTER();
  if (cat_index < 0 || cat_index >= kNumCategories) return MPI_T_ERR_INVALID_INDEX;
  if (len < 0 || (len > 0 && !indices)) return MPI_T_ERR_INVALID;
  put_indices(category_pvars(cat_index), len, indices);
  return MPI_SUCCESS;
}
MPR_WEAK_ALIAS(T_category_get_pvars);

extern "C" int PMPI_T_category_get_events(int cat_index, int len, int indices[]) {
  MPR_ENTRY;
  MPR_T_ENTER();
  if (cat_index < 0 || cat_index >= kNumCategories) return MPI_T_ERR_INVALID_INDEX;
  if (len < 0 || (len > 0 && !indices)) return MPI_T_ERR_INVALID;
  return MPI_SUCCESS;  // no category holds events
}
MPR_WEAK_ALIAS(T_category_get_events);

extern "C" int PMPI_T_category_get_categories(int cat_index, int len, int indices[]) {
  MPR_ENTRY;
  MPR_T_ENTER();
  if (cat_index < 0 || cat_index >= kNumCategories) return MPI_T_ERR_INVALID_INDEX;
  if (len < 0 || (len > 0 && !indices)) return MPI_T_ERR_INVALID;
  return MPI_SUCCESS;  // the categories are flat
}
MPR_WEAK_ALIAS(T_category_get_categories);

extern "C" int PMPI_T_category_changed(int* update_number) {
  MPR_ENTRY;
  MPR_T_ENTER();
  put(update_number, 0);  // the variables and categories are fixed for the process's life
  return MPI_SUCCESS;
}
MPR_WEAK_ALIAS(T_category_changed);

// ---- event sources and events -------------------------------------------------------------

extern "C" int PMPI_T_source_get_num(int* num_sources) {
  MPR_ENTRY;
  MPR_T_ENTER();
  put(num_sources, 1);
  return MPI_SUCCESS;
}
MPR_WEAK_ALIAS(T_source_get_num);

extern "C" int PMPI_T_source_get_info(int source_index, char* name, int* name_len, char* desc,
                                      int* desc_len, MPI_T_source_order* ordering,
                                      MPI_Count* ticks_per_second, MPI_Count* max_ticks,
                                      MPI_Info* info) {
  MPR_ENTRY;
  MPR_T_ENTER();
  if (source_index != 0) return MPI_T_ERR_INVALID_INDEX;
  put_string("mpr_clock", name, name_len);
  put_string("MPR: the monotonic clock of this process, in nanoseconds", desc, desc_len);
  put(ordering, MPI_T_SOURCE_ORDERED);
  put(ticks_per_second, static_cast<MPI_Count>(1000000000));
  put(max_ticks, static_cast<MPI_Count>(INT64_MAX));
  if (info) *info = (new Info)->handle();
  return MPI_SUCCESS;
}
MPR_WEAK_ALIAS(T_source_get_info);

extern "C" int PMPI_T_source_get_timestamp(int source_index, MPI_Count* timestamp) {
  MPR_ENTRY;
  MPR_T_ENTER();
  if (source_index != 0) return MPI_T_ERR_INVALID_INDEX;
  if (!timestamp) return MPI_T_ERR_INVALID;
  *timestamp = clock_now();
  return MPI_SUCCESS;
}
MPR_WEAK_ALIAS(T_source_get_timestamp);

extern "C" int PMPI_T_event_get_num(int* num_events) {
  MPR_ENTRY;
  MPR_T_ENTER();
  put(num_events, 0);
  return MPI_SUCCESS;
}
MPR_WEAK_ALIAS(T_event_get_num);

// With no event types, every index and name is invalid, and no registration or instance can
// exist for the calls that take one.
extern "C" int PMPI_T_event_get_info(int, char*, int*, int*, MPI_Datatype[], MPI_Aint[], int*,
                                     MPI_T_enum*, MPI_Info*, char*, int*, int*) {
  MPR_ENTRY;
  MPR_T_ENTER();
  return MPI_T_ERR_INVALID_INDEX;
}
MPR_WEAK_ALIAS(T_event_get_info);

extern "C" int PMPI_T_event_get_index(const char* name, int*) {
  MPR_ENTRY;
  MPR_T_ENTER();
  return name ? MPI_T_ERR_INVALID_NAME : MPI_T_ERR_INVALID;
}
MPR_WEAK_ALIAS(T_event_get_index);

extern "C" int PMPI_T_event_handle_alloc(int, void*, MPI_Info, MPI_T_event_registration*) {
  MPR_ENTRY;
  MPR_T_ENTER();
  return MPI_T_ERR_INVALID_INDEX;
}
MPR_WEAK_ALIAS(T_event_handle_alloc);

extern "C" int PMPI_T_event_handle_set_info(MPI_T_event_registration, MPI_Info) {
  MPR_ENTRY;
  MPR_T_ENTER();
  return MPI_T_ERR_INVALID_HANDLE;
}
MPR_WEAK_ALIAS(T_event_handle_set_info);

extern "C" int PMPI_T_event_handle_get_info(MPI_T_event_registration, MPI_Info*) {
  MPR_ENTRY;
  MPR_T_ENTER();
  return MPI_T_ERR_INVALID_HANDLE;
}
MPR_WEAK_ALIAS(T_event_handle_get_info);

extern "C" int PMPI_T_event_register_callback(MPI_T_event_registration, MPI_T_cb_safety, MPI_Info,
                                              void*, MPI_T_event_cb_function*) {
  MPR_ENTRY;
  MPR_T_ENTER();
  return MPI_T_ERR_INVALID_HANDLE;
}
MPR_WEAK_ALIAS(T_event_register_callback);

extern "C" int PMPI_T_event_callback_set_info(MPI_T_event_registration, MPI_T_cb_safety, MPI_Info) {
  MPR_ENTRY;
  MPR_T_ENTER();
  return MPI_T_ERR_INVALID_HANDLE;
}
MPR_WEAK_ALIAS(T_event_callback_set_info);

extern "C" int PMPI_T_event_callback_get_info(MPI_T_event_registration, MPI_T_cb_safety,
                                              MPI_Info*) {
  MPR_ENTRY;
  MPR_T_ENTER();
  return MPI_T_ERR_INVALID_HANDLE;
}
MPR_WEAK_ALIAS(T_event_callback_get_info);

extern "C" int PMPI_T_event_handle_free(MPI_T_event_registration, void*,
                                        MPI_T_event_free_cb_function*) {
  MPR_ENTRY;
  MPR_T_ENTER();
  return MPI_T_ERR_INVALID_HANDLE;
}
MPR_WEAK_ALIAS(T_event_handle_free);

extern "C" int PMPI_T_event_set_dropped_handler(MPI_T_event_registration,
                                                MPI_T_event_dropped_cb_function*) {
  MPR_ENTRY;
  MPR_T_ENTER();
  return MPI_T_ERR_INVALID_HANDLE;
}
MPR_WEAK_ALIAS(T_event_set_dropped_handler);

extern "C" int PMPI_T_event_read(MPI_T_event_instance, int, void*) {
  MPR_ENTRY;
  MPR_T_ENTER();
  return MPI_T_ERR_INVALID_HANDLE;
}
MPR_WEAK_ALIAS(T_event_read);

extern "C" int PMPI_T_event_copy(MPI_T_event_instance, void*) {
  MPR_ENTRY;
  MPR_T_ENTER();
  return MPI_T_ERR_INVALID_HANDLE;
}
MPR_WEAK_ALIAS(T_event_copy);

extern "C" int PMPI_T_event_get_timestamp(MPI_T_event_instance, MPI_Count*) {
  MPR_ENTRY;
  MPR_T_ENTER();
  return MPI_T_ERR_INVALID_HANDLE;
}
MPR_WEAK_ALIAS(T_event_get_timestamp);

extern "C" int PMPI_T_event_get_source(MPI_T_event_instance, int*) {
  MPR_ENTRY;
  MPR_T_ENTER();
  return MPI_T_ERR_INVALID_HANDLE;
}
MPR_WEAK_ALIAS(T_event_get_source);
