// One-sided communication calls: put, get, accumulate and the atomics (also request-based),
// and the synchronization calls (fence, locks, flush, post/start/complete/wait). The window's
// own calls (creation, queries, attributes, error handlers) are in win.cc.
#include <cstdint>
#include <vector>

#include "runtime/api/check.h"
#include "runtime/api/handles.h"
#include "runtime/api/win_check.h"
#include "runtime/p2p/request.h"
#include "runtime/rma/win.h"

using namespace mpr::runtime;
using namespace mpr::runtime::api;
using mpr::runtime::rma::Buf;
using mpr::runtime::rma::Win;

namespace {

int check_target(const char* fn, Win* w, int rank) {
  if (rank == MPI_PROC_NULL || (rank >= 0 && rank < w->size_of_group())) return MPI_SUCCESS;
  return rma::win_error(w, MPI_ERR_RANK, fn, "invalid target rank %d (window %s has %d ranks)",
                        rank, w->label().c_str(), w->size_of_group());
}

int check_wtype(const char* fn, Win* w, MPI_Datatype h, const Datatype** out) {
  Datatype* t = to_datatype(h);
  if (!t)
    return rma::win_error(w, MPI_ERR_TYPE, fn, "invalid datatype handle %p", static_cast<void*>(h));
  if (!t->committed)
    return rma::win_error(w, MPI_ERR_TYPE, fn, "datatype %s is not committed", t->label().c_str());
  *out = t;
  return MPI_SUCCESS;
}

int check_wcount(const char* fn, Win* w, MPI_Count count, const char* which) {
  if (count >= 0) return MPI_SUCCESS;
  return rma::win_error(w, MPI_ERR_COUNT, fn, "invalid %s count %lld (must be >= 0)", which,
                        static_cast<long long>(count));
}

// The common arguments of put/get/accumulate.
int check_xfer(const char* fn, Win* w, MPI_Count ocount, MPI_Datatype otype, int target,
               MPI_Count tcount, MPI_Datatype ttype, Buf* o, Buf* t) {
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

std::vector<int> window_ranks(Win* w, Group* g) {
  std::vector<int> out;
  for (int job : g->members())
    for (int i = 0; i < w->size_of_group(); ++i)
      if (w->targets[i].job_rank == job) out.push_back(i);
  return out;
}

}  // namespace

// ---- communication --------------------------------------------------------------------------

namespace {
int put_impl(const char* fn, const void* origin_addr, MPI_Count origin_count,
             MPI_Datatype origin_datatype, int target_rank, MPI_Aint target_disp,
             MPI_Count target_count, MPI_Datatype target_datatype, MPI_Win win) {
  Win* w;
  Buf o{const_cast<void*>(origin_addr), 0, nullptr}, t{};
  MPR_TRY(enter(fn, win, &w));
  MPR_TRY(check_xfer(fn, w, origin_count, origin_datatype, target_rank, target_count,
                     target_datatype, &o, &t));
  return rma::put(fn, w, o, target_rank, target_disp, t);
}
}  // namespace

extern "C" int PMPI_Put(const void* origin_addr, int origin_count, MPI_Datatype origin_datatype,
                        int target_rank, MPI_Aint target_disp, int target_count,
                        MPI_Datatype target_datatype, MPI_Win win) {
  MPR_ENTRY;
  return put_impl("MPI_Put", origin_addr, origin_count, origin_datatype, target_rank, target_disp,
                  target_count, target_datatype, win);
}
MPR_WEAK_ALIAS(Put);

extern "C" int PMPI_Put_c(const void* origin_addr, MPI_Count origin_count,
                          MPI_Datatype origin_datatype, int target_rank, MPI_Aint target_disp,
                          MPI_Count target_count, MPI_Datatype target_datatype, MPI_Win win) {
  MPR_ENTRY;
  return put_impl("MPI_Put_c", origin_addr, origin_count, origin_datatype, target_rank, target_disp,
                  target_count, target_datatype, win);
}
MPR_WEAK_ALIAS(Put_c);

namespace {
int get_impl(const char* fn, void* origin_addr, MPI_Count origin_count,
             MPI_Datatype origin_datatype, int target_rank, MPI_Aint target_disp,
             MPI_Count target_count, MPI_Datatype target_datatype, MPI_Win win) {
  Win* w;
  Buf o{origin_addr, 0, nullptr}, t{};
  MPR_TRY(enter(fn, win, &w));
  MPR_TRY(check_xfer(fn, w, origin_count, origin_datatype, target_rank, target_count,
                     target_datatype, &o, &t));
  return rma::get(fn, w, o, target_rank, target_disp, t);
}
}  // namespace

extern "C" int PMPI_Get(void* origin_addr, int origin_count, MPI_Datatype origin_datatype,
                        int target_rank, MPI_Aint target_disp, int target_count,
                        MPI_Datatype target_datatype, MPI_Win win) {
  MPR_ENTRY;
  return get_impl("MPI_Get", origin_addr, origin_count, origin_datatype, target_rank, target_disp,
                  target_count, target_datatype, win);
}
MPR_WEAK_ALIAS(Get);

extern "C" int PMPI_Get_c(void* origin_addr, MPI_Count origin_count, MPI_Datatype origin_datatype,
                          int target_rank, MPI_Aint target_disp, MPI_Count target_count,
                          MPI_Datatype target_datatype, MPI_Win win) {
  MPR_ENTRY;
  return get_impl("MPI_Get_c", origin_addr, origin_count, origin_datatype, target_rank, target_disp,
                  target_count, target_datatype, win);
}
MPR_WEAK_ALIAS(Get_c);

namespace {
int accumulate_impl(const char* fn, const void* origin_addr, MPI_Count origin_count,
                    MPI_Datatype origin_datatype, int target_rank, MPI_Aint target_disp,
                    MPI_Count target_count, MPI_Datatype target_datatype, MPI_Op op, MPI_Win win) {
  Win* w;
  const Op* o_op = nullptr;
  Buf o{const_cast<void*>(origin_addr), 0, nullptr}, t{};
  MPR_TRY(enter(fn, win, &w));
  MPR_TRY(check_xfer(fn, w, origin_count, origin_datatype, target_rank, target_count,
                     target_datatype, &o, &t));
  MPR_TRY(check_wop(fn, w, op, &o_op));
  if (o_op->id == OpId::kNoOp)
    return rma::win_error(w, MPI_ERR_OP, fn,
                          "MPI_NO_OP is only valid in MPI_Get_accumulate "
                          "and MPI_Fetch_and_op");
  return rma::accumulate(fn, w, o, Buf{nullptr, 0, nullptr}, target_rank, target_disp, t, o_op);
}
}  // namespace

extern "C" int PMPI_Accumulate(const void* origin_addr, int origin_count,
                               MPI_Datatype origin_datatype, int target_rank, MPI_Aint target_disp,
                               int target_count, MPI_Datatype target_datatype, MPI_Op op,
                               MPI_Win win) {
  MPR_ENTRY;
  return accumulate_impl("MPI_Accumulate", origin_addr, origin_count, origin_datatype, target_rank,
                         target_disp, target_count, target_datatype, op, win);
}
MPR_WEAK_ALIAS(Accumulate);

extern "C" int PMPI_Accumulate_c(const void* origin_addr, MPI_Count origin_count,
                                 MPI_Datatype origin_datatype, int target_rank,
                                 MPI_Aint target_disp, MPI_Count target_count,
                                 MPI_Datatype target_datatype, MPI_Op op, MPI_Win win) {
  MPR_ENTRY;
  return accumulate_impl("MPI_Accumulate_c", origin_addr, origin_count, origin_datatype,
                         target_rank, target_disp, target_count, target_datatype, op, win);
}
MPR_WEAK_ALIAS(Accumulate_c);

namespace {
int get_accumulate_impl(const char* fn, const void* origin_addr, MPI_Count origin_count,
                        MPI_Datatype origin_datatype, void* result_addr, MPI_Count result_count,
                        MPI_Datatype result_datatype, int target_rank, MPI_Aint target_disp,
                        MPI_Count target_count, MPI_Datatype target_datatype, MPI_Op op,
                        MPI_Win win) {
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
}  // namespace

extern "C" int PMPI_Get_accumulate(const void* origin_addr, int origin_count,
                                   MPI_Datatype origin_datatype, void* result_addr,
                                   int result_count, MPI_Datatype result_datatype, int target_rank,
                                   MPI_Aint target_disp, int target_count,
                                   MPI_Datatype target_datatype, MPI_Op op, MPI_Win win) {
  MPR_ENTRY;
  return get_accumulate_impl("MPI_Get_accumulate", origin_addr, origin_count, origin_datatype,
                             result_addr, result_count, result_datatype, target_rank, target_disp,
                             target_count, target_datatype, op, win);
}
MPR_WEAK_ALIAS(Get_accumulate);

extern "C" int PMPI_Get_accumulate_c(const void* origin_addr, MPI_Count origin_count,
                                     MPI_Datatype origin_datatype, void* result_addr,
                                     MPI_Count result_count, MPI_Datatype result_datatype,
                                     int target_rank, MPI_Aint target_disp, MPI_Count target_count,
                                     MPI_Datatype target_datatype, MPI_Op op, MPI_Win win) {
  MPR_ENTRY;
  return get_accumulate_impl("MPI_Get_accumulate_c", origin_addr, origin_count, origin_datatype,
                             result_addr, result_count, result_datatype, target_rank, target_disp,
                             target_count, target_datatype, op, win);
}
MPR_WEAK_ALIAS(Get_accumulate_c);

extern "C" int PMPI_Fetch_and_op(const void* origin_addr, void* result_addr, MPI_Datatype datatype,
                                 int target_rank, MPI_Aint target_disp, MPI_Op op, MPI_Win win) {
  MPR_ENTRY;
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
  return rma::accumulate(fn, w, o, Buf{result_addr, 1, o.type}, target_rank, target_disp, t, o_op);
}
MPR_WEAK_ALIAS(Fetch_and_op);

extern "C" int PMPI_Compare_and_swap(const void* origin_addr, const void* compare_addr,
                                     void* result_addr, MPI_Datatype datatype, int target_rank,
                                     MPI_Aint target_disp, MPI_Win win) {
  MPR_ENTRY;
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
// call returns, which MPI allows: completion may happen any time before the wait). One to
// MPI_PROC_NULL moves nothing and needs no epoch (MPI_Win_lock(MPI_PROC_NULL) opens none
// either), as with the peers.
int finish_request(const char* fn, Win* w, int target, int rc, MPI_Request* request) {
  if (rc != MPI_SUCCESS) return rc;
  if (target != MPI_PROC_NULL && !w->lock_all && !w->targets[target].lock)
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
  MPR_ENTRY;
  constexpr const char* fn = "MPI_Rput";
  MPR_TRY(check_request_arg(fn, win, request));
  int rc = put_impl(fn, origin_addr, origin_count, origin_datatype, target_rank, target_disp,
                    target_count, target_datatype, win);
  return finish_request(fn, rma::to_win(win), target_rank, rc, request);
}
MPR_WEAK_ALIAS(Rput);

extern "C" int PMPI_Rput_c(const void* origin_addr, MPI_Count origin_count,
                           MPI_Datatype origin_datatype, int target_rank, MPI_Aint target_disp,
                           MPI_Count target_count, MPI_Datatype target_datatype, MPI_Win win,
                           MPI_Request* request) {
  MPR_ENTRY;
  constexpr const char* fn = "MPI_Rput_c";
  MPR_TRY(check_request_arg(fn, win, request));
  int rc = put_impl(fn, origin_addr, origin_count, origin_datatype, target_rank, target_disp,
                    target_count, target_datatype, win);
  return finish_request(fn, rma::to_win(win), target_rank, rc, request);
}
MPR_WEAK_ALIAS(Rput_c);

extern "C" int PMPI_Rget(void* origin_addr, int origin_count, MPI_Datatype origin_datatype,
                         int target_rank, MPI_Aint target_disp, int target_count,
                         MPI_Datatype target_datatype, MPI_Win win, MPI_Request* request) {
  MPR_ENTRY;
  constexpr const char* fn = "MPI_Rget";
  MPR_TRY(check_request_arg(fn, win, request));
  int rc = get_impl(fn, origin_addr, origin_count, origin_datatype, target_rank, target_disp,
                    target_count, target_datatype, win);
  return finish_request(fn, rma::to_win(win), target_rank, rc, request);
}
MPR_WEAK_ALIAS(Rget);

extern "C" int PMPI_Rget_c(void* origin_addr, MPI_Count origin_count, MPI_Datatype origin_datatype,
                           int target_rank, MPI_Aint target_disp, MPI_Count target_count,
                           MPI_Datatype target_datatype, MPI_Win win, MPI_Request* request) {
  MPR_ENTRY;
  constexpr const char* fn = "MPI_Rget_c";
  MPR_TRY(check_request_arg(fn, win, request));
  int rc = get_impl(fn, origin_addr, origin_count, origin_datatype, target_rank, target_disp,
                    target_count, target_datatype, win);
  return finish_request(fn, rma::to_win(win), target_rank, rc, request);
}
MPR_WEAK_ALIAS(Rget_c);

extern "C" int PMPI_Raccumulate(const void* origin_addr, int origin_count,
                                MPI_Datatype origin_datatype, int target_rank, MPI_Aint target_disp,
                                int target_count, MPI_Datatype target_datatype, MPI_Op op,
                                MPI_Win win, MPI_Request* request) {
  MPR_ENTRY;
  constexpr const char* fn = "MPI_Raccumulate";
  MPR_TRY(check_request_arg(fn, win, request));
  int rc = accumulate_impl(fn, origin_addr, origin_count, origin_datatype, target_rank, target_disp,
                           target_count, target_datatype, op, win);
  return finish_request(fn, rma::to_win(win), target_rank, rc, request);
}
MPR_WEAK_ALIAS(Raccumulate);

extern "C" int PMPI_Raccumulate_c(const void* origin_addr, MPI_Count origin_count,
                                  MPI_Datatype origin_datatype, int target_rank,
                                  MPI_Aint target_disp, MPI_Count target_count,
                                  MPI_Datatype target_datatype, MPI_Op op, MPI_Win win,
                                  MPI_Request* request) {
  MPR_ENTRY;
  constexpr const char* fn = "MPI_Raccumulate_c";
  MPR_TRY(check_request_arg(fn, win, request));
  int rc = accumulate_impl(fn, origin_addr, origin_count, origin_datatype, target_rank, target_disp,
                           target_count, target_datatype, op, win);
  return finish_request(fn, rma::to_win(win), target_rank, rc, request);
}
MPR_WEAK_ALIAS(Raccumulate_c);

extern "C" int PMPI_Rget_accumulate(const void* origin_addr, int origin_count,
                                    MPI_Datatype origin_datatype, void* result_addr,
                                    int result_count, MPI_Datatype result_datatype, int target_rank,
                                    MPI_Aint target_disp, int target_count,
                                    MPI_Datatype target_datatype, MPI_Op op, MPI_Win win,
                                    MPI_Request* request) {
  MPR_ENTRY;
  constexpr const char* fn = "MPI_Rget_accumulate";
  MPR_TRY(check_request_arg(fn, win, request));
  int rc = get_accumulate_impl(fn, origin_addr, origin_count, origin_datatype, result_addr,
                               result_count, result_datatype, target_rank, target_disp,
                               target_count, target_datatype, op, win);
  return finish_request(fn, rma::to_win(win), target_rank, rc, request);
}
MPR_WEAK_ALIAS(Rget_accumulate);

extern "C" int PMPI_Rget_accumulate_c(const void* origin_addr, MPI_Count origin_count,
                                      MPI_Datatype origin_datatype, void* result_addr,
                                      MPI_Count result_count, MPI_Datatype result_datatype,
                                      int target_rank, MPI_Aint target_disp, MPI_Count target_count,
                                      MPI_Datatype target_datatype, MPI_Op op, MPI_Win win,
                                      MPI_Request* request) {
  MPR_ENTRY;
  constexpr const char* fn = "MPI_Rget_accumulate_c";
  MPR_TRY(check_request_arg(fn, win, request));
  int rc = get_accumulate_impl(fn, origin_addr, origin_count, origin_datatype, result_addr,
                               result_count, result_datatype, target_rank, target_disp,
                               target_count, target_datatype, op, win);
  return finish_request(fn, rma::to_win(win), target_rank, rc, request);
}
MPR_WEAK_ALIAS(Rget_accumulate_c);

// ---- synchronization ------------------------------------------------------------------------

namespace {
int check_assert(const char* fn, Win* w, int assert) {
  constexpr int kAll = MPI_MODE_NOCHECK | MPI_MODE_NOSTORE | MPI_MODE_NOPUT | MPI_MODE_NOPRECEDE |
                       MPI_MODE_NOSUCCEED;
  if ((assert & ~kAll) == 0) return MPI_SUCCESS;
  return rma::win_error(w, MPI_ERR_ASSERT, fn, "invalid assert %d (allowed bits: MPI_MODE_*)",
                        assert);
}
int group_ranks(const char* fn, Win* w, MPI_Group g, std::vector<int>* out) {
  Group* grp = to_group(g);
  if (!grp) return rma::win_error(w, MPI_ERR_GROUP, fn, "invalid group %p", static_cast<void*>(g));
  *out = window_ranks(w, grp);
  if (out->size() != size_t(grp->size()))
    return rma::win_error(w, MPI_ERR_GROUP, fn, "the group has processes outside window %s",
                          w->label().c_str());
  return MPI_SUCCESS;
}
}  // namespace

extern "C" int PMPI_Win_fence(int assert, MPI_Win win) {
  MPR_ENTRY;
  constexpr const char* fn = "MPI_Win_fence";
  Win* w;
  MPR_TRY(enter(fn, win, &w));
  MPR_TRY(check_assert(fn, w, assert));
  return rma::fence(fn, w, assert);
}
MPR_WEAK_ALIAS(Win_fence);

extern "C" int PMPI_Win_lock(int lock_type, int rank, int assert, MPI_Win win) {
  MPR_ENTRY;
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
  MPR_ENTRY;
  constexpr const char* fn = "MPI_Win_unlock";
  Win* w;
  MPR_TRY(enter(fn, win, &w));
  MPR_TRY(check_target(fn, w, rank));
  return rma::unlock(fn, w, rank);
}
MPR_WEAK_ALIAS(Win_unlock);

extern "C" int PMPI_Win_lock_all(int assert, MPI_Win win) {
  MPR_ENTRY;
  constexpr const char* fn = "MPI_Win_lock_all";
  Win* w;
  MPR_TRY(enter(fn, win, &w));
  MPR_TRY(check_assert(fn, w, assert));
  return rma::lock_all(fn, w, assert);
}
MPR_WEAK_ALIAS(Win_lock_all);

extern "C" int PMPI_Win_unlock_all(MPI_Win win) {
  MPR_ENTRY;
  constexpr const char* fn = "MPI_Win_unlock_all";
  Win* w;
  MPR_TRY(enter(fn, win, &w));
  return rma::unlock_all(fn, w);
}
MPR_WEAK_ALIAS(Win_unlock_all);

extern "C" int PMPI_Win_flush(int rank, MPI_Win win) {
  MPR_ENTRY;
  constexpr const char* fn = "MPI_Win_flush";
  Win* w;
  MPR_TRY(enter(fn, win, &w));
  MPR_TRY(check_target(fn, w, rank));
  return rma::flush(fn, w, rank);
}
MPR_WEAK_ALIAS(Win_flush);

extern "C" int PMPI_Win_flush_all(MPI_Win win) {
  MPR_ENTRY;
  constexpr const char* fn = "MPI_Win_flush_all";
  Win* w;
  MPR_TRY(enter(fn, win, &w));
  return rma::flush(fn, w, -1);
}
MPR_WEAK_ALIAS(Win_flush_all);

extern "C" int PMPI_Win_flush_local(int rank, MPI_Win win) {
  MPR_ENTRY;
  constexpr const char* fn = "MPI_Win_flush_local";
  Win* w;
  MPR_TRY(enter(fn, win, &w));
  MPR_TRY(check_target(fn, w, rank));
  return rma::flush(fn, w, rank);
}
MPR_WEAK_ALIAS(Win_flush_local);

extern "C" int PMPI_Win_flush_local_all(MPI_Win win) {
  MPR_ENTRY;
  constexpr const char* fn = "MPI_Win_flush_local_all";
  Win* w;
  MPR_TRY(enter(fn, win, &w));
  return rma::flush(fn, w, -1);
}
MPR_WEAK_ALIAS(Win_flush_local_all);

extern "C" int PMPI_Win_sync(MPI_Win win) {
  MPR_ENTRY;
  constexpr const char* fn = "MPI_Win_sync";
  Win* w;
  MPR_TRY(enter(fn, win, &w));
  __atomic_thread_fence(__ATOMIC_SEQ_CST);
  return MPI_SUCCESS;
}
MPR_WEAK_ALIAS(Win_sync);

extern "C" int PMPI_Win_post(MPI_Group group, int assert, MPI_Win win) {
  MPR_ENTRY;
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
  MPR_ENTRY;
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
  MPR_ENTRY;
  constexpr const char* fn = "MPI_Win_complete";
  Win* w;
  MPR_TRY(enter(fn, win, &w));
  return rma::complete(fn, w);
}
MPR_WEAK_ALIAS(Win_complete);

extern "C" int PMPI_Win_wait(MPI_Win win) {
  MPR_ENTRY;
  constexpr const char* fn = "MPI_Win_wait";
  Win* w;
  MPR_TRY(enter(fn, win, &w));
  return rma::wait(fn, w);
}
MPR_WEAK_ALIAS(Win_wait);

extern "C" int PMPI_Win_test(MPI_Win win, int* flag) {
  MPR_ENTRY;
  constexpr const char* fn = "MPI_Win_test";
  Win* w;
  MPR_TRY(enter(fn, win, &w));
  if (!flag) return rma::win_error(w, MPI_ERR_ARG, fn, "flag is NULL");
  return rma::test(fn, w, flag);
}
MPR_WEAK_ALIAS(Win_test);
