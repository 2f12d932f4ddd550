// Process topologies: MPI_Dims_create, Cartesian grids, graphs, distributed graphs, queries.
// Constructors split the old communicator (ranks keep their order: `reorder` is ignored) and
// attach an immutable Topology the new communicator shares with its duplicates.
#include <algorithm>
#include <cstring>
#include <memory>

#include "runtime/api/handles.h"
#include "runtime/comm/comm_ctl.h"
#include "runtime/comm/topo.h"

using namespace mpr::runtime;
using namespace mpr::runtime::api;
namespace ctl = mpr::runtime::ctl;

namespace {

int check_topo(const char* fn, MPI_Comm h, int kind, Comm** comm, const Topology** topo) {
  MPR_TRY(check_running(fn));
  MPR_TRY(check_comm(fn, h, comm));
  *topo = (*comm)->topo();
  if (*topo && (kind == MPI_UNDEFINED || (*topo)->kind == kind)) return MPI_SUCCESS;
  const char* want = kind == MPI_CART         ? "a Cartesian topology"
                     : kind == MPI_GRAPH      ? "a graph topology"
                     : kind == MPI_DIST_GRAPH ? "a distributed graph topology"
                                              : "a topology";
  return raise_error(*comm, MPI_ERR_TOPOLOGY, fn, "the communicator has no %s", want);
}

// The processes with rank < nnodes form the new communicator; the others get MPI_COMM_NULL.
int build(const char* fn, Comm* old, int nnodes, std::shared_ptr<Topology> topo, MPI_Comm* out) {
  Comm* c = nullptr;
  MPR_TRY(
      raise(old, comm_split(fn, old, old->rank() < nnodes ? 0 : MPI_UNDEFINED, old->rank(), &c)));
  if (c) c->set_topo(std::move(topo));
  *out = c ? c->handle() : MPI_COMM_NULL;
  return MPI_SUCCESS;
}

int check_rank_in(const char* fn, Comm* comm, int rank, int size) {
  if (rank >= 0 && rank < size) return MPI_SUCCESS;
  return raise_error(comm, MPI_ERR_RANK, fn, "invalid rank %d (topology size %d)", rank, size);
}

int check_cart_args(const char* fn, Comm* comm, int ndims, const int* dims, int* nnodes) {
  MPR_TRY(check_arg(fn, comm, ndims >= 0, "ndims is negative"));
  MPR_TRY(check_arg(fn, comm, ndims == 0 || dims, "dims is NULL"));
  int64_t n = 1;
  for (int i = 0; i < ndims; ++i) {
    if (dims[i] <= 0)
      return raise_error(comm, MPI_ERR_DIMS, fn, "dims[%d] = %d (must be positive)", i, dims[i]);
    n *= dims[i];
    if (n > comm->size())
      return raise_error(comm, MPI_ERR_DIMS, fn,
                         "the grid has more processes than the communicator (size %d)",
                         comm->size());
  }
  *nnodes = static_cast<int>(n);
  return MPI_SUCCESS;
}

int check_graph_args(const char* fn, Comm* comm, int nnodes, const int* index, const int* edges) {
  if (nnodes < 0 || nnodes > comm->size())
    return raise_error(comm, MPI_ERR_ARG, fn, "nnodes %d is not in 0..%d (communicator size)",
                       nnodes, comm->size());
  MPR_TRY(check_arg(fn, comm, nnodes == 0 || index, "index is NULL"));
  int prev = 0;
  for (int i = 0; i < nnodes; ++i) {
    if (index[i] < prev)
      return raise_error(comm, MPI_ERR_ARG, fn, "index[%d] = %d is smaller than index[%d]", i,
                         index[i], i - 1);
    prev = index[i];
  }
  MPR_TRY(check_arg(fn, comm, prev == 0 || edges, "edges is NULL"));
  for (int e = 0; e < prev; ++e)
    if (edges[e] < 0 || edges[e] >= nnodes)
      return raise_error(comm, MPI_ERR_ARG, fn, "edges[%d] = %d is not a node (0..%d)", e, edges[e],
                         nnodes - 1);
  return MPI_SUCCESS;
}

int check_neighbors(const char* fn, Comm* comm, int degree, const int* ranks, const int* weights,
                    const char* what) {
  MPR_TRY(check_arg(fn, comm, degree >= 0, "a degree is negative"));
  if (degree > 0 && !ranks) return raise_error(comm, MPI_ERR_ARG, fn, "%s is NULL", what);
  for (int i = 0; i < degree; ++i)
    if (ranks[i] < 0 || ranks[i] >= comm->size())
      return raise_error(comm, MPI_ERR_RANK, fn, "%s[%d] = %d (communicator size %d)", what, i,
                         ranks[i], comm->size());
  if (degree > 0 && weights == MPI_WEIGHTS_EMPTY)
    return raise_error(comm, MPI_ERR_ARG, fn, "MPI_WEIGHTS_EMPTY with a non-zero degree");
  if (degree > 0 && !weights)
    return raise_error(comm, MPI_ERR_ARG, fn,
                       "the weights of %s are NULL with a non-zero degree (MPI_UNWEIGHTED "
                       "says there are none)",
                       what);
  return MPI_SUCCESS;
}

bool has_weights(const int* w) { return w != MPI_UNWEIGHTED; }

void copy_weights(std::vector<int>* out, const int* w, int n) {
  if (has_weights(w) && w != MPI_WEIGHTS_EMPTY)
    out->assign(w, w + n);
  else
    out->assign(static_cast<size_t>(n), 1);
}

}  // namespace

