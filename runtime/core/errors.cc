#include "runtime/core/errors.h"

#include <cstdarg>
#include <cstdint>
#include <cstdio>

#include "common/log.h"
#include "runtime/comm/comm.h"
#include "runtime/core/errors_user.h"
#include "runtime/core/state.h"

namespace mpr::runtime {

namespace {

struct ClassInfo {
  const char* name;
  const char* text;
};

// Indexed by class value (mpi.h numbers the classes densely from 0).
const ClassInfo kClasses[] = {
    {"MPI_SUCCESS", "no error"},
    {"MPI_ERR_BUFFER", "invalid buffer pointer"},
    {"MPI_ERR_COUNT", "invalid count argument"},
    {"MPI_ERR_TYPE", "invalid datatype"},
    {"MPI_ERR_TAG", "invalid tag"},
    {"MPI_ERR_COMM", "invalid communicator"},
    {"MPI_ERR_RANK", "invalid rank"},
    {"MPI_ERR_ROOT", "invalid root"},
    {"MPI_ERR_GROUP", "invalid group"},
    {"MPI_ERR_OP", "invalid reduce operation"},
    {"MPI_ERR_TOPOLOGY", "invalid communicator topology"},
    {"MPI_ERR_DIMS", "invalid topology dimension argument"},
    {"MPI_ERR_ARG", "invalid argument of some other kind"},
    {"MPI_ERR_UNKNOWN", "unknown error"},
    {"MPI_ERR_TRUNCATE", "message truncated"},
    {"MPI_ERR_OTHER", "known error not in this list"},
    {"MPI_ERR_INTERN", "internal error"},
    {"MPI_ERR_IN_STATUS", "error code is in status"},
    {"MPI_ERR_PENDING", "pending request"},
    {"MPI_ERR_REQUEST", "invalid request"},
    {"MPI_ERR_ACCESS", "permission denied"},
    {"MPI_ERR_AMODE", "invalid file access mode"},
    {"MPI_ERR_BAD_FILE", "invalid file name"},
    {"MPI_ERR_CONVERSION", "data conversion function failed"},
    {"MPI_ERR_DUP_DATAREP", "data representation identifier already registered"},
    {"MPI_ERR_FILE_EXISTS", "file exists"},
    {"MPI_ERR_FILE_IN_USE", "file operation failed: file in use"},
    {"MPI_ERR_FILE", "invalid file handle"},
    {"MPI_ERR_INFO", "invalid info object"},
    {"MPI_ERR_INFO_KEY", "info key longer than MPI_MAX_INFO_KEY"},
    {"MPI_ERR_INFO_VALUE", "info value longer than MPI_MAX_INFO_VAL"},
    {"MPI_ERR_INFO_NOKEY", "info key not defined"},
    {"MPI_ERR_IO", "I/O error"},
    {"MPI_ERR_NAME", "invalid service name"},
    {"MPI_ERR_NO_MEM", "out of memory"},
    {"MPI_ERR_NOT_SAME", "collective argument not identical on all processes"},
    {"MPI_ERR_NO_SPACE", "not enough space"},
    {"MPI_ERR_NO_SUCH_FILE", "file does not exist"},
    {"MPI_ERR_PORT", "invalid port name"},
    {"MPI_ERR_QUOTA", "quota exceeded"},
    {"MPI_ERR_READ_ONLY", "read-only file or file system"},
    {"MPI_ERR_SERVICE", "invalid service name"},
    {"MPI_ERR_SPAWN", "error spawning processes"},
    {"MPI_ERR_UNSUPPORTED_DATAREP", "unsupported data representation"},
    {"MPI_ERR_UNSUPPORTED_OPERATION", "unsupported operation"},
    {"MPI_ERR_WIN", "invalid window"},
    {"MPI_ERR_BASE", "invalid base address"},
    {"MPI_ERR_LOCKTYPE", "invalid lock type"},
    {"MPI_ERR_KEYVAL", "invalid keyval"},
    {"MPI_ERR_RMA_CONFLICT", "conflicting accesses to window"},
    {"MPI_ERR_RMA_SYNC", "erroneous RMA synchronization"},
    {"MPI_ERR_SIZE", "invalid size argument"},
    {"MPI_ERR_DISP", "invalid displacement argument"},
    {"MPI_ERR_ASSERT", "invalid assert argument"},
    {"MPI_ERR_RMA_RANGE", "target memory not in the window"},
    {"MPI_ERR_RMA_ATTACH", "memory cannot be attached"},
    {"MPI_ERR_RMA_SHARED", "memory cannot be shared"},
    {"MPI_ERR_RMA_FLAVOR", "wrong window flavor"},
    {"MPI_ERR_PROC_ABORTED", "operation failed because a peer process aborted"},
    {"MPI_ERR_VALUE_TOO_LARGE", "value too large to store"},
    {"MPI_ERR_SESSION", "invalid session"},
    {"MPI_ERR_ERRHANDLER", "invalid error handler"},
    {"MPI_T_ERR_MEMORY", "MPI_T: out of memory"},
    {"MPI_T_ERR_NOT_INITIALIZED", "MPI_T: the tool interface is not initialized"},
    {"MPI_T_ERR_CANNOT_INIT", "MPI_T: the tool interface cannot be initialized"},
    {"MPI_T_ERR_INVALID_INDEX", "MPI_T: invalid variable, category, source or event index"},
    {"MPI_T_ERR_INVALID_ITEM", "MPI_T: invalid enumeration item index"},
    {"MPI_T_ERR_INVALID_HANDLE", "MPI_T: invalid handle"},
    {"MPI_T_ERR_OUT_OF_HANDLES", "MPI_T: no more handles available"},
    {"MPI_T_ERR_OUT_OF_SESSIONS", "MPI_T: no more performance variable sessions available"},
    {"MPI_T_ERR_INVALID_SESSION", "MPI_T: invalid performance variable session"},
    {"MPI_T_ERR_CVAR_SET_NOT_NOW", "MPI_T: the control variable cannot be set now"},
    {"MPI_T_ERR_CVAR_SET_NEVER", "MPI_T: the control variable can no longer be set"},
    {"MPI_T_ERR_PVAR_NO_STARTSTOP", "MPI_T: the performance variable cannot be started or stopped"},
    {"MPI_T_ERR_PVAR_NO_WRITE", "MPI_T: the performance variable cannot be written or reset"},
    {"MPI_T_ERR_PVAR_NO_ATOMIC",
     "MPI_T: the performance variable cannot be read and reset atomically"},
    {"MPI_T_ERR_INVALID_NAME", "MPI_T: no variable, category or event has this name"},
    {"MPI_T_ERR_INVALID", "MPI_T: invalid use of the tool interface"},
    {"MPI_T_ERR_NOT_SUPPORTED", "MPI_T: operation not supported"},
    {"MPI_T_ERR_NOT_ACCESSIBLE", "MPI_T: not accessible from this process"},
};
static_assert(sizeof(kClasses) / sizeof(kClasses[0]) == kLastClass + 1);

// Messages of the most recent codes. A code is (seq << kClassBits) | class with seq >= 1;
// seq wraps below MPI_ERR_LASTCODE so codes stay valid forever. The low byte of a code is its
// class, so a code passed on to MPI_Abort (or exit) gives an exit status below 128, never one
// that reads as a signal.
constexpr int kMessageRing = 64;
constexpr int kSeqLimit = MPI_ERR_LASTCODE >> kClassBits;
struct Recorded {
  int code = 0;
  char text[MPI_MAX_ERROR_STRING] = {};
};
Recorded g_ring[kMessageRing];
int g_seq = 0;

Errhandler g_predefined_eh[] = {
    {Errhandler::kMagic, Errhandler::Kind::kFatal, nullptr, true, 1, MPI_ERRORS_ARE_FATAL},
    {Errhandler::kMagic, Errhandler::Kind::kReturn, nullptr, true, 1, MPI_ERRORS_RETURN},
    {Errhandler::kMagic, Errhandler::Kind::kAbort, nullptr, true, 1, MPI_ERRORS_ABORT},
};

int record(int err_class, const char* fn, const char* fmt, va_list ap) {
  g_seq = g_seq % kSeqLimit + 1;
  int code = (g_seq << kClassBits) | err_class;
  Recorded& r = g_ring[g_seq % kMessageRing];
  r.code = code;
  int n = fn ? std::snprintf(r.text, sizeof r.text, "%s: ", fn) : 0;
  if (n < 0 || n >= static_cast<int>(sizeof r.text)) n = 0;
  std::vsnprintf(r.text + n, sizeof r.text - n, fmt, ap);
  return code;
}

const char* recorded_text(int code) {
  const Recorded& r = g_ring[(code >> kClassBits) % kMessageRing];
  return r.code == code ? r.text : nullptr;
}

[[noreturn]] void fatal(int code) {
  std::string text = error_string(code);
  if (text.empty()) text = "user-defined error " + std::to_string(code);
  common::log_error("%s", text.c_str());
  abort_job(error_class_of(code), text.c_str());
}

}  // namespace

Errhandler* to_errhandler(MPI_Errhandler h) {
  auto v = reinterpret_cast<uintptr_t>(h);
  for (Errhandler& e : g_predefined_eh)
    if (v == reinterpret_cast<uintptr_t>(e.handle)) return &e;
  if (v < 0x1000) return nullptr;
  auto* e = reinterpret_cast<Errhandler*>(h);
  return e->magic == Errhandler::kMagic ? e : nullptr;
}

Errhandler* errhandler_fatal() { return &g_predefined_eh[0]; }
Errhandler* errhandler_return() { return &g_predefined_eh[1]; }

void errhandler_retain(Errhandler* e) {
  if (!e->predefined) ++e->refs;
}

void errhandler_release(Errhandler* e) {
  if (e->predefined || --e->refs > 0) return;
  e->magic = 0;
  delete e;
}

int make_error(int err_class, const char* fn, const char* fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  int code = record(err_class, fn, fmt, ap);
  va_end(ap);
  return code;
}

int raise_error(Comm* comm, int err_class, const char* fn, const char* fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  int code = record(err_class, fn, fmt, ap);
  va_end(ap);
  return raise(comm, code);
}

int raise(Comm* comm, int code) {
  if (code == MPI_SUCCESS) return code;
  if (!comm) {
    if (!running()) fatal(code);
    Errhandler* self_eh = g_state.self->errhandler();
    comm = self_eh->kind != Errhandler::Kind::kFatal ? g_state.self : g_state.world;
  }
  Errhandler* eh = comm->errhandler();
  switch (eh->kind) {
    case Errhandler::Kind::kReturn:
      return code;
    case Errhandler::Kind::kUser: {
      MPI_Comm h = comm->handle();
      int c = code;
      eh->fn(&h, &c);
      return code;
    }
    case Errhandler::Kind::kFatal:
    case Errhandler::Kind::kAbort:
      break;
  }
  fatal(code);
}

bool is_error_code(int code) {
  if (code < 0) return false;
  if (code > MPI_ERR_LASTCODE) return is_user_error(code);
  return (code & ((1 << kClassBits) - 1)) <= kLastClass;
}

int error_class_of(int code) {
  if (!is_error_code(code)) return MPI_ERR_UNKNOWN;
  if (code > MPI_ERR_LASTCODE) return user_error_class(code);
  return code & ((1 << kClassBits) - 1);
}

std::string error_string(int code) {
  if (!is_error_code(code)) return {};
  if (code > MPI_ERR_LASTCODE) return user_error_string(code);
  int cls = code & ((1 << kClassBits) - 1);
  if (cls > kLastClass) return {};
  if (code > kLastClass)
    if (const char* text = recorded_text(code)) return text;
  return std::string(kClasses[cls].name) + ": " + kClasses[cls].text;
}

const char* error_class_name(int err_class) {
  if (err_class < 0 || err_class > kLastClass) return nullptr;
  return kClasses[err_class].name;
}

}  // namespace mpr::runtime
