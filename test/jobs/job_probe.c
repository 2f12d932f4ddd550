/* Probe before receive: Probe/Iprobe report source, tag and size (Get_count) without consuming
 * the message; Mprobe/Improbe remove it from matching so only Mrecv/Imrecv can take it.
 * Every rank sends to rank+1 and probes for messages from rank-1. */
#include "jobs_util.h"

static const long kSizes[] = {0, 1, 4096, 4097, 65536, 1L << 20, 3, 8L << 20, 12345, 8193};
enum { kCount = sizeof kSizes / sizeof kSizes[0] };

static int rank_, size_, next_, prev_;
static unsigned char *sbuf_[kCount];
static MPI_Request sreq_[kCount];

static uint64_t seed_of(int src, int round, int k) { return (uint64_t)src * 1000 + round * 50 + k; }

/* Message k goes out with tag first_tag + k * tag_step (tag_step 0: all on one tag). */
static void send_all(int round, int first_tag, int tag_step) {
  for (int k = 0; k < kCount; ++k) {
    jobs_fill(sbuf_[k], (size_t)kSizes[k], seed_of(rank_, round, k));
    int tag = first_tag + k * tag_step;
    CHECK_MPI(MPI_Isend(sbuf_[k], (int)kSizes[k], MPI_BYTE, next_, tag, MPI_COMM_WORLD, &sreq_[k]));
  }
}

static int probed_count(const MPI_Status *st) {
  int count = -1;
  CHECK_MPI(MPI_Get_count(st, MPI_BYTE, &count));
  return count;
}

static void check_msg(const void *buf, int count, int round, int k) {
  char what[64];
  snprintf(what, sizeof what, "round %d message %d from rank %d", round, k, prev_);
  CHECK_MSG(count == kSizes[k], "%s: %d bytes, expected %ld", what, count, kSizes[k]);
  CHECK_PATTERN(buf, count, seed_of(prev_, round, k), what);
}

