// Datatype constructors, commit/free, queries, names, envelope and contents, each in its int
// form and, where MPI-4.0 has one, its large-count (_c) form sharing the same checks.
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

int check_blocklen(const char* fn, MPI_Count blocklength) {
  if (blocklength >= 0) return MPI_SUCCESS;
  return raise_error(nullptr, MPI_ERR_ARG, fn, "invalid blocklength %lld (must be >= 0)",
                     static_cast<long long>(blocklength));
}

// Block lengths of an indexed or struct type: the array exists and has no negative entry.
template <class Len>
int check_blocklens(const char* fn, MPI_Count count, const Len* blocklens) {
  MPR_TRY(check_arg(fn, nullptr, count == 0 || blocklens, "array_of_blocklengths is NULL"));
  for (MPI_Count i = 0; i < count; ++i)
    if (blocklens[i] < 0)
      return raise_error(nullptr, MPI_ERR_ARG, fn,
                         "invalid block length %lld at index %lld (must be >= 0)",
                         static_cast<long long>(blocklens[i]), static_cast<long long>(i));
  return MPI_SUCCESS;
}

int check_disps(const char* fn, MPI_Count count, const void* disps) {
  return check_arg(fn, nullptr, count == 0 || disps, "array_of_displacements is NULL");
}

int done(Datatype* d, MPI_Datatype* newtype) {
  *newtype = d->handle;
  return MPI_SUCCESS;
}

// ---- the checks of each constructor ------------------------------------------------------
// Shared by its int and _c forms, which differ only in how wide their counts are: each runs
// the checks in argument order, then make(old) builds the type.

template <class Make>
int build_contiguous(const char* fn, MPI_Count count, MPI_Datatype oldtype, MPI_Datatype* newtype,
                     Make make) {
  Datatype* old;
  MPR_TRY(check_count(fn, nullptr, count));
  MPR_TRY(check_any_type(fn, oldtype, &old));
  MPR_TRY(check_new(fn, newtype));
  return done(make(old), newtype);
}

// The vector and indexed_block types: one block length; `disps` is null-checked unless
// `has_disps` is false (the vectors have a stride instead).
template <class Make>
int build_vector(const char* fn, MPI_Count count, MPI_Count blocklength, bool has_disps,
                 const void* disps, MPI_Datatype oldtype, MPI_Datatype* newtype, Make make) {
  Datatype* old;
  MPR_TRY(check_count(fn, nullptr, count));
  MPR_TRY(check_blocklen(fn, blocklength));
  if (has_disps) MPR_TRY(check_disps(fn, count, disps));
  MPR_TRY(check_any_type(fn, oldtype, &old));
  MPR_TRY(check_new(fn, newtype));
  return done(make(old), newtype);
}

template <class Len, class Make>
int build_indexed(const char* fn, MPI_Count count, const Len* blocklens, const void* disps,
                  MPI_Datatype oldtype, MPI_Datatype* newtype, Make make) {
  Datatype* old;
  MPR_TRY(check_count(fn, nullptr, count));
  MPR_TRY(check_blocklens(fn, count, blocklens));
  MPR_TRY(check_disps(fn, count, disps));
  MPR_TRY(check_any_type(fn, oldtype, &old));
  MPR_TRY(check_new(fn, newtype));
  return done(make(old), newtype);
}

// make(types) gets the member types.
template <class Len, class Make>
int build_struct(const char* fn, MPI_Count count, const Len* blocklens, const void* disps,
                 const MPI_Datatype* array_of_types, MPI_Datatype* newtype, Make make) {
  MPR_TRY(check_count(fn, nullptr, count));
  MPR_TRY(check_blocklens(fn, count, blocklens));
  MPR_TRY(check_arg(fn, nullptr, count == 0 || (disps && array_of_types),
                    "array_of_displacements or array_of_types is NULL"));
  MPR_TRY(check_new(fn, newtype));
  std::vector<Datatype*> types(static_cast<size_t>(count));
  for (MPI_Count i = 0; i < count; ++i) {
    types[i] = to_datatype(array_of_types[i]);
    if (!types[i])
      return raise_error(nullptr, MPI_ERR_TYPE, fn, "invalid datatype %p at index %lld",
                         static_cast<void*>(array_of_types[i]), static_cast<long long>(i));
  }
  return done(make(types.data()), newtype);
}

