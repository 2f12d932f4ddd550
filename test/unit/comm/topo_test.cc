// Topology arithmetic: Cartesian coordinates, ranks, shifts and neighbor order; graph
// neighbors.
#include <catch2/catch.hpp>
#include <vector>

#include "runtime/comm/topo.h"

using mpr::runtime::Topology;
using V = std::vector<int>;

namespace {

Topology cart(V dims, V periods) {
  Topology t;
  t.kind = MPI_CART;
  t.dims = std::move(dims);
  t.periods = std::move(periods);
  return t;
}

}  // namespace

TEST_CASE("Cartesian coordinates and ranks are row-major inverses", "[topo]") {
  Topology t = cart({3, 4, 2}, {0, 1, 0});
  REQUIRE(t.cart_size() == 24);
  for (int r = 0; r < 24; ++r) {
    V c = t.cart_coords(r);
    CHECK(t.cart_rank(c.data()) == r);
  }
  CHECK(t.cart_coords(0) == V{0, 0, 0});
  CHECK(t.cart_coords(1) == V{0, 0, 1});
  CHECK(t.cart_coords(2) == V{0, 1, 0});
  CHECK(t.cart_coords(23) == V{2, 3, 1});
  const int wrap[] = {1, -1, 1};  // periodic middle dimension wraps to 3
  CHECK(t.cart_rank(wrap) == t.cart_rank(V{1, 3, 1}.data()));
  const int outside[] = {3, 0, 0};  // non-periodic first dimension
  CHECK(t.cart_rank(outside) == -1);
}

TEST_CASE("Cart_shift: borders, wrap-around, large displacements", "[topo]") {
  Topology t = cart({4, 3}, {0, 1});
  int src, dst;
  t.cart_shift(t.cart_rank(V{0, 0}.data()), 0, 1, &src, &dst);
  CHECK(src == MPI_PROC_NULL);
  CHECK(dst == t.cart_rank(V{1, 0}.data()));
  t.cart_shift(t.cart_rank(V{3, 2}.data()), 0, 1, &src, &dst);
  CHECK(src == t.cart_rank(V{2, 2}.data()));
  CHECK(dst == MPI_PROC_NULL);
  t.cart_shift(t.cart_rank(V{1, 0}.data()), 1, 1, &src, &dst);
  CHECK(src == t.cart_rank(V{1, 2}.data()));
  CHECK(dst == t.cart_rank(V{1, 1}.data()));
  t.cart_shift(t.cart_rank(V{1, 1}.data()), 1, 7, &src, &dst);  // 7 = 1 mod 3
  CHECK(src == t.cart_rank(V{1, 0}.data()));
  CHECK(dst == t.cart_rank(V{1, 2}.data()));
  t.cart_shift(t.cart_rank(V{1, 1}.data()), 0, -2, &src, &dst);
  CHECK(src == t.cart_rank(V{3, 1}.data()));
  CHECK(dst == MPI_PROC_NULL);
}

TEST_CASE("neighbor order: Cartesian -1/+1 per dimension, graph lists", "[topo]") {
  Topology ring = cart({5}, {1});
  V in, out;
  ring.neighbors(0, &in, &out);
  CHECK(in == V{4, 1});
  CHECK(out == in);
  Topology line = cart({5}, {0});
  line.neighbors(0, &in, &out);
  CHECK(in == V{MPI_PROC_NULL, 1});
  Topology torus = cart({2, 3}, {1, 1});
  torus.neighbors(0, &in, &out);
  CHECK(in == V{3, 3, 2, 1});  // dim 0 size 2: both neighbors are rank 3

  Topology g;
  g.kind = MPI_GRAPH;
  g.index = {2, 3, 4, 6};
  g.edges = {1, 3, 0, 3, 0, 2};
  CHECK(g.graph_degree(0) == 2);
  CHECK(g.graph_degree(3) == 2);
  g.neighbors(3, &in, &out);
  CHECK(in == V{0, 2});
  CHECK(out == in);

  Topology d;
  d.kind = MPI_DIST_GRAPH;
  d.sources = {2, 2, 5};
  d.destinations = {1};
  d.neighbors(0, &in, &out);
  CHECK(in == V{2, 2, 5});
  CHECK(out == V{1});
}
