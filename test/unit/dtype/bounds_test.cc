// Extent, true extent and resized rules (MPI-4.0 5.1.6-5.1.8), subarray layouts, the
// envelope/contents record of every constructor (rebuilding a type from its contents gives
// the same layout), and reference counting.
#include <catch2/catch.hpp>
#include <cstring>
#include <vector>

#include "runtime/dt/build.h"
#include "runtime/dt/datatype.h"

using namespace mpr::runtime;

namespace {

Datatype* T(MPI_Datatype h) { return to_datatype(h); }

std::vector<char> packed(const Datatype* d, const void* buf, size_t count) {
  std::vector<char> out(count * d->size);
  d->pack(buf, count, out.data());
  return out;
}

// Builds a new type from `d`'s envelope and contents, as a tool that decodes types would.
Datatype* rebuild(const Datatype* d) {
  const std::vector<int>& i = d->ints;
  const std::vector<MPI_Aint>& a = d->aints;
  Datatype* old = d->types.empty() ? nullptr : d->types[0];
  switch (d->combiner) {
    case MPI_COMBINER_DUP:
      return dt::make_dup(old);
    case MPI_COMBINER_CONTIGUOUS:
      return dt::make_contiguous(i[0], old);
    case MPI_COMBINER_VECTOR:
      return dt::make_vector(i[0], i[1], i[2], old);
    case MPI_COMBINER_HVECTOR:
      return dt::make_hvector(i[0], i[1], a[0], old);
    case MPI_COMBINER_INDEXED:
      return dt::make_indexed(i[0], &i[1], &i[1 + i[0]], old);
    case MPI_COMBINER_HINDEXED:
      return dt::make_hindexed(i[0], &i[1], a.data(), old);
    case MPI_COMBINER_INDEXED_BLOCK:
      return dt::make_indexed_block(i[0], i[1], &i[2], old);
    case MPI_COMBINER_HINDEXED_BLOCK:
      return dt::make_hindexed_block(i[0], i[1], a.data(), old);
    case MPI_COMBINER_STRUCT:
      return dt::make_struct(i[0], &i[1], a.data(), d->types.data());
    case MPI_COMBINER_SUBARRAY: {
      int n = i[0];
      return dt::make_subarray(n, &i[1], &i[1 + n], &i[1 + 2 * n], i[1 + 3 * n], old);
    }
    case MPI_COMBINER_RESIZED:
      return dt::make_resized(old, a[0], a[1]);
    default:
      return nullptr;
  }
}

}  // namespace

TEST_CASE("bounds of vectors, negative strides and resized types", "[dtype][bounds]") {
  Datatype* v = dt::make_vector(3, 2, 4, T(MPI_INT));  // ints at 0,1, 4,5, 8,9
  CHECK(v->lb == 0);
  CHECK(v->extent == 10 * 4);
  CHECK(v->true_lb == 0);
  CHECK(v->true_extent == 40);
  CHECK(v->size == 24);

  Datatype* neg = dt::make_hvector(3, 1, -8, T(MPI_INT));  // ints at 0, -8, -16
  CHECK(neg->lb == -16);
  CHECK(neg->extent == 20);
  CHECK(neg->true_lb == -16);
  int buf[5] = {10, 11, 12, 13, 14};
  auto p = packed(neg, &buf[4], 1);
  int got[3];
  std::memcpy(got, p.data(), sizeof got);
  CHECK(got[0] == 14);
  CHECK(got[1] == 12);
  CHECK(got[2] == 10);

  // Resized: lb and extent are whatever the user says; the true extent still follows the
  // data, and the new bounds stick through later constructors.
  Datatype* r = dt::make_resized(v, -4, 64);
  CHECK(r->lb == -4);
  CHECK(r->extent == 64);
  CHECK(r->true_lb == 0);
  CHECK(r->true_extent == 40);
  CHECK_FALSE(r->contiguous);
  Datatype* c = dt::make_contiguous(3, r);
  CHECK(c->lb == -4);
  CHECK(c->extent == 3 * 64);
  CHECK(c->true_lb == 0);
  CHECK(c->true_extent == 2 * 64 + 40);

  // A resized contiguous run with extent == size tiles: contiguous again, at its offset.
  Datatype* two = dt::make_contiguous(2, T(MPI_INT));
  MPI_Aint at8[] = {8};
  int one[] = {1};
  Datatype* shifted = dt::make_hindexed(1, one, at8, two);
  CHECK(shifted->lb == 8);
  CHECK(shifted->extent == 8);
  CHECK(shifted->contiguous);
  ptrdiff_t off = 0;
  CHECK(shifted->dense(4, &off));
  CHECK(off == 8);
  for (Datatype* t : {shifted, two, c, r, neg, v}) t->release();
}