int check_order(const char* fn, int order) {
  if (order == MPI_ORDER_C || order == MPI_ORDER_FORTRAN) return MPI_SUCCESS;
  return raise_error(nullptr, MPI_ERR_ARG, fn,
                     "invalid order %d (MPI_ORDER_C or MPI_ORDER_FORTRAN)", order);
}

template <class Size, class Make>
int build_subarray(const char* fn, int ndims, const Size* sizes, const Size* subsizes,
                   const Size* starts, int order, MPI_Datatype oldtype, MPI_Datatype* newtype,
                   Make make) {
  Datatype* old;
  if (ndims <= 0)
    return raise_error(nullptr, MPI_ERR_DIMS, fn, "invalid ndims %d (must be >= 1)", ndims);
  MPR_TRY(check_arg(fn, nullptr, sizes && subsizes && starts,
                    "array_of_sizes, array_of_subsizes or array_of_starts is NULL"));
  for (int i = 0; i < ndims; ++i) {
    const long long size = sizes[i], sub = subsizes[i], start = starts[i];
    if (size < 1 || sub < 1 || sub > size || start < 0 || start > size - sub)
      return raise_error(nullptr, MPI_ERR_ARG, fn,
                         "dimension %d: size %lld, subsize %lld, start %lld (need 1 <= subsize "
                         "<= size and 0 <= start <= size - subsize)",
                         i, size, sub, start);
  }
  MPR_TRY(check_order(fn, order));
  MPR_TRY(check_any_type(fn, oldtype, &old));
  MPR_TRY(check_new(fn, newtype));
  return done(make(old), newtype);
}

template <class Size, class Make>
int build_darray(const char* fn, int size, int rank, int ndims, const Size* gsizes,
                 const int* distribs, const int* dargs, const int* psizes, int order,
                 MPI_Datatype oldtype, MPI_Datatype* newtype, Make make) {
  Datatype* old;
  if (size < 1 || rank < 0 || rank >= size)
    return raise_error(nullptr, MPI_ERR_ARG, fn, "invalid size %d or rank %d", size, rank);
  if (ndims <= 0)
    return raise_error(nullptr, MPI_ERR_DIMS, fn, "invalid ndims %d (must be >= 1)", ndims);
  MPR_TRY(check_arg(fn, nullptr, gsizes && distribs && dargs && psizes,
                    "array_of_gsizes, array_of_distribs, array_of_dargs or array_of_psizes is "
                    "NULL"));
  long procs = 1;
  for (int i = 0; i < ndims; ++i) {
    const long long g = gsizes[i];
    const int dist = distribs[i], darg = dargs[i], p = psizes[i];
    if (g < 1 || p < 1)
      return raise_error(nullptr, MPI_ERR_ARG, fn,
                         "dimension %d: gsize %lld, psize %d (both must be >= 1)", i, g, p);
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
        static_cast<long long>(darg) * p < g)
      return raise_error(nullptr, MPI_ERR_ARG, fn,
                         "dimension %d: blocks of %d on %d processes do not cover gsize %lld", i,
                         darg, p, g);
    procs *= p;
  }
  if (procs != size)
    return raise_error(nullptr, MPI_ERR_ARG, fn, "the process grid has %ld processes, not size %d",
                       procs, size);
  MPR_TRY(check_order(fn, order));
  MPR_TRY(check_any_type(fn, oldtype, &old));
  MPR_TRY(check_new(fn, newtype));
  return done(make(old), newtype);
}

template <class Make>
int build_resized(const char* fn, MPI_Datatype oldtype, MPI_Datatype* newtype, Make make) {
  Datatype* old;
  MPR_TRY(check_any_type(fn, oldtype, &old));
  MPR_TRY(check_new(fn, newtype));
  return done(make(old), newtype);
}

}  // namespace

// ---- constructors, each followed by its large-count (_c) form ---------------------------------

extern "C" int PMPI_Type_contiguous(int count, MPI_Datatype oldtype, MPI_Datatype* newtype) {
  MPR_ENTRY;
  return build_contiguous("MPI_Type_contiguous", count, oldtype, newtype,
                          [&](Datatype* old) { return dt::make_contiguous(count, old); });
}
MPR_WEAK_ALIAS(Type_contiguous);

extern "C" int PMPI_Type_contiguous_c(MPI_Count count, MPI_Datatype oldtype,
                                      MPI_Datatype* newtype) {
  MPR_ENTRY;
  return build_contiguous("MPI_Type_contiguous_c", count, oldtype, newtype,
                          [&](Datatype* old) { return dt::make_contiguous_c(count, old); });
}
MPR_WEAK_ALIAS(Type_contiguous_c);

