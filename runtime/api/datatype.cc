// Datatype constructors, commit/free, queries, names, envelope and contents.
// Queries and constructors accept types that are not committed yet; communication does not.
#include <algorithm>
#include <cstring>
#include <string>
#include <vector>

#include "runtime/api/check.h"
#include "runtime/dt/build.h"
#include "runtime/dt/datatype.h"

using namespace mpr::runtime;
using namespace mpr::runtime::api;

namespace {

// Any valid datatype, committed or not.
int check_any_type(const char* fn, MPI_Datatype h, Datatype** out) {
  *out = to_datatype(h);
  if (*out) return MPI_SUCCESS;
  if (h == MPI_DATATYPE_NULL)
    return raise_error(nullptr, MPI_ERR_TYPE, fn, "invalid datatype MPI_DATATYPE_NULL");
  return raise_error(nullptr, MPI_ERR_TYPE, fn, "invalid datatype handle %p",
                     static_cast<void*>(h));
}

int check_new(const char* fn, const MPI_Datatype* newtype) {
  return check_arg(fn, nullptr, newtype != nullptr, "newtype is NULL");
}

int check_count_arg(const char* fn, int count) {
  if (count >= 0) return MPI_SUCCESS;
  return raise_error(nullptr, MPI_ERR_COUNT, fn, "invalid count %d (must be >= 0)", count);
}

int check_blocklen(const char* fn, int blocklength) {
  if (blocklength >= 0) return MPI_SUCCESS;
  return raise_error(nullptr, MPI_ERR_ARG, fn, "invalid blocklength %d (must be >= 0)",
                     blocklength);
}

// Block lengths of an indexed or struct type: the array exists and has no negative entry.
int check_blocklens(const char* fn, int count, const int* blocklens) {
  MPR_TRY(check_arg(fn, nullptr, count == 0 || blocklens, "array_of_blocklengths is NULL"));
  for (int i = 0; i < count; ++i)
    if (blocklens[i] < 0)
      return raise_error(nullptr, MPI_ERR_ARG, fn,
                         "invalid block length %d at index %d (must be >= 0)", blocklens[i], i);
  return MPI_SUCCESS;
}

int done(Datatype* d, MPI_Datatype* newtype) {
  *newtype = d->handle;
  return MPI_SUCCESS;
}

}  // namespace

extern "C" int PMPI_Type_contiguous(int count, MPI_Datatype oldtype, MPI_Datatype* newtype) {
  constexpr const char* fn = "MPI_Type_contiguous";
  Datatype* old;
  MPR_TRY(check_count_arg(fn, count));
  MPR_TRY(check_any_type(fn, oldtype, &old));
  MPR_TRY(check_new(fn, newtype));
  return done(dt::make_contiguous(count, old), newtype);
}
MPR_WEAK_ALIAS(Type_contiguous);

extern "C" int PMPI_Type_vector(int count, int blocklength, int stride, MPI_Datatype oldtype,
                                MPI_Datatype* newtype) {
  constexpr const char* fn = "MPI_Type_vector";
  Datatype* old;
  MPR_TRY(check_count_arg(fn, count));
  MPR_TRY(check_blocklen(fn, blocklength));
  MPR_TRY(check_any_type(fn, oldtype, &old));
  MPR_TRY(check_new(fn, newtype));
  return done(dt::make_vector(count, blocklength, stride, old), newtype);
}
MPR_WEAK_ALIAS(Type_vector);

extern "C" int PMPI_Type_create_hvector(int count, int blocklength, MPI_Aint stride,
                                        MPI_Datatype oldtype, MPI_Datatype* newtype) {
  constexpr const char* fn = "MPI_Type_create_hvector";
  Datatype* old;
  MPR_TRY(check_count_arg(fn, count));
  MPR_TRY(check_blocklen(fn, blocklength));
  MPR_TRY(check_any_type(fn, oldtype, &old));
  MPR_TRY(check_new(fn, newtype));
  return done(dt::make_hvector(count, blocklength, stride, old), newtype);
}
MPR_WEAK_ALIAS(Type_create_hvector);

// The MPI-1 name, still called by older codes.
extern "C" int PMPI_Type_hvector(int count, int blocklength, MPI_Aint stride, MPI_Datatype oldtype,
                                 MPI_Datatype* newtype) {
  return PMPI_Type_create_hvector(count, blocklength, stride, oldtype, newtype);
}
MPR_WEAK_ALIAS(Type_hvector);

