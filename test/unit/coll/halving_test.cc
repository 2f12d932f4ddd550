// Folding non-powers of two and the block windows of recursive halving, which the
// Rabenseifner algorithms rely on to move every element exactly once per phase.
#include "runtime/coll/halving.h"

#include <catch2/catch.hpp>
#include <vector>

using namespace mpr::runtime::coll;

TEST_CASE("fold: new ranks are a power of two, in rank order, and map back", "[coll][halving]") {
  for (int n = 1; n <= 40; ++n) {
    const Fold f(n);
    CHECK(f.pof2 <= n);
    CHECK(f.pof2 * 2 > n);
    CHECK((f.pof2 & (f.pof2 - 1)) == 0);
    int seen = 0, last = -1;
    for (int r = 0; r < n; ++r) {
      const int nr = f.new_rank(r);
      if (nr < 0) {
        // Sits out: an even rank below 2 * rem whose partner r + 1 carries its data.
        CHECK(r % 2 == 0);
        CHECK(r < 2 * f.rem);
        CHECK(f.new_rank(r + 1) >= 0);
        continue;
      }
      CHECK(nr == last + 1);  // rank order is kept, so non-commutative ops stay ordered
      CHECK(f.real_rank(nr) == r);
      last = nr;
      ++seen;
    }
    CHECK(seen == f.pof2);
  }
}

TEST_CASE("halving: partners split their window into the two halves", "[coll][halving]") {
  for (int p : {1, 2, 4, 8, 16}) {
    for (size_t count : {size_t{16}, size_t{17}, size_t{1000}, size_t{65539}}) {
      if (count < static_cast<size_t>(p)) continue;
      const Halving h(count, p);
      CHECK(h.disp[0] == 0);
      CHECK(h.disp[p] == count);
      for (int k = 0; k < h.levels; ++k) {
        for (int nr = 0; nr < p; ++nr) {
          const int peer = nr ^ (1 << k);
          size_t lo, hi, a_lo, a_hi, b_lo, b_hi;
          h.window(nr, k, &lo, &hi);
          h.window(nr, k + 1, &a_lo, &a_hi);
          h.window(peer, k + 1, &b_lo, &b_hi);
          // Same window before the step; afterwards two halves that together make it up.
          size_t plo, phi;
          h.window(peer, k, &plo, &phi);
          CHECK(plo == lo);
          CHECK(phi == hi);
          CHECK(std::min(a_lo, b_lo) == lo);
          CHECK(std::max(a_hi, b_hi) == hi);
          CHECK((a_hi == b_lo || b_hi == a_lo));
          CHECK(a_lo < a_hi);
        }
      }
      // After all levels every new rank owns one distinct block, and together they cover all.
      std::vector<int> owner(count, -1);
      for (int nr = 0; nr < p; ++nr) {
        size_t lo, hi;
        h.window(nr, h.levels, &lo, &hi);
        for (size_t i = lo; i < hi; ++i) {
          CHECK(owner[i] == -1);
          owner[i] = nr;
        }
      }
      for (size_t i = 0; i < count; ++i) REQUIRE(owner[i] >= 0);
    }
  }
}
