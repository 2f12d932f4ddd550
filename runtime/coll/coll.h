// Collective algorithms. Each function appends one collective call's steps to a Schedule (which
// fixes the communicator and the operation's tag); the caller then runs it to completion
// (blocking call) or starts it as a nonblocking request. The algorithm is chosen by the
// decision table in tuning.cc.
//
// Buffers are contiguous bytes: the API layer stages non-contiguous datatypes through packed
// copies (stage.h). Reductions work on `count` elements of `s.reducer().esz` bytes each, in the
// memory layout of the reducer's type. Ranks are communicator ranks; the inter_* builders serve
// intercommunicators.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "runtime/coll/schedule.h"
#include "runtime/comm/comm.h"
#include "runtime/dt/datatype.h"
#include "runtime/dt/op.h"

namespace mpr::runtime::coll {

/// x mod n for x in [0, 2n): rank arithmetic on the latency path of small collectives, where
/// an integer division (tens of cycles, several per call) is a visible part of the cost.
inline int wrap(int x, int n) { return x >= n ? x - n : x; }

/// A block of bytes at one rank (v-variants: one per peer).
struct Span {
  char* ptr;
  size_t bytes;
};

void barrier(Schedule& s);
void bcast(Schedule& s, void* buf, size_t bytes, int root);

/// `sendbuf` may equal `recvbuf` (MPI_IN_PLACE); recvbuf is written at the root only.
/// Non-commutative ops combine exactly x0 op x1 op ... op x(n-1).
void reduce(Schedule& s, const void* sendbuf, void* recvbuf, size_t count, int root);
void allreduce(Schedule& s, const void* sendbuf, void* recvbuf, size_t count);
/// Rank r gets elements [sum(counts[<r]), + counts[r]) of the reduced vector at recvbuf.
/// `sendbuf` holds the whole vector; it may equal recvbuf (in place).
void reduce_scatter(Schedule& s, const void* sendbuf, void* recvbuf, const size_t* counts);
/// Inclusive (or exclusive) prefix reduction; `sendbuf` may equal recvbuf. An exclusive scan
/// leaves rank 0's recvbuf untouched.
void scan(Schedule& s, const void* sendbuf, void* recvbuf, size_t count, bool exclusive);

/// Blocks of `blk` bytes per rank, in rank order at the root. sendbuf == nullptr at the root
/// means in place (its block is already at recvbuf + root * blk).
void gather(Schedule& s, const void* sendbuf, void* recvbuf, size_t blk, int root);
/// recvbuf == nullptr at the root means in place (the root keeps its block in sendbuf).
void scatter(Schedule& s, const void* sendbuf, void* recvbuf, size_t blk, int root);
/// `blocks` (root only) has one entry per rank; sendbuf == nullptr at the root: in place.
void gatherv(Schedule& s, const void* sendbuf, size_t bytes, const Span* blocks, int root);
void scatterv(Schedule& s, const Span* blocks, void* recvbuf, size_t bytes, int root);
/// sendbuf == nullptr: in place (own block already at recvbuf + rank * blk).
void allgather(Schedule& s, const void* sendbuf, void* recvbuf, size_t blk);
/// `blocks[i]` is where rank i's contribution goes; sendbuf == nullptr: in place.
void allgatherv(Schedule& s, const void* sendbuf, const Span* blocks);
/// sendbuf == nullptr: in place (recvbuf holds the blocks to send).
void alltoall(Schedule& s, const void* sendbuf, void* recvbuf, size_t blk);
/// One block to send to and one to receive from each rank (alltoallv, alltoallw). The sends
/// must not overlap the receives (the API stages in-place calls).
void alltoallv(Schedule& s, const Span* sends, const Span* recvs);

// ---- intercommunicators (inter.cc) ----
// Each group gets the other group's data. `root` is the caller's argument: MPI_ROOT at the
// root, MPI_PROC_NULL at the rest of its group (nothing to do), else the root's rank in the
// remote group. Remote-group counts: comm()->remote_size(). No MPI_IN_PLACE.
void inter_barrier(Schedule& s);
void inter_bcast(Schedule& s, void* buf, size_t bytes, int root);
/// The remote group's reduction of `count` elements lands in recvbuf at MPI_ROOT.
void inter_reduce(Schedule& s, const void* sendbuf, void* recvbuf, size_t count, int root);
/// recvbuf gets the reduction of the remote group's sendbufs.
void inter_allreduce(Schedule& s, const void* sendbuf, void* recvbuf, size_t count);
/// The remote group's reduced vector (sum of `counts`, the local group's blocks, elements; the
/// same total in both groups) scattered over the local group.
void inter_reduce_scatter(Schedule& s, const void* sendbuf, void* recvbuf, const size_t* counts);
/// MPI_ROOT receives remote_size() blocks of `blk` bytes; the others send one.
void inter_gather(Schedule& s, const void* sendbuf, void* recvbuf, size_t blk, int root);
void inter_scatter(Schedule& s, const void* sendbuf, void* recvbuf, size_t blk, int root);
/// `blocks`: one per remote rank, at MPI_ROOT.
void inter_gatherv(Schedule& s, const void* sendbuf, size_t bytes, const Span* blocks, int root);
void inter_scatterv(Schedule& s, const Span* blocks, void* recvbuf, size_t bytes, int root);
/// This rank gives `sblk` bytes; recvbuf gets remote_size() blocks of `rblk`.
void inter_allgather(Schedule& s, const void* sendbuf, size_t sblk, void* recvbuf, size_t rblk);
/// `blocks`: where each remote rank's contribution goes.
void inter_allgatherv(Schedule& s, const void* sendbuf, size_t bytes, const Span* blocks);
/// One block to and from each remote rank (alltoall, alltoallv, alltoallw).
void inter_alltoallv(Schedule& s, const Span* sends, const Span* recvs);

/// MPI_Comm_idup (hints == nullptr) and MPI_Comm_idup_with_info: starts the duplication of
/// `parent` as a nonblocking collective and stores its request in *req; *newcomm is written
/// when the request completes. Returns an MPI error code (not raised).
int comm_idup(const char* fn, Comm* parent,
              const std::vector<std::pair<std::string, std::string>>* hints, MPI_Comm* newcomm,
              MPI_Request* req);

// Blocking shortcuts for runtime-internal callers and tests: run one collective on `comm`
// (predefined types, contiguous buffers) and return an MPI error code (not raised).
int barrier(const char* fn, Comm* comm);
int bcast(const char* fn, Comm* comm, void* buf, size_t bytes, int root);

// Blocking collectives on a two-rank intracommunicator without a schedule (pair.cc): the one
// message or exchange the schedule's algorithm would make, for calls whose cost is mostly the
// schedule's. Buffers contiguous; MPI error codes returned, not raised.
/// The root's one message.
int bcast_pair(const char* fn, Comm* comm, void* buf, size_t bytes, int root);
/// Vectors of at most kPairReduceMax bytes of a predefined `type` (count * extent); `sendbuf`
/// nullptr for MPI_IN_PLACE.
constexpr size_t kPairReduceMax = 2048;
int allreduce_pair(const char* fn, Comm* comm, const void* sendbuf, void* recvbuf, size_t count,
                   const Datatype* type, const Op* op);
/// Blocks of `bytes` each (not in place).
int alltoall_pair(const char* fn, Comm* comm, const char* sendbuf, char* recvbuf, size_t bytes);
int allreduce(const char* fn, Comm* comm, const void* sendbuf, void* recvbuf, int count,
              const Datatype* type, const Op* op);
/// Max over the communicator of one value per rank.
int allreduce_max_u64(const char* fn, Comm* comm, uint64_t in, uint64_t* out);

}  // namespace mpr::runtime::coll