extern "C" int PMPI_Type_indexed(int count, const int array_of_blocklengths[],
                                 const int array_of_displacements[], MPI_Datatype oldtype,
                                 MPI_Datatype* newtype) {
  constexpr const char* fn = "MPI_Type_indexed";
  Datatype* old;
  MPR_TRY(check_count_arg(fn, count));
  MPR_TRY(check_blocklens(fn, count, array_of_blocklengths));
  MPR_TRY(check_arg(fn, nullptr, count == 0 || array_of_displacements,
                    "array_of_displacements is NULL"));
  MPR_TRY(check_any_type(fn, oldtype, &old));
  MPR_TRY(check_new(fn, newtype));
  return done(dt::make_indexed(count, array_of_blocklengths, array_of_displacements, old), newtype);
}
MPR_WEAK_ALIAS(Type_indexed);

extern "C" int PMPI_Type_create_hindexed(int count, const int array_of_blocklengths[],
                                         const MPI_Aint array_of_displacements[],
                                         MPI_Datatype oldtype, MPI_Datatype* newtype) {
  constexpr const char* fn = "MPI_Type_create_hindexed";
  Datatype* old;
  MPR_TRY(check_count_arg(fn, count));
  MPR_TRY(check_blocklens(fn, count, array_of_blocklengths));
  MPR_TRY(check_arg(fn, nullptr, count == 0 || array_of_displacements,
                    "array_of_displacements is NULL"));
  MPR_TRY(check_any_type(fn, oldtype, &old));
  MPR_TRY(check_new(fn, newtype));
  return done(dt::make_hindexed(count, array_of_blocklengths, array_of_displacements, old),
              newtype);
}
MPR_WEAK_ALIAS(Type_create_hindexed);

extern "C" int PMPI_Type_create_indexed_block(int count, int blocklength,
                                              const int array_of_displacements[],
                                              MPI_Datatype oldtype, MPI_Datatype* newtype) {
  constexpr const char* fn = "MPI_Type_create_indexed_block";
  Datatype* old;
  MPR_TRY(check_count_arg(fn, count));
  MPR_TRY(check_blocklen(fn, blocklength));
  MPR_TRY(check_arg(fn, nullptr, count == 0 || array_of_displacements,
                    "array_of_displacements is NULL"));
  MPR_TRY(check_any_type(fn, oldtype, &old));
  MPR_TRY(check_new(fn, newtype));
  return done(dt::make_indexed_block(count, blocklength, array_of_displacements, old), newtype);
}
MPR_WEAK_ALIAS(Type_create_indexed_block);

extern "C" int PMPI_Type_create_hindexed_block(int count, int blocklength,
                                               const MPI_Aint array_of_displacements[],
                                               MPI_Datatype oldtype, MPI_Datatype* newtype) {
  constexpr const char* fn = "MPI_Type_create_hindexed_block";
  Datatype* old;
  MPR_TRY(check_count_arg(fn, count));
  MPR_TRY(check_blocklen(fn, blocklength));
  MPR_TRY(check_arg(fn, nullptr, count == 0 || array_of_displacements,
                    "array_of_displacements is NULL"));
  MPR_TRY(check_any_type(fn, oldtype, &old));
  MPR_TRY(check_new(fn, newtype));
  return done(dt::make_hindexed_block(count, blocklength, array_of_displacements, old), newtype);
}
MPR_WEAK_ALIAS(Type_create_hindexed_block);

extern "C" int PMPI_Type_create_struct(int count, const int array_of_blocklengths[],
                                       const MPI_Aint array_of_displacements[],
                                       const MPI_Datatype array_of_types[], MPI_Datatype* newtype) {
  constexpr const char* fn = "MPI_Type_create_struct";
  MPR_TRY(check_count_arg(fn, count));
  MPR_TRY(check_blocklens(fn, count, array_of_blocklengths));
  MPR_TRY(check_arg(fn, nullptr, count == 0 || (array_of_displacements && array_of_types),
                    "array_of_displacements or array_of_types is NULL"));
  MPR_TRY(check_new(fn, newtype));
  std::vector<Datatype*> types(static_cast<size_t>(count));
  for (int i = 0; i < count; ++i) {
    types[i] = to_datatype(array_of_types[i]);
    if (!types[i])
      return raise_error(nullptr, MPI_ERR_TYPE, fn, "invalid datatype %p at index %d",
                         static_cast<void*>(array_of_types[i]), i);
  }
  return done(dt::make_struct(count, array_of_blocklengths, array_of_displacements, types.data()),
              newtype);
}
MPR_WEAK_ALIAS(Type_create_struct);