extern "C" int PMPI_Type_vector(int count, int blocklength, int stride, MPI_Datatype oldtype,
                                MPI_Datatype* newtype) {
  MPR_ENTRY;
  return build_vector(
      "MPI_Type_vector", count, blocklength, false, nullptr, oldtype, newtype,
      [&](Datatype* old) { return dt::make_vector(count, blocklength, stride, old); });
}
MPR_WEAK_ALIAS(Type_vector);

extern "C" int PMPI_Type_vector_c(MPI_Count count, MPI_Count blocklength, MPI_Count stride,
                                  MPI_Datatype oldtype, MPI_Datatype* newtype) {
  MPR_ENTRY;
  return build_vector(
      "MPI_Type_vector_c", count, blocklength, false, nullptr, oldtype, newtype,
      [&](Datatype* old) { return dt::make_vector_c(count, blocklength, stride, old); });
}
MPR_WEAK_ALIAS(Type_vector_c);

extern "C" int PMPI_Type_create_hvector(int count, int blocklength, MPI_Aint stride,
                                        MPI_Datatype oldtype, MPI_Datatype* newtype) {
  MPR_ENTRY;
  return build_vector(
      "MPI_Type_create_hvector", count, blocklength, false, nullptr, oldtype, newtype,
      [&](Datatype* old) { return dt::make_hvector(count, blocklength, stride, old); });
}
MPR_WEAK_ALIAS(Type_create_hvector);

extern "C" int PMPI_Type_create_hvector_c(MPI_Count count, MPI_Count blocklength, MPI_Count stride,
                                          MPI_Datatype oldtype, MPI_Datatype* newtype) {
  MPR_ENTRY;
  return build_vector(
      "MPI_Type_create_hvector_c", count, blocklength, false, nullptr, oldtype, newtype,
      [&](Datatype* old) { return dt::make_hvector_c(count, blocklength, stride, old); });
}
MPR_WEAK_ALIAS(Type_create_hvector_c);

// The MPI-1 name, still called by older codes.
extern "C" int PMPI_Type_hvector(int count, int blocklength, MPI_Aint stride, MPI_Datatype oldtype,
                                 MPI_Datatype* newtype) {
  MPR_ENTRY;
  return PMPI_Type_create_hvector(count, blocklength, stride, oldtype, newtype);
}
MPR_WEAK_ALIAS(Type_hvector);

// The other MPI-1 datatype names MPI 3.0 removed; MPI_Type_lb/_ub report the bounds
// MPI_Type_get_extent gives (lb, and lb + extent).
extern "C" int PMPI_Type_hindexed(int count, const int array_of_blocklengths[],
                                  const MPI_Aint array_of_displacements[], MPI_Datatype oldtype,
                                  MPI_Datatype* newtype) {
  MPR_ENTRY;
  return PMPI_Type_create_hindexed(count, array_of_blocklengths, array_of_displacements, oldtype,
                                   newtype);
}
MPR_WEAK_ALIAS(Type_hindexed);

extern "C" int PMPI_Type_struct(int count, const int array_of_blocklengths[],
                                const MPI_Aint array_of_displacements[],
                                const MPI_Datatype array_of_types[], MPI_Datatype* newtype) {
  MPR_ENTRY;
  return PMPI_Type_create_struct(count, array_of_blocklengths, array_of_displacements,
                                 array_of_types, newtype);
}
MPR_WEAK_ALIAS(Type_struct);

extern "C" int PMPI_Address(const void* location, MPI_Aint* address) {
  MPR_ENTRY;
  return PMPI_Get_address(location, address);
}
MPR_WEAK_ALIAS(Address);

extern "C" int PMPI_Type_extent(MPI_Datatype datatype, MPI_Aint* extent) {
  MPR_ENTRY;
  MPI_Aint lb;
  return PMPI_Type_get_extent(datatype, &lb, extent);
}
MPR_WEAK_ALIAS(Type_extent);

extern "C" int PMPI_Type_lb(MPI_Datatype datatype, MPI_Aint* displacement) {
  MPR_ENTRY;
  MPI_Aint extent;
  return PMPI_Type_get_extent(datatype, displacement, &extent);
}
MPR_WEAK_ALIAS(Type_lb);

extern "C" int PMPI_Type_ub(MPI_Datatype datatype, MPI_Aint* displacement) {
  MPR_ENTRY;
  MPI_Aint lb, extent;
  int rc = PMPI_Type_get_extent(datatype, &lb, &extent);
  if (rc == MPI_SUCCESS && displacement) *displacement = lb + extent;
  return rc;
}
MPR_WEAK_ALIAS(Type_ub);

