/* MPI 4.1 buffers for buffered sends, ring rank r -> r+1:
 * - a communicator's own buffer (MPI_Comm_attach_buffer) carries its Bsends while the process
 *   has none (a Bsend on MPI_COMM_WORLD then fails with MPI_ERR_BUFFER);
 * - MPI_BUFFER_AUTOMATIC as the process's buffer: 200 Bsends with no sizing at all, then
 *   MPI_Buffer_flush, and detach gives MPI_BUFFER_AUTOMATIC back;
 * - MPI_Comm_iflush_buffer completes only once the receiver took a rendezvous-sized message;
 * - a session's buffer used by a communicator made from its process set;
 * - attaching twice and detaching nothing fail with MPI_ERR_BUFFER. */
#include <string.h>

#include "jobs_util.h"

static int rank_, size_, next_, prev_;

static void comm_buffer(void) {
  MPI_Comm c;
  CHECK_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &c));
  int one = 0, x = rank_, y = -1;
  CHECK_MPI(MPI_Pack_size(1, MPI_INT, c, &one));
  const int size = 4 * (one + MPI_BSEND_OVERHEAD);
  char *buf = jobs_malloc((size_t)size);
  CHECK_MPI(MPI_Comm_attach_buffer(c, buf, size));
  CHECK_ERR_CLASS(MPI_Comm_attach_buffer(c, buf, size), MPI_ERR_BUFFER);
  CHECK_MPI(MPI_Bsend(&x, 1, MPI_INT, next_, 1, c));
  /* The process has no buffer: world's Bsend has nowhere to go. */
  CHECK_ERR_CLASS(MPI_Bsend(&x, 1, MPI_INT, next_, 1, MPI_COMM_WORLD), MPI_ERR_BUFFER);
  CHECK_MPI(MPI_Recv(&y, 1, MPI_INT, prev_, 1, c, MPI_STATUS_IGNORE));
  CHECK_INT(y, ==, prev_);
  CHECK_MPI(MPI_Comm_flush_buffer(c));
  void *got = NULL;
  int got_size = -1;
  CHECK_MPI(MPI_Comm_detach_buffer(c, &got, &got_size));
  CHECK(got == buf);
  CHECK_INT(got_size, ==, size);
  CHECK_ERR_CLASS(MPI_Comm_detach_buffer(c, &got, &got_size), MPI_ERR_BUFFER);
  free(buf);
  CHECK_MPI(MPI_Comm_free(&c));
}

static void automatic(void) {
  enum { N = 200, L = 256 };
  CHECK_MPI(MPI_Buffer_attach(MPI_BUFFER_AUTOMATIC, 0));
  int msg[L], in[L];
  for (int m = 0; m < N; ++m) {
    for (int i = 0; i < L; ++i) msg[i] = rank_ * 1000000 + m * 1000 + i;
    CHECK_MPI(MPI_Bsend(msg, L, MPI_INT, next_, 2, MPI_COMM_WORLD));
  }
  for (int m = 0; m < N; ++m) {
    CHECK_MPI(MPI_Recv(in, L, MPI_INT, prev_, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    CHECK_INT(in[L - 1], ==, prev_ * 1000000 + m * 1000 + L - 1);
  }
  CHECK_MPI(MPI_Buffer_flush());
  void *got = NULL;
  int got_size = -1;
  CHECK_MPI(MPI_Buffer_detach(&got, &got_size));
  CHECK(got == MPI_BUFFER_AUTOMATIC);
}

/* A large buffered message is flushed only once its receiver matched it. */
static void iflush(void) {
  if (size_ < 2) return;
  enum { N = 1 << 20 };
  MPI_Comm c;
  CHECK_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &c));
  CHECK_MPI(MPI_Comm_attach_buffer(c, MPI_BUFFER_AUTOMATIC, 0));
  char *big = jobs_malloc(N), *in = jobs_malloc(N);
  jobs_fill(big, N, (uint64_t)rank_);
  CHECK_MPI(MPI_Bsend(big, N, MPI_BYTE, next_, 3, c));
  memset(big, 0, N); /* buffered: the copy travels */
  MPI_Request fq;
  CHECK_MPI(MPI_Comm_iflush_buffer(c, &fq));
  int flag = 1;
  CHECK_MPI(MPI_Test(&fq, &flag, MPI_STATUS_IGNORE));
  /* next_ has not posted its receive: it waits for our token. */
  CHECK_INT(flag, ==, 0);
  int token = 0;
  CHECK_MPI(MPI_Sendrecv(&token, 1, MPI_INT, prev_, 4, &token, 1, MPI_INT, next_, 4, c,
                         MPI_STATUS_IGNORE));
  CHECK_MPI(MPI_Recv(in, N, MPI_BYTE, prev_, 3, c, MPI_STATUS_IGNORE));
  CHECK_PATTERN(in, N, (uint64_t)prev_, "buffered 1 MiB message");
  CHECK_MPI(MPI_Wait(&fq, MPI_STATUS_IGNORE));
  void *got;
  MPI_Count n;
  CHECK_MPI(MPI_Comm_detach_buffer_c(c, &got, &n));
  CHECK(got == MPI_BUFFER_AUTOMATIC);
  free(big);
  free(in);
  CHECK_MPI(MPI_Comm_free(&c));
}

static void session_buffer(void) {
  MPI_Session s;
  MPI_Group g;
  MPI_Comm c;
  CHECK_MPI(MPI_Session_init(MPI_INFO_NULL, MPI_ERRORS_RETURN, &s));
  CHECK_MPI(MPI_Group_from_session_pset(s, "mpi://WORLD", &g));
  CHECK_MPI(MPI_Comm_create_from_group(g, "org.mpr.test.bsend", MPI_INFO_NULL, MPI_ERRORS_RETURN,
                                       &c));
  CHECK_MPI(MPI_Group_free(&g));
  int one = 0, x = rank_ + 7, y = -1;
  CHECK_MPI(MPI_Pack_size(1, MPI_INT, c, &one));
  const int size = 2 * (one + MPI_BSEND_OVERHEAD);
  char *buf = jobs_malloc((size_t)size);
  CHECK_ERR_CLASS(MPI_Bsend(&x, 1, MPI_INT, next_, 5, c), MPI_ERR_BUFFER);
  CHECK_MPI(MPI_Session_attach_buffer(s, buf, size));
  CHECK_MPI(MPI_Bsend(&x, 1, MPI_INT, next_, 5, c));
  CHECK_MPI(MPI_Recv(&y, 1, MPI_INT, prev_, 5, c, MPI_STATUS_IGNORE));
  CHECK_INT(y, ==, prev_ + 7);
  MPI_Request fq;
  CHECK_MPI(MPI_Session_iflush_buffer(s, &fq));
  CHECK_MPI(MPI_Wait(&fq, MPI_STATUS_IGNORE));
  void *got = NULL;
  int got_size = 0;
  CHECK_MPI(MPI_Session_detach_buffer(s, &got, &got_size));
  CHECK(got == buf);
  CHECK_INT(got_size, ==, size);
  free(buf);
  CHECK_MPI(MPI_Comm_free(&c));
  CHECK_MPI(MPI_Session_finalize(&s));
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank_);
  MPI_Comm_size(MPI_COMM_WORLD, &size_);
  next_ = (rank_ + 1) % size_;
  prev_ = (rank_ + size_ - 1) % size_;
  CHECK_MPI(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
  CHECK_MPI(MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN));
  comm_buffer();
  automatic();
  iflush();
  session_buffer();
  CHECK_MPI(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL));
  jobs_done("job_bsend_buffers");
  MPI_Finalize();
  return 0;
}
