// Process topologies attached to communicators: Cartesian grids, graphs and distributed
// graphs, plus MPI_Dims_create. Pure data and arithmetic; the communicators themselves are
// built by comm_split (api/topo.cc). Ranks are never reordered: `reorder` is accepted and
// ignored, which MPI allows.
#pragma once

#include <vector>

#include "mpi.h"

namespace mpr::runtime {

struct Topology {
  int kind = MPI_UNDEFINED;  ///< MPI_CART, MPI_GRAPH or MPI_DIST_GRAPH

  // MPI_CART
  std::vector<int> dims;
  std::vector<int> periods;  ///< 0 or 1 per dimension

  // MPI_GRAPH: the whole graph, as given to MPI_Graph_create.
  std::vector<int> index;
  std::vector<int> edges;

  // MPI_DIST_GRAPH: this process's adjacency only.
  std::vector<int> sources, source_weights;
  std::vector<int> destinations, dest_weights;
  bool weighted = false;

  int cart_size() const;
  /// Coordinates of `rank` (0 <= rank < cart_size()).
  std::vector<int> cart_coords(int rank) const;
  /// Rank of `coords`; periodic dimensions wrap, others must be in range. Returns -1 if a
  /// coordinate of a non-periodic dimension is out of range.
  int cart_rank(const int* coords) const;
  /// MPI_Cart_shift: ranks (or MPI_PROC_NULL) `disp` steps back and forth along `dir`.
  void cart_shift(int rank, int dir, int disp, int* source, int* dest) const;

  /// Neighborhood of `rank` for neighborhood collectives, in MPI's order: in-neighbors (whose
  /// data this rank receives) and out-neighbors (to which it sends). Cartesian: for each
  /// dimension the -1 then the +1 neighbor, MPI_PROC_NULL at a non-periodic border.
  void neighbors(int rank, std::vector<int>* in, std::vector<int>* out) const;
  int graph_degree(int rank) const;
  const int* graph_neighbors(int rank) const;
};

/// MPI_Dims_create: fill the zero entries of dims[0..ndims) so that the product is nnodes and
/// the free dimensions are as close to each other as possible (smallest spread between the
/// largest and smallest free dimension, then the smallest largest one), in non-increasing
/// order. Returns MPI_SUCCESS or an error class with *why set.
int dims_create(int nnodes, int ndims, int* dims, const char** why);

}  // namespace mpr::runtime