extern "C" int PMPI_Type_create_subarray(int ndims, const int array_of_sizes[],
                                         const int array_of_subsizes[], const int array_of_starts[],
                                         int order, MPI_Datatype oldtype, MPI_Datatype* newtype) {
  constexpr const char* fn = "MPI_Type_create_subarray";
  Datatype* old;
  if (ndims <= 0)
    return raise_error(nullptr, MPI_ERR_DIMS, fn, "invalid ndims %d (must be >= 1)", ndims);
  MPR_TRY(check_arg(fn, nullptr, array_of_sizes && array_of_subsizes && array_of_starts,
                    "array_of_sizes, array_of_subsizes or array_of_starts is NULL"));
  for (int i = 0; i < ndims; ++i) {
    int size = array_of_sizes[i], sub = array_of_subsizes[i], start = array_of_starts[i];
    if (size < 1 || sub < 1 || sub > size || start < 0 || start > size - sub)
      return raise_error(nullptr, MPI_ERR_ARG, fn,
                         "dimension %d: size %d, subsize %d, start %d (need 1 <= subsize <= "
                         "size and 0 <= start <= size - subsize)",
                         i, size, sub, start);
  }
  if (order != MPI_ORDER_C && order != MPI_ORDER_FORTRAN)
    return raise_error(nullptr, MPI_ERR_ARG, fn,
                       "invalid order %d (MPI_ORDER_C or MPI_ORDER_FORTRAN)", order);
  MPR_TRY(check_any_type(fn, oldtype, &old));
  MPR_TRY(check_new(fn, newtype));
  return done(
      dt::make_subarray(ndims, array_of_sizes, array_of_subsizes, array_of_starts, order, old),
      newtype);
}
MPR_WEAK_ALIAS(Type_create_subarray);

extern "C" int PMPI_Type_create_darray(int size, int rank, int ndims, const int array_of_gsizes[],
                                       const int array_of_distribs[], const int array_of_dargs[],
                                       const int array_of_psizes[], int order, MPI_Datatype oldtype,
                                       MPI_Datatype* newtype) {
  constexpr const char* fn = "MPI_Type_create_darray";
  Datatype* old;
  if (size < 1 || rank < 0 || rank >= size)
    return raise_error(nullptr, MPI_ERR_ARG, fn, "invalid size %d or rank %d", size, rank);
  if (ndims <= 0)
    return raise_error(nullptr, MPI_ERR_DIMS, fn, "invalid ndims %d (must be >= 1)", ndims);
  MPR_TRY(check_arg(fn, nullptr,
                    array_of_gsizes && array_of_distribs && array_of_dargs && array_of_psizes,
                    "array_of_gsizes, array_of_distribs, array_of_dargs or array_of_psizes is "
                    "NULL"));
  long procs = 1;
  for (int i = 0; i < ndims; ++i) {
    const int g = array_of_gsizes[i], dist = array_of_distribs[i], darg = array_of_dargs[i],
              p = array_of_psizes[i];
    if (g < 1 || p < 1)
      return raise_error(nullptr, MPI_ERR_ARG, fn,
                         "dimension %d: gsize %d, psize %d (both must be >= 1)", i, g, p);
    if (dist != MPI_DISTRIBUTE_BLOCK && dist != MPI_DISTRIBUTE_CYCLIC &&
        dist != MPI_DISTRIBUTE_NONE)
      return raise_error(nullptr, MPI_ERR_ARG, fn,
                         "dimension %d: invalid distribution %d (MPI_DISTRIBUTE_BLOCK, "
                         "_CYCLIC or _NONE)",
                         i, dist);
    if (dist == MPI_DISTRIBUTE_NONE && p != 1)
      return raise_error(nullptr, MPI_ERR_ARG, fn,
                         "dimension %d: MPI_DISTRIBUTE_NONE needs psize 1, not %d", i, p);
    if (darg != MPI_DISTRIBUTE_DFLT_DARG && darg < 1)
      return raise_error(nullptr, MPI_ERR_ARG, fn,
                         "dimension %d: invalid darg %d (>= 1 or MPI_DISTRIBUTE_DFLT_DARG)", i,
                         darg);
    if (dist == MPI_DISTRIBUTE_BLOCK && darg != MPI_DISTRIBUTE_DFLT_DARG &&
        static_cast<long>(darg) * p < g)
      return raise_error(nullptr, MPI_ERR_ARG, fn,
                         "dimension %d: blocks of %d on %d processes do not cover gsize %d", i,
                         darg, p, g);
    procs *= p;
  }
  if (procs != size)
    return raise_error(nullptr, MPI_ERR_ARG, fn, "the process grid has %ld processes, not size %d",
                       procs, size);
  if (order != MPI_ORDER_C && order != MPI_ORDER_FORTRAN)
    return raise_error(nullptr, MPI_ERR_ARG, fn,
                       "invalid order %d (MPI_ORDER_C or MPI_ORDER_FORTRAN)", order);
  MPR_TRY(check_any_type(fn, oldtype, &old));
  MPR_TRY(check_new(fn, newtype));
  return done(dt::make_darray(size, rank, ndims, array_of_gsizes, array_of_distribs, array_of_dargs,
                              array_of_psizes, order, old),
              newtype);
}
MPR_WEAK_ALIAS(Type_create_darray);