extern "C" int PMPI_Type_indexed(int count, const int array_of_blocklengths[],
                                 const int array_of_displacements[], MPI_Datatype oldtype,
                                 MPI_Datatype* newtype) {
  MPR_ENTRY;
  return build_indexed("MPI_Type_indexed", count, array_of_blocklengths, array_of_displacements,
                       oldtype, newtype, [&](Datatype* old) {
                         return dt::make_indexed(count, array_of_blocklengths,
                                                 array_of_displacements, old);
                       });
}
MPR_WEAK_ALIAS(Type_indexed);

extern "C" int PMPI_Type_indexed_c(MPI_Count count, const MPI_Count array_of_blocklengths[],
                                   const MPI_Count array_of_displacements[], MPI_Datatype oldtype,
                                   MPI_Datatype* newtype) {
  MPR_ENTRY;
  return build_indexed("MPI_Type_indexed_c", count, array_of_blocklengths, array_of_displacements,
                       oldtype, newtype, [&](Datatype* old) {
                         return dt::make_indexed_c(count, array_of_blocklengths,
                                                   array_of_displacements, old);
                       });
}
MPR_WEAK_ALIAS(Type_indexed_c);

extern "C" int PMPI_Type_create_hindexed(int count, const int array_of_blocklengths[],
                                         const MPI_Aint array_of_displacements[],
                                         MPI_Datatype oldtype, MPI_Datatype* newtype) {
  MPR_ENTRY;
  return build_indexed("MPI_Type_create_hindexed", count, array_of_blocklengths,
                       array_of_displacements, oldtype, newtype, [&](Datatype* old) {
                         return dt::make_hindexed(count, array_of_blocklengths,
                                                  array_of_displacements, old);
                       });
}
MPR_WEAK_ALIAS(Type_create_hindexed);

extern "C" int PMPI_Type_create_hindexed_c(MPI_Count count, const MPI_Count array_of_blocklengths[],
                                           const MPI_Count array_of_displacements[],
                                           MPI_Datatype oldtype, MPI_Datatype* newtype) {
  MPR_ENTRY;
  return build_indexed("MPI_Type_create_hindexed_c", count, array_of_blocklengths,
                       array_of_displacements, oldtype, newtype, [&](Datatype* old) {
                         return dt::make_hindexed_c(count, array_of_blocklengths,
                                                    array_of_displacements, old);
                       });
}
MPR_WEAK_ALIAS(Type_create_hindexed_c);

extern "C" int PMPI_Type_create_indexed_block(int count, int blocklength,
                                              const int array_of_displacements[],
                                              MPI_Datatype oldtype, MPI_Datatype* newtype) {
  MPR_ENTRY;
  return build_vector("MPI_Type_create_indexed_block", count, blocklength, true,
                      array_of_displacements, oldtype, newtype, [&](Datatype* old) {
                        return dt::make_indexed_block(count, blocklength, array_of_displacements,
                                                      old);
                      });
}
MPR_WEAK_ALIAS(Type_create_indexed_block);

extern "C" int PMPI_Type_create_indexed_block_c(MPI_Count count, MPI_Count blocklength,
                                                const MPI_Count array_of_displacements[],
                                                MPI_Datatype oldtype, MPI_Datatype* newtype) {
  MPR_ENTRY;
  return build_vector("MPI_Type_create_indexed_block_c", count, blocklength, true,
                      array_of_displacements, oldtype, newtype, [&](Datatype* old) {
                        return dt::make_indexed_block_c(count, blocklength, array_of_displacements,
                                                        old);
                      });
}
MPR_WEAK_ALIAS(Type_create_indexed_block_c);

extern "C" int PMPI_Type_create_hindexed_block(int count, int blocklength,
                                               const MPI_Aint array_of_displacements[],
                                               MPI_Datatype oldtype, MPI_Datatype* newtype) {
  MPR_ENTRY;
  return build_vector("MPI_Type_create_hindexed_block", count, blocklength, true,
                      array_of_displacements, oldtype, newtype, [&](Datatype* old) {
                        return dt::make_hindexed_block(count, blocklength, array_of_displacements,
                                                       old);
                      });
}
MPR_WEAK_ALIAS(Type_create_hindexed_block);