TEST_CASE("struct extents are padded to the strictest member alignment", "[dtype][bounds]") {
  int bl[] = {1, 1};
  MPI_Aint d1[] = {0, 8};
  Datatype* t1[] = {T(MPI_DOUBLE), T(MPI_CHAR)};
  Datatype* s1 = dt::make_struct(2, bl, d1, t1);  // like struct { double; char; }
  CHECK(s1->size == 9);
  CHECK(s1->extent == 16);
  CHECK(s1->true_extent == 9);

  MPI_Aint d2[] = {0, 1};
  Datatype* t2[] = {T(MPI_CHAR), T(MPI_INT)};
  Datatype* s2 = dt::make_struct(2, bl, d2, t2);  // an int at an odd offset: still padded
  CHECK(s2->extent == 8);

  // A resized member makes the bounds explicit: no padding.
  Datatype* r = dt::make_resized(T(MPI_DOUBLE), 0, 9);
  Datatype* t3[] = {r, T(MPI_CHAR)};
  MPI_Aint d3[] = {0, 9};
  Datatype* s3 = dt::make_struct(2, bl, d3, t3);
  CHECK(s3->extent == 10);

  // Members with no elements count for nothing.
  int bl0[] = {1, 0};
  Datatype* t4[] = {T(MPI_CHAR), T(MPI_DOUBLE)};
  MPI_Aint d4[] = {0, 32};
  Datatype* s4 = dt::make_struct(2, bl0, d4, t4);
  CHECK(s4->extent == 1);
  CHECK(s4->size == 1);
  for (Datatype* t : {s4, s3, r, s2, s1}) t->release();
}

TEST_CASE("subarrays in C and Fortran order", "[dtype][bounds]") {
  // A 4x5 array of ints, the 2x3 block at row 1, column 2.
  int sizes[] = {4, 5}, subs[] = {2, 3}, starts[] = {1, 2};
  int a[20];
  for (int i = 0; i < 20; ++i) a[i] = i;
  Datatype* c = dt::make_subarray(2, sizes, subs, starts, MPI_ORDER_C, T(MPI_INT));
  CHECK(c->lb == 0);
  CHECK(c->extent == 20 * 4);
  CHECK(c->true_lb == (1 * 5 + 2) * 4);
  auto p = packed(c, a, 1);
  int got[6];
  std::memcpy(got, p.data(), sizeof got);
  const int want_c[] = {7, 8, 9, 12, 13, 14};
  CHECK(std::memcmp(got, want_c, sizeof got) == 0);

  // Fortran order: the first index varies fastest, so element (i, j) is at i + 4 * j.
  Datatype* f = dt::make_subarray(2, sizes, subs, starts, MPI_ORDER_FORTRAN, T(MPI_INT));
  p = packed(f, a, 1);
  std::memcpy(got, p.data(), sizeof got);
  const int want_f[] = {9, 10, 13, 14, 17, 18};
  CHECK(std::memcmp(got, want_f, sizeof got) == 0);

  // A 3D subarray of a 3D array.
  int s3[] = {3, 4, 5}, sub3[] = {2, 2, 2}, st3[] = {1, 1, 3};
  int cube[60];
  for (int i = 0; i < 60; ++i) cube[i] = i;
  Datatype* c3 = dt::make_subarray(3, s3, sub3, st3, MPI_ORDER_C, T(MPI_INT));
  p = packed(c3, cube, 1);
  int g3[8];
  std::memcpy(g3, p.data(), sizeof g3);
  const int want3[] = {28, 29, 33, 34, 48, 49, 53, 54};
  CHECK(std::memcmp(g3, want3, sizeof g3) == 0);
  for (Datatype* t : {c3, f, c}) t->release();
}

