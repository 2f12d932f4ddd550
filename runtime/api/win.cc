// One-sided communication: windows, put/get/accumulate, and their synchronization.
#include <cstring>

#include "runtime/api/check.h"
#include "runtime/api/handles.h"
#include "runtime/p2p/request.h"
#include "runtime/rma/win.h"

using namespace mpr::runtime;
using namespace mpr::runtime::api;
using mpr::runtime::rma::Buf;
using mpr::runtime::rma::Win;

namespace {

int check_win(const char* fn, MPI_Win h, Win** out) {
  *out = rma::to_win(h);
  if (*out) return MPI_SUCCESS;
  if (h == MPI_WIN_NULL) return raise_error(nullptr, MPI_ERR_WIN, fn, "invalid window MPI_WIN_NULL");
  return raise_error(nullptr, MPI_ERR_WIN, fn, "invalid window handle %p", static_cast<void*>(h));
}

// Entry checks of every call on a window.
int enter(const char* fn, MPI_Win h, Win** w) {
  MPR_TRY(check_running(fn));
  return check_win(fn, h, w);
}

int check_target(const char* fn, Win* w, int rank) {
  if (rank == MPI_PROC_NULL || (rank >= 0 && rank < w->size_of_group())) return MPI_SUCCESS;
  return rma::win_error(w, MPI_ERR_RANK, fn, "invalid target rank %d (window %s has %d ranks)",
                        rank, w->label().c_str(), w->size_of_group());
}

int check_wtype(const char* fn, Win* w, MPI_Datatype h, const Datatype** out) {
  Datatype* t = to_datatype(h);
  if (!t)
    return rma::win_error(w, MPI_ERR_TYPE, fn, "invalid datatype handle %p",
                          static_cast<void*>(h));
  if (!t->committed)
    return rma::win_error(w, MPI_ERR_TYPE, fn, "datatype %s is not committed", t->name);
  *out = t;
  return MPI_SUCCESS;
}

int check_wcount(const char* fn, Win* w, int count, const char* which) {
  if (count >= 0) return MPI_SUCCESS;
  return rma::win_error(w, MPI_ERR_COUNT, fn, "invalid %s count %d (must be >= 0)", which, count);
}

// The common arguments of put/get/accumulate.
int check_xfer(const char* fn, Win* w, int ocount, MPI_Datatype otype, int target, int tcount,
               MPI_Datatype ttype, Buf* o, Buf* t) {
  MPR_TRY(check_wcount(fn, w, ocount, "origin"));
  MPR_TRY(check_wcount(fn, w, tcount, "target"));
  MPR_TRY(check_wtype(fn, w, otype, &o->type));
  MPR_TRY(check_wtype(fn, w, ttype, &t->type));
  MPR_TRY(check_target(fn, w, target));
  o->count = ocount;
  t->count = tcount;
  t->addr = nullptr;
  return MPI_SUCCESS;
}

int check_wop(const char* fn, Win* w, MPI_Op h, const Op** out) {
  Op* op = to_op(h);
  if (!op) return rma::win_error(w, MPI_ERR_OP, fn, "invalid op handle %p", static_cast<void*>(h));
  *out = op;
  return MPI_SUCCESS;
}

int check_info_arg(const char* fn, Comm* comm, MPI_Info info) {
  Info* i;
  return check_info(fn, comm, info, true, &i);
}

int check_create_args(const char* fn, Comm* comm, MPI_Aint size, int disp_unit) {
  if (size < 0)
    return raise_error(comm, MPI_ERR_SIZE, fn, "invalid window size %zd (must be >= 0)",
                       static_cast<ptrdiff_t>(size));
  if (disp_unit <= 0)
    return raise_error(comm, MPI_ERR_DISP, fn, "invalid disp_unit %d (must be > 0)", disp_unit);
  return MPI_SUCCESS;
}

int new_window(const char* fn, MPI_Comm h, MPI_Info info, int flavor, void* base, MPI_Aint size,
               int disp_unit, MPI_Win* win, Win** out) {
  Comm* comm;
  MPR_TRY(check_running(fn));
  MPR_TRY(check_comm(fn, h, &comm));
  MPR_TRY(check_intra(fn, comm));
  MPR_TRY(check_arg(fn, comm, win, "win is NULL"));
  MPR_TRY(check_info_arg(fn, comm, info));
  MPR_TRY(check_create_args(fn, comm, size, disp_unit));
  MPR_TRY(rma::create(fn, comm, flavor, base, size, disp_unit, out));
  if (Info* i = to_info(info))
    for (const auto& kv : i->entries()) (*out)->hints.push_back(kv);
  *win = (*out)->handle();
  return MPI_SUCCESS;
}

std::vector<int> window_ranks(Win* w, Group* g) {
  std::vector<int> out;
  for (int job : g->members())
    for (int i = 0; i < w->size_of_group(); ++i)
      if (w->targets[i].job_rank == job) out.push_back(i);
  return out;
}

// MPI_Win_get_attr hands out pointers to these.
struct WinAttrValues {
  MPI_Aint size;
  int disp_unit, flavor, model;
  void* base;
};

}  // namespace

