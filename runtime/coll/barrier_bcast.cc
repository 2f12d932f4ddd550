// Barrier by dissemination; bcast by binomial tree or by binomial scatter + ring allgather.
#include <algorithm>

#include "runtime/coll/coll.h"
#include "runtime/coll/tuning.h"

namespace mpr::runtime::coll {

namespace {

// Byte range of chunk i when `bytes` are cut into n nearly equal chunks.
struct Chunks {
  size_t bytes, each;
  Chunks(size_t b, int n) : bytes(b), each((b + n - 1) / n) {}
  size_t off(int i) const { return std::min(bytes, static_cast<size_t>(i) * each); }
  size_t len(int first, int last) const { return off(last) - off(first); }  // [first, last)
};

void bcast_binomial(Schedule& s, void* buf, size_t bytes, int root) {
  const int n = s.size();
  // Relative rank v receives from v minus its lowest set bit, then sends to v + 2^j for each
  // 2^j below that bit, largest subtree first.
  const int v = wrap(s.rank() - root + n, n);
  int mask = 1;
  for (; mask < n; mask <<= 1) {
    if (v & mask) {
      s.recv(buf, bytes, wrap(v - mask + root, n));
      break;
    }
  }
  s.fence();
  for (mask >>= 1; mask > 0; mask >>= 1)
    if (v + mask < n) s.send(buf, bytes, wrap(v + mask + root, n));
}

// The root's buffer is cut into n chunks (chunk i for relative rank i); a binomial scatter
// hands every rank its chunk, a ring allgather then completes everyone's copy.
void bcast_scatter_allgather(Schedule& s, void* buf, size_t bytes, int root) {
  const int n = s.size();
  const int v = (s.rank() - root + n) % n;
  const Chunks ch(bytes, n);
  char* b = static_cast<char*>(buf);
  auto abs = [&](int rel) { return (rel + root) % n; };
  int mask = 1;
  for (; mask < n; mask <<= 1) {
    if (v & mask) {
      int last = std::min(v + mask, n);
      s.recv(b + ch.off(v), ch.len(v, last), abs(v - mask));
      break;
    }
  }
  s.fence();
  for (mask >>= 1; mask > 0; mask >>= 1) {
    int child = v + mask;
    if (child < n) s.send(b + ch.off(child), ch.len(child, std::min(child + mask, n)), abs(child));
  }
  // The root has every chunk already: the last rank sends it nothing, so its buffer (input
  // only, per MPI) is never written.
  const int right = abs(v + 1), left = abs(v - 1 + n);
  for (int step = 0; step < n - 1; ++step) {
    int out = (v - step + n) % n, in = (v - step - 1 + n) % n;
    s.fence();
    if (v != 0) s.recv(b + ch.off(in), ch.len(in, in + 1), left);
    if (v != n - 1) s.send(b + ch.off(out), ch.len(out, out + 1), right);
  }
}

}  // namespace

void barrier(Schedule& s) {
  // Round k: tell rank+k we arrived, hear from rank-k. After ceil(log2 n) rounds every rank
  // has (transitively) heard from every other one.
  const int n = s.size(), r = s.rank();
  for (int k = 1; k < n; k <<= 1) {
    s.fence();
    s.recv(nullptr, 0, wrap(r - k + n, n));
    s.send(nullptr, 0, wrap(r + k, n));
  }
}

void bcast(Schedule& s, void* buf, size_t bytes, int root) {
  if (s.size() == 1 || bytes == 0) return;
  CallShape shape;
  shape.ranks = s.size();
  shape.bytes = bytes;
  if (choose(Coll::kBcast, shape) == Alg::kScatterAllgather)
    bcast_scatter_allgather(s, buf, bytes, root);
  else
    bcast_binomial(s, buf, bytes, root);
}

int barrier(const char* fn, Comm* comm) {
  Schedule s(fn, comm, Schedule::Mode::kImmediate);
  barrier(s);
  s.seal();
  return s.run();
}

int bcast(const char* fn, Comm* comm, void* buf, size_t bytes, int root) {
  Schedule s(fn, comm, Schedule::Mode::kImmediate);
  bcast(s, buf, bytes, root);
  s.seal();
  return s.run();
}

}  // namespace mpr::runtime::coll
