#include "io/datarep.h"

#include <climits>
#include <cstring>
#include <deque>
#include <vector>

#include "runtime/dt/build.h"
#include "runtime/dt/external32.h"

namespace mpr::io {

using runtime::Basic;
using runtime::predefined_datatype;

namespace {

std::deque<Datarep>& registry() {
  static std::deque<Datarep>* reps = [] {
    auto* d = new std::deque<Datarep>;
    Datarep native;
    native.name = "native";
    d->push_back(native);
    Datarep internal;  // "internal" may be anything the implementation likes: native here
    internal.name = "internal";
    d->push_back(internal);
    Datarep ext;
    ext.name = "external32";
    ext.kind = Datarep::Kind::kExternal32;
    d->push_back(ext);
    return d;
  }();
  return *reps;
}

uintptr_t element_at(const void* buf, const Datatype* type, size_t i) {
  return reinterpret_cast<uintptr_t>(buf) +
         static_cast<uintptr_t>(static_cast<ptrdiff_t>(i) * type->extent);
}

// The file size of one element of a predefined (or predefined-like) type.
int leaf_size(const Datarep& rep, const Datatype* t, size_t* out) {
  switch (rep.kind) {
    case Datarep::Kind::kNative:
      *out = t->size;
      return MPI_SUCCESS;
    case Datarep::Kind::kExternal32:
      *out = runtime::dt::external32_size(t, 1);
      return MPI_SUCCESS;
    case Datarep::Kind::kUser: {
      MPI_Aint ext = 0;
      int rc = rep.extent_fn ? rep.extent_fn(t->handle, &ext, rep.extra_state) : MPI_ERR_ARG;
      if (rc != MPI_SUCCESS || ext < 0) return MPI_ERR_CONVERSION;
      *out = static_cast<size_t>(ext);
      return MPI_SUCCESS;
    }
  }
  return MPI_ERR_INTERN;
}

bool is_leaf(const Datatype* t) { return t->predefined || t->combiner == MPI_COMBINER_NAMED; }

// The constructor arguments of a derived type in MPI_Type_get_contents_c's large-count form
// (every count and displacement an MPI_Count), whichever constructor made it.
struct Args {
  std::vector<int> ints;  // ndims, order, darray's size/rank/distribs/dargs/psizes
  std::vector<MPI_Count> large;
};

Args args_of(const Datatype* t) {
  Args a;
  if (!t->large_counts.empty()) {
    a.ints = t->ints;
    a.large = t->large_counts;
    return a;
  }
  const std::vector<int>& in = t->ints;
  const std::vector<MPI_Aint>& ad = t->aints;
  auto add = [&a](auto first, auto last) { a.large.insert(a.large.end(), first, last); };
  switch (t->combiner) {
    case MPI_COMBINER_SUBARRAY: {
      const int n = in[0];
      a.ints = {n, in[1 + 3 * n]};
      add(in.begin() + 1, in.begin() + 1 + 3 * n);
      break;
    }
    case MPI_COMBINER_DARRAY: {
      const int n = in[2];
      a.ints = {in[0], in[1], n};
      a.ints.insert(a.ints.end(), in.begin() + 3 + n, in.end());  // distribs dargs psizes order
      add(in.begin() + 3, in.begin() + 3 + n);                    // gsizes
      break;
    }
    default:  // counts and block lengths (ints), then byte displacements (aints)
      add(in.begin(), in.end());
      add(ad.begin(), ad.end());
      break;
  }
  return a;
}

// `t` rebuilt with every basic type replaced by a block of its file size. *changed tells
// whether any basic type changed size (if not, the caller keeps `t`). Returns a new type or
// nullptr with *err set.
Datatype* rebuild(const Datarep& rep, const Datatype* t, bool* changed, int* err) {
  using namespace runtime::dt;
  if (is_leaf(t)) {
    size_t fsize = 0;
    if ((*err = leaf_size(rep, t, &fsize)) != MPI_SUCCESS) return nullptr;
    if (fsize != t->size) *changed = true;
    if (fsize > static_cast<size_t>(INT_MAX)) {
      *err = MPI_ERR_CONVERSION;
      return nullptr;
    }
    return make_contiguous(static_cast<int>(fsize), predefined_datatype(Basic::kByte));
  }
  std::vector<Datatype*> olds;
  for (const Datatype* o : t->types) {
    Datatype* r = rebuild(rep, o, changed, err);
    if (!r) {
      for (Datatype* d : olds) d->release();
      return nullptr;
    }
    olds.push_back(r);
  }
  const Args a = args_of(t);
  const std::vector<MPI_Count>& L = a.large;
  Datatype* old = olds.empty() ? nullptr : olds[0];
  Datatype* out = nullptr;
  switch (t->combiner) {
    case MPI_COMBINER_DUP:
      out = make_dup(old);
      break;
    case MPI_COMBINER_CONTIGUOUS:
      out = make_contiguous_c(L[0], old);
      break;
    case MPI_COMBINER_VECTOR:
      out = make_vector_c(L[0], L[1], L[2], old);
      break;
    case MPI_COMBINER_HVECTOR:
      out = make_hvector_c(L[0], L[1], L[2], old);
      break;
    case MPI_COMBINER_INDEXED:
      out = make_indexed_c(L[0], &L[1], &L[1 + L[0]], old);
      break;
    case MPI_COMBINER_HINDEXED:
      out = make_hindexed_c(L[0], &L[1], &L[1 + L[0]], old);
      break;
    case MPI_COMBINER_INDEXED_BLOCK:
      out = make_indexed_block_c(L[0], L[1], &L[2], old);
      break;
    case MPI_COMBINER_HINDEXED_BLOCK:
      out = make_hindexed_block_c(L[0], L[1], &L[2], old);
      break;
    case MPI_COMBINER_STRUCT:
      out = make_struct_c(L[0], &L[1], &L[1 + L[0]], olds.data());
      break;
    case MPI_COMBINER_SUBARRAY: {
      const int n = a.ints[0];
      out = make_subarray_c(n, &L[0], &L[n], &L[2 * n], a.ints[1], old);
      break;
    }
    case MPI_COMBINER_DARRAY: {
      const int n = a.ints[2];
      const int* rest = &a.ints[3];
      out = make_darray_c(a.ints[0], a.ints[1], n, L.data(), rest, rest + n, rest + 2 * n,
                          rest[3 * n], old);
      break;
    }
    case MPI_COMBINER_RESIZED:
      out = make_resized_c(old, L[0], L[1]);
      break;
    default:
      *err = MPI_ERR_TYPE;
      break;
  }
  for (Datatype* d : olds) d->release();  // the new type holds its own references
  if (out) out->committed = true;
  return out;
}

}  // namespace

const Datarep* find_datarep(const char* name) {
  for (const Datarep& r : registry())
    if (r.name == name) return &r;
  return nullptr;
}

int register_datarep(const Datarep& rep) {
  if (find_datarep(rep.name.c_str())) return MPI_ERR_DUP_DATAREP;
  registry().push_back(rep);
  return MPI_SUCCESS;
}

int file_size(const Datarep& rep, const Datatype* type, size_t* out) {
  switch (rep.kind) {
    case Datarep::Kind::kNative:
      *out = type->size;
      return MPI_SUCCESS;
    case Datarep::Kind::kExternal32:
      *out = runtime::dt::external32_size(type, 1);
      return MPI_SUCCESS;
    case Datarep::Kind::kUser:
      break;
  }
  if (is_leaf(type)) return leaf_size(rep, type, out);
  const Datatype* t = nullptr;
  if (int rc = file_type(rep, type, &t); rc != MPI_SUCCESS) return rc;
  *out = t->size;
  t->release();
  return MPI_SUCCESS;
}

int file_type(const Datarep& rep, const Datatype* type, const Datatype** out) {
  if (rep.native()) {
    type->retain();
    *out = type;
    return MPI_SUCCESS;
  }
  bool changed = false;
  int err = MPI_SUCCESS;
  Datatype* t = rebuild(rep, type, &changed, &err);
  if (!t) return err;
  if (!changed) {
    t->release();
    type->retain();
    *out = type;
    return MPI_SUCCESS;
  }
  *out = t;
  return MPI_SUCCESS;
}

int to_file(const Datarep& rep, const Datatype* type, const void* buf, size_t first, size_t n,
            void* out) {
  if (n == 0) return MPI_SUCCESS;
  const auto* at = reinterpret_cast<const void*>(element_at(buf, type, first));
  switch (rep.kind) {
    case Datarep::Kind::kNative:
      type->pack(at, n, out);
      return MPI_SUCCESS;
    case Datarep::Kind::kExternal32:
      runtime::dt::external32_pack(type, at, n, out);
      return MPI_SUCCESS;
    case Datarep::Kind::kUser:
      break;
  }
  if (!rep.write_fn && !rep.write_fn_c) {  // MPI_CONVERSION_FN_NULL: the bytes as they are
    size_t fsize = 0;
    if (int rc = file_size(rep, type, &fsize); rc != MPI_SUCCESS) return rc;
    if (fsize != type->size) return MPI_ERR_CONVERSION;
    type->pack(at, n, out);
    return MPI_SUCCESS;
  }
  auto* user = const_cast<void*>(buf);
  if (rep.write_fn_c)
    return rep.write_fn_c(user, type->handle, static_cast<MPI_Count>(n), out,
                          static_cast<MPI_Offset>(first), rep.extra_state);
  // The int form takes at most INT_MAX elements a call.
  size_t fsize = 0;
  if (int rc = file_size(rep, type, &fsize); rc != MPI_SUCCESS) return rc;
  auto* o = static_cast<char*>(out);
  while (n > 0) {
    const size_t k = n < static_cast<size_t>(INT_MAX) ? n : static_cast<size_t>(INT_MAX);
    int rc = rep.write_fn(user, type->handle, static_cast<int>(k), o,
                          static_cast<MPI_Offset>(first), rep.extra_state);
    if (rc != MPI_SUCCESS) return rc;
    first += k;
    n -= k;
    o += k * fsize;
  }
  return MPI_SUCCESS;
}

int from_file(const Datarep& rep, const Datatype* type, void* buf, size_t first, size_t n,
              const void* in) {
  if (n == 0) return MPI_SUCCESS;
  auto* at = reinterpret_cast<void*>(element_at(buf, type, first));
  switch (rep.kind) {
    case Datarep::Kind::kNative:
      type->unpack(in, n * type->size, at);
      return MPI_SUCCESS;
    case Datarep::Kind::kExternal32:
      runtime::dt::external32_unpack(type, in, n, at);
      return MPI_SUCCESS;
    case Datarep::Kind::kUser:
      break;
  }
  if (!rep.read_fn && !rep.read_fn_c) {
    size_t fsize = 0;
    if (int rc = file_size(rep, type, &fsize); rc != MPI_SUCCESS) return rc;
    if (fsize != type->size) return MPI_ERR_CONVERSION;
    type->unpack(in, n * type->size, at);
    return MPI_SUCCESS;
  }
  auto* file = const_cast<void*>(in);
  if (rep.read_fn_c)
    return rep.read_fn_c(buf, type->handle, static_cast<MPI_Count>(n), file,
                         static_cast<MPI_Offset>(first), rep.extra_state);
  size_t fsize = 0;
  if (int rc = file_size(rep, type, &fsize); rc != MPI_SUCCESS) return rc;
  auto* f = static_cast<char*>(file);
  while (n > 0) {
    const size_t k = n < static_cast<size_t>(INT_MAX) ? n : static_cast<size_t>(INT_MAX);
    int rc = rep.read_fn(buf, type->handle, static_cast<int>(k), f,
                         static_cast<MPI_Offset>(first), rep.extra_state);
    if (rc != MPI_SUCCESS) return rc;
    first += k;
    n -= k;
    f += k * fsize;
  }
  return MPI_SUCCESS;
}

}  // namespace mpr::io