extern "C" int PMPI_Dims_create(int nnodes, int ndims, int dims[]) {
  MPR_ENTRY;
  constexpr const char* fn = "MPI_Dims_create";
  MPR_TRY(check_running(fn));
  const char* why = "";
  int cls = dims_create(nnodes, ndims, dims, &why);
  if (cls != MPI_SUCCESS)
    return raise_error(nullptr, cls, fn, "%s (nnodes %d, ndims %d)", why, nnodes, ndims);
  return MPI_SUCCESS;
}
MPR_WEAK_ALIAS(Dims_create);

extern "C" int PMPI_Cart_create(MPI_Comm h, int ndims, const int dims[], const int periods[],
                                int reorder, MPI_Comm* comm_cart) {
  MPR_ENTRY;
  constexpr const char* fn = "MPI_Cart_create";
  Comm* comm;
  int nnodes = 1;
  (void)reorder;
  MPR_TRY(check_running(fn));
  MPR_TRY(check_comm(fn, h, &comm));
  MPR_TRY(check_intra(fn, comm));
  MPR_TRY(check_arg(fn, comm, comm_cart, "comm_cart is NULL"));
  MPR_TRY(check_cart_args(fn, comm, ndims, dims, &nnodes));
  MPR_TRY(check_arg(fn, comm, ndims == 0 || periods, "periods is NULL"));
  auto topo = std::make_shared<Topology>();
  topo->kind = MPI_CART;
  topo->dims.assign(dims, dims + ndims);
  for (int i = 0; i < ndims; ++i) topo->periods.push_back(periods[i] ? 1 : 0);
  return build(fn, comm, nnodes, std::move(topo), comm_cart);
}
MPR_WEAK_ALIAS(Cart_create);

extern "C" int PMPI_Cart_map(MPI_Comm h, int ndims, const int dims[], const int periods[],
                             int* newrank) {
  MPR_ENTRY;
  constexpr const char* fn = "MPI_Cart_map";
  Comm* comm;
  int nnodes = 1;
  (void)periods;
  MPR_TRY(check_running(fn));
  MPR_TRY(check_comm(fn, h, &comm));
  MPR_TRY(check_arg(fn, comm, newrank, "newrank is NULL"));
  MPR_TRY(check_cart_args(fn, comm, ndims, dims, &nnodes));
  *newrank = comm->rank() < nnodes ? comm->rank() : MPI_UNDEFINED;
  return MPI_SUCCESS;
}
MPR_WEAK_ALIAS(Cart_map);

