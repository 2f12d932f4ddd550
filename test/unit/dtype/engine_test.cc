// The datatype engine against the naive type-map model (reference.h): packing, unpacking,
// resumable and out-of-order packing, element counts, bounds; for random type trees, counts
// and buffer offsets from a fixed seed, and for the nested shapes programs really use.
#include <catch2/catch.hpp>
#include <cstring>
#include <random>
#include <vector>

#include "reference.h"
#include "runtime/dt/build.h"
#include "runtime/dt/cursor.h"
#include "runtime/dt/datatype.h"

using namespace mpr::runtime;
using namespace dtype_test;

namespace {

// A buffer that holds `count` elements of r with `slack` random bytes around what they touch,
// so writes outside the type map show up as changed bytes.
struct Arena {
  std::vector<char> mem;
  ptrdiff_t origin = 0;  // index in mem of the user's buf
  char* buf() { return mem.data() + origin; }
};

Arena arena_for(const Ref& r, size_t count, size_t slack, std::mt19937_64& rng) {
  ptrdiff_t lo, hi;
  ref_data_bounds(r, count, &lo, &hi);
  Arena a;
  a.mem.resize(static_cast<size_t>(hi - lo) + 2 * slack);
  a.origin = static_cast<ptrdiff_t>(slack) - lo;
  for (char& c : a.mem) c = static_cast<char>(rng());
  return a;
}

// Every check the engine must pass for one type at one count.
void check_type(const Built& b, size_t count, std::mt19937_64& rng) {
  const Ref& r = b.ref;
  const Datatype* d = b.dt;
  INFO("type map entries " << r.map.size() << ", count " << count << ", program segments "
                           << d->prog.segs().size());
  REQUIRE(d->size == r.size());
  REQUIRE(d->lb == (r.bounded ? r.lb : 0));
  REQUIRE(d->extent == r.extent());
  ptrdiff_t lo, hi;
  ref_data_bounds(r, 1, &lo, &hi);
  CHECK(d->true_lb == lo);
  CHECK(d->true_extent == hi - lo);

  Arena src = arena_for(r, count, 1 + rng() % 24, rng);
  const std::vector<char> want = ref_pack(r, src.buf(), count);
  REQUIRE(want.size() == count * d->size);

  // One pass.
  std::vector<char> got(want.size() + 1, 0x5a);
  d->pack(src.buf(), count, got.data());
  CHECK((want.empty() || std::memcmp(got.data(), want.data(), want.size()) == 0));
  CHECK(got.back() == 0x5a);

  // The block walk (one-sided operations address target memory with it): the pieces it
  // names, read in order, are the packed stream; pieces never exceed the asked maximum.
  {
    dt::Cursor walk(*d, src.buf(), count);
    std::vector<char> cat;
    uintptr_t at = 0;
    const size_t max = 1 + rng() % 64;
    while (size_t n = walk.next_block(&at, rng() % 2 ? max : want.size() + 1)) {
      REQUIRE(n <= std::max(max, want.size() + 1));
      cat.insert(cat.end(), reinterpret_cast<const char*>(at),
                 reinterpret_cast<const char*>(at) + n);
    }
    CHECK(cat == want);
  }

  // In random pieces, continuing in place.
  dt::Cursor c(*d, src.buf(), count);
  std::vector<char> pieces(want.size());
  size_t at = 0;
  while (at < want.size()) {
    size_t n = c.pack(pieces.data() + at, 1 + rng() % 23);
    REQUIRE(n > 0);
    at += n;
    REQUIRE(c.pos() == at);
  }
  CHECK(c.pack(pieces.data(), 8) == 0);
  CHECK(pieces == want);

  // Ranges in random order, each after a seek.
  std::vector<char> sought(want.size(), 0);
  for (int i = 0; i < 6 && !want.empty(); ++i) {
    size_t from = rng() % want.size(), len = 1 + rng() % 40;
    c.seek(from);
    size_t n = c.pack(sought.data() + from, len);
    CHECK(n == std::min(len, want.size() - from));
    CHECK(std::memcmp(sought.data() + from, want.data() + from, n) == 0);
  }

  // Unpacking a random stream, whole and in pieces, changes exactly what the naive model does
  // (gaps and the bytes around keep their contents). Types whose entries overlap store in
  // type-map order in both.
  std::vector<char> stream(want.size());
  for (char& ch : stream) ch = static_cast<char>(rng());
  Arena dst = arena_for(r, count, 16, rng);
  Arena model = dst, whole = dst, piecewise = dst;
  ref_unpack(r, stream.data(), stream.size(), model.buf());
  d->unpack(stream.data(), stream.size(), whole.buf());
  CHECK(whole.mem == model.mem);
  dt::Cursor u(*d, piecewise.buf(), count);
  for (size_t done = 0; done < stream.size();)
    done += u.unpack(stream.data() + done, 1 + rng() % 17);
  CHECK(piecewise.mem == model.mem);

  // A short message: a random prefix.
  if (!stream.empty()) {
    size_t prefix = rng() % stream.size();
    Arena m2 = dst, e2 = dst;
    ref_unpack(r, stream.data(), prefix, m2.buf());
    d->unpack(stream.data(), prefix, e2.buf());
    CHECK(e2.mem == m2.mem);
    CHECK(d->elements_in(prefix) == ref_elements(r, prefix));
    int64_t elems = ref_elements(r, prefix);
    if (elems >= 0) CHECK(d->bytes_for_elements(elems) == prefix);
  }
  CHECK(d->elements_in(want.size()) == ref_elements(r, want.size()));

  // Copy by type moves the data and nothing else.
  Arena cp = dst;
  d->copy(src.buf(), cp.buf(), count);
  std::vector<char> cp_packed = ref_pack(r, cp.buf(), count);
  CHECK(cp_packed == want);
  Arena cp_model = dst;
  ref_unpack(r, want.data(), want.size(), cp_model.buf());
  CHECK(cp.mem == cp_model.mem);
}

}  // namespace

