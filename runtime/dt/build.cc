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

// What MPI_Type_get_contents(_c) returns; the types are retained for as long as `d` lives.
Datatype* record(Datatype* d, std::vector<int> ints, std::vector<MPI_Aint> aints,
                 std::vector<Datatype*> types, std::vector<MPI_Count> large = {}) {
  d->ints = std::move(ints);
  d->aints = std::move(aints);
  d->large_counts = std::move(large);
  d->types = std::move(types);
  for (Datatype* t : d->types) t->retain();
  return d;
}

// {count, a[0..count), b[0..count)} as T: the argument lists of the indexed and struct types.
template <class T, class A, class B = A>
std::vector<T> with_count(T count, const A* a, const B* b = nullptr) {
  std::vector<T> v{count};
  v.insert(v.end(), a, a + count);
  if (b) v.insert(v.end(), b, b + count);
  return v;
}

template <class T>
std::vector<MPI_Count> widen(const T* a, int n) {
  return std::vector<MPI_Count>(a, a + n);
}

// The layouts, shared by the int and the _c constructors; they record no arguments. Counts
// are MPI_Count whichever form called, so an int form never narrows what a _c form built.

Datatype* contiguous_of(MPI_Count count, const Datatype* old) {
  Builder b;
  b.add(old, static_cast<size_t>(count), 0);
  return b.finish(MPI_COMBINER_CONTIGUOUS, false);
}

Datatype* vector_of(MPI_Count count, MPI_Count blocklen, ptrdiff_t stride, const Datatype* old,
                    int combiner) {
  Builder b;
  b.add(old, static_cast<size_t>(blocklen), 0);
  b.repeat(static_cast<size_t>(count), stride);
  return b.finish(combiner, false);
}

// `count` blocks of `old`: block i holds lens[i] copies (`blocklen` if lens is null) at
// disps[i] * unit bytes (unit: old's extent for the indexed types, 1 for the hindexed ones).
template <class Len, class Disp>
Datatype* blocks_of(MPI_Count count, const Len* lens, MPI_Count blocklen, const Disp* disps,
                    ptrdiff_t unit, const Datatype* old, int combiner) {
  Builder b;
  for (MPI_Count i = 0; i < count; ++i)
    b.add(old, static_cast<size_t>(lens ? static_cast<MPI_Count>(lens[i]) : blocklen),
          static_cast<ptrdiff_t>(disps[i]) * unit);
  return b.finish(combiner, false);
}

template <class Len, class Disp>
Datatype* struct_of(MPI_Count count, const Len* lens, const Disp* disps,
                    const Datatype* const* types) {
  Builder b;
  for (MPI_Count i = 0; i < count; ++i)
    b.add(types[i], static_cast<size_t>(lens[i]), static_cast<ptrdiff_t>(disps[i]));
  return b.finish(MPI_COMBINER_STRUCT, true);
}

Datatype* subarray_of(int ndims, const MPI_Count* sizes, const MPI_Count* subsizes,
                      const MPI_Count* starts, int order, const Datatype* old) {
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
  return t;
}

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

Datatype* resized_of(const Datatype* old, ptrdiff_t lb, ptrdiff_t extent) {
  Datatype* d = copy_of(old, MPI_COMBINER_RESIZED);
  d->lb = lb;
  d->extent = extent;
  d->explicit_bounds = true;
  Builder::finish_layout(d);
  return d;
}

// MPI_Type_create_darray, one dimension at a time (MPI-4.0 5.1.4, the algorithm of MPICH and
// ROMIO): `inner` holds the dimensions already done (each stride is in bytes of the whole
// global array), the result adds dimension `d`. *start is this process's first index in it.
struct Darray {
  int ndims;
  const MPI_Count* gsizes;
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

