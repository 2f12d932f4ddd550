#include "runtime/dt/build.h"

#include <algorithm>
#include <map>
#include <memory>
#include <tuple>
#include <vector>

namespace mpr::runtime::dt {

namespace {

// Accumulates copies of old types into a new type's program, signature and bounds.
class Builder {
 public:
  /// `n` consecutive copies of `old` (one block of a vector or indexed type) at `disp`.
  void add(const Datatype* old, size_t n, ptrdiff_t disp) {
    if (n == 0) return;
    prog_.append(old->prog, n, disp, old->extent);
    sig_->append(old->sig, n);
    if (old->size > 0 || old->explicit_bounds)
      cover(disp + old->lb, disp + old->lb + old->extent, n, old->extent);
    if (old->size > 0) {
      basic_ = first_data_ ? old->basic : basic_ == old->basic ? basic_ : Basic::kNone;
      first_data_ = false;
    }
    align_ = std::max(align_, old->align);
    explicit_bounds_ = explicit_bounds_ || old->explicit_bounds;
  }

  /// Everything added so far becomes `count` copies, `stride` bytes apart.
  void repeat(size_t count, ptrdiff_t stride) {
    Program p;
    p.append(prog_, count, 0, stride);
    prog_ = std::move(p);
    auto s = std::make_shared<Sig>();
    s->append(sig_, count);
    sig_ = std::move(s);
    if (count == 0) {  // an empty type map: no data, no bounds
      bounded_ = false;
      first_data_ = true;
      align_ = 1;
      explicit_bounds_ = false;
      return;
    }
    if (bounded_) {
      ptrdiff_t lo = lb_, hi = ub_;
      bounded_ = false;
      cover(lo, hi, count, stride);
    }
  }

  /// Moves everything added so far by `disp` bytes.
  void shift(ptrdiff_t disp) {
    Program p;
    p.append(prog_, 1, disp, 0);
    prog_ = std::move(p);
    lb_ += disp;
    ub_ += disp;
  }

  /// The finished type. `pad`: round the extent up to the alignment (structs).
  Datatype* finish(int combiner, bool pad) {
    auto* d = new Datatype;
    d->predefined = false;
    d->committed = false;
    d->combiner = combiner;
    d->handle = reinterpret_cast<MPI_Datatype>(d);
    d->size = prog_.bytes();
    d->prog = std::move(prog_);
    d->sig = std::move(sig_);
    d->basic = first_data_ ? Basic::kNone : basic_;
    d->align = align_;
    d->explicit_bounds = explicit_bounds_;
    d->lb = bounded_ ? lb_ : 0;
    d->extent = bounded_ ? ub_ - lb_ : 0;
    if (pad && !explicit_bounds_ && align_ > 1) {
      auto a = static_cast<ptrdiff_t>(align_);
      d->extent = (d->extent + a - 1) / a * a;
    }
    finish_layout(d);
    return d;
  }

  /// Recomputes true bounds and contiguity from the program and the extent.
  static void finish_layout(Datatype* d) {
    ptrdiff_t lo, hi;
    d->prog.data_bounds(&lo, &hi);
    d->true_lb = lo;
    d->true_extent = hi - lo;
    ptrdiff_t disp;
    size_t len;
    d->contiguous = d->size == 0 ||
                    (d->prog.single_block(&disp, &len) && static_cast<ptrdiff_t>(len) == d->extent);
  }

 private:
  // The bounds of n copies of [lo, hi), `stride` apart.
  void cover(ptrdiff_t lo, ptrdiff_t hi, size_t n, ptrdiff_t stride) {
    ptrdiff_t reach = static_cast<ptrdiff_t>(n - 1) * stride;
    lo += std::min<ptrdiff_t>(0, reach);
    hi += std::max<ptrdiff_t>(0, reach);
    lb_ = bounded_ ? std::min(lb_, lo) : lo;
    ub_ = bounded_ ? std::max(ub_, hi) : hi;
    bounded_ = true;
  }

