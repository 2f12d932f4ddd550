// One-sided communication, the window itself: create, allocate, free, attach/detach, shared
// query, group, name, info, attributes and error handlers. Put/get/accumulate, the atomics
// and the synchronization calls are in rma.cc.
#include <climits>
#include <cstring>

#include "runtime/api/check.h"
#include "runtime/api/handles.h"
#include "runtime/api/win_check.h"
#include "runtime/rma/win.h"

using namespace mpr::runtime;
using namespace mpr::runtime::api;
using mpr::runtime::rma::Win;

namespace {

int check_info_arg(const char* fn, Comm* comm, MPI_Info info) {
  Info* i;
  return check_info(fn, comm, info, true, &i);
}

int check_create_args(const char* fn, Comm* comm, MPI_Aint size, MPI_Aint disp_unit) {
  if (size < 0)
    return raise_error(comm, MPI_ERR_SIZE, fn, "invalid window size %zd (must be >= 0)",
                       static_cast<ptrdiff_t>(size));
  if (disp_unit <= 0)
    return raise_error(comm, MPI_ERR_DISP, fn, "invalid disp_unit %lld (must be > 0)",
                       static_cast<long long>(disp_unit));
  // Targets keep their unit as an int (also what MPI_WIN_DISP_UNIT returns).
  if (disp_unit > INT_MAX)
    return raise_error(comm, MPI_ERR_DISP, fn,
                       "disp_unit %lld exceeds INT_MAX, the largest unit a window keeps",
                       static_cast<long long>(disp_unit));
  return MPI_SUCCESS;
}

// The window hints MPI defines, with the value each has when the program set none. Other keys
// are ignored (MPI_Win_get_info does not return them), as the standard allows.
constexpr std::pair<const char*, const char*> kWinHintDefaults[] = {
    {"no_locks", "false"},
    {"accumulate_ordering", "rar,raw,war,waw"},
    {"accumulate_ops", "same_op_no_op"},
    {"mpi_accumulate_granularity", "0"},
    {"same_size", "false"},
    {"same_disp_unit", "false"},
    // Shared segments may be laid out noncontiguously (the program must query each).
    {"alloc_shared_noncontig", "true"},
};

void set_hints(Win* w, const Info* i) {
  if (!i) return;
  for (const auto& kv : i->entries()) {
    bool known = false;
    for (const auto& d : kWinHintDefaults) known = known || kv.first == d.first;
    if (!known) continue;
    bool replaced = false;
    for (auto& h : w->hints)
      if (h.first == kv.first) h.second = kv.second, replaced = true;
    if (!replaced) w->hints.push_back(kv);
  }
}

int new_window(const char* fn, MPI_Comm h, MPI_Info info, int flavor, void* base, MPI_Aint size,
               MPI_Aint disp_unit, MPI_Win* win, Win** out) {
  Comm* comm;
  MPR_TRY(check_running(fn));
  MPR_TRY(check_comm(fn, h, &comm));
  MPR_TRY(check_intra(fn, comm));
  MPR_TRY(check_arg(fn, comm, win, "win is NULL"));
  MPR_TRY(check_info_arg(fn, comm, info));
  MPR_TRY(check_create_args(fn, comm, size, disp_unit));
  MPR_TRY(rma::create(fn, comm, flavor, base, size, static_cast<int>(disp_unit), out));
  set_hints(*out, to_info(info));
  *win = (*out)->handle();
  return MPI_SUCCESS;
}

// MPI_Win_get_attr hands out pointers to these.
struct WinAttrValues {
  MPI_Aint size;
  int disp_unit, flavor, model;
  void* base;
};

}  // namespace

// ---- windows ------------------------------------------------------------------------------

namespace {

int allocate(const char* fn, int flavor, MPI_Aint size, MPI_Aint disp_unit, MPI_Info info,
             MPI_Comm comm, void* baseptr, MPI_Win* win) {
  if (!baseptr && running()) return raise_error(to_comm(comm), MPI_ERR_ARG, fn, "baseptr is NULL");
  Win* w;
  MPR_TRY(new_window(fn, comm, info, flavor, nullptr, size, disp_unit, win, &w));
  *static_cast<void**>(baseptr) = w->base;
  return MPI_SUCCESS;
}

}  // namespace

