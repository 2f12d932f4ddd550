// Sessions (MPI-4): MPI_Session_init brings the library up without MPI_Init (or joins it), its
// process sets are mpi://WORLD and mpi://SELF, and communicators come from their groups with
// MPI_Comm_create_from_group / MPI_Intercomm_create_from_groups. The library stays up until
// the last of MPI_Finalize and MPI_Session_finalize (core/init.cc counts its users).
#include <strings.h>

#include <cstring>
#include <string>

#include "runtime/api/check.h"
#include "runtime/api/handles.h"
#include "runtime/comm/group.h"
#include "runtime/core/info.h"
#include "runtime/p2p/bsend.h"
#include "runtime/p2p/request.h"

using namespace mpr::runtime;
using namespace mpr::runtime::api;

struct mpr_session_s {
  static constexpr unsigned kMagic = 0x53657373;  // "Sess"
  unsigned magic = kMagic;
  Errhandler* errhandler = nullptr;
  int thread_level = MPI_THREAD_SINGLE;
  std::vector<std::pair<std::string, std::string>> info;  ///< the info given to Session_init
  /// MPI_Session_attach_buffer's buffer, used by buffered sends on the session's communicators.
  std::unique_ptr<mpr::runtime::BsendBuffer> bsend = std::make_unique<mpr::runtime::BsendBuffer>();
};