  Program prog_;
  std::shared_ptr<Sig> sig_ = std::make_shared<Sig>();
  ptrdiff_t lb_ = 0, ub_ = 0;
  bool bounded_ = false;
  bool first_data_ = true;
  Basic basic_ = Basic::kNone;
  size_t align_ = 1;
  bool explicit_bounds_ = false;
};

// What MPI_Type_get_contents returns; the types are retained for as long as `d` lives.
Datatype* record(Datatype* d, std::vector<int> ints, std::vector<MPI_Aint> aints,
                 std::vector<Datatype*> types) {
  d->ints = std::move(ints);
  d->aints = std::move(aints);
  d->types = std::move(types);
  for (Datatype* t : d->types) t->retain();
  return d;
}

std::vector<int> with_count(int count, const int* a, const int* b = nullptr) {
  std::vector<int> v{count};
  v.insert(v.end(), a, a + count);
  if (b) v.insert(v.end(), b, b + count);
  return v;
}

}  // namespace

Datatype* make_contiguous(int count, Datatype* old) {
  Builder b;
  b.add(old, static_cast<size_t>(count), 0);
  return record(b.finish(MPI_COMBINER_CONTIGUOUS, false), {count}, {}, {old});
}

namespace {
Datatype* vector_of(int count, int blocklen, ptrdiff_t stride, Datatype* old, int combiner) {
  Builder b;
  b.add(old, static_cast<size_t>(blocklen), 0);
  b.repeat(static_cast<size_t>(count), stride);
  return b.finish(combiner, false);
}
}  // namespace

Datatype* make_vector(int count, int blocklen, int stride, Datatype* old) {
  Datatype* d = vector_of(count, blocklen, stride * old->extent, old, MPI_COMBINER_VECTOR);
  return record(d, {count, blocklen, stride}, {}, {old});
}

Datatype* make_hvector(int count, int blocklen, MPI_Aint stride, Datatype* old) {
  Datatype* d = vector_of(count, blocklen, stride, old, MPI_COMBINER_HVECTOR);
  return record(d, {count, blocklen}, {stride}, {old});
}

Datatype* make_indexed(int count, const int* blocklens, const int* disps, Datatype* old) {
  Builder b;
  for (int i = 0; i < count; ++i)
    b.add(old, static_cast<size_t>(blocklens[i]), disps[i] * old->extent);
  return record(b.finish(MPI_COMBINER_INDEXED, false), with_count(count, blocklens, disps), {},
                {old});
}

Datatype* make_hindexed(int count, const int* blocklens, const MPI_Aint* disps, Datatype* old) {
  Builder b;
  for (int i = 0; i < count; ++i) b.add(old, static_cast<size_t>(blocklens[i]), disps[i]);
  return record(b.finish(MPI_COMBINER_HINDEXED, false), with_count(count, blocklens),
                {disps, disps + count}, {old});
}

Datatype* make_indexed_block(int count, int blocklen, const int* disps, Datatype* old) {
  Builder b;
  for (int i = 0; i < count; ++i) b.add(old, static_cast<size_t>(blocklen), disps[i] * old->extent);
  std::vector<int> ints{count, blocklen};
  ints.insert(ints.end(), disps, disps + count);
  return record(b.finish(MPI_COMBINER_INDEXED_BLOCK, false), std::move(ints), {}, {old});
}

Datatype* make_hindexed_block(int count, int blocklen, const MPI_Aint* disps, Datatype* old) {
  Builder b;
  for (int i = 0; i < count; ++i) b.add(old, static_cast<size_t>(blocklen), disps[i]);
  return record(b.finish(MPI_COMBINER_HINDEXED_BLOCK, false), {count, blocklen},
                {disps, disps + count}, {old});
}

Datatype* make_struct(int count, const int* blocklens, const MPI_Aint* disps,
                      Datatype* const* types) {
  Builder b;
  for (int i = 0; i < count; ++i) b.add(types[i], static_cast<size_t>(blocklens[i]), disps[i]);
  return record(b.finish(MPI_COMBINER_STRUCT, true), with_count(count, blocklens),
                {disps, disps + count}, {types, types + count});
}

Datatype* make_subarray(int ndims, const int* sizes, const int* subsizes, const int* starts,
                        int order, Datatype* old) {
  // Walk the dimensions from the fastest-varying one outwards: C order varies the last index
  // fastest, Fortran order the first.
  auto dim = [&](int k) { return order == MPI_ORDER_C ? ndims - 1 - k : k; };
  Builder b;
  ptrdiff_t stride = old->extent;
  b.add(old, static_cast<size_t>(subsizes[dim(0)]), starts[dim(0)] * stride);
  stride *= sizes[dim(0)];
  for (int k = 1; k < ndims; ++k) {
    int d = dim(k);
    b.repeat(static_cast<size_t>(subsizes[d]), stride);
    b.shift(starts[d] * stride);
    stride *= sizes[d];
  }
  Datatype* t = b.finish(MPI_COMBINER_SUBARRAY, false);
  // The type spans the whole array, so consecutive subarrays tile consecutive arrays.
  t->lb = old->lb;
  t->extent = stride;
  t->explicit_bounds = true;
  Builder::finish_layout(t);
  std::vector<int> ints{ndims};
  ints.insert(ints.end(), sizes, sizes + ndims);
  ints.insert(ints.end(), subsizes, subsizes + ndims);
  ints.insert(ints.end(), starts, starts + ndims);
  ints.push_back(order);
  return record(t, std::move(ints), {}, {old});
}

namespace {
Datatype* copy_of(const Datatype* old, int combiner) {
  auto* d = new Datatype;
  d->predefined = false;
  d->committed = false;
  d->combiner = combiner;
  d->handle = reinterpret_cast<MPI_Datatype>(d);
  d->size = old->size;
  d->lb = old->lb;
  d->extent = old->extent;
  d->align = old->align;
  d->explicit_bounds = old->explicit_bounds;
  d->basic = old->basic;
  d->prog = old->prog;
  d->sig = old->sig;
  Builder::finish_layout(d);
  return d;
}
}  // namespace

Datatype* make_resized(Datatype* old, MPI_Aint lb, MPI_Aint extent) {
  Datatype* d = copy_of(old, MPI_COMBINER_RESIZED);
  d->lb = lb;
  d->extent = extent;
  d->explicit_bounds = true;
  Builder::finish_layout(d);
  return record(d, {}, {lb, extent}, {old});
}

Datatype* make_dup(Datatype* old) {
  Datatype* d = copy_of(old, MPI_COMBINER_DUP);
  d->committed = old->committed;
  return record(d, {}, {}, {old});
}

namespace {

// MPI_Type_create_darray, one dimension at a time (MPI-4.0 5.1.4, the algorithm of MPICH and
// ROMIO): `inner` holds the dimensions already done (each stride is in bytes of the whole
// global array), the result adds dimension `d`. *start is this process's first index in it.
struct Darray {
  int ndims;
  const int* gsizes;
  int order;
  ptrdiff_t elem;  // extent of the old type

