// Collectives on intercommunicators: the argument checks of the intercommunicator forms
// (MPI_ROOT / MPI_PROC_NULL / remote-group roots; remote-group counts; no MPI_IN_PLACE, which
// the standard allows on intracommunicators only) and their schedules (../coll/inter.cc).
// Arguments that are not significant at a process (the root group's buffers at MPI_PROC_NULL,
// recvbuf outside the root) are not checked there.
#include <vector>

#include "runtime/api/check.h"
#include "runtime/api/coll_impl.h"
#include "runtime/coll/call.h"

namespace mpr::runtime::api::inter {

using coll::Call;
using coll::Span;

namespace {

int check_root(const char* fn, Comm* comm, int root) {
  if (root == MPI_ROOT || root == MPI_PROC_NULL || (root >= 0 && root < comm->remote_size()))
    return MPI_SUCCESS;
  return raise_error(comm, MPI_ERR_ROOT, fn,
                     "invalid root %d (on an intercommunicator: MPI_ROOT in the root, "
                     "MPI_PROC_NULL in the rest of its group, or a rank of the remote group, "
                     "size %d)",
                     root, comm->remote_size());
}

int no_in_place(const char* fn, Comm* comm, const void* buf, const char* which) {
  if (buf != MPI_IN_PLACE) return MPI_SUCCESS;
  return raise_error(comm, MPI_ERR_BUFFER, fn,
                     "MPI_IN_PLACE as %s is not valid on an intercommunicator", which);
}

int check_req(const char* fn, Comm* comm, MPI_Request* req) {
  return req ? check_request_arg(fn, comm, req) : MPI_SUCCESS;
}

int check_op_type(const char* fn, Comm* comm, MPI_Count count, MPI_Datatype type, MPI_Op op,
                  Datatype** dt, Op** o) {
  MPR_TRY(check_count(fn, comm, count));
  MPR_TRY(check_type(fn, comm, type, dt));
  MPR_TRY(check_op(fn, comm, op, o));
  return check_op_for(fn, comm, *o, *dt);
}

}  // namespace

int barrier(const char* fn, Comm* comm, MPI_Request* req) {
  MPR_TRY(check_req(fn, comm, req));
  Call c(fn, comm, req);
  coll::inter_barrier(c.s());
  return c.finish();
}

int bcast(const char* fn, Comm* comm, void* buffer, MPI_Count count, MPI_Datatype type, int root,
          MPI_Request* req) {
  Datatype* dt = nullptr;
  MPR_TRY(check_root(fn, comm, root));
  if (root != MPI_PROC_NULL) MPR_TRY(check_data(fn, comm, buffer, count, type, &dt));
  MPR_TRY(check_req(fn, comm, req));
  Call c(fn, comm, req);
  if (root != MPI_PROC_NULL) {
    const bool is_root = root == MPI_ROOT;
    char* buf = c.inout(buffer, count, dt, is_root, !is_root);
    coll::inter_bcast(c.s(), buf, Call::bytes(count, dt), root);
  }
  return c.finish();
}

int reduce(const char* fn, Comm* comm, const void* sendbuf, void* recvbuf, MPI_Count count,
           MPI_Datatype type, MPI_Op op, int root, MPI_Request* req) {
  Datatype* dt = nullptr;
  Op* o = nullptr;
  MPR_TRY(check_root(fn, comm, root));
  const bool is_root = root == MPI_ROOT;
  if (root != MPI_PROC_NULL) {
    MPR_TRY(check_op_type(fn, comm, count, type, op, &dt, &o));
    if (is_root) {
      MPR_TRY(no_in_place(fn, comm, recvbuf, "recvbuf"));
      MPR_TRY(check_buffer(fn, comm, recvbuf, count, dt));
    } else {
      MPR_TRY(no_in_place(fn, comm, sendbuf, "sendbuf"));
      MPR_TRY(check_buffer(fn, comm, sendbuf, count, dt));
    }
  }
  MPR_TRY(check_req(fn, comm, req));
  Call c(fn, comm, req);
  if (root != MPI_PROC_NULL) {
    c.set_reducer(o, dt, count);
    char* rb = is_root ? c.red(recvbuf, count, dt, false, true) : nullptr;
    const char* sb = is_root ? nullptr : c.red(const_cast<void*>(sendbuf), count, dt, true, false);
    coll::inter_reduce(c.s(), sb, rb, count, root);
  }
  return c.finish();
}

int allreduce(const char* fn, Comm* comm, const void* sendbuf, void* recvbuf, MPI_Count count,
              MPI_Datatype type, MPI_Op op, MPI_Request* req) {
  Datatype* dt;
  Op* o;
  MPR_TRY(no_in_place(fn, comm, sendbuf, "sendbuf"));
  MPR_TRY(check_reduction(fn, comm, sendbuf, recvbuf, count, type, op, true, &dt, &o));
  MPR_TRY(check_req(fn, comm, req));
  Call c(fn, comm, req);
  c.set_reducer(o, dt, count);
  char* rb = c.red(recvbuf, count, dt, false, true);
  const char* sb = c.red(const_cast<void*>(sendbuf), count, dt, true, false);
  coll::inter_allreduce(c.s(), sb, rb, count);
  return c.finish();
}

int reduce_scatter(const char* fn, Comm* comm, const void* sendbuf, void* recvbuf,
                   Counts recvcounts, MPI_Count block, MPI_Datatype type, MPI_Op op,
                   MPI_Request* req) {
  Datatype* dt;
  Op* o;
  const int size = comm->size(), rank = comm->rank();
  std::vector<MPI_Count> counts;
  MPI_Count total = 0;
  MPR_TRY(reduce_scatter_counts(fn, comm, recvcounts, block, size, &counts, &total));
  MPR_TRY(no_in_place(fn, comm, sendbuf, "sendbuf"));
  MPR_TRY(check_reduction(fn, comm, sendbuf, recvbuf, total, type, op, false, &dt, &o));
  MPR_TRY(check_buffer(fn, comm, recvbuf, counts[rank], dt));
  MPR_TRY(check_req(fn, comm, req));
  Call c(fn, comm, req);
  c.set_reducer(o, dt, static_cast<size_t>(total));
  std::vector<size_t> red_counts(counts.begin(), counts.end());
  const char* sb = c.red(const_cast<void*>(sendbuf), static_cast<size_t>(total), dt, true, false);
  char* rb = c.red(recvbuf, counts[rank], dt, false, true);
  coll::inter_reduce_scatter(c.s(), sb, rb, red_counts.data());
  return c.finish();
}

int gather(const char* fn, Comm* comm, const void* sendbuf, MPI_Count sendcount,
           MPI_Datatype sendtype, void* recvbuf, MPI_Count recvcount, MPI_Datatype recvtype,
           int root, MPI_Request* req) {
  Datatype *st = nullptr, *rt = nullptr;
  MPR_TRY(check_root(fn, comm, root));
  const bool is_root = root == MPI_ROOT;
  if (is_root) {
    MPR_TRY(no_in_place(fn, comm, recvbuf, "recvbuf"));
    MPR_TRY(check_data(fn, comm, recvbuf, recvcount, recvtype, &rt));
  } else if (root != MPI_PROC_NULL) {
    MPR_TRY(no_in_place(fn, comm, sendbuf, "sendbuf"));
    MPR_TRY(check_data(fn, comm, sendbuf, sendcount, sendtype, &st));
  }
  MPR_TRY(check_req(fn, comm, req));
  Call c(fn, comm, req);
  if (is_root) {
    const size_t m = comm->remote_size();
    coll::inter_gather(c.s(), nullptr, c.out(recvbuf, recvcount * m, rt),
                       Call::bytes(recvcount, rt), root);
  } else if (root != MPI_PROC_NULL) {
    coll::inter_gather(c.s(), c.in(sendbuf, sendcount, st), nullptr, Call::bytes(sendcount, st),
                       root);
  }
  return c.finish();
}

int gatherv(const char* fn, Comm* comm, const void* sendbuf, MPI_Count sendcount,
            MPI_Datatype sendtype, void* recvbuf, Counts recvcounts, Displs displs,
            MPI_Datatype recvtype, int root, MPI_Request* req) {
  Datatype *st = nullptr, *rt = nullptr;
  const int m = comm->remote_size();
  MPR_TRY(check_root(fn, comm, root));
  const bool is_root = root == MPI_ROOT;
  if (is_root) {
    MPR_TRY(no_in_place(fn, comm, recvbuf, "recvbuf"));
    MPR_TRY(check_counts(fn, comm, recvcounts, displs, m, "recvcounts or "));
    MPR_TRY(check_type(fn, comm, recvtype, &rt));
  } else if (root != MPI_PROC_NULL) {
    MPR_TRY(no_in_place(fn, comm, sendbuf, "sendbuf"));
    MPR_TRY(check_data(fn, comm, sendbuf, sendcount, sendtype, &st));
  }
  MPR_TRY(check_req(fn, comm, req));
  Call c(fn, comm, req);
  if (is_root) {
    std::vector<Span> blocks(m);
    for (int i = 0; i < m; ++i)
      blocks[i] = {c.out(at(recvbuf, displs[i], rt), recvcounts[i], rt),
                   Call::bytes(recvcounts[i], rt)};
    coll::inter_gatherv(c.s(), nullptr, 0, blocks.data(), root);
  } else if (root != MPI_PROC_NULL) {
    coll::inter_gatherv(c.s(), c.in(sendbuf, sendcount, st), Call::bytes(sendcount, st), nullptr,
                        root);
  }
  return c.finish();
}

int scatter(const char* fn, Comm* comm, const void* sendbuf, MPI_Count sendcount,
            MPI_Datatype sendtype, void* recvbuf, MPI_Count recvcount, MPI_Datatype recvtype,
            int root, MPI_Request* req) {
  Datatype *st = nullptr, *rt = nullptr;
  MPR_TRY(check_root(fn, comm, root));
  const bool is_root = root == MPI_ROOT;
  if (is_root) {
    MPR_TRY(no_in_place(fn, comm, sendbuf, "sendbuf"));
    MPR_TRY(check_data(fn, comm, sendbuf, sendcount, sendtype, &st));
  } else if (root != MPI_PROC_NULL) {
    MPR_TRY(no_in_place(fn, comm, recvbuf, "recvbuf"));
    MPR_TRY(check_data(fn, comm, recvbuf, recvcount, recvtype, &rt));
  }
  MPR_TRY(check_req(fn, comm, req));
  Call c(fn, comm, req);
  if (is_root) {
    const size_t m = comm->remote_size();
    coll::inter_scatter(c.s(), c.in(sendbuf, sendcount * m, st), nullptr,
                        Call::bytes(sendcount, st), root);
  } else if (root != MPI_PROC_NULL) {
    coll::inter_scatter(c.s(), nullptr, c.out(recvbuf, recvcount, rt), Call::bytes(recvcount, rt),
                        root);
  }
  return c.finish();
}

int scatterv(const char* fn, Comm* comm, const void* sendbuf, Counts sendcounts, Displs displs,
             MPI_Datatype sendtype, void* recvbuf, MPI_Count recvcount, MPI_Datatype recvtype,
             int root, MPI_Request* req) {
  Datatype *st = nullptr, *rt = nullptr;
  const int m = comm->remote_size();
  MPR_TRY(check_root(fn, comm, root));
  const bool is_root = root == MPI_ROOT;
  if (is_root) {
    MPR_TRY(no_in_place(fn, comm, sendbuf, "sendbuf"));
    MPR_TRY(check_counts(fn, comm, sendcounts, displs, m, "sendcounts or "));
    MPR_TRY(check_type(fn, comm, sendtype, &st));
  } else if (root != MPI_PROC_NULL) {
    MPR_TRY(no_in_place(fn, comm, recvbuf, "recvbuf"));
    MPR_TRY(check_data(fn, comm, recvbuf, recvcount, recvtype, &rt));
  }
  MPR_TRY(check_req(fn, comm, req));
  Call c(fn, comm, req);
  if (is_root) {
    std::vector<Span> blocks(m);
    for (int i = 0; i < m; ++i)
      blocks[i] = {const_cast<char*>(c.in(at(sendbuf, displs[i], st), sendcounts[i], st)),
                   Call::bytes(sendcounts[i], st)};
    coll::inter_scatterv(c.s(), blocks.data(), nullptr, 0, root);
  } else if (root != MPI_PROC_NULL) {
    coll::inter_scatterv(c.s(), nullptr, c.out(recvbuf, recvcount, rt), Call::bytes(recvcount, rt),
                         root);
  }
  return c.finish();
}

int allgather(const char* fn, Comm* comm, const void* sendbuf, MPI_Count sendcount,
              MPI_Datatype sendtype, void* recvbuf, MPI_Count recvcount, MPI_Datatype recvtype,
              MPI_Request* req) {
  Datatype *st = nullptr, *rt = nullptr;
  MPR_TRY(no_in_place(fn, comm, sendbuf, "sendbuf"));
  MPR_TRY(check_data(fn, comm, sendbuf, sendcount, sendtype, &st));
  MPR_TRY(check_data(fn, comm, recvbuf, recvcount, recvtype, &rt));
  MPR_TRY(check_req(fn, comm, req));
  const size_t m = comm->remote_size();
  Call c(fn, comm, req);
  char* rb = c.out(recvbuf, recvcount * m, rt);
  const char* sb = c.in(sendbuf, sendcount, st);
  coll::inter_allgather(c.s(), sb, Call::bytes(sendcount, st), rb, Call::bytes(recvcount, rt));
  return c.finish();
}

int allgatherv(const char* fn, Comm* comm, const void* sendbuf, MPI_Count sendcount,
               MPI_Datatype sendtype, void* recvbuf, Counts recvcounts, Displs displs,
               MPI_Datatype recvtype, MPI_Request* req) {
  Datatype *st = nullptr, *rt = nullptr;
  const int m = comm->remote_size();
  MPR_TRY(no_in_place(fn, comm, sendbuf, "sendbuf"));
  MPR_TRY(check_data(fn, comm, sendbuf, sendcount, sendtype, &st));
  MPR_TRY(check_counts(fn, comm, recvcounts, displs, m, "recvcounts or "));
  MPR_TRY(check_type(fn, comm, recvtype, &rt));
  MPR_TRY(check_req(fn, comm, req));
  Call c(fn, comm, req);
  std::vector<Span> blocks(m);
  for (int i = 0; i < m; ++i)
    blocks[i] = {c.out(at(recvbuf, displs[i], rt), recvcounts[i], rt),
                 Call::bytes(recvcounts[i], rt)};
  coll::inter_allgatherv(c.s(), c.in(sendbuf, sendcount, st), Call::bytes(sendcount, st),
                         blocks.data());
  return c.finish();
}

int alltoall(const char* fn, Comm* comm, const void* sendbuf, MPI_Count sendcount,
             MPI_Datatype sendtype, void* recvbuf, MPI_Count recvcount, MPI_Datatype recvtype,
             MPI_Request* req) {
  Datatype *st = nullptr, *rt = nullptr;
  MPR_TRY(no_in_place(fn, comm, sendbuf, "sendbuf"));
  MPR_TRY(check_data(fn, comm, sendbuf, sendcount, sendtype, &st));
  MPR_TRY(check_data(fn, comm, recvbuf, recvcount, recvtype, &rt));
  MPR_TRY(check_req(fn, comm, req));
  const int m = comm->remote_size();
  Call c(fn, comm, req);
  const size_t sblk = Call::bytes(sendcount, st), rblk = Call::bytes(recvcount, rt);
  const char* sb = c.in(sendbuf, static_cast<size_t>(sendcount) * m, st);
  char* rb = c.out(recvbuf, static_cast<size_t>(recvcount) * m, rt);
  std::vector<Span> sends(m), recvs(m);
  for (int i = 0; i < m; ++i) {
    sends[i] = {const_cast<char*>(sb) + i * sblk, sblk};
    recvs[i] = {rb + i * rblk, rblk};
  }
  coll::inter_alltoallv(c.s(), sends.data(), recvs.data());
  return c.finish();
}

}  // namespace mpr::runtime::api::inter