namespace {

using Session = mpr_session_s;

constexpr const char* kWorld = "mpi://WORLD";
constexpr const char* kSelf = "mpi://SELF";
const char* const kPsets[] = {kWorld, kSelf};

Session* to_session(MPI_Session h) {
  auto* s = reinterpret_cast<Session*>(h);
  return s && s->magic == Session::kMagic ? s : nullptr;
}

// Hand `code` to the session's error handler (the initial handler, fatal, without one).
int raise_session(Session* s, int code) {
  if (code == MPI_SUCCESS) return code;
  if (!s) return raise(nullptr, code);
  Errhandler* eh = s->errhandler;
  switch (eh->kind) {
    case Errhandler::Kind::kReturn:
      return code;
    case Errhandler::Kind::kUser: {
      MPI_Session h = s;
      int c = code;
      if (eh->session_fn) {
        eh->session_fn(&h, &c);
        return code;
      }
      return raise(nullptr, code);
    }
    case Errhandler::Kind::kFatal:
    case Errhandler::Kind::kAbort:
      break;
  }
  if (running()) abort_job(code, error_string(code).c_str());
  return raise(nullptr, code);  // fatal before the library is up
}

int session_error(Session* s, int err_class, const char* fn, const char* what) {
  return raise_session(s, make_error(err_class, fn, "%s", what));
}

int check_session(const char* fn, MPI_Session h, Session** out) {
  *out = to_session(h);
  if (*out && running()) return MPI_SUCCESS;
  if (!*out)
    return raise_error(nullptr, MPI_ERR_SESSION, fn, "invalid session handle %p",
                       static_cast<void*>(h));
  return raise_error(nullptr, MPI_ERR_SESSION, fn, "the session's library has ended");
}

// A handler usable on sessions: predefined, or made by MPI_Session_create_errhandler.
Errhandler* session_errhandler(MPI_Errhandler h) {
  if (h == MPI_ERRHANDLER_NULL) return errhandler_fatal();
  Errhandler* eh = to_errhandler(h);
  if (!eh || (eh->kind == Errhandler::Kind::kUser && !eh->session_fn)) return nullptr;
  return eh;
}

int thread_level_of(const std::string& v) {
  if (v == "MPI_THREAD_MULTIPLE") return MPI_THREAD_MULTIPLE;
  if (v == "MPI_THREAD_SERIALIZED") return MPI_THREAD_SERIALIZED;
  if (v == "MPI_THREAD_FUNNELED") return MPI_THREAD_FUNNELED;
  if (v == "MPI_THREAD_SINGLE") return MPI_THREAD_SINGLE;
  return -1;
}

const char* thread_level_name(int level) {
  switch (level) {
    case MPI_THREAD_MULTIPLE:
      return "MPI_THREAD_MULTIPLE";
    case MPI_THREAD_SERIALIZED:
      return "MPI_THREAD_SERIALIZED";
    case MPI_THREAD_FUNNELED:
      return "MPI_THREAD_FUNNELED";
    default:
      return "MPI_THREAD_SINGLE";
  }
}

// The job ranks of a process set, or false if there is no such set. The names are matched
// without regard to case ("mpi://self" is mpi://SELF), as the peers do.
bool pset_members(const char* name, std::vector<int>* out) {
  if (strcasecmp(name, kWorld) == 0) {
    *out = g_state.world->peers();
    return true;
  }
  if (strcasecmp(name, kSelf) == 0) {
    *out = g_state.self->peers();
    return true;
  }
  return false;
}

// The int tag of a string tag: processes that pass the same string meet on the same tag.
int tag_of(const char* stringtag) {
  uint32_t h = 2166136261u;  // FNV-1a
  for (const char* p = stringtag; *p; ++p) h = (h ^ static_cast<unsigned char>(*p)) * 16777619u;
  return static_cast<int>(h & 0x3fffffff);
}

int check_stringtag(const char* fn, const char* stringtag) {
  if (!stringtag) return raise_error(nullptr, MPI_ERR_ARG, fn, "stringtag is NULL");
  if (std::strlen(stringtag) > MPI_MAX_STRINGTAG_LEN)
    return raise_error(nullptr, MPI_ERR_ARG, fn,
                       "stringtag is longer than MPI_MAX_STRINGTAG_LEN (%d)",
                       MPI_MAX_STRINGTAG_LEN);
  return MPI_SUCCESS;
}

// The new communicator's hints and handler.
int finish_comm(const char* fn, Comm* c, const Group* g, MPI_Info info, MPI_Errhandler errhandler,
                MPI_Comm* out) {
  if (!c) {
    *out = MPI_COMM_NULL;
    return MPI_SUCCESS;
  }
  c->session_bsend = g->session_bsend;
  if (Info* in = info == MPI_INFO_NULL ? nullptr : to_info(info)) c->hints() = in->entries();
  if (errhandler != MPI_ERRHANDLER_NULL) {
    Errhandler* eh = to_errhandler(errhandler);
    if (!eh)
      return raise_error(c, MPI_ERR_ARG, fn, "invalid error handler %p",
                         static_cast<void*>(errhandler));
    c->set_errhandler(eh);
  }
  *out = c->handle();
  return MPI_SUCCESS;
}

int check_new_comm_args(const char* fn, const char* stringtag, MPI_Info info,
                        MPI_Errhandler errhandler, MPI_Comm* out) {
  MPR_TRY(check_running(fn));
  MPR_TRY(check_arg(fn, nullptr, out, "the output communicator is NULL"));
  MPR_TRY(check_stringtag(fn, stringtag));
  if (info != MPI_INFO_NULL && !to_info(info))
    return raise_error(nullptr, MPI_ERR_INFO, fn, "invalid info handle %p",
                       static_cast<void*>(info));
  if (errhandler != MPI_ERRHANDLER_NULL && !to_errhandler(errhandler))
    return raise_error(nullptr, MPI_ERR_ARG, fn, "invalid error handler %p",
                       static_cast<void*>(errhandler));
  return MPI_SUCCESS;
}

}  // namespace

// ---- sessions ---------------------------------------------------------------------------------

