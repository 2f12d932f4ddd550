// Collectives, blocking and nonblocking, and MPI_Reduce_local. Each entry point checks its
// arguments, stages the user's buffers as contiguous bytes (coll::Call), appends the algorithm's
// steps to the call's schedule and finishes it: a blocking call runs it, a nonblocking one
// hands back a request the progress engine drives.
#include "runtime/coll/coll.h"

#include <algorithm>
#include <cstdint>
#include <vector>

#include "runtime/api/check.h"
#include "runtime/api/coll_impl.h"
#include "runtime/api/handles.h"
#include "runtime/coll/call.h"
#include "runtime/coll/tuning.h"
#include "runtime/p2p/request_ext.h"

using namespace mpr::runtime;
using namespace mpr::runtime::api;
using mpr::runtime::coll::Call;
using mpr::runtime::coll::Span;

namespace mpr::runtime::api {

MPI_Request* check_only_request() {
  static MPI_Request sentinel;
  return &sentinel;
}

int check_request_arg(const char* fn, Comm* comm, MPI_Request* req) {
  if (req == check_only_request()) return kChecksPassed;
  return check_arg(fn, comm, req != nullptr, "request is NULL");
}

int persistent_init(const char* fn, MPI_Comm h, MPI_Info info, bool neighbor,
                    const std::vector<MPI_Datatype>& types, std::function<int(MPI_Request*)> start,
                    MPI_Request* request) {
  Comm* comm;
  Info* ignored;
  MPR_TRY(check_running(fn));
  MPR_TRY(check_comm(fn, h, &comm));
  MPR_TRY(check_info(fn, comm, info, true, &ignored));
  MPR_TRY(check_arg(fn, comm, request, "request is NULL"));
  int rc = start(check_only_request());
  if (rc != kChecksPassed) return rc;  // raised by the checks
  std::vector<const Datatype*> kept;
  for (MPI_Datatype t : types)
    if (Datatype* dt = to_datatype(t); dt && !dt->predefined) kept.push_back(dt);
  const int tag = neighbor ? coll::reserve_neighbor_tags(comm) : coll::reserve_tag(comm);
  auto on_tag = [tag, start = std::move(start)](MPI_Request* req) {
    coll::FixedTag scope(tag);
    return start(req);
  };
  *request = to_handle(persistent_coll_request(comm, std::move(on_tag), std::move(kept)));
  return MPI_SUCCESS;
}

int check_op_for(const char* fn, Comm* comm, const Op* op, const Datatype* dt) {
  if (op->predefined && (op->id == OpId::kReplace || op->id == OpId::kNoOp))
    return raise_error(comm, MPI_ERR_OP, fn, "%s is only valid in one-sided accumulates", op->name);
  if (!op_valid_for(op, dt))
    return raise_error(comm, MPI_ERR_OP, fn, "%s is not defined for datatype %s", op->name,
                       dt->label().c_str());
  return MPI_SUCCESS;
}

int check_data(const char* fn, Comm* comm, const void* buf, MPI_Count count, MPI_Datatype type,
               Datatype** dt) {
  MPR_TRY(check_count(fn, comm, count));
  MPR_TRY(check_type(fn, comm, type, dt));
  return check_buffer(fn, comm, buf, count, *dt);
}

int check_counts(const char* fn, Comm* comm, Counts counts, Displs displs, int n,
                 const char* what) {
  if (!counts || (!displs && what))
    return raise_error(comm, MPI_ERR_ARG, fn, "%s%s array is NULL", what ? what : "",
                       counts ? "displs" : "counts");
  for (int i = 0; i < n; ++i)
    if (counts[i] < 0)
      return raise_error(comm, MPI_ERR_COUNT, fn, "invalid count %lld for rank %d",
                         static_cast<long long>(counts[i]), i);
  return MPI_SUCCESS;
}

int reduce_scatter_counts(const char* fn, Comm* comm, Counts recvcounts, MPI_Count block, int size,
                          std::vector<MPI_Count>* counts, MPI_Count* total) {
  if (!recvcounts) MPR_TRY(check_count(fn, comm, block));
  counts->assign(size, block);
  if (recvcounts) {
    MPR_TRY(check_counts(fn, comm, recvcounts, nullptr, size, nullptr));
    for (int i = 0; i < size; ++i) (*counts)[i] = recvcounts[i];
  }
  MPI_Count sum = 0;
  for (MPI_Count v : *counts) sum += v;
  *total = sum;
  return MPI_SUCCESS;
}

int check_reduction(const char* fn, Comm* comm, const void* sendbuf, const void* recvbuf,
                    MPI_Count count, MPI_Datatype type, MPI_Op op, bool recv_here, Datatype** dt,
                    Op** o) {
  MPR_TRY(check_count(fn, comm, count));
  MPR_TRY(check_type(fn, comm, type, dt));
  MPR_TRY(check_op(fn, comm, op, o));
  MPR_TRY(check_op_for(fn, comm, *o, *dt));
  if (sendbuf != MPI_IN_PLACE) MPR_TRY(check_buffer(fn, comm, sendbuf, count, *dt));
  if (recv_here) {
    MPR_TRY(check_buffer(fn, comm, recvbuf, count, *dt));
    if (sendbuf == recvbuf && count > 0)
      return raise_error(comm, MPI_ERR_BUFFER, fn,
                         "sendbuf and recvbuf are the same buffer (use MPI_IN_PLACE)");
  }
  return MPI_SUCCESS;
}

char* at(const void* buf, size_t elems, const Datatype* t) {
  return static_cast<char*>(const_cast<void*>(buf)) + static_cast<ptrdiff_t>(elems) * t->extent;
}

}  // namespace mpr::runtime::api