// ---- windows ------------------------------------------------------------------------------

extern "C" int PMPI_Win_create(void* base, MPI_Aint size, int disp_unit, MPI_Info info,
                               MPI_Comm comm, MPI_Win* win) {
  Win* w;
  return new_window("MPI_Win_create", comm, info, MPI_WIN_FLAVOR_CREATE, base, size, disp_unit,
                    win, &w);
}
MPR_WEAK_ALIAS(Win_create);

extern "C" int PMPI_Win_allocate(MPI_Aint size, int disp_unit, MPI_Info info, MPI_Comm comm,
                                 void* baseptr, MPI_Win* win) {
  constexpr const char* fn = "MPI_Win_allocate";
  if (!baseptr) return raise_error(to_comm(comm), MPI_ERR_ARG, fn, "baseptr is NULL");
  Win* w;
  MPR_TRY(new_window(fn, comm, info, MPI_WIN_FLAVOR_ALLOCATE, nullptr, size, disp_unit, win, &w));
  *static_cast<void**>(baseptr) = w->base;
  return MPI_SUCCESS;
}
MPR_WEAK_ALIAS(Win_allocate);

extern "C" int PMPI_Win_allocate_shared(MPI_Aint size, int disp_unit, MPI_Info info,
                                        MPI_Comm comm, void* baseptr, MPI_Win* win) {
  constexpr const char* fn = "MPI_Win_allocate_shared";
  if (!baseptr) return raise_error(to_comm(comm), MPI_ERR_ARG, fn, "baseptr is NULL");
  Win* w;
  MPR_TRY(new_window(fn, comm, info, MPI_WIN_FLAVOR_SHARED, nullptr, size, disp_unit, win, &w));
  *static_cast<void**>(baseptr) = w->base;
  return MPI_SUCCESS;
}
MPR_WEAK_ALIAS(Win_allocate_shared);

extern "C" int PMPI_Win_create_dynamic(MPI_Info info, MPI_Comm comm, MPI_Win* win) {
  Win* w;
  return new_window("MPI_Win_create_dynamic", comm, info, MPI_WIN_FLAVOR_DYNAMIC, nullptr, 0, 1,
                    win, &w);
}
MPR_WEAK_ALIAS(Win_create_dynamic);

extern "C" int PMPI_Win_shared_query(MPI_Win win, int rank, MPI_Aint* size, int* disp_unit,
                                     void* baseptr) {
  constexpr const char* fn = "MPI_Win_shared_query";
  Win* w;
  MPR_TRY(enter(fn, win, &w));
  if (!size || !disp_unit || !baseptr)
    return rma::win_error(w, MPI_ERR_ARG, fn, "size, disp_unit or baseptr is NULL");
  return rma::shared_query(fn, w, rank, size, disp_unit, baseptr);
}
MPR_WEAK_ALIAS(Win_shared_query);

extern "C" int PMPI_Win_attach(MPI_Win win, void* base, MPI_Aint size) {
  constexpr const char* fn = "MPI_Win_attach";
  Win* w;
  MPR_TRY(enter(fn, win, &w));
  return rma::attach(fn, w, base, size);
}
MPR_WEAK_ALIAS(Win_attach);

