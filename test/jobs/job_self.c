/* Messages from a rank to itself, small and large (16 MiB): Isend/Irecv in both orders, a blocking
 * Send after the receive is posted, Issend, Sendrecv with self and Sendrecv_replace with self.
 * Every rank does this at the same time, so self traffic also mixes with other ranks' progress. */
#include "jobs_util.h"

static const long kSizes[] = {0, 1, 100, 4096, 4097, 65536, 65537, 1L << 20, 16L << 20};
enum { kCount = sizeof kSizes / sizeof kSizes[0] };

static int rank_;

static void expect(const MPI_Status *st, const void *buf, long bytes, uint64_t seed, int tag,
                   const char *what) {
  int count = -1;
  CHECK_MPI(MPI_Get_count(st, MPI_BYTE, &count));
  CHECK_MSG(count == bytes, "%s: %d bytes, expected %ld", what, count, bytes);
  CHECK_MSG(st->MPI_SOURCE == rank_ && st->MPI_TAG == tag, "%s: status source %d tag %d, "
            "expected %d and %d", what, st->MPI_SOURCE, st->MPI_TAG, rank_, tag);
  CHECK_PATTERN(buf, bytes, seed, what);
}

int main(int argc, char **argv) {
  CHECK_MPI(MPI_Init(&argc, &argv));
  CHECK_MPI(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
  MPI_Comm_rank(MPI_COMM_WORLD, &rank_);
  for (int k = 0; k < kCount; ++k) {
    long n = kSizes[k];
    unsigned char *s = jobs_malloc((size_t)n), *r = jobs_malloc((size_t)n);
    MPI_Request sreq, rreq;
    MPI_Status st;
    char what[80];

    /* Send first: the message is unexpected when the receive comes. */
    jobs_fill(s, (size_t)n, 10 * k + 1);
    CHECK_MPI(MPI_Isend(s, (int)n, MPI_BYTE, rank_, 1, MPI_COMM_WORLD, &sreq));
    CHECK_MPI(MPI_Irecv(r, (int)n, MPI_BYTE, rank_, 1, MPI_COMM_WORLD, &rreq));
    CHECK_MPI(MPI_Wait(&rreq, &st));
    CHECK_MPI(MPI_Wait(&sreq, MPI_STATUS_IGNORE));
    snprintf(what, sizeof what, "Isend then Irecv to self, %ld bytes", n);
    expect(&st, r, n, 10 * k + 1, 1, what);

    /* Receive first, completed in the opposite order (send's Wait first), by ANY_SOURCE. */
    jobs_fill(s, (size_t)n, 10 * k + 2);
    CHECK_MPI(MPI_Irecv(r, (int)n, MPI_BYTE, MPI_ANY_SOURCE, 2, MPI_COMM_WORLD, &rreq));
    CHECK_MPI(MPI_Isend(s, (int)n, MPI_BYTE, rank_, 2, MPI_COMM_WORLD, &sreq));
    CHECK_MPI(MPI_Wait(&sreq, MPI_STATUS_IGNORE));
    CHECK_MPI(MPI_Wait(&rreq, &st));
    snprintf(what, sizeof what, "Irecv(ANY_SOURCE) then Isend to self, %ld bytes", n);
    expect(&st, r, n, 10 * k + 2, 2, what);

    /* A blocking standard send to self is safe once its receive is posted. */
    jobs_fill(s, (size_t)n, 10 * k + 3);
    CHECK_MPI(MPI_Irecv(r, (int)n, MPI_BYTE, rank_, 3, MPI_COMM_WORLD, &rreq));
    CHECK_MPI(MPI_Send(s, (int)n, MPI_BYTE, rank_, 3, MPI_COMM_WORLD));
    CHECK_MPI(MPI_Wait(&rreq, &st));
    snprintf(what, sizeof what, "Irecv then Send to self, %ld bytes", n);
    expect(&st, r, n, 10 * k + 3, 3, what);

    /* Synchronous send to self: completes once the receive below matches it. */
    jobs_fill(s, (size_t)n, 10 * k + 4);
    CHECK_MPI(MPI_Issend(s, (int)n, MPI_BYTE, rank_, 4, MPI_COMM_WORLD, &sreq));
    CHECK_MPI(MPI_Recv(r, (int)n, MPI_BYTE, rank_, 4, MPI_COMM_WORLD, &st));
    CHECK_MPI(MPI_Wait(&sreq, MPI_STATUS_IGNORE));
    snprintf(what, sizeof what, "Issend then Recv to self, %ld bytes", n);
    expect(&st, r, n, 10 * k + 4, 4, what);

    jobs_fill(s, (size_t)n, 10 * k + 5);
    CHECK_MPI(MPI_Sendrecv(s, (int)n, MPI_BYTE, rank_, 5, r, (int)n, MPI_BYTE, rank_, 5,
                           MPI_COMM_WORLD, &st));
    snprintf(what, sizeof what, "Sendrecv with self, %ld bytes", n);
    expect(&st, r, n, 10 * k + 5, 5, what);

    jobs_fill(r, (size_t)n, 10 * k + 6);
    CHECK_MPI(MPI_Sendrecv_replace(r, (int)n, MPI_BYTE, rank_, 6, rank_, 6, MPI_COMM_WORLD, &st));
    snprintf(what, sizeof what, "Sendrecv_replace with self, %ld bytes", n);
    expect(&st, r, n, 10 * k + 6, 6, what);
    free(s);
    free(r);
  }
  jobs_done("job_self");
  CHECK_MPI(MPI_Finalize());
  return 0;
}