namespace {

int check_coll_comm(const char* fn, MPI_Comm h, Comm** comm) {
  MPR_TRY(check_running(fn));
  return check_comm(fn, h, comm);
}

// ---- one implementation per collective; req == nullptr means the blocking call ----------------

int barrier(const char* fn, MPI_Comm h, MPI_Request* req) {
  Comm* comm;
  MPR_TRY(check_coll_comm(fn, h, &comm));
  if (comm->is_inter()) return inter::barrier(fn, comm, req);
  if (req) MPR_TRY(check_request_arg(fn, comm, req));
  Call c(fn, comm, req);
  coll::barrier(c.s());
  return c.finish();
}

int bcast(const char* fn, void* buffer, MPI_Count count, MPI_Datatype type, int root, MPI_Comm h,
          MPI_Request* req) {
  Comm* comm;
  Datatype* dt;
  MPR_TRY(check_coll_comm(fn, h, &comm));
  if (comm->is_inter()) return inter::bcast(fn, comm, buffer, count, type, root, req);
  MPR_TRY(check_data(fn, comm, buffer, count, type, &dt));
  MPR_TRY(check_root(fn, comm, root));
  if (req) MPR_TRY(check_request_arg(fn, comm, req));
  ptrdiff_t off;
  if (!req && comm->size() == 2 && count > 0 && dt->dense(count, &off) &&
      coll::forced(coll::Coll::kBcast) == coll::Alg::kAuto) {
    // Two ranks: the root's one message, which a schedule (binomial at every size) would send
    // too, without building one.
    return raise(
        comm, coll::bcast_pair(fn, comm, coll::shifted(buffer, off), Call::bytes(count, dt), root));
  }
  Call c(fn, comm, req);
  const bool is_root = comm->rank() == root;
  char* buf = c.inout(buffer, count, dt, is_root, !is_root);
  coll::bcast(c.s(), buf, Call::bytes(count, dt), root);
  return c.finish();
}

int reduce(const char* fn, const void* sendbuf, void* recvbuf, MPI_Count count, MPI_Datatype type,
           MPI_Op op, int root, MPI_Comm h, MPI_Request* req) {
  Comm* comm;
  Datatype* dt;
  Op* o;
  MPR_TRY(check_coll_comm(fn, h, &comm));
  if (comm->is_inter())
    return inter::reduce(fn, comm, sendbuf, recvbuf, count, type, op, root, req);
  MPR_TRY(check_root(fn, comm, root));
  const bool is_root = comm->rank() == root, in_place = sendbuf == MPI_IN_PLACE;
  MPR_TRY(check_reduction(fn, comm, sendbuf, recvbuf, count, type, op, is_root, &dt, &o));
  if (in_place && !is_root)
    return raise_error(comm, MPI_ERR_BUFFER, fn,
                       "MPI_IN_PLACE as sendbuf is only valid at the root (rank %d)", root);
  if (req) MPR_TRY(check_request_arg(fn, comm, req));
  Call c(fn, comm, req);
  c.set_reducer(o, dt, count);
  const size_t n = count;
  char* rb = is_root ? c.red(recvbuf, count, dt, in_place, true) : nullptr;
  const char* sb = in_place ? rb : c.red(const_cast<void*>(sendbuf), count, dt, true, false);
  coll::reduce(c.s(), sb, rb, n, root);
  return c.finish();
}

int allreduce(const char* fn, const void* sendbuf, void* recvbuf, MPI_Count count,
              MPI_Datatype type, MPI_Op op, MPI_Comm h, MPI_Request* req) {
  Comm* comm;
  Datatype* dt;
  Op* o;
  MPR_TRY(check_coll_comm(fn, h, &comm));
  if (comm->is_inter()) return inter::allreduce(fn, comm, sendbuf, recvbuf, count, type, op, req);
  MPR_TRY(check_reduction(fn, comm, sendbuf, recvbuf, count, type, op, true, &dt, &o));
  if (req) MPR_TRY(check_request_arg(fn, comm, req));
  const bool in_place = sendbuf == MPI_IN_PLACE;
  if (!req && comm->size() == 2 && count > 0 && dt->predefined &&
      size_t(count) * size_t(dt->extent) <= coll::kPairReduceMax &&
      coll::forced(coll::Coll::kAllreduce) == coll::Alg::kAuto)
    return raise(comm, coll::allreduce_pair(fn, comm, in_place ? nullptr : sendbuf, recvbuf,
                                            size_t(count), dt, o));
  Call c(fn, comm, req);
  c.set_reducer(o, dt, count);
  const size_t n = count;
  char* rb = c.red(recvbuf, count, dt, in_place, true);
  const char* sb = in_place ? rb : c.red(const_cast<void*>(sendbuf), count, dt, true, false);
  coll::allreduce(c.s(), sb, rb, n);
  return c.finish();
}

int scan(const char* fn, const void* sendbuf, void* recvbuf, MPI_Count count, MPI_Datatype type,
         MPI_Op op, MPI_Comm h, bool exclusive, MPI_Request* req) {
  Comm* comm;
  Datatype* dt;
  Op* o;
  MPR_TRY(check_coll_comm(fn, h, &comm));
  if (comm->is_inter())
    return raise_error(comm, MPI_ERR_COMM, fn,
                       "%s is not defined on intercommunicators (prefix reductions need one "
                       "group)",
                       fn);
  MPR_TRY(check_reduction(fn, comm, sendbuf, recvbuf, count, type, op, true, &dt, &o));
  if (req) MPR_TRY(check_request_arg(fn, comm, req));
  const bool in_place = sendbuf == MPI_IN_PLACE;
  Call c(fn, comm, req);
  c.set_reducer(o, dt, count);
  const size_t n = count;
  char* rb = c.red(recvbuf, count, dt, in_place, true);
  const char* sb = in_place ? rb : c.red(const_cast<void*>(sendbuf), count, dt, true, false);
  coll::scan(c.s(), sb, rb, n, exclusive);
  return c.finish();
}

// recvcounts == nullptr: the _block variant with `block` elements per rank.
int reduce_scatter(const char* fn, const void* sendbuf, void* recvbuf, Counts recvcounts,
                   MPI_Count block, MPI_Datatype type, MPI_Op op, MPI_Comm h, MPI_Request* req) {
  Comm* comm;
  Datatype* dt;
  Op* o;
  MPR_TRY(check_coll_comm(fn, h, &comm));
  if (comm->is_inter())
    return inter::reduce_scatter(fn, comm, sendbuf, recvbuf, recvcounts, block, type, op, req);
  const int size = comm->size(), rank = comm->rank();
  std::vector<MPI_Count> counts;
  MPI_Count total = 0;
  MPR_TRY(reduce_scatter_counts(fn, comm, recvcounts, block, size, &counts, &total));
  MPR_TRY(check_reduction(fn, comm, sendbuf, recvbuf, total, type, op, false, &dt, &o));
  MPR_TRY(check_buffer(fn, comm, recvbuf, counts[rank], dt));
  if (req) MPR_TRY(check_request_arg(fn, comm, req));
  const bool in_place = sendbuf == MPI_IN_PLACE;
  Call c(fn, comm, req);
  c.set_reducer(o, dt, static_cast<size_t>(total));
  std::vector<size_t> red_counts(counts.begin(), counts.end());
  const char* sb = c.red(const_cast<void*>(in_place ? recvbuf : sendbuf),
                         static_cast<size_t>(total), dt, true, false);
  char* rb = c.red(recvbuf, counts[rank], dt, false, true);
  coll::reduce_scatter(c.s(), sb, rb, red_counts.data());
  return c.finish();
}

int gather(const char* fn, const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
           void* recvbuf, MPI_Count recvcount, MPI_Datatype recvtype, int root, MPI_Comm h,
           MPI_Request* req) {
  Comm* comm;
  Datatype *st = nullptr, *rt = nullptr;
  MPR_TRY(check_coll_comm(fn, h, &comm));
  if (comm->is_inter())
    return inter::gather(fn, comm, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root,
                         req);
  MPR_TRY(check_root(fn, comm, root));
  const bool is_root = comm->rank() == root, in_place = sendbuf == MPI_IN_PLACE;
  const int n = comm->size();
  if (in_place && !is_root)
    return raise_error(comm, MPI_ERR_BUFFER, fn,
                       "MPI_IN_PLACE as sendbuf is only valid at the root (rank %d)", root);
  if (!in_place) MPR_TRY(check_data(fn, comm, sendbuf, sendcount, sendtype, &st));
  if (is_root) MPR_TRY(check_data(fn, comm, recvbuf, recvcount, recvtype, &rt));
  if (req) MPR_TRY(check_request_arg(fn, comm, req));
  Call c(fn, comm, req);
  const size_t blk = is_root ? Call::bytes(recvcount, rt) : Call::bytes(sendcount, st);
  char* rb =
      is_root ? c.inout(recvbuf, static_cast<size_t>(recvcount) * n, rt, in_place, true) : nullptr;
  const char* sb = in_place ? nullptr : c.in(sendbuf, sendcount, st);
  coll::gather(c.s(), sb, rb, blk, root);
  return c.finish();
}

int gatherv(const char* fn, const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
            void* recvbuf, Counts recvcounts, Displs displs, MPI_Datatype recvtype, int root,
            MPI_Comm h, MPI_Request* req) {
  Comm* comm;
  Datatype *st = nullptr, *rt = nullptr;
  MPR_TRY(check_coll_comm(fn, h, &comm));
  if (comm->is_inter())
    return inter::gatherv(fn, comm, sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs,
                          recvtype, root, req);
  MPR_TRY(check_root(fn, comm, root));
  const bool is_root = comm->rank() == root, in_place = sendbuf == MPI_IN_PLACE;
  const int n = comm->size();
  if (in_place && !is_root)
    return raise_error(comm, MPI_ERR_BUFFER, fn,
                       "MPI_IN_PLACE as sendbuf is only valid at the root (rank %d)", root);
  if (!in_place) MPR_TRY(check_data(fn, comm, sendbuf, sendcount, sendtype, &st));
  if (is_root) {
    MPR_TRY(check_counts(fn, comm, recvcounts, displs, n, "recvcounts or "));
    MPR_TRY(check_type(fn, comm, recvtype, &rt));
  }
  if (req) MPR_TRY(check_request_arg(fn, comm, req));
  Call c(fn, comm, req);
  std::vector<Span> blocks;
  if (is_root) {
    blocks.resize(n);
    for (int i = 0; i < n; ++i)
      if (!(in_place && i == root))
        blocks[i] = {c.out(at(recvbuf, displs[i], rt), recvcounts[i], rt),
                     Call::bytes(recvcounts[i], rt)};
  }
  const char* sb = in_place ? nullptr : c.in(sendbuf, sendcount, st);
  coll::gatherv(c.s(), sb, in_place ? 0 : Call::bytes(sendcount, st), blocks.data(), root);
  return c.finish();
}

int scatter(const char* fn, const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
            void* recvbuf, MPI_Count recvcount, MPI_Datatype recvtype, int root, MPI_Comm h,
            MPI_Request* req) {
  Comm* comm;
  Datatype *st = nullptr, *rt = nullptr;
  MPR_TRY(check_coll_comm(fn, h, &comm));
  if (comm->is_inter())
    return inter::scatter(fn, comm, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype,
                          root, req);
  MPR_TRY(check_root(fn, comm, root));
  const bool is_root = comm->rank() == root, in_place = recvbuf == MPI_IN_PLACE;
  const int n = comm->size();
  if (in_place && !is_root)
    return raise_error(comm, MPI_ERR_BUFFER, fn,
                       "MPI_IN_PLACE as recvbuf is only valid at the root (rank %d)", root);
  if (is_root) MPR_TRY(check_data(fn, comm, sendbuf, sendcount, sendtype, &st));
  if (!in_place) MPR_TRY(check_data(fn, comm, recvbuf, recvcount, recvtype, &rt));
  if (req) MPR_TRY(check_request_arg(fn, comm, req));
  Call c(fn, comm, req);
  const size_t blk = is_root ? Call::bytes(sendcount, st) : Call::bytes(recvcount, rt);
  const char* sb = is_root ? c.in(sendbuf, static_cast<size_t>(sendcount) * n, st) : nullptr;
  char* rb = in_place ? nullptr : c.out(recvbuf, recvcount, rt);
  coll::scatter(c.s(), sb, rb, blk, root);
  return c.finish();
}

int scatterv(const char* fn, const void* sendbuf, Counts sendcounts, Displs displs,
             MPI_Datatype sendtype, void* recvbuf, MPI_Count recvcount, MPI_Datatype recvtype,
             int root, MPI_Comm h, MPI_Request* req) {
  Comm* comm;
  Datatype *st = nullptr, *rt = nullptr;
  MPR_TRY(check_coll_comm(fn, h, &comm));
  if (comm->is_inter())
    return inter::scatterv(fn, comm, sendbuf, sendcounts, displs, sendtype, recvbuf, recvcount,
                           recvtype, root, req);
  MPR_TRY(check_root(fn, comm, root));
  const bool is_root = comm->rank() == root, in_place = recvbuf == MPI_IN_PLACE;
  const int n = comm->size();
  if (in_place && !is_root)
    return raise_error(comm, MPI_ERR_BUFFER, fn,
                       "MPI_IN_PLACE as recvbuf is only valid at the root (rank %d)", root);
  if (is_root) {
    MPR_TRY(check_counts(fn, comm, sendcounts, displs, n, "sendcounts or "));
    MPR_TRY(check_type(fn, comm, sendtype, &st));
  }
  if (!in_place) MPR_TRY(check_data(fn, comm, recvbuf, recvcount, recvtype, &rt));
  if (req) MPR_TRY(check_request_arg(fn, comm, req));
  Call c(fn, comm, req);
  std::vector<Span> blocks;
  if (is_root) {
    blocks.resize(n);
    for (int i = 0; i < n; ++i)
      if (!(in_place && i == root))
        blocks[i] = {const_cast<char*>(c.in(at(sendbuf, displs[i], st), sendcounts[i], st)),
                     Call::bytes(sendcounts[i], st)};
  }
  char* rb = in_place ? nullptr : c.out(recvbuf, recvcount, rt);
  coll::scatterv(c.s(), blocks.data(), rb, in_place ? 0 : Call::bytes(recvcount, rt), root);
  return c.finish();
}

int allgather(const char* fn, const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
              void* recvbuf, MPI_Count recvcount, MPI_Datatype recvtype, MPI_Comm h,
              MPI_Request* req) {
  Comm* comm;
  Datatype *st = nullptr, *rt = nullptr;
  MPR_TRY(check_coll_comm(fn, h, &comm));
  if (comm->is_inter())
    return inter::allgather(fn, comm, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype,
                            req);
  const bool in_place = sendbuf == MPI_IN_PLACE;
  if (!in_place) MPR_TRY(check_data(fn, comm, sendbuf, sendcount, sendtype, &st));
  MPR_TRY(check_data(fn, comm, recvbuf, recvcount, recvtype, &rt));
  if (req) MPR_TRY(check_request_arg(fn, comm, req));
  const int n = comm->size();
  Call c(fn, comm, req);
  char* rb = c.inout(recvbuf, static_cast<size_t>(recvcount) * n, rt, in_place, true);
  const char* sb = in_place ? nullptr : c.in(sendbuf, sendcount, st);
  coll::allgather(c.s(), sb, rb, Call::bytes(recvcount, rt));
  return c.finish();
}

int allgatherv(const char* fn, const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
               void* recvbuf, Counts recvcounts, Displs displs, MPI_Datatype recvtype, MPI_Comm h,
               MPI_Request* req) {
  Comm* comm;
  Datatype *st = nullptr, *rt = nullptr;
  MPR_TRY(check_coll_comm(fn, h, &comm));
  if (comm->is_inter())
    return inter::allgatherv(fn, comm, sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs,
                             recvtype, req);
  const bool in_place = sendbuf == MPI_IN_PLACE;
  const int n = comm->size(), rank = comm->rank();
  if (!in_place) MPR_TRY(check_data(fn, comm, sendbuf, sendcount, sendtype, &st));
  MPR_TRY(check_counts(fn, comm, recvcounts, displs, n, "recvcounts or "));
  MPR_TRY(check_type(fn, comm, recvtype, &rt));
  if (req) MPR_TRY(check_request_arg(fn, comm, req));
  Call c(fn, comm, req);
  std::vector<Span> blocks(n);
  for (int i = 0; i < n; ++i)
    blocks[i] = {
        c.inout(at(recvbuf, displs[i], rt), recvcounts[i], rt, in_place && i == rank, true),
        Call::bytes(recvcounts[i], rt)};
  const char* sb = in_place ? nullptr : c.in(sendbuf, sendcount, st);
  coll::allgatherv(c.s(), sb, blocks.data());
  return c.finish();
}

int alltoall(const char* fn, const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
             void* recvbuf, MPI_Count recvcount, MPI_Datatype recvtype, MPI_Comm h,
             MPI_Request* req) {
  Comm* comm;
  Datatype *st = nullptr, *rt = nullptr;
  MPR_TRY(check_coll_comm(fn, h, &comm));
  if (comm->is_inter())
    return inter::alltoall(fn, comm, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype,
                           req);
  const bool in_place = sendbuf == MPI_IN_PLACE;
  if (!in_place) MPR_TRY(check_data(fn, comm, sendbuf, sendcount, sendtype, &st));
  MPR_TRY(check_data(fn, comm, recvbuf, recvcount, recvtype, &rt));
  if (req) MPR_TRY(check_request_arg(fn, comm, req));
  const size_t n = comm->size();
  ptrdiff_t soff, roff;
  if (!req && n == 2 && !in_place && recvcount > 0 && Call::bytes(recvcount, rt) > 0 &&
      Call::bytes(sendcount, st) == Call::bytes(recvcount, rt) && st->dense(sendcount * 2, &soff) &&
      rt->dense(recvcount * 2, &roff) && coll::forced(coll::Coll::kAlltoall) == coll::Alg::kAuto) {
    // Two ranks: one exchange of the other rank's block and a copy of our own.
    return raise(comm,
                 coll::alltoall_pair(fn, comm, coll::shifted(sendbuf, soff),
                                     coll::shifted(recvbuf, roff), Call::bytes(recvcount, rt)));
  }
  Call c(fn, comm, req);
  char* rb = c.inout(recvbuf, recvcount * n, rt, in_place, true);
  const char* sb = in_place ? nullptr : c.in(sendbuf, sendcount * n, st);
  coll::alltoall(c.s(), sb, rb, Call::bytes(recvcount, rt));
  return c.finish();
}

// Alltoallv and alltoallw: per-rank counts, displacements (elements of the one type, or bytes
// with per-rank types) and types.
struct VSide {
  const void* buf;
  Counts counts;
  Displs displs;
  const Datatype* type;          // alltoallv
  std::vector<Datatype*> types;  // alltoallw
  char* block(int i) const {
    const Datatype* t = types.empty() ? type : types[i];
    return types.empty() ? at(buf, displs[i], t)
                         : static_cast<char*>(const_cast<void*>(buf)) + displs[i];
  }
  const Datatype* type_of(int i) const { return types.empty() ? type : types[i]; }
};

int alltoallvw(const char* fn, Comm* comm, VSide& snd, VSide& rcv, bool in_place,
               MPI_Request* req) {
  const int n = comm->p2p_size();
  Call c(fn, comm, req);
  std::vector<Span> sends(n), recvs(n);
  for (int i = 0; i < n; ++i) {
    const Datatype* rt = rcv.type_of(i);
    const size_t rbytes = Call::bytes(rcv.counts[i], rt);
    if (in_place) {
      // What goes out is what recvbuf holds now: copy it before anything lands there.
      char* copy = c.s().scratch(rbytes);
      if (rbytes) rt->pack(rcv.block(i), rcv.counts[i], copy);
      sends[i] = {copy, rbytes};
    } else {
      const Datatype* st = snd.type_of(i);
      sends[i] = {const_cast<char*>(c.in(snd.block(i), snd.counts[i], st)),
                  Call::bytes(snd.counts[i], st)};
    }
    recvs[i] = {c.out(rcv.block(i), rcv.counts[i], rt), rbytes};
  }
  if (comm->is_inter())
    coll::inter_alltoallv(c.s(), sends.data(), recvs.data());
  else
    coll::alltoallv(c.s(), sends.data(), recvs.data());
  return c.finish();
}

int alltoallv(const char* fn, const void* sendbuf, Counts sendcounts, Displs sdispls,
              MPI_Datatype sendtype, void* recvbuf, Counts recvcounts, Displs rdispls,
              MPI_Datatype recvtype, MPI_Comm h, MPI_Request* req) {
  Comm* comm;
  Datatype *st = nullptr, *rt = nullptr;
  MPR_TRY(check_coll_comm(fn, h, &comm));
  const bool in_place = sendbuf == MPI_IN_PLACE;
  if (in_place && comm->is_inter())
    return raise_error(comm, MPI_ERR_BUFFER, fn,
                       "MPI_IN_PLACE as sendbuf is not valid on an intercommunicator");
  const int n = comm->p2p_size();  // remote group of an intercommunicator
  if (!in_place) {
    MPR_TRY(check_counts(fn, comm, sendcounts, sdispls, n, "sendcounts or s"));
    MPR_TRY(check_type(fn, comm, sendtype, &st));
  }
  MPR_TRY(check_counts(fn, comm, recvcounts, rdispls, n, "recvcounts or r"));
  MPR_TRY(check_type(fn, comm, recvtype, &rt));
  if (req) MPR_TRY(check_request_arg(fn, comm, req));
  VSide snd{sendbuf, sendcounts, sdispls, st, {}}, rcv{recvbuf, recvcounts, rdispls, rt, {}};
  return alltoallvw(fn, comm, snd, rcv, in_place, req);
}

int alltoallw(const char* fn, const void* sendbuf, Counts sendcounts, Displs sdispls,
              const MPI_Datatype* sendtypes, void* recvbuf, Counts recvcounts, Displs rdispls,
              const MPI_Datatype* recvtypes, MPI_Comm h, MPI_Request* req) {
  Comm* comm;
  MPR_TRY(check_coll_comm(fn, h, &comm));
  const bool in_place = sendbuf == MPI_IN_PLACE;
  if (in_place && comm->is_inter())
    return raise_error(comm, MPI_ERR_BUFFER, fn,
                       "MPI_IN_PLACE as sendbuf is not valid on an intercommunicator");
  const int n = comm->p2p_size();  // remote group of an intercommunicator
  VSide snd{sendbuf, sendcounts, sdispls, nullptr, {}},
      rcv{recvbuf, recvcounts, rdispls, nullptr, {}};
  auto types_of = [&](const MPI_Datatype* handles, VSide& side) {
    if (!handles) return raise_error(comm, MPI_ERR_ARG, fn, "datatype array is NULL");
    side.types.resize(n);
    for (int i = 0; i < n; ++i) MPR_TRY(check_type(fn, comm, handles[i], &side.types[i]));
    return MPI_SUCCESS;
  };
  if (!in_place) {
    MPR_TRY(check_counts(fn, comm, sendcounts, sdispls, n, "sendcounts or s"));
    MPR_TRY(types_of(sendtypes, snd));
  }
  MPR_TRY(check_counts(fn, comm, recvcounts, rdispls, n, "recvcounts or r"));
  MPR_TRY(types_of(recvtypes, rcv));
  if (req) MPR_TRY(check_request_arg(fn, comm, req));
  return alltoallvw(fn, comm, snd, rcv, in_place, req);
}

}  // namespace

