// Gather and scatter (binomial, linear), their v-variants (linear), allgather (recursive
// doubling, Bruck, ring) and allgatherv (ring).
#include <algorithm>
#include <vector>

#include "runtime/coll/coll.h"
#include "runtime/coll/tuning.h"

namespace mpr::runtime::coll {

namespace {

CallShape shape_of(const Schedule& s, size_t bytes) {
  CallShape shape;
  shape.ranks = s.size();
  shape.bytes = bytes;
  return shape;
}

// In a binomial tree over relative ranks, v (> 0) has parent v minus its lowest set bit and
// owns the subtree [v, v + lowbit(v)); the root owns [0, n).
int subtree(int v, int n) { return v == 0 ? n : std::min(v & -v, n - v); }

// Relative rank j's block sits at absolute rank (j + root) % n: rotate `rel` (n blocks in
// relative order) into `out` (absolute order), or back.
void rotate_to_absolute(Schedule& s, char* out, const char* rel, size_t blk, int root) {
  const int n = s.size();
  s.copy(out + root * blk, rel, (n - root) * blk);
  s.copy(out, rel + (n - root) * blk, root * blk);
}
void rotate_to_relative(Schedule& s, char* rel, const char* abs, size_t blk, int root) {
  const int n = s.size();
  s.copy(rel, abs + root * blk, (n - root) * blk);
  s.copy(rel + (n - root) * blk, abs, root * blk);
}

void gather_binomial(Schedule& s, const void* sendbuf, void* recvbuf, size_t blk, int root) {
  const int n = s.size(), rank = s.rank(), v = (rank - root + n) % n, sub = subtree(v, n);
  char* rbuf = static_cast<char*>(recvbuf);
  const char* mine = sendbuf ? static_cast<const char*>(sendbuf) : rbuf + rank * blk;
  auto abs = [&](int rel) { return (rel + root) % n; };
  if (sub == 1 && v != 0) {
    s.send(mine, blk, abs(v - (v & -v)));
    return;
  }
  // Collect the subtree's blocks in relative order; at root 0 that is the final order.
  char* buf = v == 0 && root == 0 ? rbuf : s.scratch(sub * blk);
  s.copy(buf, mine, blk);
  for (int mask = 1; mask < sub; mask <<= 1) {
    const int child = v + mask;
    s.recv(buf + mask * blk, std::min(mask, n - child) * blk, abs(child));
  }
  s.fence();
  if (v != 0)
    s.send(buf, sub * blk, abs(v - (v & -v)));
  else if (buf != rbuf)
    rotate_to_absolute(s, rbuf, buf, blk, root);
}

void gather_linear(Schedule& s, const void* sendbuf, void* recvbuf, size_t blk, int root) {
  const int n = s.size(), rank = s.rank();
  if (rank != root) {
    s.send(sendbuf, blk, root);
    return;
  }
  char* rbuf = static_cast<char*>(recvbuf);
  if (sendbuf) s.copy(rbuf + rank * blk, sendbuf, blk);
  for (int i = 0; i < n; ++i)
    if (i != root) s.recv(rbuf + i * blk, blk, i);
}

void scatter_binomial(Schedule& s, const void* sendbuf, void* recvbuf, size_t blk, int root) {
  const int n = s.size(), rank = s.rank(), v = (rank - root + n) % n, sub = subtree(v, n);
  auto abs = [&](int rel) { return (rel + root) % n; };
  if (sub == 1 && v != 0) {
    s.recv(recvbuf, blk, abs(v - (v & -v)));
    return;
  }
  const char* src;
  if (v == 0) {
    if (root == 0) {
      src = static_cast<const char*>(sendbuf);
    } else {
      char* rel = s.scratch(n * blk);
      rotate_to_relative(s, rel, static_cast<const char*>(sendbuf), blk, root);
      src = rel;
    }
  } else {
    char* buf = s.scratch(sub * blk);
    s.recv(buf, sub * blk, abs(v - (v & -v)));
    src = buf;
  }
  if (recvbuf) s.copy(recvbuf, src, blk);
  int mask = 1;
  while (mask * 2 < sub) mask *= 2;
  s.fence();
  for (; mask > 0; mask >>= 1) {
    const int child = v + mask;
    if (mask < sub) s.send(src + mask * blk, std::min(mask, n - child) * blk, abs(child));
  }
}

void scatter_linear(Schedule& s, const void* sendbuf, void* recvbuf, size_t blk, int root) {
  const int n = s.size(), rank = s.rank();
  if (rank != root) {
    s.recv(recvbuf, blk, root);
    return;
  }
  const char* sbuf = static_cast<const char*>(sendbuf);
  if (recvbuf) s.copy(recvbuf, sbuf + rank * blk, blk);
  for (int k = 1; k < n; ++k) {
    const int i = (root + k) % n;
    s.send(sbuf + i * blk, blk, i);
  }
}

// log2(n) rounds, each doubling the contiguous run of blocks a rank holds (powers of two).
// Send first: the partner waits for it, and by the time the receive is posted the partner's
// message may be here already (then it completes without a pml request). 2 ranks, us per call:
// 8 B blocks 0.136-0.140 -> 0.124-0.127, 256 B 0.155-0.167 -> 0.136-0.143; 4 ranks unchanged.
void allgather_recursive_doubling(Schedule& s, char* rbuf, size_t blk) {
  const int n = s.size(), r = s.rank();
  for (int mask = 1; mask < n; mask <<= 1) {
    const int peer = r ^ mask;
    s.fence();
    s.send(rbuf + (r / mask) * mask * blk, mask * blk, peer);
    s.recv(rbuf + (peer / mask) * mask * blk, mask * blk, peer);
  }
}

// After the round at distance d a rank holds the blocks of ranks r .. r+2d-1 (relative order
// in a scratch buffer); any n, ceil(log2 n) rounds, one final rotation.
void allgather_bruck(Schedule& s, const char* mine, char* rbuf, size_t blk) {
  const int n = s.size(), r = s.rank();
  char* tmp = s.scratch(n * blk);
  s.copy(tmp, mine, blk);
  for (int dist = 1; dist < n; dist <<= 1) {
    const int cnt = std::min(dist, n - dist);
    s.fence();
    s.recv(tmp + dist * blk, cnt * blk, (r + dist) % n);
    s.send(tmp, cnt * blk, (r - dist + n) % n);
  }
  rotate_to_absolute(s, rbuf, tmp, blk, r);
}

void allgather_ring(Schedule& s, const Span* blocks) {
  const int n = s.size(), r = s.rank();
  const int right = (r + 1) % n, left = (r - 1 + n) % n;
  for (int step = 0; step < n - 1; ++step) {
    const int out = (r - step + n) % n, in = (r - step - 1 + n) % n;
    s.fence();
    if (blocks[in].bytes) s.recv(blocks[in].ptr, blocks[in].bytes, left);
    if (blocks[out].bytes) s.send(blocks[out].ptr, blocks[out].bytes, right);
  }
}

}  // namespace

void gather(Schedule& s, const void* sendbuf, void* recvbuf, size_t blk, int root) {
  if (blk == 0) return;
  if (choose(Coll::kGather, shape_of(s, blk)) == Alg::kLinear)
    gather_linear(s, sendbuf, recvbuf, blk, root);
  else
    gather_binomial(s, sendbuf, recvbuf, blk, root);
}

void scatter(Schedule& s, const void* sendbuf, void* recvbuf, size_t blk, int root) {
  if (blk == 0) return;
  if (choose(Coll::kScatter, shape_of(s, blk)) == Alg::kLinear)
    scatter_linear(s, sendbuf, recvbuf, blk, root);
  else
    scatter_binomial(s, sendbuf, recvbuf, blk, root);
}

void gatherv(Schedule& s, const void* sendbuf, size_t bytes, const Span* blocks, int root) {
  const int n = s.size(), rank = s.rank();
  if (rank != root) {
    if (bytes) s.send(sendbuf, bytes, root);
    return;
  }
  if (sendbuf) s.copy(blocks[rank].ptr, sendbuf, blocks[rank].bytes);
  for (int i = 0; i < n; ++i)
    if (i != root && blocks[i].bytes) s.recv(blocks[i].ptr, blocks[i].bytes, i);
}

void scatterv(Schedule& s, const Span* blocks, void* recvbuf, size_t bytes, int root) {
  const int n = s.size(), rank = s.rank();
  if (rank != root) {
    if (bytes) s.recv(recvbuf, bytes, root);
    return;
  }
  if (recvbuf) s.copy(recvbuf, blocks[rank].ptr, blocks[rank].bytes);
  for (int k = 1; k < n; ++k) {
    const int i = (root + k) % n;
    if (blocks[i].bytes) s.send(blocks[i].ptr, blocks[i].bytes, i);
  }
}

void allgather(Schedule& s, const void* sendbuf, void* recvbuf, size_t blk) {
  const int n = s.size(), r = s.rank();
  if (blk == 0) return;
  char* rbuf = static_cast<char*>(recvbuf);
  const char* mine = sendbuf ? static_cast<const char*>(sendbuf) : rbuf + r * blk;
  switch (choose(Coll::kAllgather, shape_of(s, n * blk))) {
    case Alg::kBruck:
      allgather_bruck(s, mine, rbuf, blk);
      return;
    case Alg::kRecursiveDoubling:
      s.copy(rbuf + r * blk, mine, blk);
      allgather_recursive_doubling(s, rbuf, blk);
      return;
    default: {
      s.copy(rbuf + r * blk, mine, blk);
      std::vector<Span> blocks(n);
      for (int i = 0; i < n; ++i) blocks[i] = {rbuf + i * blk, blk};
      allgather_ring(s, blocks.data());
      return;
    }
  }
}

void allgatherv(Schedule& s, const void* sendbuf, const Span* blocks) {
  const int r = s.rank();
  if (sendbuf) s.copy(blocks[r].ptr, sendbuf, blocks[r].bytes);
  allgather_ring(s, blocks);
}

}  // namespace mpr::runtime::coll
