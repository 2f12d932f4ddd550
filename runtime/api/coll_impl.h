// Internal to the collective entry points (coll.cc, coll_inter.cc): the argument checks they
// share and the intercommunicator versions of the calls coll.cc dispatches to.
#pragma once

#include <cstddef>
#include <functional>
#include <vector>

#include "mpi.h"
#include "runtime/comm/comm.h"
#include "runtime/dt/datatype.h"
#include "runtime/dt/op.h"

namespace mpr::runtime::api {

/// The per-rank counts of a v/w collective: the int array of the classic form or the MPI_Count
/// array of its _c form (one code path serves both).
class Counts {
 public:
  Counts(std::nullptr_t) {}
  Counts(const int* p) : i32_(p) {}
  Counts(const MPI_Count* p) : i64_(p) {}
  explicit operator bool() const { return i32_ || i64_; }
  MPI_Count operator[](int i) const { return i32_ ? i32_[i] : i64_[i]; }

 private:
  const int* i32_ = nullptr;
  const MPI_Count* i64_ = nullptr;
};

/// Displacements likewise: int in the classic forms, MPI_Aint in the _c forms (and in the
/// byte displacements of the w variants).
class Displs {
 public:
  Displs(std::nullptr_t) {}
  Displs(const int* p) : i32_(p) {}
  Displs(const MPI_Aint* p) : i64_(p) {}
  explicit operator bool() const { return i32_ || i64_; }
  MPI_Aint operator[](int i) const { return i32_ ? i32_[i] : i64_[i]; }

 private:
  const int* i32_ = nullptr;
  const MPI_Aint* i64_ = nullptr;
};

/// The request argument of a nonblocking collective: not NULL. The last check of every form
/// (nothing starts before it), so that persistent_init can run them all.
int check_request_arg(const char* fn, Comm* comm, MPI_Request* req);

/// Persistent collectives (MPI_*_init). `start(req)` runs the nonblocking form of the call
/// (named `fn` in its messages). persistent_init runs it once with check_only_request(), whose
/// request check returns kChecksPassed instead of starting anything, so a bad argument is
/// reported by the init call; then it makes the persistent request, each MPI_Start of which
/// runs `start` again on a tag reserved now (a neighborhood collective's set of tags with
/// `neighbor`). `types` are retained while the request lives (they may be freed first).
MPI_Request* check_only_request();
constexpr int kChecksPassed = -1;
int persistent_init(const char* fn, MPI_Comm comm, MPI_Info info, bool neighbor,
                    const std::vector<MPI_Datatype>& types, std::function<int(MPI_Request*)> start,
                    MPI_Request* request);
/// The op must be defined on the type; MPI_REPLACE / MPI_NO_OP belong to accumulates only.
int check_op_for(const char* fn, Comm* comm, const Op* op, const Datatype* dt);
/// Count, datatype and buffer of one side of a call.
int check_data(const char* fn, Comm* comm, const void* buf, MPI_Count count, MPI_Datatype type,
               Datatype** dt);
/// `n` non-negative counts (and displacements unless `what` is null).
int check_counts(const char* fn, Comm* comm, Counts counts, Displs displs, int n, const char* what);
/// Reduce_scatter's per-rank counts (`recvcounts`, or `block` for each of `size` ranks when it
/// is null: Reduce_scatter_block) and their sum.
int reduce_scatter_counts(const char* fn, Comm* comm, Counts recvcounts, MPI_Count block, int size,
                          std::vector<MPI_Count>* counts, MPI_Count* total);
/// The common checks of a reduction; `recv_here` says whether this rank writes recvbuf.
int check_reduction(const char* fn, Comm* comm, const void* sendbuf, const void* recvbuf,
                    MPI_Count count, MPI_Datatype type, MPI_Op op, bool recv_here, Datatype** dt,
                    Op** o);
/// buf + elems extents of t.
char* at(const void* buf, size_t elems, const Datatype* t);

// Intercommunicator forms (coll_inter.cc); `comm` is checked and an intercommunicator.
// req == nullptr: the blocking call.
namespace inter {
int barrier(const char* fn, Comm* comm, MPI_Request* req);
int bcast(const char* fn, Comm* comm, void* buffer, MPI_Count count, MPI_Datatype type, int root,
          MPI_Request* req);
int reduce(const char* fn, Comm* comm, const void* sendbuf, void* recvbuf, MPI_Count count,
           MPI_Datatype type, MPI_Op op, int root, MPI_Request* req);
int allreduce(const char* fn, Comm* comm, const void* sendbuf, void* recvbuf, MPI_Count count,
              MPI_Datatype type, MPI_Op op, MPI_Request* req);
/// recvcounts == nullptr: the _block variant with `block` elements per local rank.
int reduce_scatter(const char* fn, Comm* comm, const void* sendbuf, void* recvbuf,
                   Counts recvcounts, MPI_Count block, MPI_Datatype type, MPI_Op op,
                   MPI_Request* req);
int gather(const char* fn, Comm* comm, const void* sendbuf, MPI_Count sendcount,
           MPI_Datatype sendtype, void* recvbuf, MPI_Count recvcount, MPI_Datatype recvtype,
           int root, MPI_Request* req);
int gatherv(const char* fn, Comm* comm, const void* sendbuf, MPI_Count sendcount,
            MPI_Datatype sendtype, void* recvbuf, Counts recvcounts, Displs displs,
            MPI_Datatype recvtype, int root, MPI_Request* req);
int scatter(const char* fn, Comm* comm, const void* sendbuf, MPI_Count sendcount,
            MPI_Datatype sendtype, void* recvbuf, MPI_Count recvcount, MPI_Datatype recvtype,
            int root, MPI_Request* req);
int scatterv(const char* fn, Comm* comm, const void* sendbuf, Counts sendcounts, Displs displs,
             MPI_Datatype sendtype, void* recvbuf, MPI_Count recvcount, MPI_Datatype recvtype,
             int root, MPI_Request* req);
int allgather(const char* fn, Comm* comm, const void* sendbuf, MPI_Count sendcount,
              MPI_Datatype sendtype, void* recvbuf, MPI_Count recvcount, MPI_Datatype recvtype,
              MPI_Request* req);
int allgatherv(const char* fn, Comm* comm, const void* sendbuf, MPI_Count sendcount,
               MPI_Datatype sendtype, void* recvbuf, Counts recvcounts, Displs displs,
               MPI_Datatype recvtype, MPI_Request* req);
int alltoall(const char* fn, Comm* comm, const void* sendbuf, MPI_Count sendcount,
             MPI_Datatype sendtype, void* recvbuf, MPI_Count recvcount, MPI_Datatype recvtype,
             MPI_Request* req);
}  // namespace inter

}  // namespace mpr::runtime::api
