/* Receives posted in a different order than the sends, told apart by tag: each receive must get
 * the message with its tag whatever the order, while MPI_ANY_TAG receives still see one
 * source's messages in send order. Every rank sends to rank+1 and receives from rank-1. */
#include "jobs_util.h"

enum { kTags = 41 }; /* prime, so k * 17 % kTags is a permutation */
static const long kSizes[] = {0, 64, 4096, 4097, 20000, 1, 2L << 20, 8192, 8193, 100000, 33};
enum { kNumSizes = sizeof kSizes / sizeof kSizes[0] };

static long size_of(int tag) { return kSizes[tag % kNumSizes]; }
static uint64_t seed_of(int src, int round, int tag) { return (uint64_t)src * 7919 + round * 101 + tag; }

static int rank_, size_, next_, prev_;
static unsigned char *sbuf_[kTags], *rbuf_[kTags];
static MPI_Request sreq_[kTags];

static void send_all(int round) {
  for (int tag = 0; tag < kTags; ++tag) {
    jobs_fill(sbuf_[tag], (size_t)size_of(tag), seed_of(rank_, round, tag));
    CHECK_MPI(MPI_Isend(sbuf_[tag], (int)size_of(tag), MPI_BYTE, next_, tag, MPI_COMM_WORLD,
                        &sreq_[tag]));
  }
}

static void check_msg(const MPI_Status *st, const void *buf, int round, int tag) {
  char what[64];
  int count = -1;
  CHECK_MPI(MPI_Get_count(st, MPI_BYTE, &count));
  snprintf(what, sizeof what, "round %d tag %d from rank %d", round, tag, prev_);
  CHECK_MSG(st->MPI_TAG == tag && st->MPI_SOURCE == prev_, "%s: status says source %d tag %d",
            what, st->MPI_SOURCE, st->MPI_TAG);
  CHECK_MSG(count == size_of(tag), "%s: %d bytes, expected %ld", what, count, size_of(tag));
  CHECK_PATTERN(buf, count, seed_of(prev_, round, tag), what);
}

int main(int argc, char **argv) {
  CHECK_MPI(MPI_Init(&argc, &argv));
  CHECK_MPI(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
  MPI_Comm_rank(MPI_COMM_WORLD, &rank_);
  MPI_Comm_size(MPI_COMM_WORLD, &size_);
  next_ = (rank_ + 1) % size_;
  prev_ = (rank_ + size_ - 1) % size_;
  long max = 0;
  for (int tag = 0; tag < kTags; ++tag) {
    sbuf_[tag] = jobs_malloc((size_t)size_of(tag));
    rbuf_[tag] = jobs_malloc((size_t)size_of(tag));
    if (size_of(tag) > max) max = size_of(tag);
  }
  unsigned char *big = jobs_malloc((size_t)max);
  MPI_Status st;
  MPI_Request rreq[kTags];

  /* Round 0: blocking receives in reverse tag order; every earlier message waits unexpected. */
  send_all(0);
  for (int tag = kTags - 1; tag >= 0; --tag) {
    CHECK_MPI(MPI_Recv(rbuf_[tag], (int)size_of(tag), MPI_BYTE, prev_, tag, MPI_COMM_WORLD, &st));
    check_msg(&st, rbuf_[tag], 0, tag);
  }
  CHECK_MPI(MPI_Waitall(kTags, sreq_, MPI_STATUSES_IGNORE));

  /* Round 1: nonblocking receives posted in a scrambled tag order, before the sends. */
  for (int k = 0; k < kTags; ++k) {
    int tag = k * 17 % kTags;
    CHECK_MPI(MPI_Irecv(rbuf_[tag], (int)size_of(tag), MPI_BYTE, prev_, tag, MPI_COMM_WORLD,
                        &rreq[k]));
  }
  CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
  send_all(1);
  for (int k = kTags - 1; k >= 0; --k) {
    int tag = k * 17 % kTags;
    CHECK_MPI(MPI_Wait(&rreq[k], &st));
    check_msg(&st, rbuf_[tag], 1, tag);
  }
  CHECK_MPI(MPI_Waitall(kTags, sreq_, MPI_STATUSES_IGNORE));

  /* Round 2: MPI_ANY_TAG: one source's messages must come in send order. */
  send_all(2);
  for (int tag = 0; tag < kTags; ++tag) {
    CHECK_MPI(MPI_Recv(big, (int)max, MPI_BYTE, prev_, MPI_ANY_TAG, MPI_COMM_WORLD, &st));
    CHECK_MSG(st.MPI_TAG == tag, "round 2: MPI_ANY_TAG receive %d got tag %d (send order broken)",
              tag, st.MPI_TAG);
    check_msg(&st, big, 2, tag);
  }
  CHECK_MPI(MPI_Waitall(kTags, sreq_, MPI_STATUSES_IGNORE));

  /* Round 3: specific receives for the odd tags are posted first; wildcard receives then take
   * the even tags, in order, and never one of the odd ones. */
  for (int tag = 1; tag < kTags; tag += 2)
    CHECK_MPI(MPI_Irecv(rbuf_[tag], (int)size_of(tag), MPI_BYTE, prev_, tag, MPI_COMM_WORLD,
                        &rreq[tag]));
  CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
  send_all(3);
  for (int tag = 0; tag < kTags; tag += 2) {
    CHECK_MPI(MPI_Recv(big, (int)max, MPI_BYTE, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &st));
    CHECK_MSG(st.MPI_TAG == tag, "round 3: wildcard receive expected tag %d, got tag %d", tag,
              st.MPI_TAG);
    check_msg(&st, big, 3, tag);
  }
  for (int tag = 1; tag < kTags; tag += 2) {
    CHECK_MPI(MPI_Wait(&rreq[tag], &st));
    check_msg(&st, rbuf_[tag], 3, tag);
  }
  CHECK_MPI(MPI_Waitall(kTags, sreq_, MPI_STATUSES_IGNORE));

  for (int tag = 0; tag < kTags; ++tag) {
    free(sbuf_[tag]);
    free(rbuf_[tag]);
  }
  free(big);
  jobs_done("job_tag_order");
  CHECK_MPI(MPI_Finalize());
  return 0;
}
