// Barrier by dissemination, bcast by binomial tree.
#include <vector>

#include "runtime/coll/coll.h"
#include "runtime/coll/transfer.h"

namespace mpr::runtime::coll {

int barrier(const char* fn, Comm* comm) {
  // Round k: tell rank+k we arrived, hear from rank-k. After ceil(log2 n) rounds every rank
  // has (transitively) heard from every other one.
  const int n = comm->size(), r = comm->rank();
  for (int k = 1; k < n; k <<= 1) {
    int rc = sendrecv(fn, comm, nullptr, 0, (r + k) % n, nullptr, 0, (r - k + n) % n,
                      kTagBarrier);
    if (rc != MPI_SUCCESS) return rc;
  }
  return MPI_SUCCESS;
}

int bcast(const char* fn, Comm* comm, void* buf, size_t bytes, int root) {
  const int n = comm->size();
  if (n == 1) return MPI_SUCCESS;
  // Ranks relative to the root: v receives from v minus its lowest set bit, then sends to
  // v + 2^j for each 2^j below that bit.
  const int v = (comm->rank() - root + n) % n;
  int mask = 1;
  for (; mask < n; mask <<= 1) {
    if (v & mask) {
      int rc = recv(fn, comm, buf, bytes, (v - mask + root) % n, kTagBcast);
      if (rc != MPI_SUCCESS) return rc;
      break;
    }
  }
  std::vector<int> children;
  for (mask >>= 1; mask > 0; mask >>= 1)
    if (v + mask < n) children.push_back((v + mask + root) % n);
  return send_many(fn, comm, buf, bytes, children.data(), static_cast<int>(children.size()),
                   kTagBcast);
}

}  // namespace mpr::runtime::coll