// ---- Fortran kinds: MPI_Type_match_size and the f90 parameterized types ---------------------

extern "C" int PMPI_Type_match_size(int typeclass, int size, MPI_Datatype* datatype) {
  constexpr const char* fn = "MPI_Type_match_size";
  MPR_TRY(check_arg(fn, nullptr, datatype, "datatype is NULL"));
  MPI_Datatype found = MPI_DATATYPE_NULL;
  const char* cls = "";
  switch (typeclass) {
    case MPI_TYPECLASS_INTEGER:
      cls = "MPI_TYPECLASS_INTEGER";
      found = size == 1   ? MPI_INTEGER1
              : size == 2 ? MPI_INTEGER2
              : size == 4 ? MPI_INTEGER4
              : size == 8 ? MPI_INTEGER8
                          : MPI_DATATYPE_NULL;
      break;
    case MPI_TYPECLASS_REAL:
      cls = "MPI_TYPECLASS_REAL";
      found = size == 4    ? MPI_REAL4
              : size == 8  ? MPI_REAL8
              : size == 16 ? MPI_REAL16
                           : MPI_DATATYPE_NULL;
      break;
    case MPI_TYPECLASS_COMPLEX:
      cls = "MPI_TYPECLASS_COMPLEX";
      found = size == 8    ? MPI_COMPLEX8
              : size == 16 ? MPI_COMPLEX16
              : size == 32 ? MPI_COMPLEX32
                           : MPI_DATATYPE_NULL;
      break;
    default:
      return raise_error(nullptr, MPI_ERR_ARG, fn,
                         "invalid typeclass %d (MPI_TYPECLASS_INTEGER, _REAL or _COMPLEX)",
                         typeclass);
  }
  if (found == MPI_DATATYPE_NULL)
    return raise_error(nullptr, MPI_ERR_ARG, fn, "no %s type of %d bytes", cls, size);
  *datatype = found;
  return MPI_SUCCESS;
}
MPR_WEAK_ALIAS(Type_match_size);