extern "C" int PMPI_Cartdim_get(MPI_Comm h, int* ndims) {
  MPR_ENTRY;
  constexpr const char* fn = "MPI_Cartdim_get";
  Comm* comm;
  const Topology* t;
  MPR_TRY(check_topo(fn, h, MPI_CART, &comm, &t));
  MPR_TRY(check_arg(fn, comm, ndims, "ndims is NULL"));
  *ndims = static_cast<int>(t->dims.size());
  return MPI_SUCCESS;
}
MPR_WEAK_ALIAS(Cartdim_get);

extern "C" int PMPI_Cart_get(MPI_Comm h, int maxdims, int dims[], int periods[], int coords[]) {
  MPR_ENTRY;
  constexpr const char* fn = "MPI_Cart_get";
  Comm* comm;
  const Topology* t;
  MPR_TRY(check_topo(fn, h, MPI_CART, &comm, &t));
  const int n = static_cast<int>(t->dims.size());
  MPR_TRY(check_arg(fn, comm, maxdims >= n, "maxdims is smaller than the number of dimensions"));
  MPR_TRY(check_arg(fn, comm, n == 0 || (dims && periods && coords),
                    "dims, periods or coords is NULL"));
  std::vector<int> c = t->cart_coords(comm->rank());
  for (int i = 0; i < n; ++i) {
    dims[i] = t->dims[i];
    periods[i] = t->periods[i];
    coords[i] = c[i];
  }
  return MPI_SUCCESS;
}
MPR_WEAK_ALIAS(Cart_get);

extern "C" int PMPI_Cart_rank(MPI_Comm h, const int coords[], int* rank) {
  MPR_ENTRY;
  constexpr const char* fn = "MPI_Cart_rank";
  Comm* comm;
  const Topology* t;
  MPR_TRY(check_topo(fn, h, MPI_CART, &comm, &t));
  MPR_TRY(check_arg(fn, comm, rank && (t->dims.empty() || coords), "coords or rank is NULL"));
  int r = t->cart_rank(coords);
  if (r < 0)
    return raise_error(comm, MPI_ERR_ARG, fn,
                       "a coordinate is outside a non-periodic dimension of the grid");
  *rank = r;
  return MPI_SUCCESS;
}
MPR_WEAK_ALIAS(Cart_rank);

extern "C" int PMPI_Cart_coords(MPI_Comm h, int rank, int maxdims, int coords[]) {
  MPR_ENTRY;
  constexpr const char* fn = "MPI_Cart_coords";
  Comm* comm;
  const Topology* t;
  MPR_TRY(check_topo(fn, h, MPI_CART, &comm, &t));
  MPR_TRY(check_rank_in(fn, comm, rank, t->cart_size()));
  const int n = static_cast<int>(t->dims.size());
  MPR_TRY(check_arg(fn, comm, maxdims >= n, "maxdims is smaller than the number of dimensions"));
  MPR_TRY(check_arg(fn, comm, n == 0 || coords, "coords is NULL"));
  std::vector<int> c = t->cart_coords(rank);
  std::copy(c.begin(), c.end(), coords);
  return MPI_SUCCESS;
}
MPR_WEAK_ALIAS(Cart_coords);