extern "C" int PMPI_Type_create_hindexed_block_c(MPI_Count count, MPI_Count blocklength,
                                                 const MPI_Count array_of_displacements[],
                                                 MPI_Datatype oldtype, MPI_Datatype* newtype) {
  MPR_ENTRY;
  return build_vector("MPI_Type_create_hindexed_block_c", count, blocklength, true,
                      array_of_displacements, oldtype, newtype, [&](Datatype* old) {
                        return dt::make_hindexed_block_c(count, blocklength, array_of_displacements,
                                                         old);
                      });
}
MPR_WEAK_ALIAS(Type_create_hindexed_block_c);

extern "C" int PMPI_Type_create_struct(int count, const int array_of_blocklengths[],
                                       const MPI_Aint array_of_displacements[],
                                       const MPI_Datatype array_of_types[], MPI_Datatype* newtype) {
  MPR_ENTRY;
  return build_struct("MPI_Type_create_struct", count, array_of_blocklengths,
                      array_of_displacements, array_of_types, newtype, [&](Datatype** types) {
                        return dt::make_struct(count, array_of_blocklengths, array_of_displacements,
                                               types);
                      });
}
MPR_WEAK_ALIAS(Type_create_struct);

extern "C" int PMPI_Type_create_struct_c(MPI_Count count, const MPI_Count array_of_blocklengths[],
                                         const MPI_Count array_of_displacements[],
                                         const MPI_Datatype array_of_types[],
                                         MPI_Datatype* newtype) {
  MPR_ENTRY;
  return build_struct("MPI_Type_create_struct_c", count, array_of_blocklengths,
                      array_of_displacements, array_of_types, newtype, [&](Datatype** types) {
                        return dt::make_struct_c(count, array_of_blocklengths,
                                                 array_of_displacements, types);
                      });
}
MPR_WEAK_ALIAS(Type_create_struct_c);

extern "C" int PMPI_Type_create_subarray(int ndims, const int array_of_sizes[],
                                         const int array_of_subsizes[], const int array_of_starts[],
                                         int order, MPI_Datatype oldtype, MPI_Datatype* newtype) {
  MPR_ENTRY;
  return build_subarray("MPI_Type_create_subarray", ndims, array_of_sizes, array_of_subsizes,
                        array_of_starts, order, oldtype, newtype, [&](Datatype* old) {
                          return dt::make_subarray(ndims, array_of_sizes, array_of_subsizes,
                                                   array_of_starts, order, old);
                        });
}
MPR_WEAK_ALIAS(Type_create_subarray);

extern "C" int PMPI_Type_create_subarray_c(int ndims, const MPI_Count array_of_sizes[],
                                           const MPI_Count array_of_subsizes[],
                                           const MPI_Count array_of_starts[], int order,
                                           MPI_Datatype oldtype, MPI_Datatype* newtype) {
  MPR_ENTRY;
  return build_subarray("MPI_Type_create_subarray_c", ndims, array_of_sizes, array_of_subsizes,
                        array_of_starts, order, oldtype, newtype, [&](Datatype* old) {
                          return dt::make_subarray_c(ndims, array_of_sizes, array_of_subsizes,
                                                     array_of_starts, order, old);
                        });
}
MPR_WEAK_ALIAS(Type_create_subarray_c);

extern "C" int PMPI_Type_create_darray(int size, int rank, int ndims, const int array_of_gsizes[],
                                       const int array_of_distribs[], const int array_of_dargs[],
                                       const int array_of_psizes[], int order, MPI_Datatype oldtype,
                                       MPI_Datatype* newtype) {
  MPR_ENTRY;
  return build_darray(
      "MPI_Type_create_darray", size, rank, ndims, array_of_gsizes, array_of_distribs,
      array_of_dargs, array_of_psizes, order, oldtype, newtype, [&](Datatype* old) {
        return dt::make_darray(size, rank, ndims, array_of_gsizes, array_of_distribs,
                               array_of_dargs, array_of_psizes, order, old);
      });
}
MPR_WEAK_ALIAS(Type_create_darray);

extern "C" int PMPI_Type_create_darray_c(int size, int rank, int ndims,
                                         const MPI_Count array_of_gsizes[],
                                         const int array_of_distribs[], const int array_of_dargs[],
                                         const int array_of_psizes[], int order,
                                         MPI_Datatype oldtype, MPI_Datatype* newtype) {
  MPR_ENTRY;
  return build_darray(
      "MPI_Type_create_darray_c", size, rank, ndims, array_of_gsizes, array_of_distribs,
      array_of_dargs, array_of_psizes, order, oldtype, newtype, [&](Datatype* old) {
        return dt::make_darray_c(size, rank, ndims, array_of_gsizes, array_of_distribs,
                                 array_of_dargs, array_of_psizes, order, old);
      });
}
MPR_WEAK_ALIAS(Type_create_darray_c);

