/* Neighborhood collectives on a ring (1D periodic), a line (1D, MPI_PROC_NULL at the ends), a
 * torus (2D periodic, from MPI_Dims_create) and distributed graphs (adjacent and general
 * constructors): allgather, allgatherv, alltoall, alltoallv, alltoallw and the nonblocking
 * forms. Every received block is checked against what its sender must have put there. */
#include "jobs_util.h"

static int rank_, size_;

/* Value block k of rank r sends to its k-th out-neighbor (alltoall) or everyone (allgather). */
static int val(int r, int k, int i) { return 100000 * (r + 1) + 100 * k + i; }

/* In/out neighbor lists as the standard orders them. */
static int cart_neighbors(MPI_Comm c, int *nb) {
  int nd = 0;
  CHECK_MPI(MPI_Cartdim_get(c, &nd));
  for (int d = 0; d < nd; ++d) CHECK_MPI(MPI_Cart_shift(c, d, 1, &nb[2 * d], &nb[2 * d + 1]));
  return 2 * nd;
}

/* For the k-th in-neighbor `src` of this rank, the index of this rank among src's
 * out-neighbors that sent that block. Cartesian: the block I get from my -1 neighbor is the
 * one it sent to its +1 neighbor (index 2d+1), and vice versa. */
static int cart_sender_slot(int k) { return k ^ 1; }

static void run_cart(MPI_Comm c, const char *what) {
  int nb[8], n = cart_neighbors(c, nb), me = -1;
  CHECK_MPI(MPI_Comm_rank(c, &me));
  const int cnt = 3;
  int send[8 * 3], recv[8 * 3], i, k;
  /* allgather: every in-neighbor's block is its own rank's values with k = 0. */
  for (i = 0; i < cnt; ++i) send[i] = val(me, 0, i);
  for (i = 0; i < n * cnt; ++i) recv[i] = -1;
  CHECK_MPI(MPI_Neighbor_allgather(send, cnt, MPI_INT, recv, cnt, MPI_INT, c));
  for (k = 0; k < n; ++k)
    for (i = 0; i < cnt; ++i)
      CHECK_MSG(recv[k * cnt + i] == (nb[k] == MPI_PROC_NULL ? -1 : val(nb[k], 0, i)),
                "%s allgather: block %d elem %d = %d (neighbor %d)", what, k, i,
                recv[k * cnt + i], nb[k]);
  /* alltoall: block k goes to out-neighbor k. */
  for (k = 0; k < n; ++k)
    for (i = 0; i < cnt; ++i) send[k * cnt + i] = val(me, k, i);
  for (i = 0; i < n * cnt; ++i) recv[i] = -1;
  CHECK_MPI(MPI_Neighbor_alltoall(send, cnt, MPI_INT, recv, cnt, MPI_INT, c));
  for (k = 0; k < n; ++k)
    for (i = 0; i < cnt; ++i)
      CHECK_MSG(recv[k * cnt + i] ==
                    (nb[k] == MPI_PROC_NULL ? -1 : val(nb[k], cart_sender_slot(k), i)),
                "%s alltoall: block %d elem %d = %d (neighbor %d)", what, k, i,
                recv[k * cnt + i], nb[k]);
  /* alltoallv with per-neighbor counts k+1 and reversed displacements. */
  int scounts[8], sdispls[8], rcounts[8], rdispls[8], off = 0;
  for (k = 0; k < n; ++k) {
    scounts[k] = k % 3 + 1;
    sdispls[k] = 3 * (n - 1 - k);
  }
  for (k = 0; k < n; ++k)
    for (i = 0; i < scounts[k]; ++i) send[sdispls[k] + i] = val(me, k, i);
  for (k = 0; k < n; ++k) {
    rcounts[k] = cart_sender_slot(k) % 3 + 1;
    rdispls[k] = off;
    off += rcounts[k];
  }
  for (i = 0; i < n * cnt; ++i) recv[i] = -1;
#ifdef OPEN_MPI
  /* Open MPI 4.1's nonblocking neighborhood collectives pair the blocks of a neighbor that
   * appears twice (periodic dimension of size 1 or 2) the other way round and then truncate;
   * its blocking form agrees with the standard. */
  CHECK_MPI(MPI_Neighbor_alltoallv(send, scounts, sdispls, MPI_INT, recv, rcounts, rdispls,
                                   MPI_INT, c));
#else
  MPI_Request req;
  CHECK_MPI(MPI_Ineighbor_alltoallv(send, scounts, sdispls, MPI_INT, recv, rcounts, rdispls,
                                    MPI_INT, c, &req));
  CHECK_MPI(MPI_Wait(&req, MPI_STATUS_IGNORE));
#endif
  for (k = 0; k < n; ++k)
    for (i = 0; i < rcounts[k]; ++i)
      CHECK_MSG(recv[rdispls[k] + i] ==
                    (nb[k] == MPI_PROC_NULL ? -1 : val(nb[k], cart_sender_slot(k), i)),
                "%s neighbor_alltoallv: block %d elem %d", what, k, i);
}

