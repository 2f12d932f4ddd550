// Derived datatype constructors behind the MPI_Type_* calls. Arguments are already checked by
// the API layer. Each returns a new type with one reference (the user's handle), not yet
// committed, that retains the types it was built from and records its combiner and arguments
// for MPI_Type_get_envelope / MPI_Type_get_contents.
//
// Bounds follow MPI-4.0 section 5.1: lb and ub of a new type are the extremes of the lb and ub
// of every copy of the old types it holds; a struct's extent is rounded up to the strictest
// alignment of its members unless a resized type is involved (its bounds are explicit), as
// C compilers pad structs. True bounds come from where the data really is.
#pragma once

#include <cstddef>

#include "mpi.h"
#include "runtime/dt/datatype.h"

namespace mpr::runtime::dt {

Datatype* make_contiguous(int count, Datatype* old);
/// MPI_Type_vector (stride in elements of old) and MPI_Type_create_hvector (in bytes).
Datatype* make_vector(int count, int blocklen, int stride, Datatype* old);
Datatype* make_hvector(int count, int blocklen, MPI_Aint stride, Datatype* old);
/// MPI_Type_indexed (displacements in elements of old) and _create_hindexed (in bytes).
Datatype* make_indexed(int count, const int* blocklens, const int* disps, Datatype* old);
Datatype* make_hindexed(int count, const int* blocklens, const MPI_Aint* disps, Datatype* old);
Datatype* make_indexed_block(int count, int blocklen, const int* disps, Datatype* old);
Datatype* make_hindexed_block(int count, int blocklen, const MPI_Aint* disps, Datatype* old);
Datatype* make_struct(int count, const int* blocklens, const MPI_Aint* disps,
                      Datatype* const* types);
/// order is MPI_ORDER_C or MPI_ORDER_FORTRAN; starts + subsizes <= sizes in every dimension.
Datatype* make_subarray(int ndims, const int* sizes, const int* subsizes, const int* starts,
                        int order, Datatype* old);
/// MPI_Type_create_darray; the arguments are valid (the psizes multiply to size, each darg is
/// MPI_DISTRIBUTE_DFLT_DARG or large enough, MPI_DISTRIBUTE_NONE dimensions have psize 1).
Datatype* make_darray(int size, int rank, int ndims, const int* gsizes, const int* distribs,
                      const int* dargs, const int* psizes, int order, Datatype* old);
Datatype* make_resized(Datatype* old, MPI_Aint lb, MPI_Aint extent);

/// The large-count constructors (MPI-4.0 MPI_Type_*_c): the same layouts with MPI_Count
/// counts, block lengths and displacements. They record their MPI_Count arguments in
/// Datatype::large_counts, where MPI_Type_get_contents_c returns them (MPI-4.0 5.1.13), and
/// only the remaining int arguments (ndims, order, the darray's distributions) in ints.
Datatype* make_contiguous_c(MPI_Count count, Datatype* old);
Datatype* make_vector_c(MPI_Count count, MPI_Count blocklen, MPI_Count stride, Datatype* old);
Datatype* make_hvector_c(MPI_Count count, MPI_Count blocklen, MPI_Count stride, Datatype* old);
Datatype* make_indexed_c(MPI_Count count, const MPI_Count* blocklens, const MPI_Count* disps,
                         Datatype* old);
Datatype* make_hindexed_c(MPI_Count count, const MPI_Count* blocklens, const MPI_Count* disps,
                          Datatype* old);
Datatype* make_indexed_block_c(MPI_Count count, MPI_Count blocklen, const MPI_Count* disps,
                               Datatype* old);
Datatype* make_hindexed_block_c(MPI_Count count, MPI_Count blocklen, const MPI_Count* disps,
                                Datatype* old);
Datatype* make_struct_c(MPI_Count count, const MPI_Count* blocklens, const MPI_Count* disps,
                        Datatype* const* types);
Datatype* make_subarray_c(int ndims, const MPI_Count* sizes, const MPI_Count* subsizes,
                          const MPI_Count* starts, int order, Datatype* old);
Datatype* make_darray_c(int size, int rank, int ndims, const MPI_Count* gsizes, const int* distribs,
                        const int* dargs, const int* psizes, int order, Datatype* old);
Datatype* make_resized_c(Datatype* old, MPI_Count lb, MPI_Count extent);

Datatype* make_dup(Datatype* old);
/// The type MPI_Type_create_f90_integer/_real/_complex return for (p, r) (combiner
/// MPI_COMBINER_F90_*): laid out as the predefined `sized` type, predefined-like (never freed,
/// no reference counting), the same handle for the same arguments.
Datatype* f90_type(int combiner, int p, int r, Basic sized);

}  // namespace mpr::runtime::dt
