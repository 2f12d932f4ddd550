// Shared pieces of the reduce-scatter-based reductions (Rabenseifner reduce and allreduce):
// folding a non-power-of-two communicator onto a power of two, and the block windows of
// recursive halving. The halving phase itself, which both start with, is
// reduce_scatter_halving() in reduce.cc.
#pragma once

#include <cstddef>
#include <vector>

namespace mpr::runtime::coll {

/// Ranks 0 .. 2*rem-1 pair up (even r folds into r+1), the rest keep going alone, so that
/// pof2 = n - rem "new ranks" remain, numbered in rank order.
struct Fold {
  int n, pof2, rem;
  explicit Fold(int size) : n(size), pof2(1) {
    while (pof2 * 2 <= n) pof2 *= 2;
    rem = n - pof2;
  }
  /// New rank of real rank r, or -1 for an even rank below 2*rem (it sits out).
  int new_rank(int r) const {
    if (r < 2 * rem) return r % 2 ? r / 2 : -1;
    return r - rem;
  }
  int real_rank(int nr) const { return nr < rem ? 2 * nr + 1 : nr + rem; }
};

/// The vector of `count` elements cut into pof2 blocks; recursive halving with distance 1, 2,
/// 4, ... keeps, at level k, the half of the level-(k-1) window selected by bit k-1 of the new
/// rank. Windows are [lo, hi) in elements.
struct Halving {
  int pof2, levels;
  std::vector<size_t> disp;  // pof2 + 1 block boundaries, in elements
  Halving(size_t count, int p) : pof2(p), levels(0), disp(p + 1) {
    while ((1 << levels) < p) ++levels;
    size_t each = count / p, extra = count % p;
    for (int i = 0; i < p; ++i) disp[i + 1] = disp[i] + each + (static_cast<size_t>(i) < extra);
  }
  /// Element range nr holds after `level` halving steps.
  void window(int nr, int level, size_t* lo, size_t* hi) const {
    int b = 0, e = pof2;
    for (int k = 0; k < level; ++k) {
      int mid = (b + e) / 2;
      if (nr >> k & 1)
        b = mid;
      else
        e = mid;
    }
    *lo = disp[b];
    *hi = disp[e];
  }
};

}  // namespace mpr::runtime::coll