extern "C" int PMPI_Cart_shift(MPI_Comm h, int direction, int disp, int* rank_source,
                               int* rank_dest) {
  MPR_ENTRY;
  constexpr const char* fn = "MPI_Cart_shift";
  Comm* comm;
  const Topology* t;
  MPR_TRY(check_topo(fn, h, MPI_CART, &comm, &t));
  MPR_TRY(check_arg(fn, comm, rank_source && rank_dest, "rank_source or rank_dest is NULL"));
  if (direction < 0 || direction >= static_cast<int>(t->dims.size()))
    return raise_error(comm, MPI_ERR_ARG, fn, "invalid direction %d (%zu dimensions)", direction,
                       t->dims.size());
  t->cart_shift(comm->rank(), direction, disp, rank_source, rank_dest);
  return MPI_SUCCESS;
}
MPR_WEAK_ALIAS(Cart_shift);

extern "C" int PMPI_Cart_sub(MPI_Comm h, const int remain_dims[], MPI_Comm* newcomm) {
  MPR_ENTRY;
  constexpr const char* fn = "MPI_Cart_sub";
  Comm* comm;
  const Topology* t;
  MPR_TRY(check_topo(fn, h, MPI_CART, &comm, &t));
  const int n = static_cast<int>(t->dims.size());
  MPR_TRY(
      check_arg(fn, comm, newcomm && (n == 0 || remain_dims), "remain_dims or newcomm is NULL"));
  // Color: position along the dropped dimensions; key: position in the kept sub-grid.
  std::vector<int> c = t->cart_coords(comm->rank());
  int color = 0, key = 0;
  auto sub = std::make_shared<Topology>();
  sub->kind = MPI_CART;
  for (int i = 0; i < n; ++i) {
    if (remain_dims[i]) {
      key = key * t->dims[i] + c[i];
      sub->dims.push_back(t->dims[i]);
      sub->periods.push_back(t->periods[i]);
    } else {
      color = color * t->dims[i] + c[i];
    }
  }
  // Keeping no dimension gives a zero-dimensional grid, which (as MPI_Cart_create with ndims 0)
  // holds one process: rank 0; the others get MPI_COMM_NULL.
  if (sub->dims.empty()) color = comm->rank() == 0 ? 0 : MPI_UNDEFINED;
  Comm* out = nullptr;
  MPR_TRY(raise(comm, comm_split(fn, comm, color, key, &out)));
  if (!out) {
    *newcomm = MPI_COMM_NULL;
    return MPI_SUCCESS;
  }
  out->set_topo(std::move(sub));
  *newcomm = out->handle();
  return MPI_SUCCESS;
}
MPR_WEAK_ALIAS(Cart_sub);

extern "C" int PMPI_Graph_create(MPI_Comm h, int nnodes, const int index[], const int edges[],
                                 int reorder, MPI_Comm* comm_graph) {
  MPR_ENTRY;
  constexpr const char* fn = "MPI_Graph_create";
  Comm* comm;
  (void)reorder;
  MPR_TRY(check_running(fn));
  MPR_TRY(check_comm(fn, h, &comm));
  MPR_TRY(check_intra(fn, comm));
  MPR_TRY(check_arg(fn, comm, comm_graph, "comm_graph is NULL"));
  MPR_TRY(check_graph_args(fn, comm, nnodes, index, edges));
  auto topo = std::make_shared<Topology>();
  topo->kind = MPI_GRAPH;
  topo->index.assign(index, index + nnodes);
  int nedges = nnodes > 0 ? index[nnodes - 1] : 0;
  topo->edges.assign(edges, edges + nedges);
  return build(fn, comm, nnodes, std::move(topo), comm_graph);
}
MPR_WEAK_ALIAS(Graph_create);

extern "C" int PMPI_Graph_map(MPI_Comm h, int nnodes, const int index[], const int edges[],
                              int* newrank) {
  MPR_ENTRY;
  constexpr const char* fn = "MPI_Graph_map";
  Comm* comm;
  MPR_TRY(check_running(fn));
  MPR_TRY(check_comm(fn, h, &comm));
  MPR_TRY(check_arg(fn, comm, newrank, "newrank is NULL"));
  MPR_TRY(check_graph_args(fn, comm, nnodes, index, edges));
  *newrank = comm->rank() < nnodes ? comm->rank() : MPI_UNDEFINED;
  return MPI_SUCCESS;
}
MPR_WEAK_ALIAS(Graph_map);