// ---- entry points ----------------------------------------------------------------------------

extern "C" int PMPI_Barrier(MPI_Comm comm) {
  MPR_ENTRY;
  return barrier("MPI_Barrier", comm, nullptr);
}
MPR_WEAK_ALIAS(Barrier);
extern "C" int PMPI_Ibarrier(MPI_Comm comm, MPI_Request* request) {
  MPR_ENTRY;
  return barrier("MPI_Ibarrier", comm, request);
}
MPR_WEAK_ALIAS(Ibarrier);

extern "C" int PMPI_Bcast(void* buffer, int count, MPI_Datatype datatype, int root, MPI_Comm comm) {
  MPR_ENTRY;
  return bcast("MPI_Bcast", buffer, count, datatype, root, comm, nullptr);
}
MPR_WEAK_ALIAS(Bcast);

extern "C" int PMPI_Bcast_c(void* buffer, MPI_Count count, MPI_Datatype datatype, int root,
                            MPI_Comm comm) {
  MPR_ENTRY;
  return bcast("MPI_Bcast_c", buffer, count, datatype, root, comm, nullptr);
}
MPR_WEAK_ALIAS(Bcast_c);
extern "C" int PMPI_Ibcast(void* buffer, int count, MPI_Datatype datatype, int root, MPI_Comm comm,
                           MPI_Request* request) {
  MPR_ENTRY;
  return bcast("MPI_Ibcast", buffer, count, datatype, root, comm, request);
}
MPR_WEAK_ALIAS(Ibcast);