extern "C" int PMPI_Session_init(MPI_Info info, MPI_Errhandler errhandler, MPI_Session* session) {
  MPR_ENTRY;
  constexpr const char* fn = "MPI_Session_init";
  if (!session) return raise_error(nullptr, MPI_ERR_ARG, fn, "session is NULL");
  Errhandler* eh = session_errhandler(errhandler);
  if (!eh)
    return raise_error(nullptr, MPI_ERR_ARG, fn, "%p is not an error handler for sessions",
                       static_cast<void*>(errhandler));
  Info* in = nullptr;
  if (info != MPI_INFO_NULL && !(in = to_info(info)))
    return raise_error(nullptr, MPI_ERR_INFO, fn, "invalid info handle %p",
                       static_cast<void*>(info));
  int required = MPI_THREAD_SINGLE;
  if (in)
    for (const auto& [k, v] : in->entries())
      if (k == "thread_level") {
        required = thread_level_of(v);
        if (required < 0)
          return raise_error(nullptr, MPI_ERR_INFO_VALUE, fn,
                             "thread_level \"%s\" is not MPI_THREAD_SINGLE, _FUNNELED, "
                             "_SERIALIZED or _MULTIPLE",
                             v.c_str());
      }
  auto* s = new Session;
  errhandler_retain(eh);
  s->errhandler = eh;
  if (in) s->info = in->entries();
  int rc = session_begin(fn, required, &s->thread_level);
  if (rc != MPI_SUCCESS) {
    int code = raise_session(s, rc);
    errhandler_release(eh);
    s->magic = 0;
    delete s;
    return code;
  }
  *session = s;
  return MPI_SUCCESS;
}
MPR_WEAK_ALIAS(Session_init);

extern "C" int PMPI_Session_finalize(MPI_Session* session) {
  MPR_ENTRY;
  constexpr const char* fn = "MPI_Session_finalize";
  if (!session) return raise_error(nullptr, MPI_ERR_ARG, fn, "session is NULL");
  Session* s;
  MPR_TRY(check_session(fn, *session, &s));
  Errhandler* eh = s->errhandler;
  s->bsend->drain();
  s->magic = 0;
  delete s;
  *session = MPI_SESSION_NULL;
  int rc = session_end(fn);
  errhandler_release(eh);
  return rc;
}
MPR_WEAK_ALIAS(Session_finalize);

extern "C" int PMPI_Session_get_num_psets(MPI_Session session, MPI_Info info, int* npset_names) {
  MPR_ENTRY;
  constexpr const char* fn = "MPI_Session_get_num_psets";
  (void)info;
  Session* s;
  MPR_TRY(check_session(fn, session, &s));
  if (!npset_names) return session_error(s, MPI_ERR_ARG, fn, "npset_names is NULL");
  *npset_names = static_cast<int>(std::size(kPsets));
  return MPI_SUCCESS;
}
MPR_WEAK_ALIAS(Session_get_num_psets);

extern "C" int PMPI_Session_get_nth_pset(MPI_Session session, MPI_Info info, int n, int* pset_len,
                                         char* pset_name) {
  MPR_ENTRY;
  constexpr const char* fn = "MPI_Session_get_nth_pset";
  (void)info;
  Session* s;
  MPR_TRY(check_session(fn, session, &s));
  const int count = static_cast<int>(std::size(kPsets));
  if (n < 0 || n >= count)
    return raise_session(s, make_error(MPI_ERR_ARG, fn,
                                       "invalid n %d (the session has %d process "
                                       "sets)",
                                       n, count));
  if (!pset_len) return session_error(s, MPI_ERR_ARG, fn, "pset_len is NULL");
  const char* name = kPsets[n];
  const int need = static_cast<int>(std::strlen(name)) + 1;
  // *pset_len == 0 asks for the length; otherwise copy what fits, NUL-terminated.
  if (*pset_len > 0) {
    if (!pset_name) return session_error(s, MPI_ERR_ARG, fn, "pset_name is NULL");
    const int copy = std::min(*pset_len - 1, need - 1);
    std::memcpy(pset_name, name, static_cast<size_t>(copy));
    pset_name[copy] = '\0';
  }
  *pset_len = need;
  return MPI_SUCCESS;
}
MPR_WEAK_ALIAS(Session_get_nth_pset);

