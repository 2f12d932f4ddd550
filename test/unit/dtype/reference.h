// A naive model of MPI datatypes for the engine's tests: a type is its full type map, one
// entry per basic element, built element by element from the same constructor arguments the
// engine gets. Packing walks the map entry by entry. Nothing here shares code with the engine.
#pragma once

#include <cstddef>
#include <cstdint>
#include <random>
#include <vector>

#include "runtime/dt/datatype.h"

namespace dtype_test {

struct Entry {
  ptrdiff_t disp;
  size_t len;
};

struct Ref {
  std::vector<Entry> map;  ///< one element, in packing order
  ptrdiff_t lb = 0, ub = 0;
  bool bounded = false;  ///< lb/ub were set by some copy
  bool explicit_bounds = false;
  size_t align = 1;
  ptrdiff_t extent() const { return ub - lb; }
  size_t size() const;
};

/// A type built both ways: `dt` by the engine (the test holds one reference), `ref` naively.
struct Built {
  mpr::runtime::Datatype* dt;
  Ref ref;
};

/// A predefined type (from its handle) in both forms.
Built predefined(MPI_Datatype h);
/// A random type tree of at most `depth` constructor levels whose map stays below max_entries.
Built random_type(std::mt19937_64& rng, int depth, size_t max_entries);
/// Drops the test's reference to b.dt.
void release(Built& b);

/// `count` elements at `buf` packed entry by entry.
std::vector<char> ref_pack(const Ref& r, const char* buf, size_t count);
/// `bytes` packed bytes stored entry by entry (a partial last entry is stored partially).
void ref_unpack(const Ref& r, const char* in, size_t bytes, char* buf);
/// Basic elements in a `bytes` prefix of `count` packed elements, -1 if it ends inside one.
int64_t ref_elements(const Ref& r, size_t bytes);
/// Lowest and highest (exclusive) byte `count` elements touch, relative to buf.
void ref_data_bounds(const Ref& r, size_t count, ptrdiff_t* lo, ptrdiff_t* hi);

}  // namespace dtype_test
