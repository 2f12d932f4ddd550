#include "reference.h"

#include <algorithm>
#include <cstring>
#include <functional>

#include "runtime/dt/build.h"

using mpr::runtime::Datatype;
using mpr::runtime::to_datatype;
namespace dt = mpr::runtime::dt;

namespace dtype_test {

size_t Ref::size() const {
  size_t s = 0;
  for (const Entry& e : map) s += e.len;
  return s;
}

namespace {

// n copies of `old`, the first at disp, each next one `stride` further: entries and bounds
// (MPI-4.0 5.1: the new bounds are the extremes of the copies' bounds).
void add_copies(Ref* r, const Ref& old, size_t n, ptrdiff_t disp, ptrdiff_t stride) {
  if (n == 0) return;
  for (size_t k = 0; k < n; ++k) {
    ptrdiff_t at = disp + static_cast<ptrdiff_t>(k) * stride;
    for (const Entry& e : old.map) r->map.push_back({at + e.disp, e.len});
    if (old.map.empty() && !old.explicit_bounds) continue;
    ptrdiff_t lo = at + old.lb, hi = at + old.ub;
    r->lb = r->bounded ? std::min(r->lb, lo) : lo;
    r->ub = r->bounded ? std::max(r->ub, hi) : hi;
    r->bounded = true;
  }
  r->align = std::max(r->align, old.align);
  r->explicit_bounds = r->explicit_bounds || old.explicit_bounds;
}

const MPI_Datatype kBasics[] = {MPI_CHAR,    MPI_SHORT,      MPI_INT,       MPI_DOUBLE, MPI_FLOAT,
                                MPI_INT64_T, MPI_DOUBLE_INT, MPI_SHORT_INT, MPI_2INT,   MPI_BYTE};

int pick(std::mt19937_64& rng, int lo, int hi) {
  return std::uniform_int_distribution<int>(lo, hi)(rng);
}

}  // namespace

Built predefined(MPI_Datatype h) {
  Built b;
  b.dt = to_datatype(h);
  Ref& r = b.ref;
  if (h == MPI_DOUBLE_INT) {
    r.map = {{0, sizeof(double)}, {8, sizeof(int)}};
  } else if (h == MPI_SHORT_INT) {
    r.map = {{0, sizeof(short)}, {4, sizeof(int)}};
  } else if (h == MPI_2INT) {
    r.map = {{0, sizeof(int)}, {4, sizeof(int)}};
  } else {
    r.map = {{0, b.dt->size}};
  }
  r.lb = 0;
  r.ub = b.dt->extent;
  r.bounded = true;
  r.align = b.dt->align;
  return b;
}

void release(Built& b) {
  b.dt->release();
  b.dt = nullptr;
}

Built random_type(std::mt19937_64& rng, int depth, size_t max_entries) {
  for (;;) {
    if (depth == 0 || pick(rng, 0, 4) == 0)
      return predefined(kBasics[pick(rng, 0, std::size(kBasics) - 1)]);
    Built old = random_type(rng, depth - 1, max_entries);
    const ptrdiff_t ext = old.ref.extent();
    Built b;
    Ref& r = b.ref;
    const int kind = pick(rng, 0, 10);
    switch (kind) {
      case 0: {
        int count = pick(rng, 0, 4);
        b.dt = dt::make_contiguous(count, old.dt);
        add_copies(&r, old.ref, count, 0, ext);
        break;
      }
      case 1:
      case 2: {
        int count = pick(rng, 0, 4), bl = pick(rng, 0, 3), stride = pick(rng, -3, 6);
        bool bytes = kind == 2;
        MPI_Aint hstride = bytes ? pick(rng, -40, 80) : stride * ext;
        b.dt = bytes ? dt::make_hvector(count, bl, hstride, old.dt)
                     : dt::make_vector(count, bl, stride, old.dt);
        for (int i = 0; i < count; ++i) add_copies(&r, old.ref, bl, i * hstride, ext);
        break;
      }
      case 3:
      case 4: {
        int count = pick(rng, 0, 4);
        std::vector<int> bls(count), disps(count);
        std::vector<MPI_Aint> hdisps(count);
        for (int i = 0; i < count; ++i) {
          bls[i] = pick(rng, 0, 3);
          disps[i] = pick(rng, -4, 8);
          hdisps[i] = pick(rng, -64, 128);
        }
        bool bytes = kind == 4;
        b.dt = bytes ? dt::make_hindexed(count, bls.data(), hdisps.data(), old.dt)
                     : dt::make_indexed(count, bls.data(), disps.data(), old.dt);
        for (int i = 0; i < count; ++i)
          add_copies(&r, old.ref, bls[i], bytes ? hdisps[i] : disps[i] * ext, ext);
        break;
      }
      case 5:
      case 6: {
        int count = pick(rng, 0, 4), bl = pick(rng, 0, 3);
        std::vector<int> disps(count);
        std::vector<MPI_Aint> hdisps(count);
        for (int i = 0; i < count; ++i) {
          disps[i] = pick(rng, -4, 8);
          hdisps[i] = pick(rng, -64, 128);
        }
        bool bytes = kind == 6;
        b.dt = bytes ? dt::make_hindexed_block(count, bl, hdisps.data(), old.dt)
                     : dt::make_indexed_block(count, bl, disps.data(), old.dt);
        for (int i = 0; i < count; ++i)
          add_copies(&r, old.ref, bl, bytes ? hdisps[i] : disps[i] * ext, ext);
        break;
      }
      case 7: {
        // A struct of the generated type and up to two more random members.
        int count = pick(rng, 1, 3);
        std::vector<Built> members{old};
        for (int i = 1; i < count; ++i) members.push_back(random_type(rng, depth - 1, 64));
        std::vector<int> bls(count);
        std::vector<MPI_Aint> disps(count);
        std::vector<Datatype*> types(count);
        for (int i = 0; i < count; ++i) {
          bls[i] = pick(rng, 0, 3);
          disps[i] = pick(rng, -16, 48);
          types[i] = members[i].dt;
        }
        b.dt = dt::make_struct(count, bls.data(), disps.data(), types.data());
        for (int i = 0; i < count; ++i)
          add_copies(&r, members[i].ref, bls[i], disps[i], members[i].ref.extent());
        if (!r.explicit_bounds && r.align > 1 && r.bounded) {
          auto a = static_cast<ptrdiff_t>(r.align);
          r.ub = r.lb + (r.extent() + a - 1) / a * a;
        }
        for (int i = 1; i < count; ++i) release(members[i]);
        break;
      }
      case 8: {
        MPI_Aint lb = pick(rng, -16, 16), extent = pick(rng, 1, 64);
        b.dt = dt::make_resized(old.dt, lb, extent);
        r = old.ref;
        r.lb = lb;
        r.ub = lb + extent;
        r.bounded = true;
        r.explicit_bounds = true;
        break;
      }
      case 9: {
        b.dt = dt::make_dup(old.dt);
        r = old.ref;
        break;
      }
      default: {
        int ndims = pick(rng, 1, 3);
        int order = pick(rng, 0, 1) ? MPI_ORDER_C : MPI_ORDER_FORTRAN;
        std::vector<int> sizes(ndims), subs(ndims), starts(ndims);
        for (int d = 0; d < ndims; ++d) {
          sizes[d] = pick(rng, 1, 4);
          subs[d] = pick(rng, 1, sizes[d]);
          starts[d] = pick(rng, 0, sizes[d] - subs[d]);
        }
        b.dt = dt::make_subarray(ndims, sizes.data(), subs.data(), starts.data(), order, old.dt);
        // Every index tuple of the subarray in memory order (the fastest dimension last for
        // C, first for Fortran), as an odometer.
        std::vector<int> idx(ndims, 0);
        auto dim = [&](int k) { return order == MPI_ORDER_C ? ndims - 1 - k : k; };
        for (;;) {
          ptrdiff_t elem = 0, stride = 1;
          for (int k = 0; k < ndims; ++k) {
            int d = dim(k);
            elem += (starts[d] + idx[d]) * stride;
            stride *= sizes[d];
          }
          Ref one = old.ref;
          add_copies(&r, one, 1, elem * ext, 0);
          int k = 0;
          for (; k < ndims; ++k) {
            int d = dim(k);
            if (++idx[d] < subs[d]) break;
            idx[d] = 0;
          }
          if (k == ndims) break;
        }
        ptrdiff_t total = ext;
        for (int d = 0; d < ndims; ++d) total *= sizes[d];
        r.lb = old.ref.lb;
        r.ub = old.ref.lb + total;
        r.bounded = true;
        r.explicit_bounds = true;
        break;
      }
    }
    if (!r.bounded) r.lb = r.ub = 0;
    release(old);
    if (r.map.size() <= max_entries) return b;
    release(b);
  }
}

std::vector<char> ref_pack(const Ref& r, const char* buf, size_t count) {
  std::vector<char> out;
  for (size_t i = 0; i < count; ++i)
    for (const Entry& e : r.map) {
      const char* p = buf + static_cast<ptrdiff_t>(i) * r.extent() + e.disp;
      out.insert(out.end(), p, p + e.len);
    }
  return out;
}

void ref_unpack(const Ref& r, const char* in, size_t bytes, char* buf) {
  for (size_t i = 0; bytes > 0; ++i)
    for (const Entry& e : r.map) {
      if (bytes == 0) return;
      size_t n = std::min(e.len, bytes);
      std::memcpy(buf + static_cast<ptrdiff_t>(i) * r.extent() + e.disp, in, n);
      in += n;
      bytes -= n;
    }
}

int64_t ref_elements(const Ref& r, size_t bytes) {
  int64_t n = 0;
  if (r.map.empty()) return 0;
  for (;;)
    for (const Entry& e : r.map) {
      if (bytes == 0) return n;
      if (bytes < e.len) return -1;
      bytes -= e.len;
      ++n;
    }
}

void ref_data_bounds(const Ref& r, size_t count, ptrdiff_t* lo, ptrdiff_t* hi) {
  bool any = false;
  for (size_t i = 0; i < count; ++i)
    for (const Entry& e : r.map) {
      ptrdiff_t a = static_cast<ptrdiff_t>(i) * r.extent() + e.disp;
      ptrdiff_t b = a + static_cast<ptrdiff_t>(e.len);
      *lo = any ? std::min(*lo, a) : a;
      *hi = any ? std::max(*hi, b) : b;
      any = true;
    }
  if (!any) *lo = *hi = 0;
}

}  // namespace dtype_test