extern "C" int PMPI_Graphdims_get(MPI_Comm h, int* nnodes, int* nedges) {
  MPR_ENTRY;
  constexpr const char* fn = "MPI_Graphdims_get";
  Comm* comm;
  const Topology* t;
  MPR_TRY(check_topo(fn, h, MPI_GRAPH, &comm, &t));
  MPR_TRY(check_arg(fn, comm, nnodes && nedges, "nnodes or nedges is NULL"));
  *nnodes = static_cast<int>(t->index.size());
  *nedges = static_cast<int>(t->edges.size());
  return MPI_SUCCESS;
}
MPR_WEAK_ALIAS(Graphdims_get);

extern "C" int PMPI_Graph_get(MPI_Comm h, int maxindex, int maxedges, int index[], int edges[]) {
  MPR_ENTRY;
  constexpr const char* fn = "MPI_Graph_get";
  Comm* comm;
  const Topology* t;
  MPR_TRY(check_topo(fn, h, MPI_GRAPH, &comm, &t));
  MPR_TRY(check_arg(fn, comm, maxindex >= 0 && maxedges >= 0, "maxindex or maxedges negative"));
  MPR_TRY(check_arg(fn, comm, (maxindex == 0 || index) && (maxedges == 0 || edges),
                    "index or edges is NULL"));
  const int ni = std::min(maxindex, static_cast<int>(t->index.size()));
  const int ne = std::min(maxedges, static_cast<int>(t->edges.size()));
  std::copy(t->index.begin(), t->index.begin() + ni, index);
  std::copy(t->edges.begin(), t->edges.begin() + ne, edges);
  return MPI_SUCCESS;
}
MPR_WEAK_ALIAS(Graph_get);

extern "C" int PMPI_Graph_neighbors_count(MPI_Comm h, int rank, int* nneighbors) {
  MPR_ENTRY;
  constexpr const char* fn = "MPI_Graph_neighbors_count";
  Comm* comm;
  const Topology* t;
  MPR_TRY(check_topo(fn, h, MPI_GRAPH, &comm, &t));
  MPR_TRY(check_arg(fn, comm, nneighbors, "nneighbors is NULL"));
  MPR_TRY(check_rank_in(fn, comm, rank, static_cast<int>(t->index.size())));
  *nneighbors = t->graph_degree(rank);
  return MPI_SUCCESS;
}
MPR_WEAK_ALIAS(Graph_neighbors_count);

extern "C" int PMPI_Graph_neighbors(MPI_Comm h, int rank, int maxneighbors, int neighbors[]) {
  MPR_ENTRY;
  constexpr const char* fn = "MPI_Graph_neighbors";
  Comm* comm;
  const Topology* t;
  MPR_TRY(check_topo(fn, h, MPI_GRAPH, &comm, &t));
  MPR_TRY(check_rank_in(fn, comm, rank, static_cast<int>(t->index.size())));
  MPR_TRY(check_arg(fn, comm, maxneighbors == 0 || neighbors, "neighbors is NULL"));
  const int n = std::min(maxneighbors, t->graph_degree(rank));
  std::copy(t->graph_neighbors(rank), t->graph_neighbors(rank) + n, neighbors);
  return MPI_SUCCESS;
}
MPR_WEAK_ALIAS(Graph_neighbors);