namespace {

// The smallest real kind with at least p decimal digits and a decimal exponent range of at
// least r (MPI_UNDEFINED: no requirement), as gfortran's SELECTED_REAL_KIND:
// 4 bytes (6, 37), 8 (15, 307), 16 (33, 4931). kNone if none has both.
Basic real_kind(int p, int r) {
  if (p == MPI_UNDEFINED) p = 0;
  if (r == MPI_UNDEFINED) r = 0;
  if (p <= 6 && r <= 37) return Basic::kReal4;
  if (p <= 15 && r <= 307) return Basic::kReal8;
  if (p <= 33 && r <= 4931) return Basic::kReal16;
  return Basic::kNone;
}

int f90_real_or_complex(const char* fn, int combiner, int p, int r, MPI_Datatype* newtype) {
  MPR_TRY(check_arg(fn, nullptr, newtype, "newtype is NULL"));
  if (p == MPI_UNDEFINED && r == MPI_UNDEFINED)
    return raise_error(nullptr, MPI_ERR_ARG, fn, "p and r are both MPI_UNDEFINED");
  if ((p != MPI_UNDEFINED && p < 0) || (r != MPI_UNDEFINED && r < 0))
    return raise_error(nullptr, MPI_ERR_ARG, fn, "invalid p %d or r %d", p, r);
  Basic b = real_kind(p, r);
  if (b == Basic::kNone)
    return raise_error(nullptr, MPI_ERR_ARG, fn,
                       "no real kind has precision %d and range %d (at most 33 and 4931)", p, r);
  if (combiner == MPI_COMBINER_F90_COMPLEX)
    b = b == Basic::kReal4   ? Basic::kComplex8
        : b == Basic::kReal8 ? Basic::kComplex16
                             : Basic::kComplex32;
  *newtype = dt::f90_type(combiner, p, r, b)->handle;
  return MPI_SUCCESS;
}

}  // namespace

extern "C" int PMPI_Type_create_f90_integer(int r, MPI_Datatype* newtype) {
  constexpr const char* fn = "MPI_Type_create_f90_integer";
  MPR_TRY(check_arg(fn, nullptr, newtype, "newtype is NULL"));
  // gfortran's SELECTED_INT_KIND: 1, 2, 4 and 8 bytes hold 2, 4, 9 and 18 decimal digits.
  Basic b = r < 0     ? Basic::kNone
            : r <= 2  ? Basic::kInteger1
            : r <= 4  ? Basic::kInteger2
            : r <= 9  ? Basic::kInteger4
            : r <= 18 ? Basic::kInteger8
                      : Basic::kNone;
  if (b == Basic::kNone)
    return raise_error(nullptr, MPI_ERR_ARG, fn,
                       "no integer kind has a range of %d decimal digits (0 to 18)", r);
  *newtype = dt::f90_type(MPI_COMBINER_F90_INTEGER, 0, r, b)->handle;
  return MPI_SUCCESS;
}
MPR_WEAK_ALIAS(Type_create_f90_integer);

extern "C" int PMPI_Type_create_f90_real(int p, int r, MPI_Datatype* newtype) {
  return f90_real_or_complex("MPI_Type_create_f90_real", MPI_COMBINER_F90_REAL, p, r, newtype);
}
MPR_WEAK_ALIAS(Type_create_f90_real);

extern "C" int PMPI_Type_create_f90_complex(int p, int r, MPI_Datatype* newtype) {
  return f90_real_or_complex("MPI_Type_create_f90_complex", MPI_COMBINER_F90_COMPLEX, p, r,
                             newtype);
}
MPR_WEAK_ALIAS(Type_create_f90_complex);

extern "C" int PMPI_Type_create_resized(MPI_Datatype oldtype, MPI_Aint lb, MPI_Aint extent,
                                        MPI_Datatype* newtype) {
  constexpr const char* fn = "MPI_Type_create_resized";
  Datatype* old;
  MPR_TRY(check_any_type(fn, oldtype, &old));
  MPR_TRY(check_new(fn, newtype));
  return done(dt::make_resized(old, lb, extent), newtype);
}
MPR_WEAK_ALIAS(Type_create_resized);

extern "C" int PMPI_Type_dup(MPI_Datatype oldtype, MPI_Datatype* newtype) {
  constexpr const char* fn = "MPI_Type_dup";
  Datatype* old;
  MPR_TRY(check_any_type(fn, oldtype, &old));
  MPR_TRY(check_new(fn, newtype));
  Datatype* d = dt::make_dup(old);
  if (int rc = type_attrs_copy(fn, old, d); rc != MPI_SUCCESS) {
    type_attrs_delete_all(fn, d);
    d->release();
    return rc;
  }
  return done(d, newtype);
}
MPR_WEAK_ALIAS(Type_dup);

extern "C" int PMPI_Type_commit(MPI_Datatype* datatype) {
  constexpr const char* fn = "MPI_Type_commit";
  Datatype* dt;
  MPR_TRY(check_arg(fn, nullptr, datatype != nullptr, "datatype is NULL"));
  MPR_TRY(check_any_type(fn, *datatype, &dt));
  dt->committed = true;
  return MPI_SUCCESS;
}
MPR_WEAK_ALIAS(Type_commit);