extern "C" int PMPI_Ibcast_c(void* buffer, MPI_Count count, MPI_Datatype datatype, int root,
                             MPI_Comm comm, MPI_Request* request) {
  MPR_ENTRY;
  return bcast("MPI_Ibcast_c", buffer, count, datatype, root, comm, request);
}
MPR_WEAK_ALIAS(Ibcast_c);

extern "C" int PMPI_Reduce(const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype,
                           MPI_Op op, int root, MPI_Comm comm) {
  MPR_ENTRY;
  return reduce("MPI_Reduce", sendbuf, recvbuf, count, datatype, op, root, comm, nullptr);
}
MPR_WEAK_ALIAS(Reduce);

extern "C" int PMPI_Reduce_c(const void* sendbuf, void* recvbuf, MPI_Count count,
                             MPI_Datatype datatype, MPI_Op op, int root, MPI_Comm comm) {
  MPR_ENTRY;
  return reduce("MPI_Reduce_c", sendbuf, recvbuf, count, datatype, op, root, comm, nullptr);
}
MPR_WEAK_ALIAS(Reduce_c);
extern "C" int PMPI_Ireduce(const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype,
                            MPI_Op op, int root, MPI_Comm comm, MPI_Request* request) {
  MPR_ENTRY;
  return reduce("MPI_Ireduce", sendbuf, recvbuf, count, datatype, op, root, comm, request);
}
MPR_WEAK_ALIAS(Ireduce);

extern "C" int PMPI_Ireduce_c(const void* sendbuf, void* recvbuf, MPI_Count count,
                              MPI_Datatype datatype, MPI_Op op, int root, MPI_Comm comm,
                              MPI_Request* request) {
  MPR_ENTRY;
  return reduce("MPI_Ireduce_c", sendbuf, recvbuf, count, datatype, op, root, comm, request);
}
MPR_WEAK_ALIAS(Ireduce_c);

extern "C" int PMPI_Allreduce(const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype,
                              MPI_Op op, MPI_Comm comm) {
  MPR_ENTRY;
  return allreduce("MPI_Allreduce", sendbuf, recvbuf, count, datatype, op, comm, nullptr);
}
MPR_WEAK_ALIAS(Allreduce);

extern "C" int PMPI_Allreduce_c(const void* sendbuf, void* recvbuf, MPI_Count count,
                                MPI_Datatype datatype, MPI_Op op, MPI_Comm comm) {
  MPR_ENTRY;
  return allreduce("MPI_Allreduce_c", sendbuf, recvbuf, count, datatype, op, comm, nullptr);
}
MPR_WEAK_ALIAS(Allreduce_c);
extern "C" int PMPI_Iallreduce(const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype,
                               MPI_Op op, MPI_Comm comm, MPI_Request* request) {
  MPR_ENTRY;
  return allreduce("MPI_Iallreduce", sendbuf, recvbuf, count, datatype, op, comm, request);
}
MPR_WEAK_ALIAS(Iallreduce);

extern "C" int PMPI_Iallreduce_c(const void* sendbuf, void* recvbuf, MPI_Count count,
                                 MPI_Datatype datatype, MPI_Op op, MPI_Comm comm,
                                 MPI_Request* request) {
  MPR_ENTRY;
  return allreduce("MPI_Iallreduce_c", sendbuf, recvbuf, count, datatype, op, comm, request);
}
MPR_WEAK_ALIAS(Iallreduce_c);

extern "C" int PMPI_Scan(const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype,
                         MPI_Op op, MPI_Comm comm) {
  MPR_ENTRY;
  return scan("MPI_Scan", sendbuf, recvbuf, count, datatype, op, comm, false, nullptr);
}
MPR_WEAK_ALIAS(Scan);

extern "C" int PMPI_Scan_c(const void* sendbuf, void* recvbuf, MPI_Count count,
                           MPI_Datatype datatype, MPI_Op op, MPI_Comm comm) {
  MPR_ENTRY;
  return scan("MPI_Scan_c", sendbuf, recvbuf, count, datatype, op, comm, false, nullptr);
}
MPR_WEAK_ALIAS(Scan_c);
extern "C" int PMPI_Iscan(const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype,
                          MPI_Op op, MPI_Comm comm, MPI_Request* request) {
  MPR_ENTRY;
  return scan("MPI_Iscan", sendbuf, recvbuf, count, datatype, op, comm, false, request);
}
MPR_WEAK_ALIAS(Iscan);

extern "C" int PMPI_Iscan_c(const void* sendbuf, void* recvbuf, MPI_Count count,
                            MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, MPI_Request* request) {
  MPR_ENTRY;
  return scan("MPI_Iscan_c", sendbuf, recvbuf, count, datatype, op, comm, false, request);
}
MPR_WEAK_ALIAS(Iscan_c);
extern "C" int PMPI_Exscan(const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype,
                           MPI_Op op, MPI_Comm comm) {
  MPR_ENTRY;
  return scan("MPI_Exscan", sendbuf, recvbuf, count, datatype, op, comm, true, nullptr);
}
MPR_WEAK_ALIAS(Exscan);

extern "C" int PMPI_Exscan_c(const void* sendbuf, void* recvbuf, MPI_Count count,
                             MPI_Datatype datatype, MPI_Op op, MPI_Comm comm) {
  MPR_ENTRY;
  return scan("MPI_Exscan_c", sendbuf, recvbuf, count, datatype, op, comm, true, nullptr);
}
MPR_WEAK_ALIAS(Exscan_c);
extern "C" int PMPI_Iexscan(const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype,
                            MPI_Op op, MPI_Comm comm, MPI_Request* request) {
  MPR_ENTRY;
  return scan("MPI_Iexscan", sendbuf, recvbuf, count, datatype, op, comm, true, request);
}
MPR_WEAK_ALIAS(Iexscan);

extern "C" int PMPI_Iexscan_c(const void* sendbuf, void* recvbuf, MPI_Count count,
                              MPI_Datatype datatype, MPI_Op op, MPI_Comm comm,
                              MPI_Request* request) {
  MPR_ENTRY;
  return scan("MPI_Iexscan_c", sendbuf, recvbuf, count, datatype, op, comm, true, request);
}
MPR_WEAK_ALIAS(Iexscan_c);

extern "C" int PMPI_Reduce_scatter(const void* sendbuf, void* recvbuf, const int recvcounts[],
                                   MPI_Datatype datatype, MPI_Op op, MPI_Comm comm) {
  MPR_ENTRY;
  if (!recvcounts && running())
    return raise_error(to_comm(comm), MPI_ERR_ARG, "MPI_Reduce_scatter", "recvcounts is NULL");
  return reduce_scatter("MPI_Reduce_scatter", sendbuf, recvbuf, recvcounts, 0, datatype, op, comm,
                        nullptr);
}
MPR_WEAK_ALIAS(Reduce_scatter);

extern "C" int PMPI_Reduce_scatter_c(const void* sendbuf, void* recvbuf,
                                     const MPI_Count recvcounts[], MPI_Datatype datatype, MPI_Op op,
                                     MPI_Comm comm) {
  MPR_ENTRY;
  if (!recvcounts && running())
    return raise_error(to_comm(comm), MPI_ERR_ARG, "MPI_Reduce_scatter_c", "recvcounts is NULL");
  return reduce_scatter("MPI_Reduce_scatter_c", sendbuf, recvbuf, recvcounts, 0, datatype, op, comm,
                        nullptr);
}
MPR_WEAK_ALIAS(Reduce_scatter_c);
extern "C" int PMPI_Ireduce_scatter(const void* sendbuf, void* recvbuf, const int recvcounts[],
                                    MPI_Datatype datatype, MPI_Op op, MPI_Comm comm,
                                    MPI_Request* request) {
  MPR_ENTRY;
  if (!recvcounts && running())
    return raise_error(to_comm(comm), MPI_ERR_ARG, "MPI_Ireduce_scatter", "recvcounts is NULL");
  return reduce_scatter("MPI_Ireduce_scatter", sendbuf, recvbuf, recvcounts, 0, datatype, op, comm,
                        request);
}
MPR_WEAK_ALIAS(Ireduce_scatter);

extern "C" int PMPI_Ireduce_scatter_c(const void* sendbuf, void* recvbuf,
                                      const MPI_Count recvcounts[], MPI_Datatype datatype,
                                      MPI_Op op, MPI_Comm comm, MPI_Request* request) {
  MPR_ENTRY;
  if (!recvcounts && running())
    return raise_error(to_comm(comm), MPI_ERR_ARG, "MPI_Ireduce_scatter_c", "recvcounts is NULL");
  return reduce_scatter("MPI_Ireduce_scatter_c", sendbuf, recvbuf, recvcounts, 0, datatype, op,
                        comm, request);
}
MPR_WEAK_ALIAS(Ireduce_scatter_c);
extern "C" int PMPI_Reduce_scatter_block(const void* sendbuf, void* recvbuf, int recvcount,
                                         MPI_Datatype datatype, MPI_Op op, MPI_Comm comm) {
  MPR_ENTRY;
  return reduce_scatter("MPI_Reduce_scatter_block", sendbuf, recvbuf, nullptr, recvcount, datatype,
                        op, comm, nullptr);
}
MPR_WEAK_ALIAS(Reduce_scatter_block);