extern "C" int PMPI_Dist_graph_create_adjacent(MPI_Comm h, int indegree, const int sources[],
                                               const int sourceweights[], int outdegree,
                                               const int destinations[], const int destweights[],
                                               MPI_Info info, int reorder,
                                               MPI_Comm* comm_dist_graph) {
  MPR_ENTRY;
  constexpr const char* fn = "MPI_Dist_graph_create_adjacent";
  Comm* comm;
  Info* in;
  (void)reorder;
  MPR_TRY(check_running(fn));
  MPR_TRY(check_comm(fn, h, &comm));
  MPR_TRY(check_intra(fn, comm));
  MPR_TRY(check_info(fn, comm, info, true, &in));
  MPR_TRY(check_arg(fn, comm, comm_dist_graph, "comm_dist_graph is NULL"));
  MPR_TRY(check_neighbors(fn, comm, indegree, sources, sourceweights, "sources"));
  MPR_TRY(check_neighbors(fn, comm, outdegree, destinations, destweights, "destinations"));
  auto topo = std::make_shared<Topology>();
  topo->kind = MPI_DIST_GRAPH;
  topo->sources.assign(sources, sources + indegree);
  topo->destinations.assign(destinations, destinations + outdegree);
  topo->weighted = has_weights(sourceweights) && has_weights(destweights);
  copy_weights(&topo->source_weights, sourceweights, indegree);
  copy_weights(&topo->dest_weights, destweights, outdegree);
  Comm* c = nullptr;
  MPR_TRY(raise(comm, comm_clone(fn, comm, &c)));
  c->set_topo(std::move(topo));
  *comm_dist_graph = c->handle();
  return MPI_SUCCESS;
}
MPR_WEAK_ALIAS(Dist_graph_create_adjacent);

extern "C" int PMPI_Dist_graph_create(MPI_Comm h, int n, const int sources[], const int degrees[],
                                      const int destinations[], const int weights[], MPI_Info info,
                                      int reorder, MPI_Comm* comm_dist_graph) {
  MPR_ENTRY;
  constexpr const char* fn = "MPI_Dist_graph_create";
  Comm* comm;
  Info* in;
  (void)reorder;
  MPR_TRY(check_running(fn));
  MPR_TRY(check_comm(fn, h, &comm));
  MPR_TRY(check_intra(fn, comm));
  MPR_TRY(check_info(fn, comm, info, true, &in));
  MPR_TRY(check_arg(fn, comm, comm_dist_graph, "comm_dist_graph is NULL"));
  MPR_TRY(check_arg(fn, comm, n >= 0, "n is negative"));
  MPR_TRY(check_arg(fn, comm, n == 0 || (sources && degrees), "sources or degrees is NULL"));
  int total = 0;
  for (int i = 0; i < n; ++i) {
    MPR_TRY(check_neighbors(fn, comm, 1, &sources[i], MPI_UNWEIGHTED, "sources"));
    MPR_TRY(check_arg(fn, comm, degrees[i] >= 0, "a degree is negative"));
    total += degrees[i];
  }
  MPR_TRY(check_neighbors(fn, comm, total, destinations, weights, "destinations"));
  // Each edge (s -> d, w) is an out-edge of s and an in-edge of d: send both records to their
  // owners. Record layout: {1 = out / 0 = in, other end, weight}.
  const int size = comm->size();
  std::vector<std::vector<int>> recs(static_cast<size_t>(size));
  int e = 0;
  for (int i = 0; i < n; ++i)
    for (int k = 0; k < degrees[i]; ++k, ++e) {
      int w = has_weights(weights) && weights != MPI_WEIGHTS_EMPTY ? weights[e] : 1;
      recs[sources[i]].insert(recs[sources[i]].end(), {1, destinations[e], w});
      recs[destinations[e]].insert(recs[destinations[e]].end(), {0, sources[i], w});
    }
  std::vector<std::vector<uint8_t>> out(static_cast<size_t>(size));
  for (int r = 0; r < size; ++r) out[r] = ctl::to_bytes(recs[r]);
  std::vector<std::pair<int, std::vector<uint8_t>>> got;
  ctl::Channel ch{comm->ctx_coll(), comm->rank(), &comm->peers()};
  // Weighted is a property of the whole graph: a process with no edges may pass
  // MPI_UNWEIGHTED while the others pass weights.
  int64_t weighted = has_weights(weights) ? 1 : 0;
  MPR_TRY(raise(comm, ctl::allreduce_sum(fn, ch, ctl::kTagCtlGather, &weighted, 1)));
  MPR_TRY(raise(comm, ctl::sparse_exchange(fn, ch, ctl::kTagCtlDistGraph, out, &got)));
  auto topo = std::make_shared<Topology>();
  topo->kind = MPI_DIST_GRAPH;
  topo->weighted = weighted > 0;
  for (const auto& [src, bytes] : got) {
    std::vector<int> v = ctl::from_bytes(bytes);
    for (size_t k = 0; k + 2 < v.size(); k += 3) {
      if (v[k] == 1) {
        topo->destinations.push_back(v[k + 1]);
        topo->dest_weights.push_back(v[k + 2]);
      } else {
        topo->sources.push_back(v[k + 1]);
        topo->source_weights.push_back(v[k + 2]);
      }
    }
  }
  Comm* c = nullptr;
  MPR_TRY(raise(comm, comm_clone(fn, comm, &c)));
  c->set_topo(std::move(topo));
  *comm_dist_graph = c->handle();
  return MPI_SUCCESS;
}
MPR_WEAK_ALIAS(Dist_graph_create);