extern "C" int PMPI_Type_free(MPI_Datatype* datatype) {
  constexpr const char* fn = "MPI_Type_free";
  Datatype* dt;
  MPR_TRY(check_arg(fn, nullptr, datatype != nullptr, "datatype is NULL"));
  MPR_TRY(check_any_type(fn, *datatype, &dt));
  if (dt->predefined)
    return raise_error(nullptr, MPI_ERR_TYPE, fn, "cannot free predefined datatype %s",
                       dt->label().c_str());
  // Delete callbacks run now, while the type is still usable from inside them.
  MPR_TRY(type_attrs_delete_all(fn, dt));
  // Pending requests and types built from it hold their own references.
  dt->release();
  *datatype = MPI_DATATYPE_NULL;
  return MPI_SUCCESS;
}
MPR_WEAK_ALIAS(Type_free);

extern "C" int PMPI_Type_size(MPI_Datatype datatype, int* size) {
  constexpr const char* fn = "MPI_Type_size";
  Datatype* dt;
  MPR_TRY(check_arg(fn, nullptr, size, "size is NULL"));
  MPR_TRY(check_any_type(fn, datatype, &dt));
  *size = dt->size > static_cast<size_t>(INT_MAX) ? MPI_UNDEFINED : static_cast<int>(dt->size);
  return MPI_SUCCESS;
}
MPR_WEAK_ALIAS(Type_size);

extern "C" int PMPI_Type_size_x(MPI_Datatype datatype, MPI_Count* size) {
  constexpr const char* fn = "MPI_Type_size_x";
  Datatype* dt;
  MPR_TRY(check_arg(fn, nullptr, size, "size is NULL"));
  MPR_TRY(check_any_type(fn, datatype, &dt));
  *size = static_cast<MPI_Count>(dt->size);
  return MPI_SUCCESS;
}
MPR_WEAK_ALIAS(Type_size_x);

extern "C" int PMPI_Type_get_extent(MPI_Datatype datatype, MPI_Aint* lb, MPI_Aint* extent) {
  constexpr const char* fn = "MPI_Type_get_extent";
  Datatype* dt;
  MPR_TRY(check_arg(fn, nullptr, lb && extent, "lb or extent is NULL"));
  MPR_TRY(check_any_type(fn, datatype, &dt));
  *lb = dt->lb;
  *extent = dt->extent;
  return MPI_SUCCESS;
}
MPR_WEAK_ALIAS(Type_get_extent);

extern "C" int PMPI_Type_get_extent_x(MPI_Datatype datatype, MPI_Count* lb, MPI_Count* extent) {
  constexpr const char* fn = "MPI_Type_get_extent_x";
  Datatype* dt;
  MPR_TRY(check_arg(fn, nullptr, lb && extent, "lb or extent is NULL"));
  MPR_TRY(check_any_type(fn, datatype, &dt));
  *lb = dt->lb;
  *extent = dt->extent;
  return MPI_SUCCESS;
}
MPR_WEAK_ALIAS(Type_get_extent_x);

extern "C" int PMPI_Type_get_true_extent(MPI_Datatype datatype, MPI_Aint* true_lb,
                                         MPI_Aint* true_extent) {
  constexpr const char* fn = "MPI_Type_get_true_extent";
  Datatype* dt;
  MPR_TRY(check_arg(fn, nullptr, true_lb && true_extent, "true_lb or true_extent is NULL"));
  MPR_TRY(check_any_type(fn, datatype, &dt));
  *true_lb = dt->true_lb;
  *true_extent = dt->true_extent;
  return MPI_SUCCESS;
}
MPR_WEAK_ALIAS(Type_get_true_extent);

extern "C" int PMPI_Type_get_true_extent_x(MPI_Datatype datatype, MPI_Count* true_lb,
                                           MPI_Count* true_extent) {
  constexpr const char* fn = "MPI_Type_get_true_extent_x";
  Datatype* dt;
  MPR_TRY(check_arg(fn, nullptr, true_lb && true_extent, "true_lb or true_extent is NULL"));
  MPR_TRY(check_any_type(fn, datatype, &dt));
  *true_lb = dt->true_lb;
  *true_extent = dt->true_extent;
  return MPI_SUCCESS;
}
MPR_WEAK_ALIAS(Type_get_true_extent_x);

