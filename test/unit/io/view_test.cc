// Views against a naive model: random type trees from the datatype tests' reference model
// (test/unit/dtype/reference.h: one entry per basic element, built without the engine) used as
// filetypes. A type the model calls a valid filetype (block starts never decrease, nothing
// below the displacement, tiles that do not overlap) must be accepted and map every stream
// byte where the model puts it; any other type must be refused with MPI_ERR_IO.
#include <catch2/catch.hpp>
#include <algorithm>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "io/view.h"
#include "reference.h"
#include "runtime/dt/build.h"

using namespace mpr::io;
using namespace dtype_test;
using mpr::runtime::Datatype;

namespace {

struct Model {
  std::vector<Entry> blocks;  // the map's entries merged where adjacent, in packing order
  size_t size = 0;
  ptrdiff_t extent = 0;
  bool valid = true;
};

Model model_of(const Built& b) {
  Model m;
  for (const Entry& e : b.ref.map) {
    if (e.len == 0) continue;
    if (!m.blocks.empty() && m.blocks.back().disp + static_cast<ptrdiff_t>(m.blocks.back().len) == e.disp)
      m.blocks.back().len += e.len;
    else
      m.blocks.push_back(e);
    m.size += e.len;
  }
  m.extent = b.ref.extent();
  if (m.size == 0) return m;
  ptrdiff_t lo = m.blocks[0].disp, hi = lo;
  for (size_t i = 0; i < m.blocks.size(); ++i) {
    const Entry& e = m.blocks[i];
    if (i > 0 && e.disp < m.blocks[i - 1].disp) m.valid = false;
    lo = std::min(lo, e.disp);
    hi = std::max(hi, e.disp + static_cast<ptrdiff_t>(e.len));
  }
  if (lo < 0 || hi - lo > m.extent) m.valid = false;
  return m;
}

// File offset of every stream byte of the first `tiles` tiles.
std::vector<uint64_t> expand(const Model& m, uint64_t disp, int tiles) {
  std::vector<uint64_t> at;
  for (int t = 0; t < tiles; ++t)
    for (const Entry& e : m.blocks)
      for (size_t k = 0; k < e.len; ++k)
        at.push_back(disp + static_cast<uint64_t>(t * m.extent + e.disp) + k);
  return at;
}

void check_view(const View& v, const Model& m, uint64_t disp, std::mt19937_64& rng) {
  constexpr int kTiles = 3;
  const std::vector<uint64_t> at = expand(m, disp, kTiles);
  const uint64_t n = at.size();
  REQUIRE(v.tile_size() == m.size);
  for (uint64_t s = 0; s < n; ++s) REQUIRE(v.file_offset(s) == at[s]);
  // Random stream ranges: the blocks cover exactly the model's bytes, in order.
  for (int k = 0; k < 20; ++k) {
    uint64_t s = std::uniform_int_distribution<uint64_t>(0, n - 1)(rng);
    uint64_t len = std::uniform_int_distribution<uint64_t>(1, n - s)(rng);
    uint64_t max = std::uniform_int_distribution<uint64_t>(1, 64)(rng);
    View::Blocks blocks(v, s, len);
    Block b;
    uint64_t pos = s, prev_end = 0;
    bool first = true;
    while (blocks.next(&b, k % 2 ? max : UINT64_MAX)) {
      REQUIRE(b.len > 0);
      if (k % 2) REQUIRE(b.len <= max);
      // Merged: a block never starts where the previous one ended, unless capped by max.
      if (!first && k % 2 == 0) REQUIRE(b.off != prev_end);
      for (uint64_t i = 0; i < b.len; ++i) REQUIRE(at[pos + i] == b.off + i);
      pos += b.len;
      prev_end = b.end();
      first = false;
    }
    REQUIRE(pos == s + len);
    uint64_t lo, hi;
    v.file_range(s, len, &lo, &hi);
    REQUIRE(lo == at[s]);
    REQUIRE(hi == at[s + len - 1] + 1);
  }
  // stream_before: the stream bytes below each offset of the first tiles' span.
  const uint64_t top = disp + static_cast<uint64_t>(kTiles * m.extent);
  for (uint64_t off = 0; off <= top; off += 1 + off % 7) {
    uint64_t below = 0;
    for (uint64_t f : at)
      if (f < off) ++below;
    REQUIRE(v.stream_before(off) == below);
  }
}

}  // namespace