TEST_CASE("random type trees pack and unpack like the naive type map", "[dtype][engine]") {
  std::mt19937_64 rng(20240611);
  for (int t = 0; t < 400; ++t) {
    Built b = random_type(rng, 4, 3000);
    size_t count = rng() % 4;
    INFO("tree " << t);
    check_type(b, count, rng);
    release(b);
  }
}

TEST_CASE("nested vector of struct of indexed against the naive model", "[dtype][engine]") {
  std::mt19937_64 rng(7);
  // indexed: blocks of 2, 1, 3 ints at 0, 5, 9
  int ibl[] = {2, 1, 3}, idisp[] = {0, 5, 9};
  Built ints = predefined(MPI_INT), dbl = predefined(MPI_DOUBLE), chr = predefined(MPI_CHAR);
  Datatype* idx = dt::make_indexed(3, ibl, idisp, ints.dt);
  // struct { char; indexed at 8; double x2 at 64 }
  int sbl[] = {1, 1, 2};
  MPI_Aint sdisp[] = {0, 8, 64};
  Datatype* types[] = {chr.dt, idx, dbl.dt};
  Datatype* st = dt::make_struct(3, sbl, sdisp, types);
  // vector of 5 blocks of 2 structs, stride 3 structs
  Datatype* vec = dt::make_vector(5, 2, 3, st);

  Built model;
  model.dt = vec;
  Ref idx_ref;
  for (int i = 0; i < 3; ++i)
    for (int k = 0; k < ibl[i]; ++k) idx_ref.map.push_back({(idisp[i] + k) * 4, 4});
  Ref st_ref;
  st_ref.map.push_back({0, 1});
  for (const Entry& e : idx_ref.map) st_ref.map.push_back({8 + e.disp, e.len});
  st_ref.map.push_back({64, 8});
  st_ref.map.push_back({72, 8});
  st_ref.lb = 0;
  st_ref.ub = 80;  // data ends at 80, a multiple of the double alignment
  st_ref.bounded = true;
  for (int i = 0; i < 5; ++i)
    for (int k = 0; k < 2; ++k)
      for (const Entry& e : st_ref.map) model.ref.map.push_back({(i * 3 + k) * 80 + e.disp, e.len});
  model.ref.lb = 0;
  model.ref.ub = (4 * 3 + 2) * 80;
  model.ref.bounded = true;

  CHECK(st->extent == 80);
  CHECK(vec->extent == model.ref.extent());
  for (size_t count : {1, 2, 7}) check_type(model, count, rng);
  // Compact: the program grows with the constructor arguments, not with the element count.
  CHECK(vec->prog.segs().size() <= 12);
  vec->release();
  st->release();
  idx->release();
}