  Datatype* block(int d, int nprocs, int rank, int darg, const Datatype* inner,
                  MPI_Count* start) const {
    const MPI_Count g = gsizes[d];
    const MPI_Count blk = darg == MPI_DISTRIBUTE_DFLT_DARG ? (g + nprocs - 1) / nprocs : darg;
    const MPI_Count mine = std::max<MPI_Count>(0, std::min(blk, g - blk * rank));
    *start = mine == 0 ? 0 : blk * rank;
    if (fastest(d)) return contiguous_of(mine, inner);
    return vector_of(mine, 1, stride_of(d), inner, MPI_COMBINER_HVECTOR);
  }

  Datatype* cyclic(int d, int nprocs, int rank, int darg, const Datatype* inner,
                   MPI_Count* start) const {
    const MPI_Count g = gsizes[d];
    const MPI_Count blk = darg == MPI_DISTRIBUTE_DFLT_DARG ? 1 : darg;
    const MPI_Count first = rank * blk;
    MPI_Count mine = 0;
    if (first < g) {
      const MPI_Count span = nprocs * blk, left = g - first;
      mine = left / span * blk + std::min(left % span, blk);
    }
    const MPI_Count count = mine / blk, rest = mine % blk;
    const ptrdiff_t stride = stride_of(d) * nprocs * blk;
    Datatype* t = vector_of(count, blk, stride, inner, MPI_COMBINER_HVECTOR);
    if (rest > 0) {  // a last, shorter block
      const MPI_Count lens[2] = {1, rest};
      const MPI_Count disps[2] = {0, count * stride};
      const Datatype* const parts[2] = {t, inner};
      Datatype* two = struct_of(2, lens, disps, parts);
      t->release();
      t = two;
    }
    *start = mine == 0 ? 0 : first;
    if (fastest(d) && mine > 0) {  // the fastest dimension places its blocks itself
      const MPI_Count at = first * elem;
      Datatype* placed = blocks_of<MPI_Count>(1, nullptr, 1, &at, 1, t, MPI_COMBINER_HINDEXED);
      t->release();
      t = placed;
      *start = 0;
    }
    return t;
  }
};

Datatype* darray_of(int size, int rank, int ndims, const MPI_Count* gsizes, const int* distribs,
                    const int* dargs, const int* psizes, int order, const Datatype* old) {
  // This process's coordinates in the process grid, which is always row-major.
  std::vector<int> coords(static_cast<size_t>(ndims));
  for (int i = 0, left = rank, procs = size; i < ndims; ++i) {
    procs /= psizes[i];
    coords[i] = left / procs;
    left %= procs;
  }
  const Darray a{ndims, gsizes, order, old->extent};
  std::vector<MPI_Count> starts(static_cast<size_t>(ndims), 0);
  Datatype* t = nullptr;  // the dimensions done so far; old before the first
  for (int k = 0; k < ndims; ++k) {
    const int d = order == MPI_ORDER_FORTRAN ? k : ndims - 1 - k;
    const Datatype* inner = t ? t : old;
    Datatype* next;
    if (distribs[d] == MPI_DISTRIBUTE_CYCLIC)
      next = a.cyclic(d, psizes[d], coords[d], dargs[d], inner, &starts[d]);
    else if (distribs[d] == MPI_DISTRIBUTE_BLOCK)
      next = a.block(d, psizes[d], coords[d], dargs[d], inner, &starts[d]);
    else  // MPI_DISTRIBUTE_NONE: the whole dimension
      next = a.block(d, 1, 0, MPI_DISTRIBUTE_DFLT_DARG, inner, &starts[d]);
    if (t) t->release();
    // Span the whole dimension, so that the next one finds consecutive indices one extent
    // apart.
    t = resized_of(next, 0, a.stride_of(d) * gsizes[d]);
    next->release();
  }
  // Move the local block to where it starts in the global array; the type spans the array.
  MPI_Count disp = 0;
  ptrdiff_t total = old->extent;
  for (int d = 0; d < ndims; ++d) {
    disp += starts[d] * a.stride_of(d);
    total *= gsizes[d];
  }
  Datatype* placed = blocks_of<MPI_Count>(1, nullptr, 1, &disp, 1, t, MPI_COMBINER_HINDEXED);
  t->release();
  Datatype* r = resized_of(placed, old->lb, total);
  placed->release();
  r->combiner = MPI_COMBINER_DARRAY;
  return r;
}

}  // namespace