extern "C" int PMPI_Win_create(void* base, MPI_Aint size, int disp_unit, MPI_Info info,
                               MPI_Comm comm, MPI_Win* win) {
  MPR_ENTRY;
  Win* w;
  return new_window("MPI_Win_create", comm, info, MPI_WIN_FLAVOR_CREATE, base, size, disp_unit, win,
                    &w);
}
MPR_WEAK_ALIAS(Win_create);

extern "C" int PMPI_Win_create_c(void* base, MPI_Aint size, MPI_Aint disp_unit, MPI_Info info,
                                 MPI_Comm comm, MPI_Win* win) {
  MPR_ENTRY;
  Win* w;
  return new_window("MPI_Win_create_c", comm, info, MPI_WIN_FLAVOR_CREATE, base, size, disp_unit,
                    win, &w);
}
MPR_WEAK_ALIAS(Win_create_c);

extern "C" int PMPI_Win_allocate(MPI_Aint size, int disp_unit, MPI_Info info, MPI_Comm comm,
                                 void* baseptr, MPI_Win* win) {
  MPR_ENTRY;
  return allocate("MPI_Win_allocate", MPI_WIN_FLAVOR_ALLOCATE, size, disp_unit, info, comm, baseptr,
                  win);
}
MPR_WEAK_ALIAS(Win_allocate);

extern "C" int PMPI_Win_allocate_c(MPI_Aint size, MPI_Aint disp_unit, MPI_Info info, MPI_Comm comm,
                                   void* baseptr, MPI_Win* win) {
  MPR_ENTRY;
  return allocate("MPI_Win_allocate_c", MPI_WIN_FLAVOR_ALLOCATE, size, disp_unit, info, comm,
                  baseptr, win);
}
MPR_WEAK_ALIAS(Win_allocate_c);

extern "C" int PMPI_Win_allocate_shared(MPI_Aint size, int disp_unit, MPI_Info info, MPI_Comm comm,
                                        void* baseptr, MPI_Win* win) {
  MPR_ENTRY;
  return allocate("MPI_Win_allocate_shared", MPI_WIN_FLAVOR_SHARED, size, disp_unit, info, comm,
                  baseptr, win);
}
MPR_WEAK_ALIAS(Win_allocate_shared);

extern "C" int PMPI_Win_allocate_shared_c(MPI_Aint size, MPI_Aint disp_unit, MPI_Info info,
                                          MPI_Comm comm, void* baseptr, MPI_Win* win) {
  MPR_ENTRY;
  return allocate("MPI_Win_allocate_shared_c", MPI_WIN_FLAVOR_SHARED, size, disp_unit, info, comm,
                  baseptr, win);
}
MPR_WEAK_ALIAS(Win_allocate_shared_c);

extern "C" int PMPI_Win_create_dynamic(MPI_Info info, MPI_Comm comm, MPI_Win* win) {
  MPR_ENTRY;
  Win* w;
  return new_window("MPI_Win_create_dynamic", comm, info, MPI_WIN_FLAVOR_DYNAMIC, nullptr, 0, 1,
                    win, &w);
}
MPR_WEAK_ALIAS(Win_create_dynamic);

extern "C" int PMPI_Win_shared_query(MPI_Win win, int rank, MPI_Aint* size, int* disp_unit,
                                     void* baseptr) {
  MPR_ENTRY;
  constexpr const char* fn = "MPI_Win_shared_query";
  Win* w;
  MPR_TRY(enter(fn, win, &w));
  if (!size || !disp_unit || !baseptr)
    return rma::win_error(w, MPI_ERR_ARG, fn, "size, disp_unit or baseptr is NULL");
  return rma::shared_query(fn, w, rank, size, disp_unit, baseptr);
}
MPR_WEAK_ALIAS(Win_shared_query);

extern "C" int PMPI_Win_shared_query_c(MPI_Win win, int rank, MPI_Aint* size, MPI_Aint* disp_unit,
                                       void* baseptr) {
  MPR_ENTRY;
  constexpr const char* fn = "MPI_Win_shared_query_c";
  Win* w;
  MPR_TRY(enter(fn, win, &w));
  if (!size || !disp_unit || !baseptr)
    return rma::win_error(w, MPI_ERR_ARG, fn, "size, disp_unit or baseptr is NULL");
  int unit = 0;
  MPR_TRY(rma::shared_query(fn, w, rank, size, &unit, baseptr));
  *disp_unit = unit;
  return MPI_SUCCESS;
}
MPR_WEAK_ALIAS(Win_shared_query_c);

