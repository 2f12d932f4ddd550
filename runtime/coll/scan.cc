// Reduce_scatter (ring, or reduce then scatterv) and scan / exscan (recursive doubling).
#include <algorithm>
#include <utility>
#include <vector>

#include "runtime/coll/coll.h"
#include "runtime/coll/tuning.h"

namespace mpr::runtime::coll {

namespace {

// Ring: in step k a rank passes its partial sum of block r-k-1 to the right and folds the left
// neighbour's partial of block r-k-2 into its own; after n-1 steps it holds block r complete.
void reduce_scatter_ring(Schedule& s, const void* sendbuf, void* recvbuf, const size_t* counts,
                         const std::vector<size_t>& disp) {
  const int n = s.size(), r = s.rank();
  const size_t esz = s.reducer().esz;
  const size_t total = disp[n];
  size_t largest = 0;
  for (int i = 0; i < n; ++i) largest = std::max(largest, counts[i]);
  char* acc = s.scratch(total * esz);
  char* tmp = s.scratch(largest * esz);
  s.copy(acc, sendbuf, total * esz);
  const int right = (r + 1) % n, left = (r - 1 + n) % n;
  for (int step = 0; step < n - 1; ++step) {
    const int out = (r - step - 1 + n) % n, in = (r - step - 2 + 2 * n) % n;
    s.fence();
    s.recv(tmp, counts[in] * esz, left);
    s.send(acc + disp[out] * esz, counts[out] * esz, right);
    s.reduce(tmp, acc + disp[in] * esz, counts[in]);
  }
  s.copy(recvbuf, acc + disp[r] * esz, counts[r] * esz);
}

void reduce_then_scatter(Schedule& s, const void* sendbuf, void* recvbuf, const size_t* counts,
                         const std::vector<size_t>& disp) {
  const int n = s.size(), r = s.rank();
  const size_t esz = s.reducer().esz;
  char* full = r == 0 ? s.scratch(disp[n] * esz) : nullptr;
  reduce(s, sendbuf, full, disp[n], 0);
  std::vector<Span> blocks(n);
  for (int i = 0; i < n; ++i) blocks[i] = {full + disp[i] * esz, counts[i] * esz};
  s.fence();
  scatterv(s, r == 0 ? blocks.data() : nullptr, recvbuf, counts[r] * esz, 0);
}

}  // namespace

void reduce_scatter(Schedule& s, const void* sendbuf, void* recvbuf, const size_t* counts) {
  const int n = s.size();
  std::vector<size_t> disp(n + 1);
  for (int i = 0; i < n; ++i) disp[i + 1] = disp[i] + counts[i];
  if (disp[n] == 0) return;
  if (n == 1) {
    s.copy(recvbuf, sendbuf, counts[0] * s.reducer().esz);
    return;
  }
  CallShape shape;
  shape.ranks = n;
  shape.count = disp[n];
  shape.bytes = disp[n] * s.reducer().esz;
  shape.commutative = s.reducer().commutative();
  if (choose(Coll::kReduceScatter, shape) == Alg::kRing)
    reduce_scatter_ring(s, sendbuf, recvbuf, counts, disp);
  else
    reduce_then_scatter(s, sendbuf, recvbuf, counts, disp);
}

// Recursive doubling: at distance d a rank swaps `partial` (the reduction over its aligned run
// of d ranks) with rank r^d; a partial from lower ranks also folds into the result. Lower runs
// always go on the left, so non-commutative ops see rank order.
void scan(Schedule& s, const void* sendbuf, void* recvbuf, size_t count, bool exclusive) {
  const int n = s.size(), r = s.rank();
  const size_t bytes = count * s.reducer().esz;
  if (count == 0) return;
  char* result = static_cast<char*>(recvbuf);
  if (n == 1) {
    if (!exclusive) s.copy(result, sendbuf, bytes);
    return;
  }
  char* partial = s.scratch(bytes);
  char* tmp = s.scratch(bytes);
  s.copy(partial, sendbuf, bytes);
  if (!exclusive) s.copy(result, sendbuf, bytes);
  bool have_result = !exclusive;
  for (int mask = 1; mask < n; mask <<= 1) {
    const int peer = r ^ mask;
    if (peer >= n) continue;
    s.fence();
    s.recv(tmp, bytes, peer);
    s.send(partial, bytes, peer);
    if (peer < r) {
      if (have_result)
        s.reduce(tmp, result, count);
      else
        s.copy(result, tmp, bytes);
      have_result = true;
      s.reduce(tmp, partial, count);
    } else {
      s.reduce(partial, tmp, count);
      std::swap(partial, tmp);
    }
  }
}

}  // namespace mpr::runtime::coll