extern "C" int PMPI_Session_get_info(MPI_Session session, MPI_Info* info_used) {
  MPR_ENTRY;
  constexpr const char* fn = "MPI_Session_get_info";
  Session* s;
  MPR_TRY(check_session(fn, session, &s));
  if (!info_used) return session_error(s, MPI_ERR_ARG, fn, "info_used is NULL");
  auto* out = new Info;
  for (const auto& [k, v] : s->info) out->set(k, v);
  out->set("thread_level", thread_level_name(s->thread_level));
  *info_used = out->handle();
  return MPI_SUCCESS;
}
MPR_WEAK_ALIAS(Session_get_info);

extern "C" int PMPI_Session_get_pset_info(MPI_Session session, const char* pset_name,
                                          MPI_Info* info) {
  MPR_ENTRY;
  constexpr const char* fn = "MPI_Session_get_pset_info";
  Session* s;
  MPR_TRY(check_session(fn, session, &s));
  if (!pset_name || !info) return session_error(s, MPI_ERR_ARG, fn, "pset_name or info is NULL");
  std::vector<int> members;
  if (!pset_members(pset_name, &members))
    return raise_session(s, make_error(MPI_ERR_ARG, fn,
                                       "no process set \"%s\" (this session has mpi://WORLD and "
                                       "mpi://SELF)",
                                       pset_name));
  auto* out = new Info;
  out->set("mpi_size", std::to_string(members.size()));
  *info = out->handle();
  return MPI_SUCCESS;
}
MPR_WEAK_ALIAS(Session_get_pset_info);

extern "C" int PMPI_Group_from_session_pset(MPI_Session session, const char* pset_name,
                                            MPI_Group* newgroup) {
  MPR_ENTRY;
  constexpr const char* fn = "MPI_Group_from_session_pset";
  Session* s;
  MPR_TRY(check_session(fn, session, &s));
  if (!pset_name || !newgroup)
    return session_error(s, MPI_ERR_ARG, fn, "pset_name or newgroup is NULL");
  std::vector<int> members;
  if (!pset_members(pset_name, &members))
    return raise_session(s, make_error(MPI_ERR_ARG, fn,
                                       "no process set \"%s\" (this session has mpi://WORLD and "
                                       "mpi://SELF)",
                                       pset_name));
  *newgroup = make_group_handle(std::move(members));
  to_group(*newgroup)->session_bsend = s->bsend.get();
  return MPI_SUCCESS;
}
MPR_WEAK_ALIAS(Group_from_session_pset);

// ---- communicators from groups ----------------------------------------------------------------

extern "C" int PMPI_Comm_create_from_group(MPI_Group group, const char* stringtag, MPI_Info info,
                                           MPI_Errhandler errhandler, MPI_Comm* newcomm) {
  MPR_ENTRY;
  constexpr const char* fn = "MPI_Comm_create_from_group";
  MPR_TRY(check_new_comm_args(fn, stringtag, info, errhandler, newcomm));
  Group* g;
  MPR_TRY(check_group(fn, nullptr, group, &g));
  // Collective over the group's members only; every process of the job is in world, which
  // carries the agreement on the new context.
  if (g->my_rank() == MPI_UNDEFINED) {
    *newcomm = MPI_COMM_NULL;
    return MPI_SUCCESS;
  }
  Comm* c = nullptr;
  MPR_TRY(
      raise(nullptr, comm_create_group(fn, g_state.world, g->members(), tag_of(stringtag), &c)));
  return finish_comm(fn, c, g, info, errhandler, newcomm);
}
MPR_WEAK_ALIAS(Comm_create_from_group);