// ---- the int constructors -------------------------------------------------------------------

Datatype* make_contiguous(int count, Datatype* old) {
  return record(contiguous_of(count, old), {count}, {}, {old});
}

Datatype* make_vector(int count, int blocklen, int stride, Datatype* old) {
  Datatype* d = vector_of(count, blocklen, stride * old->extent, old, MPI_COMBINER_VECTOR);
  return record(d, {count, blocklen, stride}, {}, {old});
}

Datatype* make_hvector(int count, int blocklen, MPI_Aint stride, Datatype* old) {
  Datatype* d = vector_of(count, blocklen, stride, old, MPI_COMBINER_HVECTOR);
  return record(d, {count, blocklen}, {stride}, {old});
}

Datatype* make_indexed(int count, const int* blocklens, const int* disps, Datatype* old) {
  Datatype* d = blocks_of(count, blocklens, 0, disps, old->extent, old, MPI_COMBINER_INDEXED);
  return record(d, with_count(count, blocklens, disps), {}, {old});
}

Datatype* make_hindexed(int count, const int* blocklens, const MPI_Aint* disps, Datatype* old) {
  Datatype* d = blocks_of(count, blocklens, 0, disps, 1, old, MPI_COMBINER_HINDEXED);
  return record(d, with_count(count, blocklens), {disps, disps + count}, {old});
}

Datatype* make_indexed_block(int count, int blocklen, const int* disps, Datatype* old) {
  Datatype* d =
      blocks_of<int>(count, nullptr, blocklen, disps, old->extent, old, MPI_COMBINER_INDEXED_BLOCK);
  std::vector<int> ints{count, blocklen};
  ints.insert(ints.end(), disps, disps + count);
  return record(d, std::move(ints), {}, {old});
}

Datatype* make_hindexed_block(int count, int blocklen, const MPI_Aint* disps, Datatype* old) {
  Datatype* d =
      blocks_of<int>(count, nullptr, blocklen, disps, 1, old, MPI_COMBINER_HINDEXED_BLOCK);
  return record(d, {count, blocklen}, {disps, disps + count}, {old});
}

Datatype* make_struct(int count, const int* blocklens, const MPI_Aint* disps,
                      Datatype* const* types) {
  return record(struct_of(count, blocklens, disps, types), with_count(count, blocklens),
                {disps, disps + count}, {types, types + count});
}

Datatype* make_subarray(int ndims, const int* sizes, const int* subsizes, const int* starts,
                        int order, Datatype* old) {
  Datatype* t = subarray_of(ndims, widen(sizes, ndims).data(), widen(subsizes, ndims).data(),
                            widen(starts, ndims).data(), order, old);
  std::vector<int> ints{ndims};
  for (const int* v : {sizes, subsizes, starts}) ints.insert(ints.end(), v, v + ndims);
  ints.push_back(order);
  return record(t, std::move(ints), {}, {old});
}

Datatype* make_darray(int size, int rank, int ndims, const int* gsizes, const int* distribs,
                      const int* dargs, const int* psizes, int order, Datatype* old) {
  Datatype* r = darray_of(size, rank, ndims, widen(gsizes, ndims).data(), distribs, dargs, psizes,
                          order, old);
  std::vector<int> ints{size, rank, ndims};
  for (const int* v : {gsizes, distribs, dargs, psizes}) ints.insert(ints.end(), v, v + ndims);
  ints.push_back(order);
  return record(r, std::move(ints), {}, {old});
}

Datatype* make_resized(Datatype* old, MPI_Aint lb, MPI_Aint extent) {
  return record(resized_of(old, lb, extent), {}, {lb, extent}, {old});
}

Datatype* make_dup(Datatype* old) {
  Datatype* d = copy_of(old, MPI_COMBINER_DUP);
  d->committed = old->committed;
  return record(d, {}, {}, {old});
}

// ---- the large-count constructors: MPI-4.0 Table 5.1's "large count" column -----------------

