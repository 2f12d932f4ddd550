/* Partitioned communication (MPI-4) on a ring, rank r sending to r+1:
 * - 8 partitions of 3 ints, restarted for 3 rounds, made ready in reverse order, one by one,
 *   as a range and as a list; every partition lands where it belongs;
 * - a partition travels before the others are ready: the receiver sees MPI_Parrived(0) while
 *   the sender still holds partitions 1.., and tells it so before it readies them;
 * - two requests on the same (peer, tag), the second one's partitions readied first, each
 *   filling its own buffer; a derived datatype per partition; MPI_PROC_NULL partners; an
 *   intercommunicator;
 * - the two sides cutting the buffer into different numbers of partitions (16 x 4 ints sent
 *   into 32 x 2 and into 4 x 16, in both directions); a receive partition is reported arrived
 *   only when all of it is there;
 * - errors: MPI_Pready on a receive or an inactive request, a partition out of range,
 *   MPI_ANY_SOURCE in MPI_Precv_init. */
#include <string.h>

#include "jobs_util.h"

enum { P = 8, C = 3 };

static int rank_, size_, next_, prev_;

static int val(int from, int round, int i) { return from * 100000 + round * 1000 + i; }

static void rounds(void) {
  int out[P * C] = {0}, in[P * C];
  MPI_Request s, r;
  CHECK_MPI(MPI_Psend_init(out, P, C, MPI_INT, next_, 7, MPI_COMM_WORLD, MPI_INFO_NULL, &s));
  CHECK_MPI(MPI_Precv_init(in, P, C, MPI_INT, prev_, 7, MPI_COMM_WORLD, MPI_INFO_NULL, &r));
  for (int round = 0; round < 3; ++round) {
    for (int i = 0; i < P * C; ++i) out[i] = val(rank_, round, i), in[i] = -1;
    CHECK_MPI(MPI_Start(&r));
    CHECK_MPI(MPI_Start(&s));
    if (round == 0) {
      for (int k = P - 1; k >= 0; --k) CHECK_MPI(MPI_Pready(k, s));
    } else if (round == 1) {
      CHECK_MPI(MPI_Pready_range(P / 2, P - 1, s));
      CHECK_MPI(MPI_Pready_range(0, P / 2 - 1, s));
    } else {
      int list[P];
      for (int k = 0; k < P; ++k) list[k] = (k * 3) % P; /* 0 3 6 1 4 7 2 5 */
      CHECK_MPI(MPI_Pready_list(P, list, s));
    }
    /* Every partition is reported arrived before the wait. */
    for (int k = 0; k < P; ++k) {
      int flag = 0;
      while (!flag) CHECK_MPI(MPI_Parrived(r, k, &flag));
      for (int i = 0; i < C; ++i) CHECK_INT(in[k * C + i], ==, val(prev_, round, k * C + i));
    }
    CHECK_MPI(MPI_Wait(&s, MPI_STATUS_IGNORE));
    CHECK_MPI(MPI_Wait(&r, MPI_STATUS_IGNORE));
    for (int i = 0; i < P * C; ++i) CHECK_INT(in[i], ==, val(prev_, round, i));
  }
  CHECK_MPI(MPI_Request_free(&s));
  CHECK_MPI(MPI_Request_free(&r));
}