TEST_CASE("random filetypes map stream bytes as the naive type map does", "[io][view]") {
  std::mt19937_64 rng(20261204);
  const Datatype* byte = mpr::runtime::to_datatype(MPI_BYTE);
  const Datarep* native = find_datarep("native");
  int accepted = 0, refused = 0;
  for (int iter = 0; iter < 3000; ++iter) {
    Built b = random_type(rng, 3, 200);
    b.dt->committed = true;
    Model m = model_of(b);
    const uint64_t disp = std::uniform_int_distribution<uint64_t>(0, 50)(rng);
    std::unique_ptr<View> v;
    const char* why = "";
    int rc = View::make(static_cast<MPI_Offset>(disp), byte, b.dt, native, false, &v, &why);
    if (m.size == 0) {
      REQUIRE(rc == MPI_SUCCESS);  // an empty filetype is a view of nothing
    } else if (m.valid) {
      INFO("iteration " << iter << ": " << why);
      REQUIRE(rc == MPI_SUCCESS);
      check_view(*v, m, disp, rng);
      ++accepted;
    } else {
      REQUIRE(rc == MPI_ERR_IO);
      ++refused;
    }
    release(b);
  }
  // The generator makes both kinds often enough for the test to mean something.
  REQUIRE(accepted > 200);
  REQUIRE(refused > 200);
}

TEST_CASE("a linear view maps straight through its displacement", "[io][view]") {
  using namespace mpr::runtime;
  Datatype* ints = dt::make_contiguous(4, to_datatype(MPI_INT));
  ints->committed = true;
  std::unique_ptr<View> v;
  const char* why = "";
  REQUIRE(View::make(100, to_datatype(MPI_INT), ints, find_datarep("native"), true, &v,
                     &why) == MPI_SUCCESS);
  REQUIRE(v->linear());
  REQUIRE(v->esize() == 4);
  REQUIRE(v->file_offset(1000) == 1100);
  REQUIRE(v->stream_before(50) == 0);
  REQUIRE(v->stream_before(150) == 50);
  View::Blocks blocks(*v, 10, 1 << 20);
  Block b;
  REQUIRE(blocks.next(&b, 4096));
  REQUIRE(b.off == 110);
  REQUIRE(b.len == 4096);
  // A filetype of shorts is not made of int etypes.
  REQUIRE(View::make(0, to_datatype(MPI_INT), to_datatype(MPI_SHORT), find_datarep("native"),
                     true, &v, &why) == MPI_ERR_TYPE);
  ints->release();
  // Ints at 0-2 and 1: readable, but a file open for writing may not have a byte twice.
  int blen[2] = {3, 1}, at[2] = {0, 1};
  Datatype* twice = dt::make_indexed(2, blen, at, to_datatype(MPI_INT));
  twice->committed = true;
  REQUIRE(View::make(0, to_datatype(MPI_INT), twice, find_datarep("native"), false, &v, &why) ==
          MPI_SUCCESS);
  REQUIRE(View::make(0, to_datatype(MPI_INT), twice, find_datarep("native"), true, &v, &why) ==
          MPI_ERR_IO);
  REQUIRE(std::string(why).find("twice") != std::string::npos);
  twice->release();
}

TEST_CASE("a subarray view walks its rows without materializing them", "[io][view]") {
  using namespace mpr::runtime;
  // A 1000 x 1000 x 1000 array of doubles, this process's 10 x 10 x 10 corner block at (5,5,5).
  int sizes[3] = {1000, 1000, 1000}, sub[3] = {10, 10, 10}, starts[3] = {5, 5, 5};
  Datatype* t = dt::make_subarray(3, sizes, sub, starts, MPI_ORDER_C, to_datatype(MPI_DOUBLE));
  t->committed = true;
  std::unique_ptr<View> v;
  const char* why = "";
  REQUIRE(View::make(0, to_datatype(MPI_DOUBLE), t, find_datarep("native"), true, &v,
                     &why) == MPI_SUCCESS);
  REQUIRE(v->tile_size() == 8000);
  View::Blocks blocks(*v, 0, 8000);
  Block b;
  int rows = 0;
  while (blocks.next(&b)) {
    const uint64_t z = 5 + rows / 10, y = 5 + rows % 10;
    REQUIRE(b.off == ((z * 1000 + y) * 1000 + 5) * 8);
    REQUIRE(b.len == 80);
    ++rows;
  }
  REQUIRE(rows == 100);
  t->release();
}
