/* Point-to-point odds and ends: cancelling a posted receive, MPI_PROC_NULL peers, Sendrecv and
 * Sendrecv_replace around a ring, Get_count/Get_elements, ready/buffered/freed sends, and a
 * duplicated communicator that never matches traffic of its parent. Ring: rank -> rank+1. */
#include "jobs_util.h"

static int rank_, size_, next_, prev_;

static void check_cancel(void) {
  int value = -1, flag = 0;
  MPI_Request req;
  MPI_Status st;
  /* Nothing is ever sent with tag 777 before the cancel, so the receive must be cancellable. */
  CHECK_MPI(MPI_Irecv(&value, 1, MPI_INT, prev_, 777, MPI_COMM_WORLD, &req));
  CHECK_MPI(MPI_Cancel(&req));
  CHECK_MPI(MPI_Wait(&req, &st));
  CHECK(req == MPI_REQUEST_NULL);
  CHECK_MPI(MPI_Test_cancelled(&st, &flag));
  CHECK_MSG(flag, "a posted receive nobody could match was not cancelled");
  CHECK_MPI(MPI_Irecv(&value, 1, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &req));
  CHECK_MPI(MPI_Cancel(&req));
  CHECK_MPI(MPI_Wait(&req, &st));
  CHECK_MPI(MPI_Test_cancelled(&st, &flag));
  CHECK_MSG(flag, "a posted wildcard receive was not cancelled");
  /* The cancelled receives must not swallow the next message with that tag. */
  CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
  int payload = 1000 + rank_;
  CHECK_MPI(MPI_Isend(&payload, 1, MPI_INT, next_, 777, MPI_COMM_WORLD, &req));
  CHECK_MPI(MPI_Recv(&value, 1, MPI_INT, prev_, 777, MPI_COMM_WORLD, &st));
  CHECK_INT(value, ==, 1000 + prev_);
  CHECK_MPI(MPI_Wait(&req, &st));
  CHECK_MPI(MPI_Test_cancelled(&st, &flag));
  CHECK_MSG(!flag, "a completed send reports being cancelled");
}

static void check_proc_null(void) {
  int value = 5, count = -1;
  MPI_Status st;
  MPI_Request reqs[2];
  CHECK_MPI(MPI_Send(&value, 1, MPI_INT, MPI_PROC_NULL, 0, MPI_COMM_WORLD));
  CHECK_MPI(MPI_Recv(&value, 1, MPI_INT, MPI_PROC_NULL, 0, MPI_COMM_WORLD, &st));
  CHECK_INT(value, ==, 5);
  CHECK_INT(st.MPI_SOURCE, ==, MPI_PROC_NULL);
  CHECK_INT(st.MPI_TAG, ==, MPI_ANY_TAG);
  CHECK_MPI(MPI_Get_count(&st, MPI_INT, &count));
  CHECK_INT(count, ==, 0);
  CHECK_MPI(MPI_Isend(&value, 1, MPI_INT, MPI_PROC_NULL, 0, MPI_COMM_WORLD, &reqs[0]));
  CHECK_MPI(MPI_Irecv(&value, 1, MPI_INT, MPI_PROC_NULL, 0, MPI_COMM_WORLD, &reqs[1]));
  CHECK_MPI(MPI_Waitall(2, reqs, MPI_STATUSES_IGNORE));
  CHECK_MPI(MPI_Sendrecv(&value, 1, MPI_INT, MPI_PROC_NULL, 0, &count, 1, MPI_INT, MPI_PROC_NULL,
                         0, MPI_COMM_WORLD, &st));
  CHECK_INT(st.MPI_SOURCE, ==, MPI_PROC_NULL);
  /* Waiting on a null request returns at once with an empty status. */
  MPI_Request null_req = MPI_REQUEST_NULL;
  int flag = 0;
  CHECK_MPI(MPI_Wait(&null_req, &st));
  CHECK_MPI(MPI_Test(&null_req, &flag, &st));
  CHECK(flag);
}

static void check_sendrecv_ring(void) {
  static const int kSizes[] = {0, 4, 5000, 70000, 1 << 20};
  for (int k = 0; k < 5; ++k) {
    int n = kSizes[k];
    unsigned char *a = jobs_malloc((size_t)n), *b = jobs_malloc((size_t)n);
    MPI_Status st;
    jobs_fill(a, (size_t)n, (uint64_t)rank_ * 10 + k);
    CHECK_MPI(MPI_Sendrecv(a, n, MPI_BYTE, next_, k, b, n, MPI_BYTE, prev_, k, MPI_COMM_WORLD, &st));
    CHECK_INT(st.MPI_SOURCE, ==, prev_);
    CHECK_PATTERN(b, n, (uint64_t)prev_ * 10 + k, "Sendrecv ring");
    CHECK_MPI(MPI_Sendrecv_replace(a, n, MPI_BYTE, next_, 50 + k, prev_, 50 + k, MPI_COMM_WORLD,
                                   &st));
    CHECK_INT(st.MPI_TAG, ==, 50 + k);
    CHECK_PATTERN(a, n, (uint64_t)prev_ * 10 + k, "Sendrecv_replace ring");
    free(a);
    free(b);
  }
}