TEST_CASE("get_envelope/get_contents round trip for every constructor", "[dtype][contents]") {
  Datatype* i32 = T(MPI_INT);
  Datatype* dbl = T(MPI_DOUBLE);
  int bl[] = {2, 0, 3}, disp[] = {5, 1, -2};
  MPI_Aint hd[] = {40, 8, -16};
  Datatype* members[] = {i32, dbl, i32};
  int sizes[] = {4, 6, 3}, subs[] = {2, 3, 1}, starts[] = {1, 0, 2};
  std::vector<Datatype*> made = {
      dt::make_contiguous(4, i32),
      dt::make_vector(3, 2, -5, dbl),
      dt::make_hvector(2, 3, 100, i32),
      dt::make_indexed(3, bl, disp, dbl),
      dt::make_hindexed(3, bl, hd, i32),
      dt::make_indexed_block(3, 2, disp, i32),
      dt::make_hindexed_block(3, 1, hd, dbl),
      dt::make_struct(3, bl, hd, members),
      dt::make_subarray(3, sizes, subs, starts, MPI_ORDER_FORTRAN, dbl),
      dt::make_resized(i32, -8, 24),
  };
  made.push_back(dt::make_dup(made[7]));
  const int want_combiners[] = {
      MPI_COMBINER_CONTIGUOUS,     MPI_COMBINER_VECTOR,   MPI_COMBINER_HVECTOR,
      MPI_COMBINER_INDEXED,        MPI_COMBINER_HINDEXED, MPI_COMBINER_INDEXED_BLOCK,
      MPI_COMBINER_HINDEXED_BLOCK, MPI_COMBINER_STRUCT,   MPI_COMBINER_SUBARRAY,
      MPI_COMBINER_RESIZED,        MPI_COMBINER_DUP};
  CHECK(to_datatype(MPI_INT)->combiner == MPI_COMBINER_NAMED);
  std::vector<char> mem(4096);
  for (size_t i = 0; i < mem.size(); ++i) mem[i] = static_cast<char>(i * 7);
  for (size_t k = 0; k < made.size(); ++k) {
    INFO("constructor " << k);
    Datatype* d = made[k];
    CHECK(d->combiner == want_combiners[k]);
    Datatype* again = rebuild(d);
    REQUIRE(again != nullptr);
    CHECK(again->combiner == d->combiner);
    CHECK(again->ints == d->ints);
    CHECK(again->aints == d->aints);
    CHECK(again->types == d->types);
    CHECK(again->size == d->size);
    CHECK(again->lb == d->lb);
    CHECK(again->extent == d->extent);
    CHECK(again->true_lb == d->true_lb);
    CHECK(again->true_extent == d->true_extent);
    char* base = mem.data() + 2048;
    CHECK(packed(again, base, 2) == packed(d, base, 2));
    again->release();
  }
  // Spot checks of the argument layout MPI defines.
  CHECK(made[3]->ints == std::vector<int>{3, 2, 0, 3, 5, 1, -2});
  CHECK(made[4]->aints == std::vector<MPI_Aint>{40, 8, -16});
  CHECK(made[8]->ints.size() == 1 + 3 * 3 + 1);
  CHECK(made[8]->ints.back() == MPI_ORDER_FORTRAN);
  CHECK(made[9]->aints == std::vector<MPI_Aint>{-8, 24});
  CHECK(made[7]->types.size() == 3);
  for (auto it = made.rbegin(); it != made.rend(); ++it) (*it)->release();
}

TEST_CASE("a freed type lives on while something still uses it", "[dtype][refcount]") {
  Datatype* v = dt::make_vector(4, 1, 2, T(MPI_INT));
  Datatype* c = dt::make_contiguous(2, v);
  CHECK(v->refs == 2);  // the user's handle and c
  v->release();         // MPI_Type_free(&v)
  REQUIRE(c->types[0] == v);
  CHECK(v->magic == Datatype::kMagic);
  CHECK(v->size == 16);
  v->retain();  // a pending request
  c->release();
  CHECK(v->refs == 1);
  CHECK(v->magic == Datatype::kMagic);
  v->release();  // the request completes: the type is gone
}

TEST_CASE("element counts of derived types for MPI_Get_elements", "[dtype][elements]") {
  int bl[] = {1, 2};
  MPI_Aint d[] = {0, 8};
  Datatype* types[] = {T(MPI_INT), T(MPI_DOUBLE)};
  Datatype* s = dt::make_struct(2, bl, d, types);  // int, double, double: 20 bytes, 3 elements
  Datatype* v = dt::make_contiguous(1000, s);
  CHECK(v->elements_in(0) == 0);
  CHECK(v->elements_in(20) == 3);
  CHECK(v->elements_in(24) == 4);   // one more int
  CHECK(v->elements_in(28) == -1);  // inside a double
  CHECK(v->elements_in(32) == 5);
  CHECK(v->count_in(20000) == 1);
  CHECK(v->count_in(20) == -1);
  CHECK(v->elements_in(20000 * 2 + 4) == 6001);
  CHECK(v->bytes_for_elements(6001) == 40004);
  CHECK(v->bytes_for_elements(3000) == 20000);
  CHECK(v->basic == Basic::kNone);
  Datatype* dd = dt::make_vector(10, 2, 3, T(MPI_DOUBLE));
  CHECK(dd->basic == Basic::kDouble);
  CHECK(dd->elements_in(8 * 7) == 7);
  for (Datatype* t : {dd, v, s}) t->release();
}
