/* Persistent collectives (MPI_*_init): a request started several times gives fresh results
 * each time; two persistent requests started in different orders on different ranks still
 * match (each keeps its own tags); an ordinary collective between starts does not take their
 * messages; a datatype freed after init still works; a bad argument fails at init with the
 * call's name; starting an active request is MPI_ERR_REQUEST; a persistent neighborhood
 * alltoall on a ring. */
#include <string.h>

#include "jobs_util.h"

static int rank_, size_;

static void bcast_allreduce(void) {
  int b[4], x = 0, sum = 0;
  MPI_Request req[2];
  CHECK_MPI(MPI_Bcast_init(b, 4, MPI_INT, 0, MPI_COMM_WORLD, MPI_INFO_NULL, &req[0]));
  CHECK_MPI(MPI_Allreduce_init(&x, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD, MPI_INFO_NULL,
                               &req[1]));
  for (int it = 0; it < 6; ++it) {
    for (int i = 0; i < 4; ++i) b[i] = rank_ == 0 ? it * 10 + i : -1;
    x = rank_ + it;
    /* Odd ranks start them the other way round. */
    if (rank_ % 2) {
      CHECK_MPI(MPI_Start(&req[1]));
      CHECK_MPI(MPI_Start(&req[0]));
    } else {
      CHECK_MPI(MPI_Startall(2, req));
    }
    int other = rank_, total = 0;
    CHECK_MPI(MPI_Allreduce(&other, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
    CHECK_MPI(MPI_Waitall(2, req, MPI_STATUSES_IGNORE));
    for (int i = 0; i < 4; ++i) CHECK_INT(b[i], ==, it * 10 + i);
    CHECK_INT(sum, ==, size_ * (size_ - 1) / 2 + size_ * it);
    CHECK_INT(total, ==, size_ * (size_ - 1) / 2);
  }
  /* Inactive: a wait returns at once. */
  CHECK_MPI(MPI_Wait(&req[0], MPI_STATUS_IGNORE));
  CHECK(req[0] != MPI_REQUEST_NULL);
  CHECK_MPI(MPI_Start(&req[0]));
  CHECK_MPI(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
  CHECK_ERR_CLASS(MPI_Start(&req[0]), MPI_ERR_REQUEST);
  CHECK_MPI(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL));
  CHECK_MPI(MPI_Wait(&req[0], MPI_STATUS_IGNORE));
  CHECK_MPI(MPI_Request_free(&req[0]));
  CHECK_MPI(MPI_Request_free(&req[1]));
  CHECK(req[0] == MPI_REQUEST_NULL);
}

static void gather_family(void) {
  int n = size_;
  int *all = calloc(n * 2, sizeof(int)), *a2a_out = calloc(n, sizeof(int)),
      *a2a_in = calloc(n, sizeof(int)), mine[2], scanned = 0, ex = -1, one;
  MPI_Request req[4];
  CHECK_MPI(MPI_Allgather_init(mine, 2, MPI_INT, all, 2, MPI_INT, MPI_COMM_WORLD, MPI_INFO_NULL,
                               &req[0]));
  CHECK_MPI(MPI_Alltoall_init(a2a_out, 1, MPI_INT, a2a_in, 1, MPI_INT, MPI_COMM_WORLD,
                              MPI_INFO_NULL, &req[1]));
  CHECK_MPI(MPI_Scan_init(&one, &scanned, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD, MPI_INFO_NULL,
                          &req[2]));
  CHECK_MPI(MPI_Exscan_init(&one, &ex, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD, MPI_INFO_NULL,
                            &req[3]));
  for (int it = 0; it < 3; ++it) {
    mine[0] = rank_ + it;
    mine[1] = -rank_;
    one = it + 1;
    for (int j = 0; j < n; ++j) a2a_out[j] = rank_ * 100 + j + it;
    CHECK_MPI(MPI_Startall(4, req));
    CHECK_MPI(MPI_Waitall(4, req, MPI_STATUSES_IGNORE));
    for (int j = 0; j < n; ++j) {
      CHECK_INT(all[2 * j], ==, j + it);
      CHECK_INT(all[2 * j + 1], ==, -j);
      CHECK_INT(a2a_in[j], ==, j * 100 + rank_ + it);
    }
    CHECK_INT(scanned, ==, (rank_ + 1) * (it + 1));
    if (rank_ > 0) CHECK_INT(ex, ==, rank_ * (it + 1));
  }
  for (int k = 0; k < 4; ++k) CHECK_MPI(MPI_Request_free(&req[k]));
  free(all), free(a2a_out), free(a2a_in);
}

static void freed_type_and_errors(void) {
  MPI_Datatype vec;
  CHECK_MPI(MPI_Type_vector(3, 1, 2, MPI_INT, &vec));
  CHECK_MPI(MPI_Type_commit(&vec));
  int buf[6];
  MPI_Request req;
  CHECK_MPI(MPI_Bcast_init(buf, 1, vec, size_ - 1, MPI_COMM_WORLD, MPI_INFO_NULL, &req));
  CHECK_MPI(MPI_Type_free(&vec));
  for (int i = 0; i < 6; ++i) buf[i] = rank_ == size_ - 1 ? i : -1;
  CHECK_MPI(MPI_Start(&req));
  CHECK_MPI(MPI_Wait(&req, MPI_STATUS_IGNORE));
  for (int i = 0; i < 6; ++i) CHECK_INT(buf[i], ==, (i % 2 == 0 || rank_ == size_ - 1) ? i : -1);
  CHECK_MPI(MPI_Request_free(&req));

  CHECK_MPI(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
  int rc = MPI_Bcast_init(buf, -1, MPI_INT, 0, MPI_COMM_WORLD, MPI_INFO_NULL, &req);
  int cls;
  MPI_Error_class(rc, &cls);
  CHECK_INT(cls, ==, MPI_ERR_COUNT);
  CHECK_MSG(strstr(jobs_error_text(rc), "MPI_Bcast_init"), "message: %s", jobs_error_text(rc));
  CHECK_ERR_CLASS(MPI_Reduce_init(buf, buf + 1, 1, MPI_INT, MPI_SUM, size_, MPI_COMM_WORLD,
                                  MPI_INFO_NULL, &req),
                  MPI_ERR_ROOT);
  CHECK_MPI(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL));
}

static void neighbor_ring(void) {
  MPI_Comm ring;
  int dims[1] = {size_}, periods[1] = {1};
  CHECK_MPI(MPI_Cart_create(MPI_COMM_WORLD, 1, dims, periods, 0, &ring));
  int r, out[2], in[2], gat[2], val;
  CHECK_MPI(MPI_Comm_rank(ring, &r));
  MPI_Request req[2];
  CHECK_MPI(MPI_Neighbor_alltoall_init(out, 1, MPI_INT, in, 1, MPI_INT, ring, MPI_INFO_NULL,
                                       &req[0]));
  CHECK_MPI(MPI_Neighbor_allgather_init(&val, 1, MPI_INT, gat, 1, MPI_INT, ring, MPI_INFO_NULL,
                                        &req[1]));
  const int left = (r + size_ - 1) % size_, right = (r + 1) % size_;
  for (int it = 0; it < 4; ++it) {
    out[0] = r * 10 + 0 + it * 1000; /* to the left neighbor */
    out[1] = r * 10 + 1 + it * 1000; /* to the right neighbor */
    val = r + it * 1000;
    if (r % 2) {
      CHECK_MPI(MPI_Start(&req[1]));
      CHECK_MPI(MPI_Start(&req[0]));
    } else {
      CHECK_MPI(MPI_Startall(2, req));
    }
    CHECK_MPI(MPI_Waitall(2, req, MPI_STATUSES_IGNORE));
    CHECK_INT(in[0], ==, left * 10 + 1 + it * 1000);
    CHECK_INT(in[1], ==, right * 10 + 0 + it * 1000);
    CHECK_INT(gat[0], ==, left + it * 1000);
    CHECK_INT(gat[1], ==, right + it * 1000);
  }
  CHECK_MPI(MPI_Request_free(&req[0]));
  CHECK_MPI(MPI_Request_free(&req[1]));
  CHECK_MPI(MPI_Comm_free(&ring));
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank_);
  MPI_Comm_size(MPI_COMM_WORLD, &size_);
  bcast_allreduce();
  gather_family();
  freed_type_and_errors();
  neighbor_ring();
  jobs_done("job_coll_persist");
  MPI_Finalize();
  return 0;
}