extern "C" int PMPI_Type_get_name(MPI_Datatype datatype, char* type_name, int* resultlen) {
  constexpr const char* fn = "MPI_Type_get_name";
  Datatype* dt;
  MPR_TRY(check_arg(fn, nullptr, type_name && resultlen, "type_name or resultlen is NULL"));
  MPR_TRY(check_any_type(fn, datatype, &dt));
  size_t n = std::strlen(dt->name);
  if (n > MPI_MAX_OBJECT_NAME - 1) n = MPI_MAX_OBJECT_NAME - 1;
  std::memcpy(type_name, dt->name, n);
  type_name[n] = '\0';
  *resultlen = static_cast<int>(n);
  return MPI_SUCCESS;
}
MPR_WEAK_ALIAS(Type_get_name);

extern "C" int PMPI_Type_set_name(MPI_Datatype datatype, const char* type_name) {
  constexpr const char* fn = "MPI_Type_set_name";
  Datatype* dt;
  MPR_TRY(check_arg(fn, nullptr, type_name, "type_name is NULL"));
  MPR_TRY(check_any_type(fn, datatype, &dt));
  // Longer names are truncated, as MPI_Type_get_name could not return them whole.
  dt->set_name(std::string(type_name, strnlen(type_name, MPI_MAX_OBJECT_NAME - 1)).c_str());
  return MPI_SUCCESS;
}
MPR_WEAK_ALIAS(Type_set_name);

extern "C" int PMPI_Type_get_envelope(MPI_Datatype datatype, int* num_integers, int* num_addresses,
                                      int* num_datatypes, int* combiner) {
  constexpr const char* fn = "MPI_Type_get_envelope";
  Datatype* dt;
  MPR_TRY(check_arg(fn, nullptr, num_integers && num_addresses && num_datatypes && combiner,
                    "an output argument is NULL"));
  MPR_TRY(check_any_type(fn, datatype, &dt));
  *num_integers = static_cast<int>(dt->ints.size());
  *num_addresses = static_cast<int>(dt->aints.size());
  *num_datatypes = static_cast<int>(dt->types.size());
  *combiner = dt->combiner;
  return MPI_SUCCESS;
}
MPR_WEAK_ALIAS(Type_get_envelope);

extern "C" int PMPI_Type_get_contents(MPI_Datatype datatype, int max_integers, int max_addresses,
                                      int max_datatypes, int array_of_integers[],
                                      MPI_Aint array_of_addresses[],
                                      MPI_Datatype array_of_datatypes[]) {
  constexpr const char* fn = "MPI_Type_get_contents";
  Datatype* dt;
  MPR_TRY(check_any_type(fn, datatype, &dt));
  if (dt->combiner == MPI_COMBINER_NAMED)
    return raise_error(nullptr, MPI_ERR_TYPE, fn,
                       "%s is predefined (MPI_COMBINER_NAMED): it has no contents", dt->name);
  const size_t ni = dt->ints.size(), na = dt->aints.size(), nd = dt->types.size();
  if (max_integers < 0 || static_cast<size_t>(max_integers) < ni || max_addresses < 0 ||
      static_cast<size_t>(max_addresses) < na || max_datatypes < 0 ||
      static_cast<size_t>(max_datatypes) < nd)
    return raise_error(nullptr, MPI_ERR_ARG, fn,
                       "arrays too small: the type has %zu integers, %zu addresses and %zu "
                       "datatypes (MPI_Type_get_envelope)",
                       ni, na, nd);
  MPR_TRY(check_arg(fn, nullptr,
                    (ni == 0 || array_of_integers) && (na == 0 || array_of_addresses) &&
                        (nd == 0 || array_of_datatypes),
                    "an output array is NULL"));
  std::copy(dt->ints.begin(), dt->ints.end(), array_of_integers);
  std::copy(dt->aints.begin(), dt->aints.end(), array_of_addresses);
  // Derived types come back as handles the caller owns (and frees): one more reference each.
  for (size_t i = 0; i < nd; ++i) {
    dt->types[i]->retain();
    array_of_datatypes[i] = dt->types[i]->handle;
  }
  return MPI_SUCCESS;
}
MPR_WEAK_ALIAS(Type_get_contents);
