// Reduce by binomial tree, allreduce as reduce + bcast.
#include <cstring>
#include <memory>

#include "runtime/coll/coll.h"
#include "runtime/coll/transfer.h"
#include "runtime/datatype.h"
#include "runtime/op.h"

namespace mpr::runtime::coll {

int reduce(const char* fn, Comm* comm, const void* sendbuf, void* recvbuf, int count,
           const Datatype* type, const Op* op, int root) {
  const int n = comm->size(), rank = comm->rank();
  const size_t bytes = static_cast<size_t>(count) * type->extent;
  if (n == 1) {
    if (sendbuf != recvbuf && bytes > 0) std::memcpy(recvbuf, sendbuf, bytes);
    return MPI_SUCCESS;
  }
  // A commutative op may use a tree rooted at `root`. A non-commutative one uses the tree
  // rooted at rank 0, where node v always holds the result over ranks [v, v + 2^k) and
  // combines it with the next higher block on its left, so the result is
  // x0 op x1 op ... op x(n-1) exactly; rank 0 then forwards it to the root.
  const int tree_root = op->commute ? root : 0;
  const int v = (rank - tree_root + n) % n;
  auto acc = std::make_unique<char[]>(bytes);
  auto tmp = std::make_unique<char[]>(bytes);
  if (bytes > 0) std::memcpy(acc.get(), sendbuf, bytes);
  for (int mask = 1; mask < n; mask <<= 1) {
    if (v & mask) {
      // Hand the partial result to the parent and leave the tree. A root that is not the
      // tree's root then gets the final result from rank 0.
      int rc = send(fn, comm, acc.get(), bytes, (v - mask + tree_root) % n, kTagReduce);
      if (rc != MPI_SUCCESS || rank != root) return rc;
      return recv(fn, comm, recvbuf, bytes, tree_root, kTagReduceToRoot);
    }
    if (v + mask < n) {
      int rc = recv(fn, comm, tmp.get(), bytes, (v + mask + tree_root) % n, kTagReduce);
      if (rc != MPI_SUCCESS) return rc;
      op_apply(op, acc.get(), tmp.get(), count, type);  // tmp = acc op tmp
      std::swap(acc, tmp);
    }
  }
  // Only the tree's root gets here.
  if (rank == root) {
    if (bytes > 0) std::memcpy(recvbuf, acc.get(), bytes);
    return MPI_SUCCESS;
  }
  return send(fn, comm, acc.get(), bytes, root, kTagReduceToRoot);
}

int allreduce(const char* fn, Comm* comm, const void* sendbuf, void* recvbuf, int count,
              const Datatype* type, const Op* op) {
  int rc = reduce(fn, comm, sendbuf, recvbuf, count, type, op, 0);
  if (rc != MPI_SUCCESS) return rc;
  return bcast(fn, comm, recvbuf, static_cast<size_t>(count) * type->extent, 0);
}

int allreduce_max_u64(const char* fn, Comm* comm, uint64_t in, uint64_t* out) {
  return allreduce(fn, comm, &in, out, 1, predefined_datatype(Basic::kUInt64),
                   predefined_op(OpId::kMax));
}

}  // namespace mpr::runtime::coll