static void check_counts(void) {
  int ints[5] = {1, 2, 3, 4, 5}, got[8];
  char bytes[10] = {0};
  MPI_Status st;
  MPI_Request req;
  int count = -1;
  CHECK_MPI(MPI_Isend(ints, 5, MPI_INT, next_, 60, MPI_COMM_WORLD, &req));
  CHECK_MPI(MPI_Recv(got, 8, MPI_INT, prev_, 60, MPI_COMM_WORLD, &st));
  CHECK_MPI(MPI_Wait(&req, MPI_STATUS_IGNORE));
  CHECK_MPI(MPI_Get_count(&st, MPI_INT, &count));
  CHECK_INT(count, ==, 5);
  CHECK_MPI(MPI_Get_elements(&st, MPI_INT, &count));
  CHECK_INT(count, ==, 5);
  CHECK_MPI(MPI_Get_count(&st, MPI_BYTE, &count));
  CHECK_INT(count, ==, 5 * (int)sizeof(int));
  CHECK_MPI(MPI_Get_elements(&st, MPI_SHORT, &count));
  CHECK_INT(count, ==, 5 * (int)(sizeof(int) / sizeof(short)));
  for (int i = 0; i < 5; ++i) CHECK_INT(got[i], ==, i + 1);
  /* 10 bytes are not a whole number of doubles. */
  CHECK_MPI(MPI_Isend(bytes, 10, MPI_BYTE, next_, 61, MPI_COMM_WORLD, &req));
  CHECK_MPI(MPI_Recv(got, (int)sizeof got, MPI_BYTE, prev_, 61, MPI_COMM_WORLD, &st));
  CHECK_MPI(MPI_Wait(&req, MPI_STATUS_IGNORE));
  CHECK_MPI(MPI_Get_count(&st, MPI_DOUBLE, &count));
  CHECK_INT(count, ==, MPI_UNDEFINED);
  CHECK_MPI(MPI_Get_count(&st, MPI_CHAR, &count));
  CHECK_INT(count, ==, 10);
  int tsize = 0;
  CHECK_MPI(MPI_Type_size(MPI_DOUBLE, &tsize));
  CHECK_INT(tsize, ==, (int)sizeof(double));
  CHECK_MPI(MPI_Type_size(MPI_INT, &tsize));
  CHECK_INT(tsize, ==, (int)sizeof(int));
}

static void check_send_modes(void) {
  MPI_Status st;
  MPI_Request req;
  /* Ready send: the receive is posted before the barrier, the Rsend after it. */
  int value = -1, payload = 2000 + rank_;
  CHECK_MPI(MPI_Irecv(&value, 1, MPI_INT, prev_, 70, MPI_COMM_WORLD, &req));
  CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
  CHECK_MPI(MPI_Rsend(&payload, 1, MPI_INT, next_, 70, MPI_COMM_WORLD));
  CHECK_MPI(MPI_Wait(&req, &st));
  CHECK_INT(value, ==, 2000 + prev_);
  CHECK_MPI(MPI_Irecv(&value, 1, MPI_INT, prev_, 71, MPI_COMM_WORLD, &req));
  CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
  MPI_Request rs;
  CHECK_MPI(MPI_Irsend(&payload, 1, MPI_INT, next_, 71, MPI_COMM_WORLD, &rs));
  CHECK_MPI(MPI_Wait(&rs, MPI_STATUS_IGNORE));
  CHECK_MPI(MPI_Wait(&req, &st));
  CHECK_INT(value, ==, 2000 + prev_);

  /* Buffered sends return at once, before any receive is posted (the receiver waits for the
   * barrier); detach waits until the attached buffer has drained. */
  enum { kBig = 1 << 20 };
  int bufsize = 3 * MPI_BSEND_OVERHEAD + kBig + 2 * 100;
  void *attach = jobs_malloc((size_t)bufsize);
  unsigned char *big = jobs_malloc(kBig), *small = jobs_malloc(100), *rbig = jobs_malloc(kBig);
  jobs_fill(big, kBig, (uint64_t)rank_ + 500);
  jobs_fill(small, 100, (uint64_t)rank_ + 600);
  CHECK_MPI(MPI_Buffer_attach(attach, bufsize));
  CHECK_MPI(MPI_Bsend(small, 100, MPI_BYTE, next_, 72, MPI_COMM_WORLD));
  CHECK_MPI(MPI_Bsend(big, kBig, MPI_BYTE, next_, 72, MPI_COMM_WORLD));
  CHECK_MPI(MPI_Bsend(small, 50, MPI_BYTE, next_, 72, MPI_COMM_WORLD));
  /* The user buffers may be reused at once: the data were copied into the attached buffer. */
  memset(big, 0, kBig);
  memset(small, 0, 100);
  CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
  CHECK_MPI(MPI_Recv(rbig, 100, MPI_BYTE, prev_, 72, MPI_COMM_WORLD, &st));
  CHECK_PATTERN(rbig, 100, (uint64_t)prev_ + 600, "first Bsend");
  CHECK_MPI(MPI_Recv(rbig, kBig, MPI_BYTE, prev_, 72, MPI_COMM_WORLD, &st));
  CHECK_PATTERN(rbig, kBig, (uint64_t)prev_ + 500, "1 MiB Bsend");
  CHECK_MPI(MPI_Recv(rbig, 100, MPI_BYTE, prev_, 72, MPI_COMM_WORLD, &st));
  int count = -1;
  CHECK_MPI(MPI_Get_count(&st, MPI_BYTE, &count));
  CHECK_INT(count, ==, 50);
  CHECK_PATTERN(rbig, 50, (uint64_t)prev_ + 600, "third Bsend");
  void *detached = NULL;
  int detached_size = 0;
  CHECK_MPI(MPI_Buffer_detach(&detached, &detached_size));
  CHECK(detached == attach);
  CHECK_INT(detached_size, ==, bufsize);
  free(attach);

  /* A freed send request still delivers its message. */
  jobs_fill(big, 70000, (uint64_t)rank_ + 700);
  CHECK_MPI(MPI_Isend(big, 70000, MPI_BYTE, next_, 73, MPI_COMM_WORLD, &req));
  CHECK_MPI(MPI_Request_free(&req));
  CHECK(req == MPI_REQUEST_NULL);
  CHECK_MPI(MPI_Recv(rbig, 70000, MPI_BYTE, prev_, 73, MPI_COMM_WORLD, &st));
  CHECK_PATTERN(rbig, 70000, (uint64_t)prev_ + 700, "send whose request was freed");
  /* The sender's buffer is only free for reuse once the receiver has it: after this barrier. */
  CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
  free(big);
  free(small);
  free(rbig);
}

