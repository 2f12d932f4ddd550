// Group set operations on member lists (job ranks), against hand-computed answers and against
// the set-algebra properties MPI defines them by.
#include <algorithm>
#include <catch2/catch.hpp>
#include <random>
#include <set>
#include <vector>

#include "runtime/comm/group.h"

using namespace mpr::runtime;
namespace ops = mpr::runtime::group_ops;
using V = std::vector<int>;

namespace {

V random_group(std::mt19937& rng, int universe, int n) {
  V all(static_cast<size_t>(universe));
  for (int i = 0; i < universe; ++i) all[i] = i;
  std::shuffle(all.begin(), all.end(), rng);
  all.resize(static_cast<size_t>(n));
  return all;
}

bool contains(const V& v, int x) { return std::find(v.begin(), v.end(), x) != v.end(); }

}  // namespace

TEST_CASE("group set operations: known answers", "[group]") {
  const V a{5, 1, 7, 3};
  const V b{3, 9, 5, 0};
  CHECK(ops::set_union(a, b) == V{5, 1, 7, 3, 9, 0});
  CHECK(ops::set_intersection(a, b) == V{5, 3});
  CHECK(ops::set_intersection(b, a) == V{3, 5});
  CHECK(ops::set_difference(a, b) == V{1, 7});
  CHECK(ops::set_difference(b, a) == V{9, 0});
  CHECK(ops::set_union(a, V{}) == a);
  CHECK(ops::set_intersection(a, V{}).empty());
  CHECK(ops::set_difference(a, a).empty());
}

TEST_CASE("group compare: IDENT, SIMILAR, UNEQUAL", "[group]") {
  CHECK(ops::compare({1, 2, 3}, {1, 2, 3}) == MPI_IDENT);
  CHECK(ops::compare({1, 2, 3}, {3, 1, 2}) == MPI_SIMILAR);
  CHECK(ops::compare({1, 2, 3}, {1, 2}) == MPI_UNEQUAL);
  CHECK(ops::compare({1, 2, 3}, {1, 2, 4}) == MPI_UNEQUAL);
  CHECK(ops::compare({}, {}) == MPI_IDENT);
}

TEST_CASE("group incl/excl/range and their argument checks", "[group]") {
  const V g{10, 11, 12, 13, 14, 15, 16};
  const char* why = "";
  int bad = -1;
  const int pick[] = {4, 0, 2};
  REQUIRE(ops::check_ranks(7, 3, pick, &why, &bad) == MPI_SUCCESS);
  CHECK(ops::incl(g, {4, 0, 2}) == V{14, 10, 12});
  CHECK(ops::excl(g, {4, 0, 2}) == V{11, 13, 15, 16});
  const int dup[] = {1, 3, 1};
  CHECK(ops::check_ranks(7, 3, dup, &why, &bad) == MPI_ERR_RANK);
  CHECK(bad == 2);
  const int out_of_range[] = {7};
  CHECK(ops::check_ranks(7, 1, out_of_range, &why, &bad) == MPI_ERR_RANK);
  CHECK(ops::check_ranks(7, -1, nullptr, &why, &bad) == MPI_ERR_ARG);

  // (first, last, stride) triplets: 0,2,4,6 then 5,3 (negative stride) then 1.
  const int ranges[][3] = {{0, 6, 2}, {5, 3, -2}, {1, 1, 1}};
  V ranks;
  REQUIRE(ops::expand_ranges(7, 3, ranges, &ranks, &why, &bad) == MPI_SUCCESS);
  CHECK(ranks == V{0, 2, 4, 6, 5, 3, 1});
  CHECK(ops::incl(g, ranks) == V{10, 12, 14, 16, 15, 13, 11});
  const int overlap[][3] = {{0, 4, 2}, {4, 6, 1}};
  CHECK(ops::expand_ranges(7, 2, overlap, &ranks, &why, &bad) == MPI_ERR_RANK);
  CHECK(bad == 1);
  const int zero_stride[][3] = {{0, 4, 0}};
  CHECK(ops::expand_ranges(7, 1, zero_stride, &ranks, &why, &bad) == MPI_ERR_ARG);
  const int wrong_way[][3] = {{4, 0, 1}};
  CHECK(ops::expand_ranges(7, 1, wrong_way, &ranks, &why, &bad) == MPI_ERR_ARG);
  const int beyond[][3] = {{0, 7, 1}};
  CHECK(ops::expand_ranges(7, 1, beyond, &ranks, &why, &bad) == MPI_ERR_RANK);
}

TEST_CASE("group translate_ranks", "[group]") {
  const V a{4, 8, 15, 16, 23, 42};
  const V b{42, 15, 7, 4};
  const int in[] = {0, 1, 2, 5, MPI_PROC_NULL};
  int out[5];
  ops::translate(a, 5, in, b, out);
  CHECK(out[0] == 3);
  CHECK(out[1] == MPI_UNDEFINED);
  CHECK(out[2] == 1);
  CHECK(out[3] == 0);
  CHECK(out[4] == MPI_PROC_NULL);
}

TEST_CASE("group set operations: algebraic properties on random groups", "[group]") {
  std::mt19937 rng(20240611);
  for (int iter = 0; iter < 200; ++iter) {
    const int universe = 1 + static_cast<int>(rng() % 40);
    V a = random_group(rng, universe, static_cast<int>(rng() % (universe + 1)));
    V b = random_group(rng, universe, static_cast<int>(rng() % (universe + 1)));
    V u = ops::set_union(a, b), i = ops::set_intersection(a, b), d = ops::set_difference(a, b);
    INFO("iteration " << iter);
    // No duplicates anywhere; sizes add up: |a u b| = |a| + |b| - |a n b|, |a \ b| = |a| - |a n b|.
    CHECK(std::set<int>(u.begin(), u.end()).size() == u.size());
    CHECK(u.size() == a.size() + b.size() - i.size());
    CHECK(d.size() == a.size() - i.size());
    // Orders: union starts with a; intersection and difference keep a's order.
    CHECK(V(u.begin(), u.begin() + static_cast<long>(a.size())) == a);
    for (int x : i) CHECK((contains(a, x) && contains(b, x)));
    for (int x : d) CHECK((contains(a, x) && !contains(b, x)));
    CHECK(std::is_sorted(i.begin(), i.end(), [&](int x, int y) {
      return std::find(a.begin(), a.end(), x) < std::find(a.begin(), a.end(), y);
    }));
    // (a \ b) u (a n b) is a permutation of a.
    CHECK(ops::compare(ops::set_union(d, i), a) != MPI_UNEQUAL);
    // incl then excl of the same ranks partition the group.
    std::vector<int> ranks;
    for (int r = 0; r < static_cast<int>(a.size()); ++r)
      if (rng() % 2) ranks.push_back(r);
    V in = ops::incl(a, ranks), ex = ops::excl(a, ranks);
    CHECK(in.size() + ex.size() == a.size());
    CHECK(ops::set_intersection(in, ex).empty());
    // translate from a to u maps every rank of a to the same process.
    std::vector<int> all(a.size()), mapped(a.size());
    for (size_t r = 0; r < a.size(); ++r) all[r] = static_cast<int>(r);
    ops::translate(a, static_cast<int>(a.size()), all.data(), u, mapped.data());
    for (size_t r = 0; r < a.size(); ++r) CHECK(u[static_cast<size_t>(mapped[r])] == a[r]);
  }
}