extern "C" int PMPI_Reduce_scatter_block_c(const void* sendbuf, void* recvbuf, MPI_Count recvcount,
                                           MPI_Datatype datatype, MPI_Op op, MPI_Comm comm) {
  MPR_ENTRY;
  return reduce_scatter("MPI_Reduce_scatter_block_c", sendbuf, recvbuf, nullptr, recvcount,
                        datatype, op, comm, nullptr);
}
MPR_WEAK_ALIAS(Reduce_scatter_block_c);
extern "C" int PMPI_Ireduce_scatter_block(const void* sendbuf, void* recvbuf, int recvcount,
                                          MPI_Datatype datatype, MPI_Op op, MPI_Comm comm,
                                          MPI_Request* request) {
  MPR_ENTRY;
  return reduce_scatter("MPI_Ireduce_scatter_block", sendbuf, recvbuf, nullptr, recvcount, datatype,
                        op, comm, request);
}
MPR_WEAK_ALIAS(Ireduce_scatter_block);

extern "C" int PMPI_Ireduce_scatter_block_c(const void* sendbuf, void* recvbuf, MPI_Count recvcount,
                                            MPI_Datatype datatype, MPI_Op op, MPI_Comm comm,
                                            MPI_Request* request) {
  MPR_ENTRY;
  return reduce_scatter("MPI_Ireduce_scatter_block_c", sendbuf, recvbuf, nullptr, recvcount,
                        datatype, op, comm, request);
}
MPR_WEAK_ALIAS(Ireduce_scatter_block_c);

extern "C" int PMPI_Gather(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                           int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm) {
  MPR_ENTRY;
  return gather("MPI_Gather", sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root,
                comm, nullptr);
}
MPR_WEAK_ALIAS(Gather);

extern "C" int PMPI_Gather_c(const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                             void* recvbuf, MPI_Count recvcount, MPI_Datatype recvtype, int root,
                             MPI_Comm comm) {
  MPR_ENTRY;
  return gather("MPI_Gather_c", sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root,
                comm, nullptr);
}
MPR_WEAK_ALIAS(Gather_c);
extern "C" int PMPI_Igather(const void* sendbuf, int sendcount, MPI_Datatype sendtype,
                            void* recvbuf, int recvcount, MPI_Datatype recvtype, int root,
                            MPI_Comm comm, MPI_Request* request) {
  MPR_ENTRY;
  return gather("MPI_Igather", sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root,
                comm, request);
}
MPR_WEAK_ALIAS(Igather);

extern "C" int PMPI_Igather_c(const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                              void* recvbuf, MPI_Count recvcount, MPI_Datatype recvtype, int root,
                              MPI_Comm comm, MPI_Request* request) {
  MPR_ENTRY;
  return gather("MPI_Igather_c", sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root,
                comm, request);
}
MPR_WEAK_ALIAS(Igather_c);
extern "C" int PMPI_Gatherv(const void* sendbuf, int sendcount, MPI_Datatype sendtype,
                            void* recvbuf, const int recvcounts[], const int displs[],
                            MPI_Datatype recvtype, int root, MPI_Comm comm) {
  MPR_ENTRY;
  return gatherv("MPI_Gatherv", sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype,
                 root, comm, nullptr);
}
MPR_WEAK_ALIAS(Gatherv);

extern "C" int PMPI_Gatherv_c(const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                              void* recvbuf, const MPI_Count recvcounts[], const MPI_Aint displs[],
                              MPI_Datatype recvtype, int root, MPI_Comm comm) {
  MPR_ENTRY;
  return gatherv("MPI_Gatherv_c", sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs,
                 recvtype, root, comm, nullptr);
}
MPR_WEAK_ALIAS(Gatherv_c);
extern "C" int PMPI_Igatherv(const void* sendbuf, int sendcount, MPI_Datatype sendtype,
                             void* recvbuf, const int recvcounts[], const int displs[],
                             MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Request* request) {
  MPR_ENTRY;
  return gatherv("MPI_Igatherv", sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs,
                 recvtype, root, comm, request);
}
MPR_WEAK_ALIAS(Igatherv);

extern "C" int PMPI_Igatherv_c(const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                               void* recvbuf, const MPI_Count recvcounts[], const MPI_Aint displs[],
                               MPI_Datatype recvtype, int root, MPI_Comm comm,
                               MPI_Request* request) {
  MPR_ENTRY;
  return gatherv("MPI_Igatherv_c", sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs,
                 recvtype, root, comm, request);
}
MPR_WEAK_ALIAS(Igatherv_c);

extern "C" int PMPI_Scatter(const void* sendbuf, int sendcount, MPI_Datatype sendtype,
                            void* recvbuf, int recvcount, MPI_Datatype recvtype, int root,
                            MPI_Comm comm) {
  MPR_ENTRY;
  return scatter("MPI_Scatter", sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root,
                 comm, nullptr);
}
MPR_WEAK_ALIAS(Scatter);

extern "C" int PMPI_Scatter_c(const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                              void* recvbuf, MPI_Count recvcount, MPI_Datatype recvtype, int root,
                              MPI_Comm comm) {
  MPR_ENTRY;
  return scatter("MPI_Scatter_c", sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root,
                 comm, nullptr);
}
MPR_WEAK_ALIAS(Scatter_c);
extern "C" int PMPI_Iscatter(const void* sendbuf, int sendcount, MPI_Datatype sendtype,
                             void* recvbuf, int recvcount, MPI_Datatype recvtype, int root,
                             MPI_Comm comm, MPI_Request* request) {
  MPR_ENTRY;
  return scatter("MPI_Iscatter", sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root,
                 comm, request);
}
MPR_WEAK_ALIAS(Iscatter);

extern "C" int PMPI_Iscatter_c(const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                               void* recvbuf, MPI_Count recvcount, MPI_Datatype recvtype, int root,
                               MPI_Comm comm, MPI_Request* request) {
  MPR_ENTRY;
  return scatter("MPI_Iscatter_c", sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root,
                 comm, request);
}
MPR_WEAK_ALIAS(Iscatter_c);
extern "C" int PMPI_Scatterv(const void* sendbuf, const int sendcounts[], const int displs[],
                             MPI_Datatype sendtype, void* recvbuf, int recvcount,
                             MPI_Datatype recvtype, int root, MPI_Comm comm) {
  MPR_ENTRY;
  return scatterv("MPI_Scatterv", sendbuf, sendcounts, displs, sendtype, recvbuf, recvcount,
                  recvtype, root, comm, nullptr);
}
MPR_WEAK_ALIAS(Scatterv);

extern "C" int PMPI_Scatterv_c(const void* sendbuf, const MPI_Count sendcounts[],
                               const MPI_Aint displs[], MPI_Datatype sendtype, void* recvbuf,
                               MPI_Count recvcount, MPI_Datatype recvtype, int root,
                               MPI_Comm comm) {
  MPR_ENTRY;
  return scatterv("MPI_Scatterv_c", sendbuf, sendcounts, displs, sendtype, recvbuf, recvcount,
                  recvtype, root, comm, nullptr);
}
MPR_WEAK_ALIAS(Scatterv_c);
extern "C" int PMPI_Iscatterv(const void* sendbuf, const int sendcounts[], const int displs[],
                              MPI_Datatype sendtype, void* recvbuf, int recvcount,
                              MPI_Datatype recvtype, int root, MPI_Comm comm,
                              MPI_Request* request) {
  MPR_ENTRY;
  return scatterv("MPI_Iscatterv", sendbuf, sendcounts, displs, sendtype, recvbuf, recvcount,
                  recvtype, root, comm, request);
}
MPR_WEAK_ALIAS(Iscatterv);

extern "C" int PMPI_Iscatterv_c(const void* sendbuf, const MPI_Count sendcounts[],
                                const MPI_Aint displs[], MPI_Datatype sendtype, void* recvbuf,
                                MPI_Count recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm,
                                MPI_Request* request) {
  MPR_ENTRY;
  return scatterv("MPI_Iscatterv_c", sendbuf, sendcounts, displs, sendtype, recvbuf, recvcount,
                  recvtype, root, comm, request);
}
MPR_WEAK_ALIAS(Iscatterv_c);

extern "C" int PMPI_Allgather(const void* sendbuf, int sendcount, MPI_Datatype sendtype,
                              void* recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm) {
  MPR_ENTRY;
  return allgather("MPI_Allgather", sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype,
                   comm, nullptr);
}
MPR_WEAK_ALIAS(Allgather);

extern "C" int PMPI_Allgather_c(const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                                void* recvbuf, MPI_Count recvcount, MPI_Datatype recvtype,
                                MPI_Comm comm) {
  MPR_ENTRY;
  return allgather("MPI_Allgather_c", sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype,
                   comm, nullptr);
}
MPR_WEAK_ALIAS(Allgather_c);
extern "C" int PMPI_Iallgather(const void* sendbuf, int sendcount, MPI_Datatype sendtype,
                               void* recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm,
                               MPI_Request* request) {
  MPR_ENTRY;
  return allgather("MPI_Iallgather", sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype,
                   comm, request);
}
MPR_WEAK_ALIAS(Iallgather);

extern "C" int PMPI_Iallgather_c(const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                                 void* recvbuf, MPI_Count recvcount, MPI_Datatype recvtype,
                                 MPI_Comm comm, MPI_Request* request) {
  MPR_ENTRY;
  return allgather("MPI_Iallgather_c", sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype,
                   comm, request);
}
MPR_WEAK_ALIAS(Iallgather_c);
extern "C" int PMPI_Allgatherv(const void* sendbuf, int sendcount, MPI_Datatype sendtype,
                               void* recvbuf, const int recvcounts[], const int displs[],
                               MPI_Datatype recvtype, MPI_Comm comm) {
  MPR_ENTRY;
  return allgatherv("MPI_Allgatherv", sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs,
                    recvtype, comm, nullptr);
}
MPR_WEAK_ALIAS(Allgatherv);