// ---- Fortran kinds: MPI_Type_match_size and the f90 parameterized types ---------------------

extern "C" int PMPI_Type_match_size(int typeclass, int size, MPI_Datatype* datatype) {
  MPR_ENTRY;
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
  MPR_ENTRY;
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
  MPR_ENTRY;
  return f90_real_or_complex("MPI_Type_create_f90_real", MPI_COMBINER_F90_REAL, p, r, newtype);
}
MPR_WEAK_ALIAS(Type_create_f90_real);

extern "C" int PMPI_Type_create_f90_complex(int p, int r, MPI_Datatype* newtype) {
  MPR_ENTRY;
  return f90_real_or_complex("MPI_Type_create_f90_complex", MPI_COMBINER_F90_COMPLEX, p, r,
                             newtype);
}
MPR_WEAK_ALIAS(Type_create_f90_complex);

extern "C" int PMPI_Type_create_resized(MPI_Datatype oldtype, MPI_Aint lb, MPI_Aint extent,
                                        MPI_Datatype* newtype) {
  MPR_ENTRY;
  return build_resized("MPI_Type_create_resized", oldtype, newtype,
                       [&](Datatype* old) { return dt::make_resized(old, lb, extent); });
}
MPR_WEAK_ALIAS(Type_create_resized);

extern "C" int PMPI_Type_create_resized_c(MPI_Datatype oldtype, MPI_Count lb, MPI_Count extent,
                                          MPI_Datatype* newtype) {
  MPR_ENTRY;
  return build_resized("MPI_Type_create_resized_c", oldtype, newtype,
                       [&](Datatype* old) { return dt::make_resized_c(old, lb, extent); });
}
MPR_WEAK_ALIAS(Type_create_resized_c);

extern "C" int PMPI_Type_dup(MPI_Datatype oldtype, MPI_Datatype* newtype) {
  MPR_ENTRY;
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
  MPR_ENTRY;
  constexpr const char* fn = "MPI_Type_commit";
  Datatype* dt;
  MPR_TRY(check_arg(fn, nullptr, datatype != nullptr, "datatype is NULL"));
  MPR_TRY(check_any_type(fn, *datatype, &dt));
  dt->committed = true;
  return MPI_SUCCESS;
}
MPR_WEAK_ALIAS(Type_commit);

extern "C" int PMPI_Type_free(MPI_Datatype* datatype) {
  MPR_ENTRY;
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
  MPR_ENTRY;
  constexpr const char* fn = "MPI_Type_size";
  Datatype* dt;
  MPR_TRY(check_arg(fn, nullptr, size, "size is NULL"));
  MPR_TRY(check_any_type(fn, datatype, &dt));
  *size = dt->size > static_cast<size_t>(INT_MAX) ? MPI_UNDEFINED : static_cast<int>(dt->size);
  return MPI_SUCCESS;
}
MPR_WEAK_ALIAS(Type_size);

namespace {

// The MPI_Count queries: the _x forms (MPI-3) and the _c forms (MPI-4) are the same calls.
int type_size(const char* fn, MPI_Datatype datatype, MPI_Count* size) {
  Datatype* dt;
  MPR_TRY(check_arg(fn, nullptr, size, "size is NULL"));
  MPR_TRY(check_any_type(fn, datatype, &dt));
  *size = static_cast<MPI_Count>(dt->size);
  return MPI_SUCCESS;
}

int type_extent(const char* fn, MPI_Datatype datatype, bool true_bounds, MPI_Count* lb,
                MPI_Count* extent) {
  Datatype* dt;
  MPR_TRY(check_arg(fn, nullptr, lb && extent,
                    true_bounds ? "true_lb or true_extent is NULL" : "lb or extent is NULL"));
  MPR_TRY(check_any_type(fn, datatype, &dt));
  *lb = true_bounds ? dt->true_lb : dt->lb;
  *extent = true_bounds ? dt->true_extent : dt->extent;
  return MPI_SUCCESS;
}

}  // namespace

extern "C" int PMPI_Type_size_x(MPI_Datatype datatype, MPI_Count* size) {
  MPR_ENTRY;
  return type_size("MPI_Type_size_x", datatype, size);
}
MPR_WEAK_ALIAS(Type_size_x);