TEST_CASE("layouts stay compact: one segment per regular pattern", "[dtype][engine]") {
  Datatype* dbl = to_datatype(MPI_DOUBLE);
  Datatype* v = dt::make_vector(1 << 20, 1, 4, dbl);
  CHECK(v->prog.segs().size() == 1);
  CHECK(v->sig->runs() == 1);
  CHECK(v->size == (size_t{1} << 20) * 8);
  CHECK_FALSE(v->contiguous);

  // A vector whose stride equals its block is contiguous and is sent without packing.
  Datatype* c = dt::make_vector(1000, 3, 3, dbl);
  CHECK(c->contiguous);
  ptrdiff_t off = -1;
  CHECK(c->dense(5, &off));
  CHECK(off == 0);

  // A 3D subarray: at most two loops around one block, whatever its size.
  int sizes[] = {64, 64, 64}, subs[] = {32, 16, 8}, starts[] = {4, 8, 16};
  Datatype* sub = dt::make_subarray(3, sizes, subs, starts, MPI_ORDER_C, dbl);
  CHECK(sub->prog.segs().size() <= 5);
  CHECK(sub->prog.depth() <= 1);
  CHECK(sub->size == 32u * 16 * 8 * 8);

  // Indexed blocks that happen to be regular collapse into one strided segment.
  int bl[] = {2, 2, 2, 2}, disp[] = {0, 10, 20, 30};
  Datatype* ix = dt::make_indexed(4, bl, disp, dbl);
  CHECK(ix->prog.segs().size() == 1);

  // A vector of a struct with a gap: one loop, not one entry per element.
  int sbl[] = {1, 1};
  MPI_Aint sd[] = {0, 8};
  Datatype* st_types[] = {to_datatype(MPI_INT), dbl};
  Datatype* st = dt::make_struct(2, sbl, sd, st_types);
  Datatype* vs = dt::make_contiguous(100000, st);
  CHECK(vs->prog.segs().size() <= 4);
  CHECK(vs->sig->runs() <= 2);
  for (Datatype* t : {vs, st, ix, sub, c, v}) t->release();
}

TEST_CASE("a resumed cursor continues exactly where it stopped", "[dtype][engine]") {
  Datatype* i32 = to_datatype(MPI_INT);
  Datatype* v = dt::make_vector(3, 2, 5, i32);  // ints 0,1, 5,6, 10,11
  int data[40];
  for (int i = 0; i < 40; ++i) data[i] = i;
  dt::Cursor c(*v, data, 2);  // the second element starts at int 12 (the extent)
  int out[12];
  CHECK(c.pack(out, 6) == 6);  // one and a half ints
  CHECK(c.pack(reinterpret_cast<char*>(out) + 6, 100) == 42);
  const int want[] = {0, 1, 5, 6, 10, 11, 12, 13, 17, 18, 22, 23};
  CHECK(std::memcmp(out, want, sizeof want) == 0);
  c.seek(20);  // the sixth int
  int five[2];
  CHECK(c.pack(five, 8) == 8);
  CHECK(five[0] == 11);
  CHECK(five[1] == 12);
  v->release();
}