extern "C" int PMPI_Win_detach(MPI_Win win, const void* base) {
  constexpr const char* fn = "MPI_Win_detach";
  Win* w;
  MPR_TRY(enter(fn, win, &w));
  return rma::detach(fn, w, base);
}
MPR_WEAK_ALIAS(Win_detach);

extern "C" int PMPI_Win_free(MPI_Win* win) {
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
  constexpr const char* fn = "MPI_Win_get_group";
  Win* w;
  MPR_TRY(enter(fn, win, &w));
  if (!group) return rma::win_error(w, MPI_ERR_ARG, fn, "group is NULL");
  *group = make_group_handle(w->comm->peers());
  return MPI_SUCCESS;
}
MPR_WEAK_ALIAS(Win_get_group);

extern "C" int PMPI_Win_set_name(MPI_Win win, const char* win_name) {
  constexpr const char* fn = "MPI_Win_set_name";
  Win* w;
  MPR_TRY(enter(fn, win, &w));
  if (!win_name) return rma::win_error(w, MPI_ERR_ARG, fn, "win_name is NULL");
  w->name.assign(win_name, strnlen(win_name, MPI_MAX_OBJECT_NAME - 1));
  return MPI_SUCCESS;
}
MPR_WEAK_ALIAS(Win_set_name);

extern "C" int PMPI_Win_get_name(MPI_Win win, char* win_name, int* resultlen) {
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
  constexpr const char* fn = "MPI_Win_set_info";
  Win* w;
  MPR_TRY(enter(fn, win, &w));
  Info* i;
  MPR_TRY(check_info(fn, nullptr, info, false, &i));
  // No hint changes behaviour; they are kept so MPI_Win_get_info returns them.
  for (const auto& kv : i->entries()) {
    bool replaced = false;
    for (auto& h : w->hints)
      if (h.first == kv.first) h.second = kv.second, replaced = true;
    if (!replaced) w->hints.push_back(kv);
  }
  return MPI_SUCCESS;
}
MPR_WEAK_ALIAS(Win_set_info);

extern "C" int PMPI_Win_get_info(MPI_Win win, MPI_Info* info_used) {
  constexpr const char* fn = "MPI_Win_get_info";
  Win* w;
  MPR_TRY(enter(fn, win, &w));
  if (!info_used) return rma::win_error(w, MPI_ERR_ARG, fn, "info_used is NULL");
  auto* info = new Info;
  for (const auto& [k, v] : w->hints) info->set(k, v);
  *info_used = info->handle();
  return MPI_SUCCESS;
}
MPR_WEAK_ALIAS(Win_get_info);

// ---- attributes -----------------------------------------------------------------------------

extern "C" int PMPI_Win_create_keyval(MPI_Win_copy_attr_function* copy_fn,
                                      MPI_Win_delete_attr_function* delete_fn, int* win_keyval,
                                      void* extra_state) {
  constexpr const char* fn = "MPI_Win_create_keyval";
  MPR_TRY(check_running(fn));
  MPR_TRY(check_arg(fn, nullptr, win_keyval, "win_keyval is NULL"));
  (void)copy_fn;  // windows are never duplicated
  int id = keyval_create(nullptr, nullptr, extra_state);
  Keyval* kv = to_keyval(id);
  kv->for_win = true;
  kv->win_delete_fn = delete_fn;
  *win_keyval = id;
  return MPI_SUCCESS;
}
MPR_WEAK_ALIAS(Win_create_keyval);

extern "C" int PMPI_Win_free_keyval(int* win_keyval) {
  constexpr const char* fn = "MPI_Win_free_keyval";
  MPR_TRY(check_running(fn));
  MPR_TRY(check_arg(fn, nullptr, win_keyval, "win_keyval is NULL"));
  Keyval* kv = to_keyval(*win_keyval);
  if (!kv || !kv->for_win)
    return raise_error(nullptr, MPI_ERR_KEYVAL, fn, "invalid window keyval %d", *win_keyval);
  keyval_free(kv);
  *win_keyval = MPI_KEYVAL_INVALID;
  return MPI_SUCCESS;
}
MPR_WEAK_ALIAS(Win_free_keyval);