extern "C" int PMPI_Type_size_c(MPI_Datatype datatype, MPI_Count* size) {
  MPR_ENTRY;
  return type_size("MPI_Type_size_c", datatype, size);
}
MPR_WEAK_ALIAS(Type_size_c);

extern "C" int PMPI_Type_get_extent(MPI_Datatype datatype, MPI_Aint* lb, MPI_Aint* extent) {
  MPR_ENTRY;
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
  MPR_ENTRY;
  return type_extent("MPI_Type_get_extent_x", datatype, false, lb, extent);
}
MPR_WEAK_ALIAS(Type_get_extent_x);

extern "C" int PMPI_Type_get_extent_c(MPI_Datatype datatype, MPI_Count* lb, MPI_Count* extent) {
  MPR_ENTRY;
  return type_extent("MPI_Type_get_extent_c", datatype, false, lb, extent);
}
MPR_WEAK_ALIAS(Type_get_extent_c);

extern "C" int PMPI_Type_get_true_extent(MPI_Datatype datatype, MPI_Aint* true_lb,
                                         MPI_Aint* true_extent) {
  MPR_ENTRY;
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
  MPR_ENTRY;
  return type_extent("MPI_Type_get_true_extent_x", datatype, true, true_lb, true_extent);
}
MPR_WEAK_ALIAS(Type_get_true_extent_x);

extern "C" int PMPI_Type_get_true_extent_c(MPI_Datatype datatype, MPI_Count* true_lb,
                                           MPI_Count* true_extent) {
  MPR_ENTRY;
  return type_extent("MPI_Type_get_true_extent_c", datatype, true, true_lb, true_extent);
}
MPR_WEAK_ALIAS(Type_get_true_extent_c);

extern "C" int PMPI_Type_get_name(MPI_Datatype datatype, char* type_name, int* resultlen) {
  MPR_ENTRY;
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
  MPR_ENTRY;
  constexpr const char* fn = "MPI_Type_set_name";
  Datatype* dt;
  MPR_TRY(check_arg(fn, nullptr, type_name, "type_name is NULL"));
  MPR_TRY(check_any_type(fn, datatype, &dt));
  // Longer names are truncated, as MPI_Type_get_name could not return them whole.
  dt->set_name(std::string(type_name, strnlen(type_name, MPI_MAX_OBJECT_NAME - 1)).c_str());
  return MPI_SUCCESS;
}
MPR_WEAK_ALIAS(Type_set_name);

namespace {

// MPI_Type_get_envelope and _get_contents, int (large == false) and _c forms. A type built by a
// _c constructor keeps MPI_Count arguments the int forms have no array for: they fail with
// MPI_ERR_TYPE (MPI-4.0 5.1.13).
int check_decodable(const char* fn, const Datatype* dt, bool large) {
  if (large || dt->large_counts.empty()) return MPI_SUCCESS;
  return raise_error(nullptr, MPI_ERR_TYPE, fn,
                     "%s was built by a large-count constructor (MPI_Type_*_c): its %zu "
                     "MPI_Count arguments need MPI_Type_get_envelope_c and "
                     "MPI_Type_get_contents_c",
                     dt->label().c_str(), dt->large_counts.size());
}

int envelope(const char* fn, MPI_Datatype datatype, bool large, MPI_Count* ni, MPI_Count* na,
             MPI_Count* nl, MPI_Count* nd, int* combiner) {
  Datatype* dt;
  MPR_TRY(check_arg(fn, nullptr, ni && na && nl && nd && combiner, "an output argument is NULL"));
  MPR_TRY(check_any_type(fn, datatype, &dt));
  MPR_TRY(check_decodable(fn, dt, large));
  *ni = static_cast<MPI_Count>(dt->ints.size());
  *na = static_cast<MPI_Count>(dt->aints.size());
  *nl = static_cast<MPI_Count>(dt->large_counts.size());
  *nd = static_cast<MPI_Count>(dt->types.size());
  *combiner = dt->combiner;
  return MPI_SUCCESS;
}

int contents(const char* fn, MPI_Datatype datatype, bool large, MPI_Count max_integers,
             MPI_Count max_addresses, MPI_Count max_large_counts, MPI_Count max_datatypes,
             int array_of_integers[], MPI_Aint array_of_addresses[],
             MPI_Count array_of_large_counts[], MPI_Datatype array_of_datatypes[]) {
  Datatype* dt;
  MPR_TRY(check_any_type(fn, datatype, &dt));
  if (dt->combiner == MPI_COMBINER_NAMED)
    return raise_error(nullptr, MPI_ERR_TYPE, fn,
                       "%s is predefined (MPI_COMBINER_NAMED): it has no contents", dt->name);
  MPR_TRY(check_decodable(fn, dt, large));
  const size_t ni = dt->ints.size(), na = dt->aints.size(), nl = dt->large_counts.size(),
               nd = dt->types.size();
  auto fits = [](MPI_Count max, size_t n) { return max >= 0 && static_cast<size_t>(max) >= n; };
  if (!fits(max_integers, ni) || !fits(max_addresses, na) || !fits(max_large_counts, nl) ||
      !fits(max_datatypes, nd)) {
    if (large)
      return raise_error(nullptr, MPI_ERR_ARG, fn,
                         "arrays too small: the type has %zu integers, %zu addresses, %zu large "
                         "counts and %zu datatypes (MPI_Type_get_envelope_c)",
                         ni, na, nl, nd);
    return raise_error(nullptr, MPI_ERR_ARG, fn,
                       "arrays too small: the type has %zu integers, %zu addresses and %zu "
                       "datatypes (MPI_Type_get_envelope)",
                       ni, na, nd);
  }
  MPR_TRY(check_arg(fn, nullptr,
                    (ni == 0 || array_of_integers) && (na == 0 || array_of_addresses) &&
                        (nl == 0 || array_of_large_counts) && (nd == 0 || array_of_datatypes),
                    "an output array is NULL"));
  std::copy(dt->ints.begin(), dt->ints.end(), array_of_integers);
  std::copy(dt->aints.begin(), dt->aints.end(), array_of_addresses);
  std::copy(dt->large_counts.begin(), dt->large_counts.end(), array_of_large_counts);
  // Derived types come back as handles the caller owns (and frees): one more reference each.
  for (size_t i = 0; i < nd; ++i) {
    dt->types[i]->retain();
    array_of_datatypes[i] = dt->types[i]->handle;
  }
  return MPI_SUCCESS;
}

}  // namespace