extern "C" int PMPI_Dist_graph_neighbors_count(MPI_Comm h, int* indegree, int* outdegree,
                                               int* weighted) {
  MPR_ENTRY;
  constexpr const char* fn = "MPI_Dist_graph_neighbors_count";
  Comm* comm;
  const Topology* t;
  MPR_TRY(check_topo(fn, h, MPI_DIST_GRAPH, &comm, &t));
  MPR_TRY(check_arg(fn, comm, indegree && outdegree && weighted,
                    "indegree, outdegree or weighted is NULL"));
  *indegree = static_cast<int>(t->sources.size());
  *outdegree = static_cast<int>(t->destinations.size());
  *weighted = t->weighted;
  return MPI_SUCCESS;
}
MPR_WEAK_ALIAS(Dist_graph_neighbors_count);

extern "C" int PMPI_Dist_graph_neighbors(MPI_Comm h, int maxindegree, int sources[],
                                         int sourceweights[], int maxoutdegree, int destinations[],
                                         int destweights[]) {
  MPR_ENTRY;
  constexpr const char* fn = "MPI_Dist_graph_neighbors";
  Comm* comm;
  const Topology* t;
  MPR_TRY(check_topo(fn, h, MPI_DIST_GRAPH, &comm, &t));
  const int in = std::min(maxindegree, static_cast<int>(t->sources.size()));
  const int out = std::min(maxoutdegree, static_cast<int>(t->destinations.size()));
  MPR_TRY(check_arg(fn, comm, (in <= 0 || sources) && (out <= 0 || destinations),
                    "sources or destinations is NULL"));
  for (int i = 0; i < in; ++i) {
    sources[i] = t->sources[i];
    if (t->weighted && sourceweights && has_weights(sourceweights))
      sourceweights[i] = t->source_weights[i];
  }
  for (int i = 0; i < out; ++i) {
    destinations[i] = t->destinations[i];
    if (t->weighted && destweights && has_weights(destweights)) destweights[i] = t->dest_weights[i];
  }
  return MPI_SUCCESS;
}
MPR_WEAK_ALIAS(Dist_graph_neighbors);

extern "C" int PMPI_Topo_test(MPI_Comm h, int* status) {
  MPR_ENTRY;
  constexpr const char* fn = "MPI_Topo_test";
  Comm* comm;
  MPR_TRY(check_running(fn));
  MPR_TRY(check_comm(fn, h, &comm));
  MPR_TRY(check_arg(fn, comm, status, "status is NULL"));
  *status = comm->topo() ? comm->topo()->kind : MPI_UNDEFINED;
  return MPI_SUCCESS;
}
MPR_WEAK_ALIAS(Topo_test);
