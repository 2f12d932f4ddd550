/* Cartesian topologies: a 2D Jacobi stencil on a grid split over an MPI_Dims_create process
 * grid (non-periodic rows, periodic columns), halos exchanged with MPI_Cart_shift +
 * MPI_Sendrecv, checked bit for bit against the same computation done serially. Also the
 * Cartesian queries, MPI_Cart_sub row/column communicators, MPI_Cart_map, MPI_Topo_test and a
 * graph topology's queries. */
#include "jobs_util.h"

#define NX 26 /* global rows (dimension 0, not periodic) */
#define NY 19 /* global columns (dimension 1, periodic) */
#define STEPS 6

static int rank_, size_;

static double init_value(int i, int j) { return (double)((i * 31 + j * 17) % 23); }

/* Serial reference: zero outside the rows, wrap-around in the columns. */
static void serial(double u[NX][NY]) {
  static double next[NX][NY];
  for (int i = 0; i < NX; ++i)
    for (int j = 0; j < NY; ++j) u[i][j] = init_value(i, j);
  for (int s = 0; s < STEPS; ++s) {
    for (int i = 0; i < NX; ++i)
      for (int j = 0; j < NY; ++j) {
        double up = i > 0 ? u[i - 1][j] : 0.0, down = i < NX - 1 ? u[i + 1][j] : 0.0;
        double left = u[i][(j + NY - 1) % NY], right = u[i][(j + 1) % NY];
        next[i][j] = (up + down + left + right) * 0.25;
      }
    memcpy(u, next, sizeof next);
  }
}

/* Block decomposition: the first n % p blocks get one extra row/column. */
static void block(int n, int p, int c, int *start, int *len) {
  *len = n / p + (c < n % p);
  *start = c * (n / p) + (c < n % p ? c : n % p);
}