extern "C" int PMPI_Win_attach(MPI_Win win, void* base, MPI_Aint size) {
  MPR_ENTRY;
  constexpr const char* fn = "MPI_Win_attach";
  Win* w;
  MPR_TRY(enter(fn, win, &w));
  return rma::attach(fn, w, base, size);
}
MPR_WEAK_ALIAS(Win_attach);

extern "C" int PMPI_Win_detach(MPI_Win win, const void* base) {
  MPR_ENTRY;
  constexpr const char* fn = "MPI_Win_detach";
  Win* w;
  MPR_TRY(enter(fn, win, &w));
  return rma::detach(fn, w, base);
}
MPR_WEAK_ALIAS(Win_detach);

extern "C" int PMPI_Win_free(MPI_Win* win) {
  MPR_ENTRY;
  constexpr const char* fn = "MPI_Win_free";
  MPR_TRY(check_running(fn));
  MPR_TRY(check_arg(fn, nullptr, win, "win is NULL"));
  Win* w;
  MPR_TRY(check_win(fn, *win, &w));
  // free_win raises its own synchronization errors on the window before it goes away.
  int rc = rma::free_win(fn, w);
  if (rc != MPI_SUCCESS && rma::to_win(*win)) return rc;
  *win = MPI_WIN_NULL;
  return raise(nullptr, rc);
}
MPR_WEAK_ALIAS(Win_free);

extern "C" int PMPI_Win_get_group(MPI_Win win, MPI_Group* group) {
  MPR_ENTRY;
  constexpr const char* fn = "MPI_Win_get_group";
  Win* w;
  MPR_TRY(enter(fn, win, &w));
  if (!group) return rma::win_error(w, MPI_ERR_ARG, fn, "group is NULL");
  *group = make_group_handle(w->comm->peers());
  return MPI_SUCCESS;
}
MPR_WEAK_ALIAS(Win_get_group);

extern "C" int PMPI_Win_set_name(MPI_Win win, const char* win_name) {
  MPR_ENTRY;
  constexpr const char* fn = "MPI_Win_set_name";
  Win* w;
  MPR_TRY(enter(fn, win, &w));
  if (!win_name) return rma::win_error(w, MPI_ERR_ARG, fn, "win_name is NULL");
  w->name.assign(win_name, strnlen(win_name, MPI_MAX_OBJECT_NAME - 1));
  return MPI_SUCCESS;
}
MPR_WEAK_ALIAS(Win_set_name);

extern "C" int PMPI_Win_get_name(MPI_Win win, char* win_name, int* resultlen) {
  MPR_ENTRY;
  constexpr const char* fn = "MPI_Win_get_name";
  Win* w;
  MPR_TRY(enter(fn, win, &w));
  if (!win_name || !resultlen)
    return rma::win_error(w, MPI_ERR_ARG, fn, "win_name or resultlen is NULL");
  std::memcpy(win_name, w->name.c_str(), w->name.size() + 1);
  *resultlen = static_cast<int>(w->name.size());
  return MPI_SUCCESS;
}
MPR_WEAK_ALIAS(Win_get_name);

extern "C" int PMPI_Win_set_info(MPI_Win win, MPI_Info info) {
  MPR_ENTRY;
  constexpr const char* fn = "MPI_Win_set_info";
  Win* w;
  MPR_TRY(enter(fn, win, &w));
  Info* i;
  MPR_TRY(check_info(fn, nullptr, info, false, &i));
  // No hint changes behaviour; they are kept so MPI_Win_get_info returns them.
  set_hints(w, i);
  return MPI_SUCCESS;
}
MPR_WEAK_ALIAS(Win_set_info);

extern "C" int PMPI_Win_get_info(MPI_Win win, MPI_Info* info_used) {
  MPR_ENTRY;
  constexpr const char* fn = "MPI_Win_get_info";
  Win* w;
  MPR_TRY(enter(fn, win, &w));
  if (!info_used) return rma::win_error(w, MPI_ERR_ARG, fn, "info_used is NULL");
  auto* info = new Info;
  for (const auto& [k, v] : kWinHintDefaults) info->set(k, v);
  for (const auto& [k, v] : w->hints) info->set(k, v);
  *info_used = info->handle();
  return MPI_SUCCESS;
}
MPR_WEAK_ALIAS(Win_get_info);

