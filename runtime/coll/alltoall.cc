// Alltoall (Bruck, linear, pairwise exchange) and alltoallv/w (linear, in batches).
#include <algorithm>

#include "runtime/coll/coll.h"
#include "runtime/coll/tuning.h"

namespace mpr::runtime::coll {

namespace {

// Peers whose transfers are posted together by the linear algorithms: enough to keep the
// transport busy, few enough that one rank does not flood every other at once.
constexpr int kBatch = 32;

void alltoall_linear(Schedule& s, const char* sbuf, char* rbuf, size_t blk) {
  const int n = s.size(), r = s.rank();
  s.copy(rbuf + r * blk, sbuf + r * blk, blk);
  for (int first = 1; first < n; first += kBatch) {
    const int last = std::min(n, first + kBatch);
    s.fence();
    for (int k = first; k < last; ++k) {
      const int from = (r - k + n) % n;
      s.recv(rbuf + from * blk, blk, from);
    }
    for (int k = first; k < last; ++k) {
      const int to = (r + k) % n;
      s.send(sbuf + to * blk, blk, to);
    }
  }
}

// n-1 steps; in step k a rank sends to r+k and receives from r-k, so every step is a perfect
// matching and no rank is hit by two senders at once.
void alltoall_pairwise(Schedule& s, const char* sbuf, char* rbuf, size_t blk) {
  const int n = s.size(), r = s.rank();
  s.copy(rbuf + r * blk, sbuf + r * blk, blk);
  for (int k = 1; k < n; ++k) {
    const int to = (r + k) % n, from = (r - k + n) % n;
    s.fence();
    s.recv(rbuf + from * blk, blk, from);
    s.send(sbuf + to * blk, blk, to);
  }
}

// Bruck: rotate so that position i holds the block for rank r+i; in the round for bit k, send
// every position with bit k set to r + 2^k (receiving the same positions from r - 2^k); then
// position i holds the block from rank r-i. ceil(log2 n) messages per rank, for small blocks.
void alltoall_bruck(Schedule& s, const char* sbuf, char* rbuf, size_t blk) {
  const int n = s.size(), r = s.rank();
  char* tmp = s.scratch(n * blk);
  s.copy(tmp, sbuf + r * blk, (n - r) * blk);
  s.copy(tmp + (n - r) * blk, sbuf, r * blk);
  const size_t half = static_cast<size_t>(n / 2 + 1) * blk;
  char* out = s.scratch(half);
  char* in = s.scratch(half);
  for (int dist = 1; dist < n; dist <<= 1) {
    // Positions with this bit set come in runs of `dist`: [dist, 2 dist), [3 dist, 4 dist) ...
    size_t packed = 0;
    for (int start = dist; start < n; start += 2 * dist) {
      const size_t len = std::min(dist, n - start) * blk;
      s.copy(out + packed, tmp + start * blk, len);
      packed += len;
    }
    s.recv(in, packed, (r - dist + n) % n);
    s.send(out, packed, (r + dist) % n);
    packed = 0;
    for (int start = dist; start < n; start += 2 * dist) {
      const size_t len = std::min(dist, n - start) * blk;
      s.copy(tmp + start * blk, in + packed, len);
      packed += len;
    }
  }
  for (int j = 0; j < n; ++j) s.copy(rbuf + j * blk, tmp + ((r - j + n) % n) * blk, blk);
}

}  // namespace

void alltoall(Schedule& s, const void* sendbuf, void* recvbuf, size_t blk) {
  const int n = s.size();
  if (blk == 0) return;
  char* rbuf = static_cast<char*>(recvbuf);
  const char* sbuf = static_cast<const char*>(sendbuf);
  if (!sbuf) {
    // In place: what goes out is what recvbuf holds at the start.
    char* copy = s.scratch(n * blk);
    s.copy(copy, rbuf, n * blk);
    sbuf = copy;
  }
  CallShape shape;
  shape.ranks = n;
  shape.bytes = blk;
  switch (choose(Coll::kAlltoall, shape)) {
    case Alg::kBruck:
      alltoall_bruck(s, sbuf, rbuf, blk);
      break;
    case Alg::kLinear:
      alltoall_linear(s, sbuf, rbuf, blk);
      break;
    default:
      alltoall_pairwise(s, sbuf, rbuf, blk);
      break;
  }
}

void alltoallv(Schedule& s, const Span* sends, const Span* recvs) {
  const int n = s.size(), r = s.rank();
  s.copy(recvs[r].ptr, sends[r].ptr, std::min(sends[r].bytes, recvs[r].bytes));
  for (int first = 1; first < n; first += kBatch) {
    const int last = std::min(n, first + kBatch);
    s.fence();
    for (int k = first; k < last; ++k) {
      const int from = (r - k + n) % n;
      if (recvs[from].bytes) s.recv(recvs[from].ptr, recvs[from].bytes, from);
    }
    for (int k = first; k < last; ++k) {
      const int to = (r + k) % n;
      if (sends[to].bytes) s.send(sends[to].ptr, sends[to].bytes, to);
    }
  }
}

}  // namespace mpr::runtime::coll
