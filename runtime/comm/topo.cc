#include "runtime/comm/topo.h"

#include <algorithm>
#include <cstdint>

namespace mpr::runtime {

int Topology::cart_size() const {
  int n = 1;
  for (int d : dims) n *= d;
  return n;
}

std::vector<int> Topology::cart_coords(int rank) const {
  // Row-major: the last dimension varies fastest.
  std::vector<int> c(dims.size());
  for (size_t i = dims.size(); i-- > 0;) {
    c[i] = rank % dims[i];
    rank /= dims[i];
  }
  return c;
}

int Topology::cart_rank(const int* coords) const {
  int rank = 0;
  for (size_t i = 0; i < dims.size(); ++i) {
    int c = coords[i];
    if (periods[i]) {
      c %= dims[i];
      if (c < 0) c += dims[i];
    } else if (c < 0 || c >= dims[i]) {
      return -1;
    }
    rank = rank * dims[i] + c;
  }
  return rank;
}

void Topology::cart_shift(int rank, int dir, int disp, int* source, int* dest) const {
  std::vector<int> c = cart_coords(rank);
  const int me = c[dir];
  auto at = [&](int64_t pos) {
    if (!periods[dir] && (pos < 0 || pos >= dims[dir])) return static_cast<int>(MPI_PROC_NULL);
    c[dir] = static_cast<int>(((pos % dims[dir]) + dims[dir]) % dims[dir]);
    int r = cart_rank(c.data());
    c[dir] = me;
    return r;
  };
  *dest = at(int64_t{me} + disp);
  *source = at(int64_t{me} - disp);
}

int Topology::graph_degree(int rank) const {
  return index[rank] - (rank == 0 ? 0 : index[rank - 1]);
}

const int* Topology::graph_neighbors(int rank) const {
  return edges.data() + (rank == 0 ? 0 : index[rank - 1]);
}

void Topology::neighbors(int rank, std::vector<int>* in, std::vector<int>* out) const {
  in->clear();
  out->clear();
  switch (kind) {
    case MPI_CART:
      for (size_t d = 0; d < dims.size(); ++d) {
        int src, dst;
        cart_shift(rank, static_cast<int>(d), 1, &src, &dst);
        in->push_back(src);
        in->push_back(dst);
      }
      *out = *in;
      break;
    case MPI_GRAPH:
      in->assign(graph_neighbors(rank), graph_neighbors(rank) + graph_degree(rank));
      *out = *in;
      break;
    case MPI_DIST_GRAPH:
      *in = sources;
      *out = destinations;
      break;
    default:
      break;
  }
}

namespace {

struct DimsSearch {
  std::vector<int> divisors;  // of the number being split, descending
  std::vector<int> cur, best;
  int best_spread = INT32_MAX;

  // Choose the remaining `slots` factors (each <= cap, non-increasing) of m.
  void run(int m, int slots, int cap) {
    if (slots == 1) {
      if (m > cap) return;
      cur.push_back(m);
      consider();
      cur.pop_back();
      return;
    }
    for (int d : divisors) {
      if (d > m || d > cap || m % d) continue;
      // The other slots get at most d each: d^slots must reach m.
      int64_t reach = 1;
      for (int i = 0; i < slots && reach < m; ++i) reach *= d;
      if (reach < m) break;  // smaller d cannot reach either
      cur.push_back(d);
      run(m / d, slots - 1, d);
      cur.pop_back();
    }
  }

  // The smallest spread (largest minus smallest factor) wins; among equal spreads, the one whose
  // smallest factor is largest, then its second smallest, and so on (as MPICH decides, so
  // programs get the same grids).
  void consider() {
    int spread = cur.front() - cur.back();
    if (spread < best_spread ||
        (spread == best_spread &&
         std::lexicographical_compare(best.rbegin(), best.rend(), cur.rbegin(), cur.rend()))) {
      best_spread = spread;
      best = cur;
    }
  }
};

}  // namespace

int dims_create(int nnodes, int ndims, int* dims, const char** why) {
  if (ndims < 0) {
    *why = "ndims is negative";
    return MPI_ERR_DIMS;
  }
  if (nnodes < 1) {
    *why = "nnodes must be positive";
    return MPI_ERR_ARG;
  }
  if (ndims > 0 && !dims) {
    *why = "dims is NULL";
    return MPI_ERR_ARG;
  }
  int64_t fixed = 1;
  int free_dims = 0;
  for (int i = 0; i < ndims; ++i) {
    if (dims[i] < 0) {
      *why = "a dims entry is negative";
      return MPI_ERR_DIMS;
    }
    if (dims[i] == 0)
      ++free_dims;
    else
      fixed *= dims[i];
    if (fixed > nnodes) break;
  }
  if (fixed > nnodes || nnodes % fixed != 0) {
    *why = "nnodes is not a multiple of the product of the given dimensions";
    return MPI_ERR_DIMS;
  }
  const int m = static_cast<int>(nnodes / fixed);
  if (free_dims == 0) {
    if (m != 1) {
      *why = "the given dimensions do not multiply to nnodes";
      return MPI_ERR_DIMS;
    }
    return MPI_SUCCESS;
  }
  DimsSearch s;
  for (int d = 1; int64_t{d} * d <= m; ++d)
    if (m % d == 0) {
      s.divisors.push_back(d);
      if (d != m / d) s.divisors.push_back(m / d);
    }
  std::sort(s.divisors.rbegin(), s.divisors.rend());
  s.run(m, free_dims, m);
  size_t k = 0;
  for (int i = 0; i < ndims; ++i)
    if (dims[i] == 0) dims[i] = s.best[k++];
  return MPI_SUCCESS;
}

}  // namespace mpr::runtime