Datatype* make_contiguous_c(MPI_Count count, Datatype* old) {
  return record(contiguous_of(count, old), {}, {}, {old}, {count});
}

Datatype* make_vector_c(MPI_Count count, MPI_Count blocklen, MPI_Count stride, Datatype* old) {
  Datatype* d = vector_of(count, blocklen, stride * old->extent, old, MPI_COMBINER_VECTOR);
  return record(d, {}, {}, {old}, {count, blocklen, stride});
}

Datatype* make_hvector_c(MPI_Count count, MPI_Count blocklen, MPI_Count stride, Datatype* old) {
  Datatype* d = vector_of(count, blocklen, stride, old, MPI_COMBINER_HVECTOR);
  return record(d, {}, {}, {old}, {count, blocklen, stride});
}

Datatype* make_indexed_c(MPI_Count count, const MPI_Count* blocklens, const MPI_Count* disps,
                         Datatype* old) {
  Datatype* d = blocks_of(count, blocklens, 0, disps, old->extent, old, MPI_COMBINER_INDEXED);
  return record(d, {}, {}, {old}, with_count(count, blocklens, disps));
}

Datatype* make_hindexed_c(MPI_Count count, const MPI_Count* blocklens, const MPI_Count* disps,
                          Datatype* old) {
  Datatype* d = blocks_of(count, blocklens, 0, disps, 1, old, MPI_COMBINER_HINDEXED);
  return record(d, {}, {}, {old}, with_count(count, blocklens, disps));
}

Datatype* make_indexed_block_c(MPI_Count count, MPI_Count blocklen, const MPI_Count* disps,
                               Datatype* old) {
  Datatype* d = blocks_of<MPI_Count>(count, nullptr, blocklen, disps, old->extent, old,
                                     MPI_COMBINER_INDEXED_BLOCK);
  std::vector<MPI_Count> large{count, blocklen};
  large.insert(large.end(), disps, disps + count);
  return record(d, {}, {}, {old}, std::move(large));
}

Datatype* make_hindexed_block_c(MPI_Count count, MPI_Count blocklen, const MPI_Count* disps,
                                Datatype* old) {
  Datatype* d =
      blocks_of<MPI_Count>(count, nullptr, blocklen, disps, 1, old, MPI_COMBINER_HINDEXED_BLOCK);
  std::vector<MPI_Count> large{count, blocklen};
  large.insert(large.end(), disps, disps + count);
  return record(d, {}, {}, {old}, std::move(large));
}

Datatype* make_struct_c(MPI_Count count, const MPI_Count* blocklens, const MPI_Count* disps,
                        Datatype* const* types) {
  return record(struct_of(count, blocklens, disps, types), {}, {}, {types, types + count},
                with_count(count, blocklens, disps));
}

Datatype* make_subarray_c(int ndims, const MPI_Count* sizes, const MPI_Count* subsizes,
                          const MPI_Count* starts, int order, Datatype* old) {
  std::vector<MPI_Count> large;
  for (const MPI_Count* v : {sizes, subsizes, starts}) large.insert(large.end(), v, v + ndims);
  return record(subarray_of(ndims, sizes, subsizes, starts, order, old), {ndims, order}, {}, {old},
                std::move(large));
}

Datatype* make_darray_c(int size, int rank, int ndims, const MPI_Count* gsizes, const int* distribs,
                        const int* dargs, const int* psizes, int order, Datatype* old) {
  Datatype* r = darray_of(size, rank, ndims, gsizes, distribs, dargs, psizes, order, old);
  std::vector<int> ints{size, rank, ndims};
  for (const int* v : {distribs, dargs, psizes}) ints.insert(ints.end(), v, v + ndims);
  ints.push_back(order);
  return record(r, std::move(ints), {}, {old}, {gsizes, gsizes + ndims});
}

Datatype* make_resized_c(Datatype* old, MPI_Count lb, MPI_Count extent) {
  return record(resized_of(old, lb, extent), {}, {}, {old}, {lb, extent});
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