  // Bytes between consecutive indices of dimension d.
  ptrdiff_t stride_of(int d) const {
    ptrdiff_t s = elem;
    if (order == MPI_ORDER_FORTRAN)
      for (int i = 0; i < d; ++i) s *= gsizes[i];
    else
      for (int i = ndims - 1; i > d; --i) s *= gsizes[i];
    return s;
  }
  bool fastest(int d) const { return order == MPI_ORDER_FORTRAN ? d == 0 : d == ndims - 1; }

  Datatype* block(int d, int nprocs, int rank, int darg, Datatype* inner, int* start) const {
    const int g = gsizes[d];
    const int blk = darg == MPI_DISTRIBUTE_DFLT_DARG ? (g + nprocs - 1) / nprocs : darg;
    const int mine = std::max(0, std::min(blk, g - blk * rank));
    *start = mine == 0 ? 0 : blk * rank;
    if (fastest(d)) return make_contiguous(mine, inner);
    return make_hvector(mine, 1, stride_of(d), inner);
  }

  Datatype* cyclic(int d, int nprocs, int rank, int darg, Datatype* inner, int* start) const {
    const int g = gsizes[d];
    const int blk = darg == MPI_DISTRIBUTE_DFLT_DARG ? 1 : darg;
    const int first = rank * blk;
    int mine = 0;
    if (first < g) {
      const int span = nprocs * blk, left = g - first;
      mine = left / span * blk + std::min(left % span, blk);
    }
    const int count = mine / blk, rest = mine % blk;
    const ptrdiff_t stride = stride_of(d) * nprocs * blk;
    Datatype* t = make_hvector(count, blk, stride, inner);
    if (rest > 0) {  // a last, shorter block
      const int lens[2] = {1, rest};
      const MPI_Aint disps[2] = {0, count * stride};
      Datatype* const parts[2] = {t, inner};
      Datatype* two = make_struct(2, lens, disps, parts);
      t->release();
      t = two;
    }
    *start = mine == 0 ? 0 : first;
    if (fastest(d) && mine > 0) {  // the fastest dimension places its blocks itself
      const int one = 1;
      const MPI_Aint at = static_cast<MPI_Aint>(first) * elem;
      Datatype* placed = make_hindexed(1, &one, &at, t);
      t->release();
      t = placed;
      *start = 0;
    }
    return t;
  }
};

}  // namespace

Datatype* make_darray(int size, int rank, int ndims, const int* gsizes, const int* distribs,
                      const int* dargs, const int* psizes, int order, Datatype* old) {
  // This process's coordinates in the process grid, which is always row-major.
  std::vector<int> coords(static_cast<size_t>(ndims));
  for (int i = 0, left = rank, procs = size; i < ndims; ++i) {
    procs /= psizes[i];
    coords[i] = left / procs;
    left %= procs;
  }
  const Darray a{ndims, gsizes, order, old->extent};
  std::vector<int> starts(static_cast<size_t>(ndims), 0);
  Datatype* t = old;
  old->retain();
  for (int k = 0; k < ndims; ++k) {
    const int d = order == MPI_ORDER_FORTRAN ? k : ndims - 1 - k;
    Datatype* next;
    if (distribs[d] == MPI_DISTRIBUTE_CYCLIC)
      next = a.cyclic(d, psizes[d], coords[d], dargs[d], t, &starts[d]);
    else if (distribs[d] == MPI_DISTRIBUTE_BLOCK)
      next = a.block(d, psizes[d], coords[d], dargs[d], t, &starts[d]);
    else  // MPI_DISTRIBUTE_NONE: the whole dimension
      next = a.block(d, 1, 0, MPI_DISTRIBUTE_DFLT_DARG, t, &starts[d]);
    t->release();
    // Span the whole dimension, so that the next one finds consecutive indices one extent
    // apart.
    t = make_resized(next, 0, a.stride_of(d) * gsizes[d]);
    next->release();
  }
  // Move the local block to where it starts in the global array; the type spans the array.
  ptrdiff_t disp = 0, total = old->extent;
  for (int d = 0; d < ndims; ++d) {
    disp += starts[d] * a.stride_of(d);
    total *= gsizes[d];
  }
  const int one = 1;
  const MPI_Aint at = disp;
  Datatype* placed = make_hindexed(1, &one, &at, t);
  t->release();
  Datatype* r = make_resized(placed, old->lb, total);
  placed->release();
  // The envelope is the darray's, not that of the constructors used to build it.
  for (Datatype* u : r->types) u->release();
  r->combiner = MPI_COMBINER_DARRAY;
  r->aints.clear();
  r->types.clear();
  std::vector<int> ints{size, rank, ndims};
  for (const int* v : {gsizes, distribs, dargs, psizes}) ints.insert(ints.end(), v, v + ndims);
  ints.push_back(order);
  return record(r, std::move(ints), {}, {old});
}

Datatype* f90_type(int combiner, int p, int r, Basic sized) {
  // Handles the user never frees: one per (combiner, p, r), kept for the process's life.
  static auto* cache = new std::map<std::tuple<int, int, int>, Datatype*>;
  Datatype*& slot = (*cache)[{combiner, p, r}];
  if (slot) return slot;
  const Datatype* base = predefined_datatype(sized);
  auto* d = new Datatype;
  d->name = "";
  d->size = base->size;
  d->lb = base->lb;
  d->extent = base->extent;
  d->true_lb = base->true_lb;
  d->true_extent = base->true_extent;
  d->align = base->align;
  d->contiguous = base->contiguous;
  d->basic = base->basic;
  d->prog = base->prog;
  d->sig = base->sig;
  d->handle = reinterpret_cast<MPI_Datatype>(d);
  d->combiner = combiner;
  if (combiner == MPI_COMBINER_F90_INTEGER)
    d->ints = {r};
  else
    d->ints = {p, r};
  slot = d;
  return d;
}

}  // namespace mpr::runtime::dt