namespace {
int win_keyval(const char* fn, Win* w, int id, Keyval** out) {
  *out = to_keyval(id);
  if (*out && (*out)->for_win) return MPI_SUCCESS;
  return rma::win_error(w, MPI_ERR_KEYVAL, fn, "invalid window keyval %d", id);
}
int run_delete(const char* fn, Win* w, Keyval* kv, void* value) {
  if (!kv->win_delete_fn) return MPI_SUCCESS;
  int rc = kv->win_delete_fn(w->handle(), kv->id, value, kv->extra_state);
  if (rc == MPI_SUCCESS) return rc;
  return rma::win_error(w, MPI_ERR_OTHER, fn,
                        "the delete callback of keyval %d returned error %d", kv->id, rc);
}
}  // namespace

extern "C" int PMPI_Win_set_attr(MPI_Win win, int keyval, void* attribute_val) {
  constexpr const char* fn = "MPI_Win_set_attr";
  Win* w;
  Keyval* kv;
  MPR_TRY(enter(fn, win, &w));
  MPR_TRY(win_keyval(fn, w, keyval, &kv));
  if (AttrSet::Entry* e = w->attrs.find(keyval)) MPR_TRY(run_delete(fn, w, kv, e->value));
  w->attrs.put(kv, attribute_val);
  return MPI_SUCCESS;
}
MPR_WEAK_ALIAS(Win_set_attr);