// ---- attributes -----------------------------------------------------------------------------

extern "C" int PMPI_Win_create_keyval(MPI_Win_copy_attr_function* copy_fn,
                                      MPI_Win_delete_attr_function* delete_fn, int* win_keyval,
                                      void* extra_state) {
  MPR_ENTRY;
  constexpr const char* fn = "MPI_Win_create_keyval";
  MPR_TRY(check_running(fn));
  MPR_TRY(check_arg(fn, nullptr, win_keyval, "win_keyval is NULL"));
  (void)copy_fn;  // windows are never duplicated
  int id = keyval_create(nullptr, nullptr, extra_state);
  Keyval* kv = to_keyval(id);
  kv->kind = AttrKind::kWin;
  kv->win_delete_fn = delete_fn;
  *win_keyval = id;
  return MPI_SUCCESS;
}
MPR_WEAK_ALIAS(Win_create_keyval);

extern "C" int PMPI_Win_free_keyval(int* win_keyval) {
  MPR_ENTRY;
  constexpr const char* fn = "MPI_Win_free_keyval";
  MPR_TRY(check_running(fn));
  MPR_TRY(check_arg(fn, nullptr, win_keyval, "win_keyval is NULL"));
  // Freed again while its attributes live (from a delete callback, through a saved copy):
  // accepted, as for communicator keyvals (api/attr.cc).
  if (Keyval* freed = find_keyval(*win_keyval);
      freed && freed->freed && freed->kind == AttrKind::kWin) {
    *win_keyval = MPI_KEYVAL_INVALID;
    return MPI_SUCCESS;
  }
  Keyval* kv = to_keyval(*win_keyval);
  if (!kv || kv->kind != AttrKind::kWin)
    return raise_error(nullptr, MPI_ERR_KEYVAL, fn, "invalid window keyval %d", *win_keyval);
  keyval_free(kv);
  *win_keyval = MPI_KEYVAL_INVALID;
  return MPI_SUCCESS;
}
MPR_WEAK_ALIAS(Win_free_keyval);

namespace {
// `set`: only a keyval the user has not freed; get and delete also take a freed one that still
// names an attribute of this window.
int win_keyval(const char* fn, Win* w, int id, Keyval** out, bool set = false) {
  *out = set ? to_keyval(id) : find_keyval(id);
  if (*out && (*out)->kind == AttrKind::kWin && (!(*out)->freed || w->attrs.find(id)))
    return MPI_SUCCESS;
  return rma::win_error(w, MPI_ERR_KEYVAL, fn, "invalid window keyval %d", id);
}
int run_delete(const char* fn, Win* w, Keyval* kv, void* value) {
  if (!kv->win_delete_fn) return MPI_SUCCESS;
  int rc = kv->win_delete_fn(w->handle(), kv->id, value, kv->extra_state);
  if (rc == MPI_SUCCESS) return rc;
  return rma::win_error(w, MPI_ERR_OTHER, fn, "the delete callback of keyval %d returned error %d",
                        kv->id, rc);
}
}  // namespace

extern "C" int PMPI_Win_set_attr(MPI_Win win, int keyval, void* attribute_val) {
  MPR_ENTRY;
  constexpr const char* fn = "MPI_Win_set_attr";
  Win* w;
  Keyval* kv;
  MPR_TRY(enter(fn, win, &w));
  MPR_TRY(win_keyval(fn, w, keyval, &kv, true));
  if (AttrSet::Entry* e = w->attrs.find(keyval)) MPR_TRY(run_delete(fn, w, kv, e->value));
  w->attrs.put(kv, attribute_val);
  return MPI_SUCCESS;
}
MPR_WEAK_ALIAS(Win_set_attr);