static void check_halo_exchange(void) {
  int dims[2] = {0, 0}, periods[2] = {0, 1};
  CHECK_MPI(MPI_Dims_create(size_, 2, dims));
  CHECK_INT(dims[0] * dims[1], ==, size_);
  CHECK_INT(dims[0], >=, dims[1]);
  MPI_Comm cart;
  CHECK_MPI(MPI_Cart_create(MPI_COMM_WORLD, 2, dims, periods, 1, &cart));
  int crank = -1, coords[2], topo = -1, nd = -1;
  CHECK_MPI(MPI_Comm_rank(cart, &crank));
  CHECK_MPI(MPI_Topo_test(cart, &topo));
  CHECK_INT(topo, ==, MPI_CART);
  CHECK_MPI(MPI_Cartdim_get(cart, &nd));
  CHECK_INT(nd, ==, 2);
  CHECK_MPI(MPI_Cart_coords(cart, crank, 2, coords));
  int back = -1;
  CHECK_MPI(MPI_Cart_rank(cart, coords, &back));
  CHECK_INT(back, ==, crank);
  int gdims[2], gper[2], gcoords[2];
  CHECK_MPI(MPI_Cart_get(cart, 2, gdims, gper, gcoords));
  CHECK(gdims[0] == dims[0] && gdims[1] == dims[1] && !gper[0] && gper[1]);
  CHECK(gcoords[0] == coords[0] && gcoords[1] == coords[1]);

  int up, down, left, right;
  CHECK_MPI(MPI_Cart_shift(cart, 0, 1, &up, &down));
  CHECK_MPI(MPI_Cart_shift(cart, 1, 1, &left, &right));
  CHECK_INT(up == MPI_PROC_NULL, ==, coords[0] == 0);
  CHECK_INT(down == MPI_PROC_NULL, ==, coords[0] == dims[0] - 1);
  CHECK(left != MPI_PROC_NULL && right != MPI_PROC_NULL);

  int i0, ni, j0, nj;
  block(NX, dims[0], coords[0], &i0, &ni);
  block(NY, dims[1], coords[1], &j0, &nj);
  const int W = nj + 2;
  double *u = jobs_malloc(sizeof(double) * (size_t)(ni + 2) * (size_t)W);
  double *v = jobs_malloc(sizeof(double) * (size_t)(ni + 2) * (size_t)W);
  double *colout = jobs_malloc(sizeof(double) * (size_t)ni);
  double *colin = jobs_malloc(sizeof(double) * (size_t)ni);
#define U(a, i, j) (a)[(size_t)(i) * (size_t)W + (size_t)(j)]
  for (int i = 0; i < ni + 2; ++i)
    for (int j = 0; j < W; ++j) U(u, i, j) = 0.0;
  for (int i = 1; i <= ni; ++i)
    for (int j = 1; j <= nj; ++j) U(u, i, j) = init_value(i0 + i - 1, j0 + j - 1);
  for (int s = 0; s < STEPS; ++s) {
    /* Rows are contiguous: send the first/last interior row, receive into the ghost rows. */
    CHECK_MPI(MPI_Sendrecv(&U(u, 1, 1), nj, MPI_DOUBLE, up, 0, &U(u, ni + 1, 1), nj, MPI_DOUBLE,
                           down, 0, cart, MPI_STATUS_IGNORE));
    CHECK_MPI(MPI_Sendrecv(&U(u, ni, 1), nj, MPI_DOUBLE, down, 1, &U(u, 0, 1), nj, MPI_DOUBLE,
                           up, 1, cart, MPI_STATUS_IGNORE));
    /* Columns go through contiguous copies. */
    for (int i = 0; i < ni; ++i) colout[i] = U(u, i + 1, 1);
    CHECK_MPI(MPI_Sendrecv(colout, ni, MPI_DOUBLE, left, 2, colin, ni, MPI_DOUBLE, right, 2, cart,
                           MPI_STATUS_IGNORE));
    for (int i = 0; i < ni; ++i) U(u, i + 1, nj + 1) = colin[i];
    for (int i = 0; i < ni; ++i) colout[i] = U(u, i + 1, nj);
    CHECK_MPI(MPI_Sendrecv(colout, ni, MPI_DOUBLE, right, 3, colin, ni, MPI_DOUBLE, left, 3, cart,
                           MPI_STATUS_IGNORE));
    for (int i = 0; i < ni; ++i) U(u, i + 1, 0) = colin[i];
    for (int i = 1; i <= ni; ++i)
      for (int j = 1; j <= nj; ++j)
        U(v, i, j) = (U(u, i - 1, j) + U(u, i + 1, j) + U(u, i, j - 1) + U(u, i, j + 1)) * 0.25;
    for (int i = 1; i <= ni; ++i)
      for (int j = 1; j <= nj; ++j) U(u, i, j) = U(v, i, j);
  }
  static double ref[NX][NY];
  serial(ref);
  for (int i = 1; i <= ni; ++i)
    for (int j = 1; j <= nj; ++j)
      CHECK_MSG(U(u, i, j) == ref[i0 + i - 1][j0 + j - 1],
                "cell (%d,%d): distributed %.17g, serial %.17g", i0 + i - 1, j0 + j - 1,
                U(u, i, j), ref[i0 + i - 1][j0 + j - 1]);
#undef U
  free(u);
  free(v);
  free(colout);
  free(colin);

  /* Rows and columns of the process grid through MPI_Cart_sub. */
  int keep_cols[2] = {0, 1}, keep_rows[2] = {1, 0};
  MPI_Comm row, col;
  CHECK_MPI(MPI_Cart_sub(cart, keep_cols, &row));
  CHECK_MPI(MPI_Cart_sub(cart, keep_rows, &col));
  int rs = -1, cs = -1, rr = -1, sum = 0;
  CHECK_MPI(MPI_Comm_size(row, &rs));
  CHECK_MPI(MPI_Comm_size(col, &cs));
  CHECK_MPI(MPI_Comm_rank(row, &rr));
  CHECK_INT(rs, ==, dims[1]);
  CHECK_INT(cs, ==, dims[0]);
  CHECK_INT(rr, ==, coords[1]);
  CHECK_MPI(MPI_Allreduce(&coords[0], &sum, 1, MPI_INT, MPI_SUM, row));
  CHECK_INT(sum, ==, coords[0] * dims[1]);
  CHECK_MPI(MPI_Cartdim_get(row, &nd));
  CHECK_INT(nd, ==, 1);
  int rper = -1, rdim = -1, rcoord = -1;
  CHECK_MPI(MPI_Cart_get(row, 1, &rdim, &rper, &rcoord));
  CHECK(rdim == dims[1] && rper == 1 && rcoord == coords[1]);
  CHECK_MPI(MPI_Comm_free(&row));
  CHECK_MPI(MPI_Comm_free(&col));
  /* A duplicate keeps the topology. */
  MPI_Comm dup;
  CHECK_MPI(MPI_Comm_dup(cart, &dup));
  CHECK_MPI(MPI_Topo_test(dup, &topo));
  CHECK_INT(topo, ==, MPI_CART);
  CHECK_MPI(MPI_Comm_free(&dup));
  CHECK_MPI(MPI_Comm_free(&cart));
}