extern "C" int PMPI_Allgatherv_c(const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                                 void* recvbuf, const MPI_Count recvcounts[],
                                 const MPI_Aint displs[], MPI_Datatype recvtype, MPI_Comm comm) {
  MPR_ENTRY;
  return allgatherv("MPI_Allgatherv_c", sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs,
                    recvtype, comm, nullptr);
}
MPR_WEAK_ALIAS(Allgatherv_c);
extern "C" int PMPI_Iallgatherv(const void* sendbuf, int sendcount, MPI_Datatype sendtype,
                                void* recvbuf, const int recvcounts[], const int displs[],
                                MPI_Datatype recvtype, MPI_Comm comm, MPI_Request* request) {
  MPR_ENTRY;
  return allgatherv("MPI_Iallgatherv", sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs,
                    recvtype, comm, request);
}
MPR_WEAK_ALIAS(Iallgatherv);

extern "C" int PMPI_Iallgatherv_c(const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                                  void* recvbuf, const MPI_Count recvcounts[],
                                  const MPI_Aint displs[], MPI_Datatype recvtype, MPI_Comm comm,
                                  MPI_Request* request) {
  MPR_ENTRY;
  return allgatherv("MPI_Iallgatherv_c", sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs,
                    recvtype, comm, request);
}
MPR_WEAK_ALIAS(Iallgatherv_c);

extern "C" int PMPI_Alltoall(const void* sendbuf, int sendcount, MPI_Datatype sendtype,
                             void* recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm) {
  MPR_ENTRY;
  return alltoall("MPI_Alltoall", sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm,
                  nullptr);
}
MPR_WEAK_ALIAS(Alltoall);

extern "C" int PMPI_Alltoall_c(const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                               void* recvbuf, MPI_Count recvcount, MPI_Datatype recvtype,
                               MPI_Comm comm) {
  MPR_ENTRY;
  return alltoall("MPI_Alltoall_c", sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype,
                  comm, nullptr);
}
MPR_WEAK_ALIAS(Alltoall_c);
extern "C" int PMPI_Ialltoall(const void* sendbuf, int sendcount, MPI_Datatype sendtype,
                              void* recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm,
                              MPI_Request* request) {
  MPR_ENTRY;
  return alltoall("MPI_Ialltoall", sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm,
                  request);
}
MPR_WEAK_ALIAS(Ialltoall);

extern "C" int PMPI_Ialltoall_c(const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                                void* recvbuf, MPI_Count recvcount, MPI_Datatype recvtype,
                                MPI_Comm comm, MPI_Request* request) {
  MPR_ENTRY;
  return alltoall("MPI_Ialltoall_c", sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype,
                  comm, request);
}
MPR_WEAK_ALIAS(Ialltoall_c);
extern "C" int PMPI_Alltoallv(const void* sendbuf, const int sendcounts[], const int sdispls[],
                              MPI_Datatype sendtype, void* recvbuf, const int recvcounts[],
                              const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm) {
  MPR_ENTRY;
  return alltoallv("MPI_Alltoallv", sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts,
                   rdispls, recvtype, comm, nullptr);
}
MPR_WEAK_ALIAS(Alltoallv);

extern "C" int PMPI_Alltoallv_c(const void* sendbuf, const MPI_Count sendcounts[],
                                const MPI_Aint sdispls[], MPI_Datatype sendtype, void* recvbuf,
                                const MPI_Count recvcounts[], const MPI_Aint rdispls[],
                                MPI_Datatype recvtype, MPI_Comm comm) {
  MPR_ENTRY;
  return alltoallv("MPI_Alltoallv_c", sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts,
                   rdispls, recvtype, comm, nullptr);
}
MPR_WEAK_ALIAS(Alltoallv_c);
extern "C" int PMPI_Ialltoallv(const void* sendbuf, const int sendcounts[], const int sdispls[],
                               MPI_Datatype sendtype, void* recvbuf, const int recvcounts[],
                               const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm,
                               MPI_Request* request) {
  MPR_ENTRY;
  return alltoallv("MPI_Ialltoallv", sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts,
                   rdispls, recvtype, comm, request);
}
MPR_WEAK_ALIAS(Ialltoallv);

extern "C" int PMPI_Ialltoallv_c(const void* sendbuf, const MPI_Count sendcounts[],
                                 const MPI_Aint sdispls[], MPI_Datatype sendtype, void* recvbuf,
                                 const MPI_Count recvcounts[], const MPI_Aint rdispls[],
                                 MPI_Datatype recvtype, MPI_Comm comm, MPI_Request* request) {
  MPR_ENTRY;
  return alltoallv("MPI_Ialltoallv_c", sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts,
                   rdispls, recvtype, comm, request);
}
MPR_WEAK_ALIAS(Ialltoallv_c);
extern "C" int PMPI_Alltoallw(const void* sendbuf, const int sendcounts[], const int sdispls[],
                              const MPI_Datatype sendtypes[], void* recvbuf, const int recvcounts[],
                              const int rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm) {
  MPR_ENTRY;
  return alltoallw("MPI_Alltoallw", sendbuf, sendcounts, sdispls, sendtypes, recvbuf, recvcounts,
                   rdispls, recvtypes, comm, nullptr);
}
MPR_WEAK_ALIAS(Alltoallw);

extern "C" int PMPI_Alltoallw_c(const void* sendbuf, const MPI_Count sendcounts[],
                                const MPI_Aint sdispls[], const MPI_Datatype sendtypes[],
                                void* recvbuf, const MPI_Count recvcounts[],
                                const MPI_Aint rdispls[], const MPI_Datatype recvtypes[],
                                MPI_Comm comm) {
  MPR_ENTRY;
  return alltoallw("MPI_Alltoallw_c", sendbuf, sendcounts, sdispls, sendtypes, recvbuf, recvcounts,
                   rdispls, recvtypes, comm, nullptr);
}
MPR_WEAK_ALIAS(Alltoallw_c);
extern "C" int PMPI_Ialltoallw(const void* sendbuf, const int sendcounts[], const int sdispls[],
                               const MPI_Datatype sendtypes[], void* recvbuf,
                               const int recvcounts[], const int rdispls[],
                               const MPI_Datatype recvtypes[], MPI_Comm comm,
                               MPI_Request* request) {
  MPR_ENTRY;
  return alltoallw("MPI_Ialltoallw", sendbuf, sendcounts, sdispls, sendtypes, recvbuf, recvcounts,
                   rdispls, recvtypes, comm, request);
}
MPR_WEAK_ALIAS(Ialltoallw);

extern "C" int PMPI_Ialltoallw_c(const void* sendbuf, const MPI_Count sendcounts[],
                                 const MPI_Aint sdispls[], const MPI_Datatype sendtypes[],
                                 void* recvbuf, const MPI_Count recvcounts[],
                                 const MPI_Aint rdispls[], const MPI_Datatype recvtypes[],
                                 MPI_Comm comm, MPI_Request* request) {
  MPR_ENTRY;
  return alltoallw("MPI_Ialltoallw_c", sendbuf, sendcounts, sdispls, sendtypes, recvbuf, recvcounts,
                   rdispls, recvtypes, comm, request);
}
MPR_WEAK_ALIAS(Ialltoallw_c);

namespace {

int reduce_local(const char* fn, const void* inbuf, void* inoutbuf, MPI_Count count,
                 MPI_Datatype datatype, MPI_Op op) {
  Datatype* dt;
  Op* o;
  MPR_TRY(check_running(fn));
  MPR_TRY(check_count(fn, nullptr, count));
  MPR_TRY(check_type(fn, nullptr, datatype, &dt));
  MPR_TRY(check_op(fn, nullptr, op, &o));
  MPR_TRY(check_op_for(fn, nullptr, o, dt));
  MPR_TRY(check_buffer(fn, nullptr, inbuf, count, dt));
  MPR_TRY(check_buffer(fn, nullptr, inoutbuf, count, dt));
  // op_apply (and a user function's len) takes an int: 2^30 elements at a time.
  constexpr MPI_Count kChunk = MPI_Count{1} << 30;
  for (MPI_Count done = 0; done < count; done += kChunk)
    op_apply(o, at(inbuf, static_cast<size_t>(done), dt),
             at(inoutbuf, static_cast<size_t>(done), dt),
             static_cast<int>(std::min(kChunk, count - done)), dt);
  return MPI_SUCCESS;
}

}  // namespace

extern "C" int PMPI_Reduce_local(const void* inbuf, void* inoutbuf, int count,
                                 MPI_Datatype datatype, MPI_Op op) {
  MPR_ENTRY;
  return reduce_local("MPI_Reduce_local", inbuf, inoutbuf, count, datatype, op);
}
MPR_WEAK_ALIAS(Reduce_local);

extern "C" int PMPI_Reduce_local_c(const void* inbuf, void* inoutbuf, MPI_Count count,
                                   MPI_Datatype datatype, MPI_Op op) {
  MPR_ENTRY;
  return reduce_local("MPI_Reduce_local_c", inbuf, inoutbuf, count, datatype, op);
}
MPR_WEAK_ALIAS(Reduce_local_c);

// ---- persistent collectives (MPI-4): each MPI_Start runs the nonblocking form ----------------

extern "C" int PMPI_Barrier_init(MPI_Comm comm, MPI_Info info, MPI_Request* request) {
  MPR_ENTRY;
  constexpr const char* fn = "MPI_Barrier_init";
  return persistent_init(
      fn, comm, info, false, {}, [=](MPI_Request* r) { return barrier(fn, comm, r); }, request);
}
MPR_WEAK_ALIAS(Barrier_init);