/* Partition 0 arrives while the sender still holds the others. */
static void early(void) {
  if (size_ < 2) return;
  int out[P * C] = {0}, in[P * C], token = 0;
  MPI_Request s, r;
  CHECK_MPI(MPI_Psend_init(out, P, C, MPI_INT, next_, 8, MPI_COMM_WORLD, MPI_INFO_NULL, &s));
  CHECK_MPI(MPI_Precv_init(in, P, C, MPI_INT, prev_, 8, MPI_COMM_WORLD, MPI_INFO_NULL, &r));
  for (int i = 0; i < P * C; ++i) out[i] = val(rank_, 9, i), in[i] = -1;
  CHECK_MPI(MPI_Start(&r));
  CHECK_MPI(MPI_Start(&s));
  CHECK_MPI(MPI_Pready(0, s));
  int flag = 0;
  while (!flag) CHECK_MPI(MPI_Parrived(r, 0, &flag));
  CHECK_INT(in[0], ==, val(prev_, 9, 0));
  CHECK_MPI(MPI_Parrived(r, 1, &flag));
  CHECK_INT(flag, ==, 0); /* prev_ has not readied partition 1: it waits for our token */
  /* Tell prev_ its partition 0 arrived; wait for next_ to say ours did. */
  MPI_Request tq;
  CHECK_MPI(MPI_Isend(&token, 1, MPI_INT, prev_, 9, MPI_COMM_WORLD, &tq));
  CHECK_MPI(MPI_Recv(&token, 1, MPI_INT, next_, 9, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
  CHECK_MPI(MPI_Pready_range(1, P - 1, s));
  CHECK_MPI(MPI_Wait(&tq, MPI_STATUS_IGNORE));
  CHECK_MPI(MPI_Wait(&r, MPI_STATUS_IGNORE));
  CHECK_MPI(MPI_Wait(&s, MPI_STATUS_IGNORE));
  for (int i = 0; i < P * C; ++i) CHECK_INT(in[i], ==, val(prev_, 9, i));
  CHECK_MPI(MPI_Request_free(&s));
  CHECK_MPI(MPI_Request_free(&r));
}

/* Two requests on one (peer, tag), matched in the order they were made and started. */
static void two_channels(void) {
  int a_out[4], b_out[4], a_in[4] = {-1, -1, -1, -1}, b_in[4] = {-1, -1, -1, -1};
  MPI_Request sa, sb, ra, rb;
  for (int i = 0; i < 4; ++i) a_out[i] = rank_ * 10 + i, b_out[i] = -(rank_ * 10 + i) - 1;
  CHECK_MPI(MPI_Psend_init(a_out, 2, 2, MPI_INT, next_, 5, MPI_COMM_WORLD, MPI_INFO_NULL, &sa));
  CHECK_MPI(MPI_Psend_init(b_out, 2, 2, MPI_INT, next_, 5, MPI_COMM_WORLD, MPI_INFO_NULL, &sb));
  CHECK_MPI(MPI_Precv_init(a_in, 2, 2, MPI_INT, prev_, 5, MPI_COMM_WORLD, MPI_INFO_NULL, &ra));
  CHECK_MPI(MPI_Precv_init(b_in, 2, 2, MPI_INT, prev_, 5, MPI_COMM_WORLD, MPI_INFO_NULL, &rb));
  MPI_Request all[4] = {ra, rb, sa, sb};
  CHECK_MPI(MPI_Startall(4, all));
  CHECK_MPI(MPI_Pready_range(0, 1, sb)); /* b first: it must still land in b_in */
  CHECK_MPI(MPI_Pready(1, sa));
  CHECK_MPI(MPI_Pready(0, sa));
  CHECK_MPI(MPI_Waitall(4, all, MPI_STATUSES_IGNORE));
  for (int i = 0; i < 4; ++i) {
    CHECK_INT(a_in[i], ==, prev_ * 10 + i);
    CHECK_INT(b_in[i], ==, -(prev_ * 10 + i) - 1);
  }
  for (int i = 0; i < 4; ++i) CHECK_MPI(MPI_Request_free(&all[i]));
}

/* Each partition one element of a strided type; partners MPI_PROC_NULL at the ends. */
static void typed_and_null(void) {
  MPI_Datatype col;
  CHECK_MPI(MPI_Type_vector(2, 1, 3, MPI_DOUBLE, &col));
  CHECK_MPI(MPI_Type_commit(&col));
  /* 4 partitions, each one col: extent is 4 doubles, so partition k starts at 4k. */
  double out[16], in[16];
  for (int i = 0; i < 16; ++i) out[i] = rank_ + i / 100.0, in[i] = -1;
  const int dest = rank_ + 1 < size_ ? rank_ + 1 : MPI_PROC_NULL;
  const int src = rank_ > 0 ? rank_ - 1 : MPI_PROC_NULL;
  MPI_Request s, r;
  CHECK_MPI(MPI_Psend_init(out, 4, 1, col, dest, 3, MPI_COMM_WORLD, MPI_INFO_NULL, &s));
  CHECK_MPI(MPI_Precv_init(in, 4, 1, col, src, 3, MPI_COMM_WORLD, MPI_INFO_NULL, &r));
  CHECK_MPI(MPI_Type_free(&col)); /* the requests keep it */
  CHECK_MPI(MPI_Start(&r));
  CHECK_MPI(MPI_Start(&s));
  CHECK_MPI(MPI_Pready_range(0, 3, s));
  CHECK_MPI(MPI_Wait(&r, MPI_STATUS_IGNORE));
  CHECK_MPI(MPI_Wait(&s, MPI_STATUS_IGNORE));
  for (int k = 0; k < 4; ++k)
    for (int j = 0; j < 4; ++j) {
      const int i = 4 * k + j;
      /* Only the vector's elements (offsets 0 and 3 of each partition) are received. */
      const double want = (j == 0 || j == 3) && src != MPI_PROC_NULL ? src + i / 100.0 : -1;
      CHECK_MSG(in[i] == want, "in[%d] = %g, expected %g", i, in[i], want);
    }
  CHECK_MPI(MPI_Request_free(&s));
  CHECK_MPI(MPI_Request_free(&r));
}

/* Across an intercommunicator between the lower and upper halves: local rank i and remote
 * rank i swap 4 partitions. */
static void across_inter(void) {
  if (size_ < 2) return;
  const int upper = rank_ >= size_ / 2;
  MPI_Comm half, inter;
  CHECK_MPI(MPI_Comm_split(MPI_COMM_WORLD, upper, rank_, &half));
  CHECK_MPI(MPI_Intercomm_create(half, 0, MPI_COMM_WORLD, upper ? 0 : size_ / 2, 11, &inter));
  int lrank, rsize;
  MPI_Comm_rank(inter, &lrank);
  MPI_Comm_remote_size(inter, &rsize);
  if (lrank < rsize) {
    int out[8], in[8];
    for (int i = 0; i < 8; ++i) out[i] = rank_ * 10 + i, in[i] = -1;
    MPI_Request s, r;
    CHECK_MPI(MPI_Psend_init(out, 4, 2, MPI_INT, lrank, 2, inter, MPI_INFO_NULL, &s));
    CHECK_MPI(MPI_Precv_init(in, 4, 2, MPI_INT, lrank, 2, inter, MPI_INFO_NULL, &r));
    CHECK_MPI(MPI_Start(&r));
    CHECK_MPI(MPI_Start(&s));
    CHECK_MPI(MPI_Pready_range(0, 3, s));
    CHECK_MPI(MPI_Wait(&r, MPI_STATUS_IGNORE));
    CHECK_MPI(MPI_Wait(&s, MPI_STATUS_IGNORE));
    const int peer = upper ? lrank : size_ / 2 + lrank; /* its rank in MPI_COMM_WORLD */
    for (int i = 0; i < 8; ++i) CHECK_INT(in[i], ==, peer * 10 + i);
    CHECK_MPI(MPI_Request_free(&s));
    CHECK_MPI(MPI_Request_free(&r));
  }
  CHECK_MPI(MPI_Comm_free(&inter));
  CHECK_MPI(MPI_Comm_free(&half));
}

static void errors(void) {
  CHECK_MPI(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
  int buf[4] = {0};
  MPI_Request s, r;
  CHECK_ERR_CLASS(
      MPI_Precv_init(buf, 2, 2, MPI_INT, MPI_ANY_SOURCE, 1, MPI_COMM_WORLD, MPI_INFO_NULL, &r),
      MPI_ERR_RANK);
  CHECK_ERR_CLASS(MPI_Psend_init(buf, 0, 2, MPI_INT, next_, 1, MPI_COMM_WORLD, MPI_INFO_NULL, &s),
                  MPI_ERR_ARG);
  CHECK_MPI(MPI_Psend_init(buf, 2, 2, MPI_INT, next_, 1, MPI_COMM_WORLD, MPI_INFO_NULL, &s));
  CHECK_MPI(MPI_Precv_init(buf, 2, 2, MPI_INT, prev_, 1, MPI_COMM_WORLD, MPI_INFO_NULL, &r));
  CHECK_ERR_CLASS(MPI_Pready(0, s), MPI_ERR_REQUEST); /* inactive */
  CHECK_MPI(MPI_Start(&r));
  CHECK_MPI(MPI_Start(&s));
  CHECK_ERR_CLASS(MPI_Pready(0, r), MPI_ERR_REQUEST);
  CHECK_ERR_CLASS(MPI_Pready(2, s), MPI_ERR_ARG);
  CHECK_ERR_CLASS(MPI_Pready_range(1, 0, s), MPI_ERR_ARG);
  int flag;
  CHECK_ERR_CLASS(MPI_Parrived(r, 5, &flag), MPI_ERR_ARG);
  CHECK_ERR_CLASS(MPI_Parrived(s, 0, &flag), MPI_ERR_REQUEST);
  CHECK_MPI(MPI_Pready_range(0, 1, s));
  CHECK_ERR_CLASS(MPI_Pready(1, s), MPI_ERR_ARG); /* twice in one round */
  CHECK_MPI(MPI_Wait(&r, MPI_STATUS_IGNORE));
  CHECK_MPI(MPI_Wait(&s, MPI_STATUS_IGNORE));
  CHECK_MPI(MPI_Request_free(&s));
  CHECK_MPI(MPI_Request_free(&r));
  CHECK_MPI(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL));
}

/* Unequal partition counts: 64 ints sent as sp x (64 / sp), received as rp x (64 / rp), the
 * sender readying its partitions from the last to the first. */
static void unequal(int sp, int rp) {
  enum { N = 64 };
  int out[N] = {0}, in[N];
  MPI_Request s, r;
  CHECK_MPI(MPI_Psend_init(out, sp, N / sp, MPI_INT, next_, 9, MPI_COMM_WORLD, MPI_INFO_NULL, &s));
  CHECK_MPI(MPI_Precv_init(in, rp, N / rp, MPI_INT, prev_, 9, MPI_COMM_WORLD, MPI_INFO_NULL, &r));
  for (int round = 0; round < 2; ++round) {
    for (int i = 0; i < N; ++i) out[i] = val(rank_, round + sp, i), in[i] = -1;
    CHECK_MPI(MPI_Start(&r));
    CHECK_MPI(MPI_Start(&s));
    for (int k = sp - 1; k >= 0; --k) CHECK_MPI(MPI_Pready(k, s));
    for (int k = 0; k < rp; ++k) {
      int flag = 0;
      while (!flag) CHECK_MPI(MPI_Parrived(r, k, &flag));
      for (int i = k * (N / rp); i < (k + 1) * (N / rp); ++i)
        CHECK_MSG(in[i] == val(prev_, round + sp, i),
                  "%d send / %d receive partitions: partition %d arrived but element %d is %d", sp,
                  rp, k, i, in[i]);
    }
    CHECK_MPI(MPI_Wait(&s, MPI_STATUS_IGNORE));
    CHECK_MPI(MPI_Wait(&r, MPI_STATUS_IGNORE));
    for (int i = 0; i < N; ++i) CHECK_INT(in[i], ==, val(prev_, round + sp, i));
  }
  CHECK_MPI(MPI_Request_free(&s));
  CHECK_MPI(MPI_Request_free(&r));
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank_);
  MPI_Comm_size(MPI_COMM_WORLD, &size_);
  next_ = (rank_ + 1) % size_;
  prev_ = (rank_ + size_ - 1) % size_;
  rounds();
  early();
  two_channels();
  typed_and_null();
  across_inter();
  unequal(16, 32);
  unequal(16, 4);
  unequal(4, 16);
  unequal(1, 64);
  errors();
  jobs_done("job_partitioned");
  MPI_Finalize();
  return 0;
}
