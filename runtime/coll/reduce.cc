// Reduce (binomial, Rabenseifner) and allreduce (recursive doubling, Rabenseifner, ring).
#include <utility>

#include "runtime/coll/coll.h"
#include "runtime/coll/halving.h"
#include "runtime/coll/tuning.h"
#include "runtime/dt/datatype.h"

namespace mpr::runtime::coll {

namespace {

CallShape shape_of(const Schedule& s, size_t count) {
  CallShape shape;
  shape.ranks = s.size();
  shape.count = count;
  shape.bytes = count * s.reducer().esz;
  shape.commutative = s.reducer().commutative();
  return shape;
}

// A commutative op uses a tree rooted at the root. Otherwise the tree is rooted at rank 0, where
// node v holds the result over ranks [v, v + 2^k) and combines it with the next higher block on
// its right, so the result is exactly x0 op x1 op ... op x(n-1); rank 0 forwards it.
void reduce_binomial(Schedule& s, const void* sendbuf, void* recvbuf, size_t count, int root) {
  const int n = s.size(), rank = s.rank();
  const size_t bytes = count * s.reducer().esz;
  const int tree_root = s.reducer().commutative() ? root : 0;
  const int v = wrap(rank - tree_root + n, n);
  int parent = -1;
  // At most one child per bit of the rank count: fixed arrays, so a small reduce takes no heap.
  constexpr int kMaxChildren = 32;
  int children[kMaxChildren];
  int nchildren = 0;
  for (int mask = 1; mask < n; mask <<= 1) {
    if (v & mask) {
      parent = wrap(v - mask + tree_root, n);
      break;
    }
    if (v + mask < n) children[nchildren++] = wrap(v + mask + tree_root, n);
  }
  // Children's partial results arrive in any order into their own buffers, then fold in from
  // the lowest: after child i, bufs[i] = mine op child_0 op ... op child_i. At the root the
  // last buffer is recvbuf itself (unless in place), so the result needs no copy.
  const bool last_in_recvbuf = rank == root && rank == tree_root && recvbuf != sendbuf;
  char* bufs[kMaxChildren];
  for (int i = 0; i < nchildren; ++i) {
    bufs[i] =
        last_in_recvbuf && i == nchildren - 1 ? static_cast<char*>(recvbuf) : s.scratch(bytes);
    s.recv(bufs[i], bytes, children[i]);
  }
  const char* acc = static_cast<const char*>(sendbuf);
  for (int i = 0; i < nchildren; ++i) {
    s.reduce(acc, bufs[i], count);
    acc = bufs[i];
  }
  if (parent >= 0)
    s.send(acc, bytes, parent);
  else if (rank == root)
    s.copy(recvbuf, acc, bytes);
  else
    s.send(acc, bytes, root);
  if (rank == root && rank != tree_root) {
    s.fence();
    s.recv(recvbuf, bytes, tree_root);
  }
}

// The reduce-scatter both Rabenseifner algorithms start with, over the folded power of two:
// the odd rank of each folded pair combines its even neighbour's vector into its own, then
// recursive halving at distance 1, 2, 4, ... leaves new rank nr (not one that sits out) with its
// window h.window(nr, h.levels) fully reduced in `work`.
void reduce_scatter_halving(Schedule& s, const Fold& f, const Halving& h, int nr,
                            const void* sendbuf, char* work, size_t count) {
  const int rank = s.rank();
  const size_t esz = s.reducer().esz, bytes = count * esz;
  char* tmp = s.scratch(bytes);
  s.copy(work, sendbuf, bytes);
  if (rank < 2 * f.rem) {
    s.recv(tmp, bytes, rank - 1);
    s.reduce(tmp, work, count);
  }
  size_t lo, hi, plo, phi;
  for (int k = 0; k < h.levels; ++k) {
    const int pnr = nr ^ (1 << k), peer = f.real_rank(pnr);
    h.window(nr, k + 1, &lo, &hi);
    h.window(pnr, k + 1, &plo, &phi);
    s.fence();
    s.recv(tmp + lo * esz, (hi - lo) * esz, peer);
    s.send(work + plo * esz, (phi - plo) * esz, peer);
    s.reduce(tmp + lo * esz, work + lo * esz, hi - lo);
  }
}

// Recursive halving over the folded power of two (each new rank ends up owning one reduced
// block), then a binomial gather of the blocks to the root's new rank.
void reduce_rabenseifner(Schedule& s, const void* sendbuf, void* recvbuf, size_t count, int root) {
  const int rank = s.rank();
  const size_t esz = s.reducer().esz, bytes = count * esz;
  const Fold f(s.size());
  const Halving h(count, f.pof2);
  // An even root below 2*rem sits out; its odd neighbour collects the result for it.
  const int proxy = root < 2 * f.rem && root % 2 == 0 ? root + 1 : root;
  const int nr = f.new_rank(rank);
  if (nr < 0) {
    s.send(sendbuf, bytes, rank + 1);
    if (rank == root) {
      s.fence();
      s.recv(recvbuf, bytes, proxy);
    }
    return;
  }
  char* work = rank == root ? static_cast<char*>(recvbuf) : s.scratch(bytes);
  reduce_scatter_halving(s, f, h, nr, sendbuf, work, count);
  size_t lo, hi, plo, phi;
  // Undo the halving towards the root: at level k the pair differing in bit k merges its
  // windows at whichever side agrees with the root's bit; the other side is done.
  const int nroot = f.new_rank(proxy);
  for (int k = h.levels - 1; k >= 0; --k) {
    const int bit = 1 << k, pnr = nr ^ bit, peer = f.real_rank(pnr);
    s.fence();
    if ((nr & bit) == (nroot & bit)) {
      h.window(pnr, k + 1, &plo, &phi);
      s.recv(work + plo * esz, (phi - plo) * esz, peer);
    } else {
      h.window(nr, k + 1, &lo, &hi);
      s.send(work + lo * esz, (hi - lo) * esz, peer);
      return;
    }
  }
  if (rank != root) {
    s.fence();
    s.send(work, bytes, root);
  }
}

// Whole-vector exchanges at distance 1, 2, 4, ... over the folded power of two. Each new rank
// stands for a contiguous run of ranks, and the lower run always goes on the left, so
// non-commutative ops combine in rank order.
void allreduce_recursive_doubling(Schedule& s, const void* sendbuf, void* recvbuf, size_t count) {
  const int rank = s.rank();
  const size_t bytes = count * s.reducer().esz;
  const bool commute = s.reducer().commutative();
  const Fold f(s.size());
  const int nr = f.new_rank(rank);
  char* acc = static_cast<char*>(recvbuf);
  if (nr < 0) {
    s.send(sendbuf, bytes, rank + 1);
    s.fence();
    s.recv(acc, bytes, rank + 1);
    return;
  }
  char* a = acc;
  int mask = 1;
  const bool folds_in = rank < 2 * f.rem;
  if (!folds_in && sendbuf != acc && (commute || (nr ^ 1) > nr)) {
    // The first exchange goes straight from sendbuf into recvbuf, then combines into recvbuf:
    // no copy of sendbuf first, so the send leaves before any local work, and with one round
    // (2 ranks) no scratch. The peer is the higher run here unless the op commutes.
    const int peer = f.real_rank(nr ^ 1);
    s.send(sendbuf, bytes, peer);
    s.recv(acc, bytes, peer);
    s.reduce(sendbuf, acc, count);
    mask = 2;
  } else {
    s.copy(acc, sendbuf, bytes);
  }
  char* t = mask < f.pof2 || folds_in ? s.scratch(bytes) : nullptr;
  if (folds_in) {
    s.recv(t, bytes, rank - 1);
    s.reduce(t, a, count);
  }
  for (; mask < f.pof2; mask <<= 1) {
    const int pnr = nr ^ mask, peer = f.real_rank(pnr);
    s.fence();
    // Send first: the partner waits for it, and by the time the receive is posted our own
    // message may be here already (then it completes without a pml request).
    s.send(a, bytes, peer);
    s.recv(t, bytes, peer);
    if (pnr < nr || commute) {
      s.reduce(t, a, count);
    } else {
      s.reduce(a, t, count);
      std::swap(a, t);
    }
  }
  s.copy(acc, a, bytes);
  if (rank < 2 * f.rem) {
    s.fence();
    s.send(acc, bytes, rank - 1);
  }
}

// Recursive halving (reduce-scatter), then recursive doubling of the owned windows
// (allgather), over the folded power of two.
void allreduce_rabenseifner(Schedule& s, const void* sendbuf, void* recvbuf, size_t count) {
  const int rank = s.rank();
  const size_t esz = s.reducer().esz, bytes = count * esz;
  const Fold f(s.size());
  const Halving h(count, f.pof2);
  const int nr = f.new_rank(rank);
  char* work = static_cast<char*>(recvbuf);
  if (nr < 0) {
    s.send(sendbuf, bytes, rank + 1);
    s.fence();
    s.recv(work, bytes, rank + 1);
    return;
  }
  reduce_scatter_halving(s, f, h, nr, sendbuf, work, count);
  size_t lo, hi, plo, phi;
  for (int k = h.levels - 1; k >= 0; --k) {
    const int pnr = nr ^ (1 << k), peer = f.real_rank(pnr);
    h.window(nr, k + 1, &lo, &hi);
    h.window(pnr, k + 1, &plo, &phi);
    s.fence();
    s.recv(work + plo * esz, (phi - plo) * esz, peer);
    s.send(work + lo * esz, (hi - lo) * esz, peer);
  }
  if (rank < 2 * f.rem) {
    s.fence();
    s.send(work, bytes, rank - 1);
  }
}

// Ring reduce-scatter (n-1 steps, block i ends complete at rank i-1), then ring allgather.
void allreduce_ring(Schedule& s, const void* sendbuf, void* recvbuf, size_t count) {
  const int n = s.size(), r = s.rank();
  const size_t esz = s.reducer().esz;
  const Halving blocks(count, n);  // only its block boundaries are used
  auto off = [&](int b) { return blocks.disp[b] * esz; };
  auto cnt = [&](int b) { return blocks.disp[b + 1] - blocks.disp[b]; };
  char* acc = static_cast<char*>(recvbuf);
  char* tmp = s.scratch(cnt(0) * esz);  // block 0 is the largest
  s.copy(acc, sendbuf, count * esz);
  const int right = (r + 1) % n, left = (r - 1 + n) % n;
  for (int step = 0; step < n - 1; ++step) {
    const int out = (r - step + n) % n, in = (r - step - 1 + n) % n;
    s.fence();
    s.recv(tmp, cnt(in) * esz, left);
    s.send(acc + off(out), cnt(out) * esz, right);
    s.reduce(tmp, acc + off(in), cnt(in));
  }
  for (int step = 0; step < n - 1; ++step) {
    const int out = (r + 1 - step + n) % n, in = (r - step + n) % n;
    s.fence();
    s.recv(acc + off(in), cnt(in) * esz, left);
    s.send(acc + off(out), cnt(out) * esz, right);
  }
}

}  // namespace

void reduce(Schedule& s, const void* sendbuf, void* recvbuf, size_t count, int root) {
  if (count == 0) return;
  if (s.size() == 1) {
    s.copy(recvbuf, sendbuf, count * s.reducer().esz);
    return;
  }
  if (choose(Coll::kReduce, shape_of(s, count)) == Alg::kRabenseifner)
    reduce_rabenseifner(s, sendbuf, recvbuf, count, root);
  else
    reduce_binomial(s, sendbuf, recvbuf, count, root);
}

void allreduce(Schedule& s, const void* sendbuf, void* recvbuf, size_t count) {
  if (count == 0) return;
  if (s.size() == 1) {
    s.copy(recvbuf, sendbuf, count * s.reducer().esz);
    return;
  }
  switch (choose(Coll::kAllreduce, shape_of(s, count))) {
    case Alg::kRabenseifner:
      allreduce_rabenseifner(s, sendbuf, recvbuf, count);
      break;
    case Alg::kRing:
      allreduce_ring(s, sendbuf, recvbuf, count);
      break;
    default:
      allreduce_recursive_doubling(s, sendbuf, recvbuf, count);
      break;
  }
}

int allreduce(const char* fn, Comm* comm, const void* sendbuf, void* recvbuf, int count,
              const Datatype* type, const Op* op) {
  Schedule s(fn, comm, Schedule::Mode::kImmediate);
  s.set_reducer({op, type, static_cast<size_t>(type->extent), false});
  allreduce(s, sendbuf, recvbuf, static_cast<size_t>(count));
  s.seal();
  return s.run();
}

int allreduce_max_u64(const char* fn, Comm* comm, uint64_t in, uint64_t* out) {
  return allreduce(fn, comm, &in, out, 1, predefined_datatype(Basic::kUInt64),
                   predefined_op(OpId::kMax));
}

}  // namespace mpr::runtime::coll