extern "C" int PMPI_Bcast_init(void* buffer, int count, MPI_Datatype datatype, int root,
                               MPI_Comm comm, MPI_Info info, MPI_Request* request) {
  MPR_ENTRY;
  constexpr const char* fn = "MPI_Bcast_init";
  return persistent_init(
      fn, comm, info, false, {datatype},
      [=](MPI_Request* r) { return bcast(fn, buffer, count, datatype, root, comm, r); }, request);
}
MPR_WEAK_ALIAS(Bcast_init);

extern "C" int PMPI_Bcast_init_c(void* buffer, MPI_Count count, MPI_Datatype datatype, int root,
                                 MPI_Comm comm, MPI_Info info, MPI_Request* request) {
  MPR_ENTRY;
  constexpr const char* fn = "MPI_Bcast_init_c";
  return persistent_init(
      fn, comm, info, false, {datatype},
      [=](MPI_Request* r) { return bcast(fn, buffer, count, datatype, root, comm, r); }, request);
}
MPR_WEAK_ALIAS(Bcast_init_c);

extern "C" int PMPI_Reduce_init(const void* sendbuf, void* recvbuf, int count,
                                MPI_Datatype datatype, MPI_Op op, int root, MPI_Comm comm,
                                MPI_Info info, MPI_Request* request) {
  MPR_ENTRY;
  constexpr const char* fn = "MPI_Reduce_init";
  return persistent_init(
      fn, comm, info, false, {datatype},
      [=](MPI_Request* r) {
        return reduce(fn, sendbuf, recvbuf, count, datatype, op, root, comm, r);
      },
      request);
}
MPR_WEAK_ALIAS(Reduce_init);

extern "C" int PMPI_Reduce_init_c(const void* sendbuf, void* recvbuf, MPI_Count count,
                                  MPI_Datatype datatype, MPI_Op op, int root, MPI_Comm comm,
                                  MPI_Info info, MPI_Request* request) {
  MPR_ENTRY;
  constexpr const char* fn = "MPI_Reduce_init_c";
  return persistent_init(
      fn, comm, info, false, {datatype},
      [=](MPI_Request* r) {
        return reduce(fn, sendbuf, recvbuf, count, datatype, op, root, comm, r);
      },
      request);
}
MPR_WEAK_ALIAS(Reduce_init_c);

extern "C" int PMPI_Allreduce_init(const void* sendbuf, void* recvbuf, int count,
                                   MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, MPI_Info info,
                                   MPI_Request* request) {
  MPR_ENTRY;
  constexpr const char* fn = "MPI_Allreduce_init";
  return persistent_init(
      fn, comm, info, false, {datatype},
      [=](MPI_Request* r) { return allreduce(fn, sendbuf, recvbuf, count, datatype, op, comm, r); },
      request);
}
MPR_WEAK_ALIAS(Allreduce_init);

extern "C" int PMPI_Allreduce_init_c(const void* sendbuf, void* recvbuf, MPI_Count count,
                                     MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, MPI_Info info,
                                     MPI_Request* request) {
  MPR_ENTRY;
  constexpr const char* fn = "MPI_Allreduce_init_c";
  return persistent_init(
      fn, comm, info, false, {datatype},
      [=](MPI_Request* r) { return allreduce(fn, sendbuf, recvbuf, count, datatype, op, comm, r); },
      request);
}
MPR_WEAK_ALIAS(Allreduce_init_c);

extern "C" int PMPI_Scan_init(const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype,
                              MPI_Op op, MPI_Comm comm, MPI_Info info, MPI_Request* request) {
  MPR_ENTRY;
  constexpr const char* fn = "MPI_Scan_init";
  return persistent_init(
      fn, comm, info, false, {datatype},
      [=](MPI_Request* r) {
        return scan(fn, sendbuf, recvbuf, count, datatype, op, comm, false, r);
      },
      request);
}
MPR_WEAK_ALIAS(Scan_init);

extern "C" int PMPI_Scan_init_c(const void* sendbuf, void* recvbuf, MPI_Count count,
                                MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, MPI_Info info,
                                MPI_Request* request) {
  MPR_ENTRY;
  constexpr const char* fn = "MPI_Scan_init_c";
  return persistent_init(
      fn, comm, info, false, {datatype},
      [=](MPI_Request* r) {
        return scan(fn, sendbuf, recvbuf, count, datatype, op, comm, false, r);
      },
      request);
}
MPR_WEAK_ALIAS(Scan_init_c);

extern "C" int PMPI_Exscan_init(const void* sendbuf, void* recvbuf, int count,
                                MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, MPI_Info info,
                                MPI_Request* request) {
  MPR_ENTRY;
  constexpr const char* fn = "MPI_Exscan_init";
  return persistent_init(
      fn, comm, info, false, {datatype},
      [=](MPI_Request* r) {
        return scan(fn, sendbuf, recvbuf, count, datatype, op, comm, true, r);
      },
      request);
}
MPR_WEAK_ALIAS(Exscan_init);

extern "C" int PMPI_Exscan_init_c(const void* sendbuf, void* recvbuf, MPI_Count count,
                                  MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, MPI_Info info,
                                  MPI_Request* request) {
  MPR_ENTRY;
  constexpr const char* fn = "MPI_Exscan_init_c";
  return persistent_init(
      fn, comm, info, false, {datatype},
      [=](MPI_Request* r) {
        return scan(fn, sendbuf, recvbuf, count, datatype, op, comm, true, r);
      },
      request);
}
MPR_WEAK_ALIAS(Exscan_init_c);

extern "C" int PMPI_Reduce_scatter_init(const void* sendbuf, void* recvbuf, const int recvcounts[],
                                        MPI_Datatype datatype, MPI_Op op, MPI_Comm comm,
                                        MPI_Info info, MPI_Request* request) {
  MPR_ENTRY;
  constexpr const char* fn = "MPI_Reduce_scatter_init";
  if (!recvcounts && running())
    return raise_error(to_comm(comm), MPI_ERR_ARG, fn, "recvcounts is NULL");
  return persistent_init(
      fn, comm, info, false, {datatype},
      [=](MPI_Request* r) {
        return reduce_scatter(fn, sendbuf, recvbuf, recvcounts, 0, datatype, op, comm, r);
      },
      request);
}
MPR_WEAK_ALIAS(Reduce_scatter_init);

extern "C" int PMPI_Reduce_scatter_init_c(const void* sendbuf, void* recvbuf,
                                          const MPI_Count recvcounts[], MPI_Datatype datatype,
                                          MPI_Op op, MPI_Comm comm, MPI_Info info,
                                          MPI_Request* request) {
  MPR_ENTRY;
  constexpr const char* fn = "MPI_Reduce_scatter_init_c";
  if (!recvcounts && running())
    return raise_error(to_comm(comm), MPI_ERR_ARG, fn, "recvcounts is NULL");
  return persistent_init(
      fn, comm, info, false, {datatype},
      [=](MPI_Request* r) {
        return reduce_scatter(fn, sendbuf, recvbuf, recvcounts, 0, datatype, op, comm, r);
      },
      request);
}
MPR_WEAK_ALIAS(Reduce_scatter_init_c);

extern "C" int PMPI_Reduce_scatter_block_init(const void* sendbuf, void* recvbuf, int recvcount,
                                              MPI_Datatype datatype, MPI_Op op, MPI_Comm comm,
                                              MPI_Info info, MPI_Request* request) {
  MPR_ENTRY;
  constexpr const char* fn = "MPI_Reduce_scatter_block_init";
  return persistent_init(
      fn, comm, info, false, {datatype},
      [=](MPI_Request* r) {
        return reduce_scatter(fn, sendbuf, recvbuf, nullptr, recvcount, datatype, op, comm, r);
      },
      request);
}
MPR_WEAK_ALIAS(Reduce_scatter_block_init);

extern "C" int PMPI_Reduce_scatter_block_init_c(const void* sendbuf, void* recvbuf,
                                                MPI_Count recvcount, MPI_Datatype datatype,
                                                MPI_Op op, MPI_Comm comm, MPI_Info info,
                                                MPI_Request* request) {
  MPR_ENTRY;
  constexpr const char* fn = "MPI_Reduce_scatter_block_init_c";
  return persistent_init(
      fn, comm, info, false, {datatype},
      [=](MPI_Request* r) {
        return reduce_scatter(fn, sendbuf, recvbuf, nullptr, recvcount, datatype, op, comm, r);
      },
      request);
}
MPR_WEAK_ALIAS(Reduce_scatter_block_init_c);

extern "C" int PMPI_Gather_init(const void* sendbuf, int sendcount, MPI_Datatype sendtype,
                                void* recvbuf, int recvcount, MPI_Datatype recvtype, int root,
                                MPI_Comm comm, MPI_Info info, MPI_Request* request) {
  MPR_ENTRY;
  constexpr const char* fn = "MPI_Gather_init";
  return persistent_init(
      fn, comm, info, false, {sendtype, recvtype},
      [=](MPI_Request* r) {
        return gather(fn, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm,
                      r);
      },
      request);
}
MPR_WEAK_ALIAS(Gather_init);

extern "C" int PMPI_Gather_init_c(const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                                  void* recvbuf, MPI_Count recvcount, MPI_Datatype recvtype,
                                  int root, MPI_Comm comm, MPI_Info info, MPI_Request* request) {
  MPR_ENTRY;
  constexpr const char* fn = "MPI_Gather_init_c";
  return persistent_init(
      fn, comm, info, false, {sendtype, recvtype},
      [=](MPI_Request* r) {
        return gather(fn, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm,
                      r);
      },
      request);
}
MPR_WEAK_ALIAS(Gather_init_c);

extern "C" int PMPI_Gatherv_init(const void* sendbuf, int sendcount, MPI_Datatype sendtype,
                                 void* recvbuf, const int recvcounts[], const int displs[],
                                 MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Info info,
                                 MPI_Request* request) {
  MPR_ENTRY;
  constexpr const char* fn = "MPI_Gatherv_init";
  return persistent_init(
      fn, comm, info, false, {sendtype, recvtype},
      [=](MPI_Request* r) {
        return gatherv(fn, sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype,
                       root, comm, r);
      },
      request);
}
MPR_WEAK_ALIAS(Gatherv_init);