extern "C" int PMPI_Intercomm_create_from_groups(MPI_Group local_group, int local_leader,
                                                 MPI_Group remote_group, int remote_leader,
                                                 const char* stringtag, MPI_Info info,
                                                 MPI_Errhandler errhandler,
                                                 MPI_Comm* newintercomm) {
  MPR_ENTRY;
  constexpr const char* fn = "MPI_Intercomm_create_from_groups";
  MPR_TRY(check_new_comm_args(fn, stringtag, info, errhandler, newintercomm));
  Group *lg, *rg;
  MPR_TRY(check_group(fn, nullptr, local_group, &lg));
  MPR_TRY(check_group(fn, nullptr, remote_group, &rg));
  if (lg->my_rank() == MPI_UNDEFINED)
    return raise_error(nullptr, MPI_ERR_GROUP, fn, "the calling process is not in local_group");
  if (local_leader < 0 || local_leader >= lg->size())
    return raise_error(nullptr, MPI_ERR_RANK, fn, "invalid local_leader %d (local_group size %d)",
                       local_leader, lg->size());
  if (remote_leader < 0 || remote_leader >= rg->size())
    return raise_error(nullptr, MPI_ERR_RANK, fn, "invalid remote_leader %d (remote_group size %d)",
                       remote_leader, rg->size());
  const int tag = tag_of(stringtag);
  Comm* local = nullptr;
  MPR_TRY(raise(nullptr, comm_create_group(fn, g_state.world, lg->members(), tag, &local)));
  // World ranks are job ranks: the remote leader's rank in world is its job rank.
  Comm* inter = nullptr;
  int rc = intercomm_create(fn, local, local_leader, g_state.world, rg->member(remote_leader), tag,
                            &inter);
  local->release();
  MPR_TRY(raise(nullptr, rc));
  return finish_comm(fn, inter, lg, info, errhandler, newintercomm);
}
MPR_WEAK_ALIAS(Intercomm_create_from_groups);

// ---- error handlers ---------------------------------------------------------------------------

extern "C" int PMPI_Session_create_errhandler(MPI_Session_errhandler_function* function,
                                              MPI_Errhandler* errhandler) {
  MPR_ENTRY;
  constexpr const char* fn = "MPI_Session_create_errhandler";
  MPR_TRY(check_arg(fn, nullptr, function && errhandler, "function or errhandler is NULL"));
  auto* eh = new Errhandler;
  eh->kind = Errhandler::Kind::kUser;
  eh->session_fn = function;
  eh->handle = reinterpret_cast<MPI_Errhandler>(eh);
  *errhandler = eh->handle;
  return MPI_SUCCESS;
}
MPR_WEAK_ALIAS(Session_create_errhandler);

extern "C" int PMPI_Session_set_errhandler(MPI_Session session, MPI_Errhandler errhandler) {
  MPR_ENTRY;
  constexpr const char* fn = "MPI_Session_set_errhandler";
  Session* s;
  MPR_TRY(check_session(fn, session, &s));
  Errhandler* eh = errhandler == MPI_ERRHANDLER_NULL ? nullptr : session_errhandler(errhandler);
  if (!eh)
    return raise_session(s, make_error(MPI_ERR_ARG, fn, "%p is not an error handler for sessions",
                                       static_cast<void*>(errhandler)));
  errhandler_retain(eh);
  errhandler_release(s->errhandler);
  s->errhandler = eh;
  return MPI_SUCCESS;
}
MPR_WEAK_ALIAS(Session_set_errhandler);

extern "C" int PMPI_Session_get_errhandler(MPI_Session session, MPI_Errhandler* errhandler) {
  MPR_ENTRY;
  constexpr const char* fn = "MPI_Session_get_errhandler";
  Session* s;
  MPR_TRY(check_session(fn, session, &s));
  if (!errhandler) return session_error(s, MPI_ERR_ARG, fn, "errhandler is NULL");
  errhandler_retain(s->errhandler);
  *errhandler = s->errhandler->handle;
  return MPI_SUCCESS;
}
MPR_WEAK_ALIAS(Session_get_errhandler);