extern "C" int PMPI_Win_get_attr(MPI_Win win, int keyval, void* attribute_val, int* flag) {
  constexpr const char* fn = "MPI_Win_get_attr";
  Win* w;
  MPR_TRY(enter(fn, win, &w));
  if (!attribute_val || !flag)
    return rma::win_error(w, MPI_ERR_ARG, fn, "attribute_val or flag is NULL");
  static WinAttrValues v;  // pointers into it stay valid until the next call, as in peers
  void* p = nullptr;
  switch (keyval) {
    case MPI_WIN_BASE: v.base = w->base; p = v.base; break;
    case MPI_WIN_SIZE: v.size = w->size; p = &v.size; break;
    case MPI_WIN_DISP_UNIT: v.disp_unit = w->disp_unit; p = &v.disp_unit; break;
    case MPI_WIN_CREATE_FLAVOR: v.flavor = w->flavor; p = &v.flavor; break;
    case MPI_WIN_MODEL: v.model = MPI_WIN_UNIFIED; p = &v.model; break;
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
  constexpr const char* fn = "MPI_Win_delete_attr";
  Win* w;
  Keyval* kv;
  MPR_TRY(enter(fn, win, &w));
  MPR_TRY(win_keyval(fn, w, keyval, &kv));
  AttrSet::Entry* e = w->attrs.find(keyval);
  if (!e)
    return rma::win_error(w, MPI_ERR_KEYVAL, fn, "keyval %d has no attribute on window %s",
                          keyval, w->label().c_str());
  MPR_TRY(run_delete(fn, w, kv, e->value));
  w->attrs.erase(keyval);
  return MPI_SUCCESS;
}
MPR_WEAK_ALIAS(Win_delete_attr);

// ---- error handlers -------------------------------------------------------------------------

extern "C" int PMPI_Win_create_errhandler(MPI_Win_errhandler_function* function,
                                          MPI_Errhandler* errhandler) {
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
  constexpr const char* fn = "MPI_Win_call_errhandler";
  Win* w;
  MPR_TRY(enter(fn, win, &w));
  rma::raise_win(w, errorcode);
  return MPI_SUCCESS;
}
MPR_WEAK_ALIAS(Win_call_errhandler);

// ---- communication --------------------------------------------------------------------------

extern "C" int PMPI_Put(const void* origin_addr, int origin_count, MPI_Datatype origin_datatype,
                        int target_rank, MPI_Aint target_disp, int target_count,
                        MPI_Datatype target_datatype, MPI_Win win) {
  constexpr const char* fn = "MPI_Put";
  Win* w;
  Buf o{const_cast<void*>(origin_addr), 0, nullptr}, t{};
  MPR_TRY(enter(fn, win, &w));
  MPR_TRY(check_xfer(fn, w, origin_count, origin_datatype, target_rank, target_count,
                     target_datatype, &o, &t));
  return rma::put(fn, w, o, target_rank, target_disp, t);
}
MPR_WEAK_ALIAS(Put);

extern "C" int PMPI_Get(void* origin_addr, int origin_count, MPI_Datatype origin_datatype,
                        int target_rank, MPI_Aint target_disp, int target_count,
                        MPI_Datatype target_datatype, MPI_Win win) {
  constexpr const char* fn = "MPI_Get";
  Win* w;
  Buf o{origin_addr, 0, nullptr}, t{};
  MPR_TRY(enter(fn, win, &w));
  MPR_TRY(check_xfer(fn, w, origin_count, origin_datatype, target_rank, target_count,
                     target_datatype, &o, &t));
  return rma::get(fn, w, o, target_rank, target_disp, t);
}
MPR_WEAK_ALIAS(Get);

extern "C" int PMPI_Accumulate(const void* origin_addr, int origin_count,
                               MPI_Datatype origin_datatype, int target_rank,
                               MPI_Aint target_disp, int target_count,
                               MPI_Datatype target_datatype, MPI_Op op, MPI_Win win) {
  constexpr const char* fn = "MPI_Accumulate";
  Win* w;
  const Op* o_op = nullptr;
  Buf o{const_cast<void*>(origin_addr), 0, nullptr}, t{};
  MPR_TRY(enter(fn, win, &w));
  MPR_TRY(check_xfer(fn, w, origin_count, origin_datatype, target_rank, target_count,
                     target_datatype, &o, &t));
  MPR_TRY(check_wop(fn, w, op, &o_op));
  if (o_op->id == OpId::kNoOp)
    return rma::win_error(w, MPI_ERR_OP, fn, "MPI_NO_OP is only valid in MPI_Get_accumulate "
                          "and MPI_Fetch_and_op");
  return rma::accumulate(fn, w, o, Buf{nullptr, 0, nullptr}, target_rank, target_disp, t, o_op);
}
MPR_WEAK_ALIAS(Accumulate);

extern "C" int PMPI_Get_accumulate(const void* origin_addr, int origin_count,
                                   MPI_Datatype origin_datatype, void* result_addr,
                                   int result_count, MPI_Datatype result_datatype,
                                   int target_rank, MPI_Aint target_disp, int target_count,
                                   MPI_Datatype target_datatype, MPI_Op op, MPI_Win win) {
  constexpr const char* fn = "MPI_Get_accumulate";
  Win* w;
  const Op* o_op = nullptr;
  Buf o{const_cast<void*>(origin_addr), 0, nullptr}, t{}, r{result_addr, result_count, nullptr};
  MPR_TRY(enter(fn, win, &w));
  MPR_TRY(check_wop(fn, w, op, &o_op));
  // With MPI_NO_OP the origin arguments are ignored (they may be NULL / 0 / any type).
  if (o_op->id == OpId::kNoOp) {
    origin_count = target_count;
    if (!to_datatype(origin_datatype)) origin_datatype = target_datatype;
  }
  MPR_TRY(check_xfer(fn, w, origin_count, origin_datatype, target_rank, target_count,
                     target_datatype, &o, &t));
  MPR_TRY(check_wcount(fn, w, result_count, "result"));
  MPR_TRY(check_wtype(fn, w, result_datatype, &r.type));
  if (!result_addr && result_count > 0 && r.type->size > 0)
    return rma::win_error(w, MPI_ERR_BUFFER, fn, "result_addr is NULL");
  if (!r.addr) r.addr = reinterpret_cast<void*>(uintptr_t{1});  // zero bytes: never touched
  return rma::accumulate(fn, w, o, r, target_rank, target_disp, t, o_op);
}
MPR_WEAK_ALIAS(Get_accumulate);

extern "C" int PMPI_Fetch_and_op(const void* origin_addr, void* result_addr,
                                 MPI_Datatype datatype, int target_rank, MPI_Aint target_disp,
                                 MPI_Op op, MPI_Win win) {
  constexpr const char* fn = "MPI_Fetch_and_op";
  Win* w;
  const Op* o_op = nullptr;
  Buf o{const_cast<void*>(origin_addr), 1, nullptr}, t{nullptr, 1, nullptr};
  MPR_TRY(enter(fn, win, &w));
  MPR_TRY(check_wtype(fn, w, datatype, &o.type));
  MPR_TRY(check_wop(fn, w, op, &o_op));
  MPR_TRY(check_target(fn, w, target_rank));
  if (!result_addr) return rma::win_error(w, MPI_ERR_BUFFER, fn, "result_addr is NULL");
  t.type = o.type;
  return rma::accumulate(fn, w, o, Buf{result_addr, 1, o.type}, target_rank, target_disp, t,
                         o_op);
}
MPR_WEAK_ALIAS(Fetch_and_op);

extern "C" int PMPI_Compare_and_swap(const void* origin_addr, const void* compare_addr,
                                     void* result_addr, MPI_Datatype datatype, int target_rank,
                                     MPI_Aint target_disp, MPI_Win win) {
  constexpr const char* fn = "MPI_Compare_and_swap";
  Win* w;
  const Datatype* type;
  MPR_TRY(enter(fn, win, &w));
  MPR_TRY(check_wtype(fn, w, datatype, &type));
  MPR_TRY(check_target(fn, w, target_rank));
  if (!origin_addr || !compare_addr || !result_addr)
    return rma::win_error(w, MPI_ERR_BUFFER, fn, "origin, compare or result address is NULL");
  return rma::compare_and_swap(fn, w, origin_addr, compare_addr, result_addr, type, target_rank,
                               target_disp);
}
MPR_WEAK_ALIAS(Compare_and_swap);

namespace {
// Request-based operations: issued, then completed at once (the request is complete when the
// call returns, which MPI allows: completion may happen any time before the wait).
int finish_request(const char* fn, Win* w, int target, int rc, MPI_Request* request) {
  if (rc != MPI_SUCCESS) return rc;
  if (!w->lock_all && (target == MPI_PROC_NULL ? w->nlocked == 0 : !w->targets[target].lock))
    return rma::win_error(w, MPI_ERR_RMA_SYNC, fn,
                          "window %s: request-based operations need a passive-target epoch "
                          "(MPI_Win_lock or MPI_Win_lock_all)",
                          w->label().c_str());
  MPR_TRY(rma::raise_win(w, rma::complete_ops(w, target == MPI_PROC_NULL ? -1 : target)));
  *request = to_handle(completed_request(w->comm, MPI_ANY_SOURCE, MPI_ANY_TAG));
  return MPI_SUCCESS;
}
int check_request_arg(const char* fn, MPI_Win win, MPI_Request* request) {
  Win* w;
  MPR_TRY(enter(fn, win, &w));
  if (!request) return rma::win_error(w, MPI_ERR_ARG, fn, "request is NULL");
  return MPI_SUCCESS;
}
}  // namespace

extern "C" int PMPI_Rput(const void* origin_addr, int origin_count, MPI_Datatype origin_datatype,
                         int target_rank, MPI_Aint target_disp, int target_count,
                         MPI_Datatype target_datatype, MPI_Win win, MPI_Request* request) {
  constexpr const char* fn = "MPI_Rput";
  MPR_TRY(check_request_arg(fn, win, request));
  int rc = PMPI_Put(origin_addr, origin_count, origin_datatype, target_rank, target_disp,
                    target_count, target_datatype, win);
  return finish_request(fn, rma::to_win(win), target_rank, rc, request);
}
MPR_WEAK_ALIAS(Rput);

extern "C" int PMPI_Rget(void* origin_addr, int origin_count, MPI_Datatype origin_datatype,
                         int target_rank, MPI_Aint target_disp, int target_count,
                         MPI_Datatype target_datatype, MPI_Win win, MPI_Request* request) {
  constexpr const char* fn = "MPI_Rget";
  MPR_TRY(check_request_arg(fn, win, request));
  int rc = PMPI_Get(origin_addr, origin_count, origin_datatype, target_rank, target_disp,
                    target_count, target_datatype, win);
  return finish_request(fn, rma::to_win(win), target_rank, rc, request);
}
MPR_WEAK_ALIAS(Rget);

extern "C" int PMPI_Raccumulate(const void* origin_addr, int origin_count,
                                MPI_Datatype origin_datatype, int target_rank,
                                MPI_Aint target_disp, int target_count,
                                MPI_Datatype target_datatype, MPI_Op op, MPI_Win win,
                                MPI_Request* request) {
  constexpr const char* fn = "MPI_Raccumulate";
  MPR_TRY(check_request_arg(fn, win, request));
  int rc = PMPI_Accumulate(origin_addr, origin_count, origin_datatype, target_rank, target_disp,
                           target_count, target_datatype, op, win);
  return finish_request(fn, rma::to_win(win), target_rank, rc, request);
}
MPR_WEAK_ALIAS(Raccumulate);

extern "C" int PMPI_Rget_accumulate(const void* origin_addr, int origin_count,
                                    MPI_Datatype origin_datatype, void* result_addr,
                                    int result_count, MPI_Datatype result_datatype,
                                    int target_rank, MPI_Aint target_disp, int target_count,
                                    MPI_Datatype target_datatype, MPI_Op op, MPI_Win win,
                                    MPI_Request* request) {
  constexpr const char* fn = "MPI_Rget_accumulate";
  MPR_TRY(check_request_arg(fn, win, request));
  int rc = PMPI_Get_accumulate(origin_addr, origin_count, origin_datatype, result_addr,
                               result_count, result_datatype, target_rank, target_disp,
                               target_count, target_datatype, op, win);
  return finish_request(fn, rma::to_win(win), target_rank, rc, request);
}
MPR_WEAK_ALIAS(Rget_accumulate);

// ---- synchronization ------------------------------------------------------------------------

namespace {
int check_assert(const char* fn, Win* w, int assert) {
  constexpr int kAll = MPI_MODE_NOCHECK | MPI_MODE_NOSTORE | MPI_MODE_NOPUT |
                       MPI_MODE_NOPRECEDE | MPI_MODE_NOSUCCEED;
  if ((assert & ~kAll) == 0) return MPI_SUCCESS;
  return rma::win_error(w, MPI_ERR_ASSERT, fn, "invalid assert %d (allowed bits: MPI_MODE_*)",
                        assert);
}
int group_ranks(const char* fn, Win* w, MPI_Group g, std::vector<int>* out) {
  Group* grp = to_group(g);
  if (!grp) return rma::win_error(w, MPI_ERR_GROUP, fn, "invalid group %p", static_cast<void*>(g));
  *out = window_ranks(w, grp);
  if (out->size() != size_t(grp->size()))
    return rma::win_error(w, MPI_ERR_GROUP, fn,
                          "the group has processes outside window %s", w->label().c_str());
  return MPI_SUCCESS;
}
}  // namespace

extern "C" int PMPI_Win_fence(int assert, MPI_Win win) {
  constexpr const char* fn = "MPI_Win_fence";
  Win* w;
  MPR_TRY(enter(fn, win, &w));
  MPR_TRY(check_assert(fn, w, assert));
  return rma::fence(fn, w, assert);
}
MPR_WEAK_ALIAS(Win_fence);

extern "C" int PMPI_Win_lock(int lock_type, int rank, int assert, MPI_Win win) {
  constexpr const char* fn = "MPI_Win_lock";
  Win* w;
  MPR_TRY(enter(fn, win, &w));
  if (lock_type != MPI_LOCK_EXCLUSIVE && lock_type != MPI_LOCK_SHARED)
    return rma::win_error(w, MPI_ERR_LOCKTYPE, fn,
                          "invalid lock type %d (MPI_LOCK_EXCLUSIVE or MPI_LOCK_SHARED)",
                          lock_type);
  MPR_TRY(check_target(fn, w, rank));
  MPR_TRY(check_assert(fn, w, assert));
  return rma::lock(fn, w, lock_type, rank, assert);
}
MPR_WEAK_ALIAS(Win_lock);

extern "C" int PMPI_Win_unlock(int rank, MPI_Win win) {
  constexpr const char* fn = "MPI_Win_unlock";
  Win* w;
  MPR_TRY(enter(fn, win, &w));
  MPR_TRY(check_target(fn, w, rank));
  return rma::unlock(fn, w, rank);
}
MPR_WEAK_ALIAS(Win_unlock);

extern "C" int PMPI_Win_lock_all(int assert, MPI_Win win) {
  constexpr const char* fn = "MPI_Win_lock_all";
  Win* w;
  MPR_TRY(enter(fn, win, &w));
  MPR_TRY(check_assert(fn, w, assert));
  return rma::lock_all(fn, w, assert);
}
MPR_WEAK_ALIAS(Win_lock_all);

extern "C" int PMPI_Win_unlock_all(MPI_Win win) {
  constexpr const char* fn = "MPI_Win_unlock_all";
  Win* w;
  MPR_TRY(enter(fn, win, &w));
  return rma::unlock_all(fn, w);
}
MPR_WEAK_ALIAS(Win_unlock_all);

extern "C" int PMPI_Win_flush(int rank, MPI_Win win) {
  constexpr const char* fn = "MPI_Win_flush";
  Win* w;
  MPR_TRY(enter(fn, win, &w));
  MPR_TRY(check_target(fn, w, rank));
  return rma::flush(fn, w, rank);
}
MPR_WEAK_ALIAS(Win_flush);

extern "C" int PMPI_Win_flush_all(MPI_Win win) {
  constexpr const char* fn = "MPI_Win_flush_all";
  Win* w;
  MPR_TRY(enter(fn, win, &w));
  return rma::flush(fn, w, -1);
}
MPR_WEAK_ALIAS(Win_flush_all);

extern "C" int PMPI_Win_flush_local(int rank, MPI_Win win) {
  constexpr const char* fn = "MPI_Win_flush_local";
  Win* w;
  MPR_TRY(enter(fn, win, &w));
  MPR_TRY(check_target(fn, w, rank));
  return rma::flush(fn, w, rank);
}
MPR_WEAK_ALIAS(Win_flush_local);

extern "C" int PMPI_Win_flush_local_all(MPI_Win win) {
  constexpr const char* fn = "MPI_Win_flush_local_all";
  Win* w;
  MPR_TRY(enter(fn, win, &w));
  return rma::flush(fn, w, -1);
}
MPR_WEAK_ALIAS(Win_flush_local_all);

extern "C" int PMPI_Win_sync(MPI_Win win) {
  constexpr const char* fn = "MPI_Win_sync";
  Win* w;
  MPR_TRY(enter(fn, win, &w));
  __atomic_thread_fence(__ATOMIC_SEQ_CST);
  return MPI_SUCCESS;
}
MPR_WEAK_ALIAS(Win_sync);

extern "C" int PMPI_Win_post(MPI_Group group, int assert, MPI_Win win) {
  constexpr const char* fn = "MPI_Win_post";
  Win* w;
  std::vector<int> ranks;
  MPR_TRY(enter(fn, win, &w));
  MPR_TRY(check_assert(fn, w, assert));
  MPR_TRY(group_ranks(fn, w, group, &ranks));
  return rma::post(fn, w, ranks, assert);
}
MPR_WEAK_ALIAS(Win_post);

extern "C" int PMPI_Win_start(MPI_Group group, int assert, MPI_Win win) {
  constexpr const char* fn = "MPI_Win_start";
  Win* w;
  std::vector<int> ranks;
  MPR_TRY(enter(fn, win, &w));
  MPR_TRY(check_assert(fn, w, assert));
  MPR_TRY(group_ranks(fn, w, group, &ranks));
  return rma::start(fn, w, ranks, assert);
}
MPR_WEAK_ALIAS(Win_start);

extern "C" int PMPI_Win_complete(MPI_Win win) {
  constexpr const char* fn = "MPI_Win_complete";
  Win* w;
  MPR_TRY(enter(fn, win, &w));
  return rma::complete(fn, w);
}
MPR_WEAK_ALIAS(Win_complete);

extern "C" int PMPI_Win_wait(MPI_Win win) {
  constexpr const char* fn = "MPI_Win_wait";
  Win* w;
  MPR_TRY(enter(fn, win, &w));
  return rma::wait(fn, w);
}
MPR_WEAK_ALIAS(Win_wait);

extern "C" int PMPI_Win_test(MPI_Win win, int* flag) {
  constexpr const char* fn = "MPI_Win_test";
  Win* w;
  MPR_TRY(enter(fn, win, &w));
  if (!flag) return rma::win_error(w, MPI_ERR_ARG, fn, "flag is NULL");
  return rma::test(fn, w, flag);
}
MPR_WEAK_ALIAS(Win_test);