extern "C" int PMPI_Gatherv_init_c(const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                                   void* recvbuf, const MPI_Count recvcounts[],
                                   const MPI_Aint displs[], MPI_Datatype recvtype, int root,
                                   MPI_Comm comm, MPI_Info info, MPI_Request* request) {
  MPR_ENTRY;
  constexpr const char* fn = "MPI_Gatherv_init_c";
  return persistent_init(
      fn, comm, info, false, {sendtype, recvtype},
      [=](MPI_Request* r) {
        return gatherv(fn, sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype,
                       root, comm, r);
      },
      request);
}
MPR_WEAK_ALIAS(Gatherv_init_c);

extern "C" int PMPI_Scatter_init(const void* sendbuf, int sendcount, MPI_Datatype sendtype,
                                 void* recvbuf, int recvcount, MPI_Datatype recvtype, int root,
                                 MPI_Comm comm, MPI_Info info, MPI_Request* request) {
  MPR_ENTRY;
  constexpr const char* fn = "MPI_Scatter_init";
  return persistent_init(
      fn, comm, info, false, {sendtype, recvtype},
      [=](MPI_Request* r) {
        return scatter(fn, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm,
                       r);
      },
      request);
}
MPR_WEAK_ALIAS(Scatter_init);

extern "C" int PMPI_Scatter_init_c(const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                                   void* recvbuf, MPI_Count recvcount, MPI_Datatype recvtype,
                                   int root, MPI_Comm comm, MPI_Info info, MPI_Request* request) {
  MPR_ENTRY;
  constexpr const char* fn = "MPI_Scatter_init_c";
  return persistent_init(
      fn, comm, info, false, {sendtype, recvtype},
      [=](MPI_Request* r) {
        return scatter(fn, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm,
                       r);
      },
      request);
}
MPR_WEAK_ALIAS(Scatter_init_c);

extern "C" int PMPI_Scatterv_init(const void* sendbuf, const int sendcounts[], const int displs[],
                                  MPI_Datatype sendtype, void* recvbuf, int recvcount,
                                  MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Info info,
                                  MPI_Request* request) {
  MPR_ENTRY;
  constexpr const char* fn = "MPI_Scatterv_init";
  return persistent_init(
      fn, comm, info, false, {sendtype, recvtype},
      [=](MPI_Request* r) {
        return scatterv(fn, sendbuf, sendcounts, displs, sendtype, recvbuf, recvcount, recvtype,
                        root, comm, r);
      },
      request);
}
MPR_WEAK_ALIAS(Scatterv_init);

extern "C" int PMPI_Scatterv_init_c(const void* sendbuf, const MPI_Count sendcounts[],
                                    const MPI_Aint displs[], MPI_Datatype sendtype, void* recvbuf,
                                    MPI_Count recvcount, MPI_Datatype recvtype, int root,
                                    MPI_Comm comm, MPI_Info info, MPI_Request* request) {
  MPR_ENTRY;
  constexpr const char* fn = "MPI_Scatterv_init_c";
  return persistent_init(
      fn, comm, info, false, {sendtype, recvtype},
      [=](MPI_Request* r) {
        return scatterv(fn, sendbuf, sendcounts, displs, sendtype, recvbuf, recvcount, recvtype,
                        root, comm, r);
      },
      request);
}
MPR_WEAK_ALIAS(Scatterv_init_c);

extern "C" int PMPI_Allgather_init(const void* sendbuf, int sendcount, MPI_Datatype sendtype,
                                   void* recvbuf, int recvcount, MPI_Datatype recvtype,
                                   MPI_Comm comm, MPI_Info info, MPI_Request* request) {
  MPR_ENTRY;
  constexpr const char* fn = "MPI_Allgather_init";
  return persistent_init(
      fn, comm, info, false, {sendtype, recvtype},
      [=](MPI_Request* r) {
        return allgather(fn, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, r);
      },
      request);
}
MPR_WEAK_ALIAS(Allgather_init);

extern "C" int PMPI_Allgather_init_c(const void* sendbuf, MPI_Count sendcount,
                                     MPI_Datatype sendtype, void* recvbuf, MPI_Count recvcount,
                                     MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info,
                                     MPI_Request* request) {
  MPR_ENTRY;
  constexpr const char* fn = "MPI_Allgather_init_c";
  return persistent_init(
      fn, comm, info, false, {sendtype, recvtype},
      [=](MPI_Request* r) {
        return allgather(fn, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, r);
      },
      request);
}
MPR_WEAK_ALIAS(Allgather_init_c);

extern "C" int PMPI_Allgatherv_init(const void* sendbuf, int sendcount, MPI_Datatype sendtype,
                                    void* recvbuf, const int recvcounts[], const int displs[],
                                    MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info,
                                    MPI_Request* request) {
  MPR_ENTRY;
  constexpr const char* fn = "MPI_Allgatherv_init";
  return persistent_init(
      fn, comm, info, false, {sendtype, recvtype},
      [=](MPI_Request* r) {
        return allgatherv(fn, sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype,
                          comm, r);
      },
      request);
}
MPR_WEAK_ALIAS(Allgatherv_init);

extern "C" int PMPI_Allgatherv_init_c(const void* sendbuf, MPI_Count sendcount,
                                      MPI_Datatype sendtype, void* recvbuf,
                                      const MPI_Count recvcounts[], const MPI_Aint displs[],
                                      MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info,
                                      MPI_Request* request) {
  MPR_ENTRY;
  constexpr const char* fn = "MPI_Allgatherv_init_c";
  return persistent_init(
      fn, comm, info, false, {sendtype, recvtype},
      [=](MPI_Request* r) {
        return allgatherv(fn, sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype,
                          comm, r);
      },
      request);
}
MPR_WEAK_ALIAS(Allgatherv_init_c);

extern "C" int PMPI_Alltoall_init(const void* sendbuf, int sendcount, MPI_Datatype sendtype,
                                  void* recvbuf, int recvcount, MPI_Datatype recvtype,
                                  MPI_Comm comm, MPI_Info info, MPI_Request* request) {
  MPR_ENTRY;
  constexpr const char* fn = "MPI_Alltoall_init";
  return persistent_init(
      fn, comm, info, false, {sendtype, recvtype},
      [=](MPI_Request* r) {
        return alltoall(fn, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, r);
      },
      request);
}
MPR_WEAK_ALIAS(Alltoall_init);

extern "C" int PMPI_Alltoall_init_c(const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                                    void* recvbuf, MPI_Count recvcount, MPI_Datatype recvtype,
                                    MPI_Comm comm, MPI_Info info, MPI_Request* request) {
  MPR_ENTRY;
  constexpr const char* fn = "MPI_Alltoall_init_c";
  return persistent_init(
      fn, comm, info, false, {sendtype, recvtype},
      [=](MPI_Request* r) {
        return alltoall(fn, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, r);
      },
      request);
}
MPR_WEAK_ALIAS(Alltoall_init_c);

extern "C" int PMPI_Alltoallv_init(const void* sendbuf, const int sendcounts[], const int sdispls[],
                                   MPI_Datatype sendtype, void* recvbuf, const int recvcounts[],
                                   const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm,
                                   MPI_Info info, MPI_Request* request) {
  MPR_ENTRY;
  constexpr const char* fn = "MPI_Alltoallv_init";
  return persistent_init(
      fn, comm, info, false, {sendtype, recvtype},
      [=](MPI_Request* r) {
        return alltoallv(fn, sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls,
                         recvtype, comm, r);
      },
      request);
}
MPR_WEAK_ALIAS(Alltoallv_init);

extern "C" int PMPI_Alltoallv_init_c(const void* sendbuf, const MPI_Count sendcounts[],
                                     const MPI_Aint sdispls[], MPI_Datatype sendtype, void* recvbuf,
                                     const MPI_Count recvcounts[], const MPI_Aint rdispls[],
                                     MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info,
                                     MPI_Request* request) {
  MPR_ENTRY;
  constexpr const char* fn = "MPI_Alltoallv_init_c";
  return persistent_init(
      fn, comm, info, false, {sendtype, recvtype},
      [=](MPI_Request* r) {
        return alltoallv(fn, sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls,
                         recvtype, comm, r);
      },
      request);
}
MPR_WEAK_ALIAS(Alltoallv_init_c);

extern "C" int PMPI_Alltoallw_init(const void* sendbuf, const int sendcounts[], const int sdispls[],
                                   const MPI_Datatype sendtypes[], void* recvbuf,
                                   const int recvcounts[], const int rdispls[],
                                   const MPI_Datatype recvtypes[], MPI_Comm comm, MPI_Info info,
                                   MPI_Request* request) {
  MPR_ENTRY;
  constexpr const char* fn = "MPI_Alltoallw_init";
  return persistent_init(
      fn, comm, info, false, {},
      [=](MPI_Request* r) {
        return alltoallw(fn, sendbuf, sendcounts, sdispls, sendtypes, recvbuf, recvcounts, rdispls,
                         recvtypes, comm, r);
      },
      request);
}
MPR_WEAK_ALIAS(Alltoallw_init);

extern "C" int PMPI_Alltoallw_init_c(const void* sendbuf, const MPI_Count sendcounts[],
                                     const MPI_Aint sdispls[], const MPI_Datatype sendtypes[],
                                     void* recvbuf, const MPI_Count recvcounts[],
                                     const MPI_Aint rdispls[], const MPI_Datatype recvtypes[],
                                     MPI_Comm comm, MPI_Info info, MPI_Request* request) {
  MPR_ENTRY;
  constexpr const char* fn = "MPI_Alltoallw_init_c";
  return persistent_init(
      fn, comm, info, false, {},
      [=](MPI_Request* r) {
        return alltoallw(fn, sendbuf, sendcounts, sdispls, sendtypes, recvbuf, recvcounts, rdispls,
                         recvtypes, comm, r);
      },
      request);
}
MPR_WEAK_ALIAS(Alltoallw_init_c);