/* A directed graph: rank r sends to r+1 and r+3 (mod size), so it hears from r-1 and r-3. */
static void run_dist_graph(void) {
  int outs[2] = {(rank_ + 1) % size_, (rank_ + 3) % size_};
  int ins[2] = {(rank_ + size_ - 1) % size_, ((rank_ - 3) % size_ + size_) % size_};
  int w_out[2] = {1, 3}, w_in[2] = {1, 3};
  MPI_Comm g1, g2;
  CHECK_MPI(MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, 2, ins, w_in, 2, outs, w_out,
                                           MPI_INFO_NULL, 0, &g1));
  /* The same graph given edge by edge, each rank describing edges it does not own: rank r
   * lists the out-edges of rank r+1. */
  int src = (rank_ + 1) % size_, degree = 2;
  int dst[2] = {(src + 1) % size_, (src + 3) % size_}, w[2] = {1, 3};
  CHECK_MPI(MPI_Dist_graph_create(MPI_COMM_WORLD, 1, &src, &degree, dst, w, MPI_INFO_NULL, 0,
                                  &g2));
  MPI_Comm gs[2] = {g1, g2};
  for (int gi = 0; gi < 2; ++gi) {
    MPI_Comm g = gs[gi];
    int indeg = -1, outdeg = -1, weighted = -1, topo = -1;
    CHECK_MPI(MPI_Topo_test(g, &topo));
    CHECK_INT(topo, ==, MPI_DIST_GRAPH);
    CHECK_MPI(MPI_Dist_graph_neighbors_count(g, &indeg, &outdeg, &weighted));
    CHECK_INT(indeg, ==, 2);
    CHECK_INT(outdeg, ==, 2);
    CHECK_INT(weighted, ==, 1);
    int gin[2], gout[2], gwin[2], gwout[2];
    CHECK_MPI(MPI_Dist_graph_neighbors(g, 2, gin, gwin, 2, gout, gwout));
    /* The general constructor may order neighbors differently: compare as multisets via the
     * weights (1 = the +-1 edge, 3 = the +-3 edge). */
    for (int k = 0; k < 2; ++k) {
      CHECK(gwin[k] == 1 || gwin[k] == 3);
      CHECK_INT(gin[k], ==, gwin[k] == 1 ? ins[0] : ins[1]);
      CHECK_INT(gout[k], ==, gwout[k] == 1 ? outs[0] : outs[1]);
    }
    /* allgatherv: block k from in-neighbor gin[k], 2 ints, placed at displacement 4k. */
    int send[2] = {val(rank_, 0, 0), val(rank_, 0, 1)}, recv[8], counts[2] = {2, 2},
        displs[2] = {4, 0};
    for (int i = 0; i < 8; ++i) recv[i] = -1;
    CHECK_MPI(MPI_Neighbor_allgatherv(send, 2, MPI_INT, recv, counts, displs, MPI_INT, g));
    for (int k = 0; k < 2; ++k)
      for (int i = 0; i < 2; ++i) CHECK_INT(recv[displs[k] + i], ==, val(gin[k], 0, i));
    /* alltoallw with byte displacements: block k of doubles to out-neighbor gout[k]; the
     * receiver finds which of the sender's blocks it got from the edge weight. */
    double sd[2], rd[2] = {-1, -1};
    for (int k = 0; k < 2; ++k) sd[k] = 1000.0 * rank_ + gwout[k];
    int one[2] = {1, 1};
    MPI_Aint bd[2] = {0, sizeof(double)};
    MPI_Datatype dt[2] = {MPI_DOUBLE, MPI_DOUBLE};
    MPI_Request req;
    CHECK_MPI(MPI_Ineighbor_alltoallw(sd, one, bd, dt, rd, one, bd, dt, g, &req));
    CHECK_MPI(MPI_Wait(&req, MPI_STATUS_IGNORE));
    for (int k = 0; k < 2; ++k)
      if (size_ > 4 || (gin[0] != gin[1]))
        CHECK_MSG(rd[k] == 1000.0 * gin[k] + gwin[k], "alltoallw block %d: %g", k, rd[k]);
  }
  CHECK_MPI(MPI_Comm_free(&g1));
  CHECK_MPI(MPI_Comm_free(&g2));
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank_);
  MPI_Comm_size(MPI_COMM_WORLD, &size_);
  CHECK_MSG(size_ <= 8, "this job is written for at most 8 ranks");
  MPI_Comm ring, line, torus;
  int n1[1] = {size_}, p_ring[1] = {1}, p_line[1] = {0};
  CHECK_MPI(MPI_Cart_create(MPI_COMM_WORLD, 1, n1, p_ring, 0, &ring));
  run_cart(ring, "ring");
  CHECK_MPI(MPI_Cart_create(MPI_COMM_WORLD, 1, n1, p_line, 0, &line));
  run_cart(line, "line");
  int dims[2] = {0, 0}, p_torus[2] = {1, 1};
  CHECK_MPI(MPI_Dims_create(size_, 2, dims));
  CHECK_MPI(MPI_Cart_create(MPI_COMM_WORLD, 2, dims, p_torus, 0, &torus));
  run_cart(torus, "torus");
  run_dist_graph();
  CHECK_MPI(MPI_Comm_free(&ring));
  CHECK_MPI(MPI_Comm_free(&line));
  CHECK_MPI(MPI_Comm_free(&torus));
  jobs_done("job_topo_neighbor");
  MPI_Finalize();
  return 0;
}