extern "C" int PMPI_Session_call_errhandler(MPI_Session session, int errorcode) {
  MPR_ENTRY;
  constexpr const char* fn = "MPI_Session_call_errhandler";
  Session* s;
  MPR_TRY(check_session(fn, session, &s));
  raise_session(s, errorcode);
  return MPI_SUCCESS;
}
MPR_WEAK_ALIAS(Session_call_errhandler);

// ---- buffers for buffered sends on the session's communicators (MPI 4.1) --------------------

namespace {

int session_buffer(const char* fn, MPI_Session h, Session** s) {
  MPR_TRY(check_session(fn, h, s));
  return MPI_SUCCESS;
}

}  // namespace

extern "C" int PMPI_Session_attach_buffer_c(MPI_Session session, void* buffer, MPI_Count size) {
  MPR_ENTRY;
  constexpr const char* fn = "MPI_Session_attach_buffer_c";
  Session* s;
  MPR_TRY(session_buffer(fn, session, &s));
  return raise_session(s, buffer_attach(fn, s->bsend.get(), buffer, size));
}
MPR_WEAK_ALIAS(Session_attach_buffer_c);

extern "C" int PMPI_Session_attach_buffer(MPI_Session session, void* buffer, int size) {
  MPR_ENTRY;
  constexpr const char* fn = "MPI_Session_attach_buffer";
  Session* s;
  MPR_TRY(session_buffer(fn, session, &s));
  return raise_session(s, buffer_attach(fn, s->bsend.get(), buffer, size));
}
MPR_WEAK_ALIAS(Session_attach_buffer);

extern "C" int PMPI_Session_detach_buffer(MPI_Session session, void* buffer_addr, int* size) {
  MPR_ENTRY;
  constexpr const char* fn = "MPI_Session_detach_buffer";
  Session* s;
  MPR_TRY(session_buffer(fn, session, &s));
  size_t n = 0;
  MPR_TRY(
      raise_session(s, buffer_detach(fn, s->bsend.get(), buffer_addr, size ? &n : nullptr, true)));
  *size = static_cast<int>(n);
  return MPI_SUCCESS;
}
MPR_WEAK_ALIAS(Session_detach_buffer);

extern "C" int PMPI_Session_detach_buffer_c(MPI_Session session, void* buffer_addr,
                                            MPI_Count* size) {
  MPR_ENTRY;
  constexpr const char* fn = "MPI_Session_detach_buffer_c";
  Session* s;
  MPR_TRY(session_buffer(fn, session, &s));
  size_t n = 0;
  MPR_TRY(
      raise_session(s, buffer_detach(fn, s->bsend.get(), buffer_addr, size ? &n : nullptr, false)));
  *size = static_cast<MPI_Count>(n);
  return MPI_SUCCESS;
}
MPR_WEAK_ALIAS(Session_detach_buffer_c);

extern "C" int PMPI_Session_flush_buffer(MPI_Session session) {
  MPR_ENTRY;
  Session* s;
  MPR_TRY(session_buffer("MPI_Session_flush_buffer", session, &s));
  s->bsend->drain();
  return MPI_SUCCESS;
}
MPR_WEAK_ALIAS(Session_flush_buffer);

extern "C" int PMPI_Session_iflush_buffer(MPI_Session session, MPI_Request* request) {
  MPR_ENTRY;
  constexpr const char* fn = "MPI_Session_iflush_buffer";
  Session* s;
  MPR_TRY(session_buffer(fn, session, &s));
  if (!request) return session_error(s, MPI_ERR_ARG, fn, "request is NULL");
  *request = to_handle(flush_request(g_state.self, s->bsend.get()));
  return MPI_SUCCESS;
}
MPR_WEAK_ALIAS(Session_iflush_buffer);