extern "C" int PMPI_Win_get_attr(MPI_Win win, int keyval, void* attribute_val, int* flag) {
  MPR_ENTRY;
  constexpr const char* fn = "MPI_Win_get_attr";
  Win* w;
  MPR_TRY(enter(fn, win, &w));
  if (!attribute_val || !flag)
    return rma::win_error(w, MPI_ERR_ARG, fn, "attribute_val or flag is NULL");
  static WinAttrValues v;  // pointers into it stay valid until the next call, as in peers
  void* p = nullptr;
  switch (keyval) {
    case MPI_WIN_BASE:
      v.base = w->base;
      p = v.base;
      break;
    case MPI_WIN_SIZE:
      v.size = w->size;
      p = &v.size;
      break;
    case MPI_WIN_DISP_UNIT:
      v.disp_unit = w->disp_unit;
      p = &v.disp_unit;
      break;
    case MPI_WIN_CREATE_FLAVOR:
      v.flavor = w->flavor;
      p = &v.flavor;
      break;
    case MPI_WIN_MODEL:
      v.model = MPI_WIN_UNIFIED;
      p = &v.model;
      break;
    default: {
      Keyval* kv;
      MPR_TRY(win_keyval(fn, w, keyval, &kv));
      AttrSet::Entry* e = w->attrs.find(keyval);
      *flag = e != nullptr;
      if (e) *static_cast<void**>(attribute_val) = e->value;
      return MPI_SUCCESS;
    }
  }
  *flag = 1;
  *static_cast<void**>(attribute_val) = p;
  return MPI_SUCCESS;
}
MPR_WEAK_ALIAS(Win_get_attr);

extern "C" int PMPI_Win_delete_attr(MPI_Win win, int keyval) {
  MPR_ENTRY;
  constexpr const char* fn = "MPI_Win_delete_attr";
  Win* w;
  Keyval* kv;
  MPR_TRY(enter(fn, win, &w));
  MPR_TRY(win_keyval(fn, w, keyval, &kv));
  AttrSet::Entry* e = w->attrs.find(keyval);
  if (!e)
    return rma::win_error(w, MPI_ERR_KEYVAL, fn, "keyval %d has no attribute on window %s", keyval,
                          w->label().c_str());
  MPR_TRY(run_delete(fn, w, kv, e->value));
  w->attrs.erase(keyval);
  return MPI_SUCCESS;
}
MPR_WEAK_ALIAS(Win_delete_attr);

// ---- error handlers -------------------------------------------------------------------------

extern "C" int PMPI_Win_create_errhandler(MPI_Win_errhandler_function* function,
                                          MPI_Errhandler* errhandler) {
  MPR_ENTRY;
  constexpr const char* fn = "MPI_Win_create_errhandler";
  MPR_TRY(check_running(fn));
  MPR_TRY(check_arg(fn, nullptr, function && errhandler, "function or errhandler is NULL"));
  auto* eh = new Errhandler;
  eh->kind = Errhandler::Kind::kUser;
  eh->win_fn = function;
  eh->handle = reinterpret_cast<MPI_Errhandler>(eh);
  *errhandler = eh->handle;
  return MPI_SUCCESS;
}
MPR_WEAK_ALIAS(Win_create_errhandler);

extern "C" int PMPI_Win_set_errhandler(MPI_Win win, MPI_Errhandler errhandler) {
  MPR_ENTRY;
  constexpr const char* fn = "MPI_Win_set_errhandler";
  Win* w;
  MPR_TRY(enter(fn, win, &w));
  Errhandler* eh = to_errhandler(errhandler);
  if (!eh || (eh->kind == Errhandler::Kind::kUser && !eh->win_fn))
    return rma::win_error(w, MPI_ERR_ARG, fn, "%p is not an error handler for windows",
                          static_cast<void*>(errhandler));
  errhandler_retain(eh);
  errhandler_release(w->errhandler);
  w->errhandler = eh;
  return MPI_SUCCESS;
}
MPR_WEAK_ALIAS(Win_set_errhandler);

extern "C" int PMPI_Win_get_errhandler(MPI_Win win, MPI_Errhandler* errhandler) {
  MPR_ENTRY;
  constexpr const char* fn = "MPI_Win_get_errhandler";
  Win* w;
  MPR_TRY(enter(fn, win, &w));
  if (!errhandler) return rma::win_error(w, MPI_ERR_ARG, fn, "errhandler is NULL");
  errhandler_retain(w->errhandler);
  *errhandler = w->errhandler->handle;
  return MPI_SUCCESS;
}
MPR_WEAK_ALIAS(Win_get_errhandler);

extern "C" int PMPI_Win_call_errhandler(MPI_Win win, int errorcode) {
  MPR_ENTRY;
  constexpr const char* fn = "MPI_Win_call_errhandler";
  Win* w;
  MPR_TRY(enter(fn, win, &w));
  rma::raise_win(w, errorcode);
  return MPI_SUCCESS;
}
MPR_WEAK_ALIAS(Win_call_errhandler);
