// MPI_Dims_create: known answers, error cases, and for every small case the properties MPI
// asks for (product, fixed entries kept, non-increasing free entries, as balanced as any
// factorization can be) checked against brute force.
#include <algorithm>
#include <catch2/catch.hpp>
#include <functional>
#include <vector>

#include "runtime/comm/topo.h"

using mpr::runtime::dims_create;
using V = std::vector<int>;

namespace {

V dims(int nnodes, V in) {
  const char* why = "";
  int rc = dims_create(nnodes, static_cast<int>(in.size()), in.data(), &why);
  INFO("nnodes " << nnodes << ": " << why);
  REQUIRE(rc == MPI_SUCCESS);
  return in;
}

int err(int nnodes, V in) {
  const char* why = "";
  return dims_create(nnodes, static_cast<int>(in.size()), in.data(), &why);
}

// Smallest (max - min) over all non-increasing k-factorizations of m.
int best_spread(int m, int k) {
  int best = m;
  std::function<void(int, int, int, int)> rec = [&](int rest, int slots, int cap, int first) {
    if (slots == 0) {
      if (rest == 1) best = std::min(best, first - cap);
      return;
    }
    for (int d = std::min(rest, cap); d >= 1; --d)
      if (rest % d == 0) rec(rest / d, slots - 1, d, first < 0 ? d : first);
  };
  rec(m, k, m, -1);
  return best;
}

}  // namespace

TEST_CASE("Dims_create known answers", "[dims]") {
  CHECK(dims(6, {0, 0}) == V{3, 2});
  CHECK(dims(7, {0, 0}) == V{7, 1});
  CHECK(dims(6, {0, 0, 0}) == V{3, 2, 1});
  CHECK(dims(12, {0, 0, 0}) == V{3, 2, 2});
  CHECK(dims(16, {0, 0}) == V{4, 4});
  CHECK(dims(36, {0, 0, 0}) == V{4, 3, 3});
  CHECK(dims(64, {0, 0, 0}) == V{4, 4, 4});
  CHECK(dims(72, {0, 0}) == V{9, 8});
  CHECK(dims(1, {0, 0, 0}) == V{1, 1, 1});
  CHECK(dims(8, {0, 0, 0, 0}) == V{2, 2, 2, 1});
  CHECK(dims(1024, {0, 0}) == V{32, 32});
  CHECK(dims(6, {0, 3, 0}) == V{2, 3, 1});
  CHECK(dims(24, {0, 3, 0}) == V{4, 3, 2});
  CHECK(dims(12, {2, 3, 2}) == V{2, 3, 2});
  CHECK(dims(1, {}) == V{});
}

TEST_CASE("Dims_create errors", "[dims]") {
  CHECK(err(7, {0, 3, 0}) == MPI_ERR_DIMS);   // 7 is not a multiple of 3
  CHECK(err(12, {2, 3, 3}) == MPI_ERR_DIMS);  // fully given but wrong product
  CHECK(err(12, {-1, 0}) == MPI_ERR_DIMS);
  CHECK(err(0, {0, 0}) == MPI_ERR_ARG);
  CHECK(err(5, {}) == MPI_ERR_DIMS);  // an empty grid holds one process
  int d[2] = {0, 0};
  const char* why = "";
  CHECK(dims_create(4, -1, d, &why) == MPI_ERR_DIMS);
}

TEST_CASE("Dims_create properties for every nnodes up to 400 and up to 4 dimensions", "[dims]") {
  for (int n = 1; n <= 400; ++n)
    for (int k = 1; k <= 4; ++k) {
      V out = dims(n, V(static_cast<size_t>(k), 0));
      INFO("nnodes " << n << ", ndims " << k);
      long prod = 1;
      for (int x : out) prod *= x;
      CHECK(prod == n);
      CHECK(std::is_sorted(out.rbegin(), out.rend()));
      CHECK(out.front() - out.back() == best_spread(n, k));
    }
  // Fixed entries stay; the free ones still multiply out and do not increase.
  for (int n = 1; n <= 200; ++n) {
    if (n % 2) continue;
    V out = dims(n, {0, 2, 0});
    CHECK(out[1] == 2);
    CHECK(out[0] * out[1] * out[2] == n);
    CHECK(out[0] >= out[2]);
  }
}

TEST_CASE("Dims_create stays fast on large, highly composite node counts", "[dims]") {
  CHECK(dims(720720, {0, 0, 0, 0}).size() == 4);
  V big = dims(1 << 30, {0, 0, 0});
  CHECK(big == V{1024, 1024, 1024});
  V many = dims(1 << 20, V(20, 0));
  CHECK(many.front() == 2);
}