extern "C" int PMPI_Type_get_envelope(MPI_Datatype datatype, int* num_integers, int* num_addresses,
                                      int* num_datatypes, int* combiner) {
  MPR_ENTRY;
  MPI_Count ni, na, nl, nd;
  MPR_TRY(envelope("MPI_Type_get_envelope", datatype, false, &ni, &na, &nl, &nd, combiner));
  *num_integers = static_cast<int>(ni);
  *num_addresses = static_cast<int>(na);
  *num_datatypes = static_cast<int>(nd);
  return MPI_SUCCESS;
}
MPR_WEAK_ALIAS(Type_get_envelope);

extern "C" int PMPI_Type_get_envelope_c(MPI_Datatype datatype, MPI_Count* num_integers,
                                        MPI_Count* num_addresses, MPI_Count* num_large_counts,
                                        MPI_Count* num_datatypes, int* combiner) {
  MPR_ENTRY;
  return envelope("MPI_Type_get_envelope_c", datatype, true, num_integers, num_addresses,
                  num_large_counts, num_datatypes, combiner);
}
MPR_WEAK_ALIAS(Type_get_envelope_c);

extern "C" int PMPI_Type_get_contents(MPI_Datatype datatype, int max_integers, int max_addresses,
                                      int max_datatypes, int array_of_integers[],
                                      MPI_Aint array_of_addresses[],
                                      MPI_Datatype array_of_datatypes[]) {
  MPR_ENTRY;
  return contents("MPI_Type_get_contents", datatype, false, max_integers, max_addresses, 0,
                  max_datatypes, array_of_integers, array_of_addresses, nullptr,
                  array_of_datatypes);
}
MPR_WEAK_ALIAS(Type_get_contents);

extern "C" int PMPI_Type_get_contents_c(MPI_Datatype datatype, MPI_Count max_integers,
                                        MPI_Count max_addresses, MPI_Count max_large_counts,
                                        MPI_Count max_datatypes, int array_of_integers[],
                                        MPI_Aint array_of_addresses[],
                                        MPI_Count array_of_large_counts[],
                                        MPI_Datatype array_of_datatypes[]) {
  MPR_ENTRY;
  return contents("MPI_Type_get_contents_c", datatype, true, max_integers, max_addresses,
                  max_large_counts, max_datatypes, array_of_integers, array_of_addresses,
                  array_of_large_counts, array_of_datatypes);
}
MPR_WEAK_ALIAS(Type_get_contents_c);