static void check_comm_dup(void) {
  MPI_Comm dup = MPI_COMM_NULL;
  CHECK_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &dup));
  int dsize = -1, drank = -1;
  CHECK_MPI(MPI_Comm_size(dup, &dsize));
  CHECK_MPI(MPI_Comm_rank(dup, &drank));
  CHECK_INT(dsize, ==, size_);
  CHECK_INT(drank, ==, rank_);
  MPI_Errhandler eh;
  CHECK_MPI(MPI_Comm_get_errhandler(dup, &eh));
  CHECK_MSG(eh == MPI_ERRORS_RETURN, "MPI_Comm_dup did not copy the error handler");
  /* Same source, same tag, different communicators: each receive gets its own message, even
   * though the world message was sent first and the dup receive is posted first. */
  int on_world = 3000 + rank_, on_dup = 4000 + rank_, got = -1;
  MPI_Request reqs[2];
  MPI_Status st;
  CHECK_MPI(MPI_Isend(&on_world, 1, MPI_INT, next_, 5, MPI_COMM_WORLD, &reqs[0]));
  CHECK_MPI(MPI_Isend(&on_dup, 1, MPI_INT, next_, 5, dup, &reqs[1]));
  CHECK_MPI(MPI_Recv(&got, 1, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, dup, &st));
  CHECK_MSG(got == 4000 + prev_, "receive on the duplicate got %d, expected %d (matched a "
            "message of the parent communicator?)", got, 4000 + prev_);
  CHECK_MPI(MPI_Recv(&got, 1, MPI_INT, prev_, 5, MPI_COMM_WORLD, &st));
  CHECK_INT(got, ==, 3000 + prev_);
  CHECK_MPI(MPI_Waitall(2, reqs, MPI_STATUSES_IGNORE));
  int sum = 0;
  CHECK_MPI(MPI_Allreduce(&rank_, &sum, 1, MPI_INT, MPI_SUM, dup));
  CHECK_INT(sum, ==, size_ * (size_ - 1) / 2);
  CHECK_MPI(MPI_Comm_free(&dup));
  CHECK(dup == MPI_COMM_NULL);
}

int main(int argc, char **argv) {
  CHECK_MPI(MPI_Init(&argc, &argv));
  CHECK_MPI(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
  MPI_Comm_rank(MPI_COMM_WORLD, &rank_);
  MPI_Comm_size(MPI_COMM_WORLD, &size_);
  next_ = (rank_ + 1) % size_;
  prev_ = (rank_ + size_ - 1) % size_;
  check_cancel();
  check_proc_null();
  check_sendrecv_ring();
  check_counts();
  check_send_modes();
  check_comm_dup();
  jobs_done("job_p2p_misc");
  CHECK_MPI(MPI_Finalize());
  return 0;
}