int main(int argc, char **argv) {
  CHECK_MPI(MPI_Init(&argc, &argv));
  CHECK_MPI(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
  MPI_Comm_rank(MPI_COMM_WORLD, &rank_);
  MPI_Comm_size(MPI_COMM_WORLD, &size_);
  next_ = (rank_ + 1) % size_;
  prev_ = (rank_ + size_ - 1) % size_;
  for (int k = 0; k < kCount; ++k) sbuf_[k] = jobs_malloc((size_t)kSizes[k]);
  MPI_Status st, st2;
  int flag = 0;

  /* PROC_NULL probes return at once with the documented empty status. */
  CHECK_MPI(MPI_Probe(MPI_PROC_NULL, 0, MPI_COMM_WORLD, &st));
  CHECK_INT(st.MPI_SOURCE, ==, MPI_PROC_NULL);
  CHECK_INT(st.MPI_TAG, ==, MPI_ANY_TAG);
  CHECK_INT(probed_count(&st), ==, 0);

  /* Round 0: Probe by tag (twice: probing must not consume), then receive the probed size. */
  send_all(0, 10, 1);
  for (int k = kCount - 1; k >= 0; --k) {
    CHECK_MPI(MPI_Probe(prev_, 10 + k, MPI_COMM_WORLD, &st));
    CHECK_MPI(MPI_Probe(MPI_ANY_SOURCE, 10 + k, MPI_COMM_WORLD, &st2));
    CHECK_INT(st.MPI_SOURCE, ==, prev_);
    CHECK_INT(st.MPI_TAG, ==, 10 + k);
    CHECK_INT(st2.MPI_SOURCE, ==, prev_);
    int count = probed_count(&st);
    CHECK_INT(probed_count(&st2), ==, count);
    unsigned char *buf = jobs_malloc((size_t)count);
    CHECK_MPI(MPI_Recv(buf, count, MPI_BYTE, st.MPI_SOURCE, st.MPI_TAG, MPI_COMM_WORLD, &st2));
    CHECK_INT(probed_count(&st2), ==, count);
    check_msg(buf, count, 0, k);
    free(buf);
  }
  CHECK_MPI(MPI_Waitall(kCount, sreq_, MPI_STATUSES_IGNORE));

  /* Nothing was sent with this tag, so Iprobe must say so (after a barrier, not by timing). */
  CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
  CHECK_MPI(MPI_Iprobe(MPI_ANY_SOURCE, 999, MPI_COMM_WORLD, &flag, &st));
  CHECK_MSG(!flag, "Iprobe found a message with tag 999 that nobody sent");

  /* Round 1: Iprobe with both wildcards, polled; one tag, so sizes come in send order. */
  send_all(1, 20, 0);
  for (int k = 0; k < kCount; ++k) {
    flag = 0;
    while (!flag) CHECK_MPI(MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &flag, &st));
    CHECK_INT(st.MPI_SOURCE, ==, prev_);
    CHECK_INT(st.MPI_TAG, ==, 20);
    int count = probed_count(&st);
    unsigned char *buf = jobs_malloc((size_t)count);
    CHECK_MPI(MPI_Recv(buf, count, MPI_BYTE, st.MPI_SOURCE, st.MPI_TAG, MPI_COMM_WORLD, &st2));
    check_msg(buf, count, 1, k);
    free(buf);
  }
  CHECK_MPI(MPI_Waitall(kCount, sreq_, MPI_STATUSES_IGNORE));

  /* Round 2: Mprobe takes messages out of matching: a second Mprobe with the same signature must
   * see the next message, and receiving the second before the first keeps both intact. */
  send_all(2, 30, 0);
  for (int k = 0; k < kCount; k += 2) {
    MPI_Message m0 = MPI_MESSAGE_NULL, m1 = MPI_MESSAGE_NULL;
    CHECK_MPI(MPI_Mprobe(MPI_ANY_SOURCE, 30, MPI_COMM_WORLD, &m0, &st));
    int c0 = probed_count(&st), c1 = -1;
    CHECK_INT(st.MPI_SOURCE, ==, prev_);
    CHECK_MSG(c0 == kSizes[k], "Mprobe %d: probed %d bytes, expected %ld", k, c0, kSizes[k]);
    unsigned char *b0 = jobs_malloc((size_t)c0), *b1 = NULL;
    if (k + 1 < kCount) {
      CHECK_MPI(MPI_Mprobe(prev_, 30, MPI_COMM_WORLD, &m1, &st2));
      c1 = probed_count(&st2);
      CHECK_MSG(c1 == kSizes[k + 1], "second Mprobe saw %d bytes, expected message %d (%ld bytes): "
                "a matched probe did not remove the message", c1, k + 1, kSizes[k + 1]);
      b1 = jobs_malloc((size_t)c1);
      CHECK_MPI(MPI_Mrecv(b1, c1, MPI_BYTE, &m1, &st2));
      CHECK(m1 == MPI_MESSAGE_NULL);
      CHECK_INT(probed_count(&st2), ==, c1);
      check_msg(b1, c1, 2, k + 1);
    }
    CHECK_MPI(MPI_Mrecv(b0, c0, MPI_BYTE, &m0, &st));
    CHECK(m0 == MPI_MESSAGE_NULL);
    CHECK_INT(st.MPI_TAG, ==, 30);
    check_msg(b0, c0, 2, k);
    free(b0);
    free(b1);
  }
  CHECK_MPI(MPI_Waitall(kCount, sreq_, MPI_STATUSES_IGNORE));

  /* Round 3: Improbe polled, then Imrecv completed by Wait. */
  send_all(3, 40, 0);
  for (int k = 0; k < kCount; ++k) {
    MPI_Message m = MPI_MESSAGE_NULL;
    flag = 0;
    while (!flag) CHECK_MPI(MPI_Improbe(prev_, MPI_ANY_TAG, MPI_COMM_WORLD, &flag, &m, &st));
    int count = probed_count(&st);
    unsigned char *buf = jobs_malloc((size_t)count);
    MPI_Request req;
    CHECK_MPI(MPI_Imrecv(buf, count, MPI_BYTE, &m, &req));
    CHECK(m == MPI_MESSAGE_NULL);
    CHECK_MPI(MPI_Wait(&req, &st));
    CHECK_INT(st.MPI_SOURCE, ==, prev_);
    CHECK_INT(st.MPI_TAG, ==, 40);
    check_msg(buf, count, 3, k);
    free(buf);
  }
  CHECK_MPI(MPI_Waitall(kCount, sreq_, MPI_STATUSES_IGNORE));

  for (int k = 0; k < kCount; ++k) free(sbuf_[k]);
  jobs_done("job_probe");
  CHECK_MPI(MPI_Finalize());
  return 0;
}