static void check_small_grid_and_map(void) {
  /* A grid smaller than the job: the extra ranks get MPI_COMM_NULL. */
  int dims[1] = {size_ > 1 ? size_ - 1 : 1}, periods[1] = {1}, newrank = -2;
  MPI_Comm ring;
  CHECK_MPI(MPI_Cart_map(MPI_COMM_WORLD, 1, dims, periods, &newrank));
#ifdef OPEN_MPI
  /* Open MPI 4.1 answers every rank with its own rank, even outside the grid. */
  if (rank_ < dims[0]) CHECK_INT(newrank, ==, rank_);
#else
  CHECK_INT(newrank, ==, rank_ < dims[0] ? rank_ : MPI_UNDEFINED);
#endif
  CHECK_MPI(MPI_Cart_create(MPI_COMM_WORLD, 1, dims, periods, 0, &ring));
  if (rank_ >= dims[0]) {
    CHECK(ring == MPI_COMM_NULL);
  } else {
    int src, dst;
    CHECK_MPI(MPI_Cart_shift(ring, 0, 2, &src, &dst));
    CHECK_INT(dst, ==, (rank_ + 2) % dims[0]);
    CHECK_INT(src, ==, ((rank_ - 2) % dims[0] + dims[0]) % dims[0]);
    CHECK_MPI(MPI_Comm_free(&ring));
  }
  int topo = -1;
  CHECK_MPI(MPI_Topo_test(MPI_COMM_WORLD, &topo));
  CHECK_INT(topo, ==, MPI_UNDEFINED);
}

static void check_graph(void) {
  /* A star: node 0 linked to every other node. */
  int index[8], edges[14], n = size_, e = 0;
  for (int i = 0; i < n; ++i) {
    if (i == 0)
      for (int k = 1; k < n; ++k) edges[e++] = k;
    else
      edges[e++] = 0;
    index[i] = e;
  }
  MPI_Comm star;
  CHECK_MPI(MPI_Graph_create(MPI_COMM_WORLD, n, index, edges, 0, &star));
  int topo = -1, nn = -1, ne = -1, cnt = -1;
  CHECK_MPI(MPI_Topo_test(star, &topo));
  CHECK_INT(topo, ==, MPI_GRAPH);
  CHECK_MPI(MPI_Graphdims_get(star, &nn, &ne));
  CHECK_INT(nn, ==, n);
  CHECK_INT(ne, ==, e);
  CHECK_MPI(MPI_Graph_neighbors_count(star, rank_, &cnt));
  CHECK_INT(cnt, ==, rank_ == 0 ? n - 1 : 1);
  int nb[8] = {-1};
  CHECK_MPI(MPI_Graph_neighbors(star, rank_, 8, nb));
  if (rank_ != 0) CHECK_INT(nb[0], ==, 0);
  int gi[8], ge[14];
  CHECK_MPI(MPI_Graph_get(star, n, e, gi, ge));
  for (int i = 0; i < n; ++i) CHECK_INT(gi[i], ==, index[i]);
  for (int i = 0; i < e; ++i) CHECK_INT(ge[i], ==, edges[i]);
  CHECK_MPI(MPI_Comm_free(&star));
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank_);
  MPI_Comm_size(MPI_COMM_WORLD, &size_);
  CHECK_MSG(size_ <= 8, "this job is written for at most 8 ranks");
  check_halo_exchange();
  check_small_grid_and_map();
  check_graph();
  jobs_done("job_topo_cart");
  MPI_Finalize();
  return 0;
}
