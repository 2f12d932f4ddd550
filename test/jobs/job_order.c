/* Non-overtaking order on one (source, tag) pair while sizes jump back and forth across the
 * eager/rendezvous boundary, 0 B .. 64 MiB. Every rank sends to rank+1 and receives from
 * rank-1 (a single rank talks to itself). Usage: job_order [max_bytes] (default 64 MiB). */
#include "jobs_util.h"

/* Small messages sent right after big ones are the interesting case: a rendezvous message still
 * waiting for its get must not let a later eager message match first. */
static const long kSizes[] = {
    0,       64L << 20, 1,     4096,       4097,  8191,  8192,   8193,    1L << 20, 3,
    16384,   32768,     32769, 16L << 20,  0,     131072, 7,     4L << 20, 64,      65537,
    12000,   (2L << 20) + 5,   100,        4095,  65536, 1,     33L << 20, 2};
enum { kCount = sizeof kSizes / sizeof kSizes[0] };

static long sizes[kCount];

static uint64_t seed_of(int src, int phase, int k) { return (uint64_t)src * 100000 + phase * 1000 + k; }

static void check_recv(const MPI_Status *st, const void *buf, int src, int phase, int k) {
  int count = -1;
  CHECK_MPI(MPI_Get_count(st, MPI_BYTE, &count));
  CHECK_MSG(count == sizes[k], "phase %d message %d from rank %d: got %d bytes, expected %ld "
            "(a message overtook another)", phase, k, src, count, sizes[k]);
  CHECK_INT(st->MPI_SOURCE, ==, src);
  char what[96];
  snprintf(what, sizeof what, "phase %d message %d from rank %d", phase, k, src);
  CHECK_PATTERN(buf, sizes[k], seed_of(src, phase, k), what);
}

int main(int argc, char **argv) {
  CHECK_MPI(MPI_Init(&argc, &argv));
  CHECK_MPI(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  long max = argc > 1 ? atol(argv[1]) : 64L << 20;
  long largest = 0;
  for (int k = 0; k < kCount; ++k) {
    sizes[k] = kSizes[k] > max ? max : kSizes[k];
    if (sizes[k] > largest) largest = sizes[k];
  }
  int next = (rank + 1) % size, prev = (rank + size - 1) % size;
  unsigned char *sbuf[kCount], *rbuf[kCount];
  for (int k = 0; k < kCount; ++k) {
    sbuf[k] = jobs_malloc((size_t)sizes[k]);
    rbuf[k] = jobs_malloc((size_t)sizes[k]);
  }
  unsigned char *big = jobs_malloc((size_t)largest);
  MPI_Request sreq[kCount], rreq[kCount];
  MPI_Status st;

  /* Phase 0: all sends nonblocking, receives blocking into one buffer of the largest size, so
   * the receive matches whatever arrives next and the size tells the order. */
  for (int k = 0; k < kCount; ++k) jobs_fill(sbuf[k], (size_t)sizes[k], seed_of(rank, 0, k));
  for (int k = 0; k < kCount; ++k)
    CHECK_MPI(MPI_Isend(sbuf[k], (int)sizes[k], MPI_BYTE, next, 5, MPI_COMM_WORLD, &sreq[k]));
  for (int k = 0; k < kCount; ++k) {
    CHECK_MPI(MPI_Recv(big, (int)largest, MPI_BYTE, prev, 5, MPI_COMM_WORLD, &st));
    check_recv(&st, big, prev, 0, k);
  }
  CHECK_MPI(MPI_Waitall(kCount, sreq, MPI_STATUSES_IGNORE));

  /* Phase 1: receives of the exact sizes posted first, then blocking sends in order. */
  for (int k = 0; k < kCount; ++k) jobs_fill(sbuf[k], (size_t)sizes[k], seed_of(rank, 1, k));
  for (int k = 0; k < kCount; ++k)
    CHECK_MPI(MPI_Irecv(rbuf[k], (int)sizes[k], MPI_BYTE, prev, 6, MPI_COMM_WORLD, &rreq[k]));
  /* Safe even on one rank: every receive is posted before the first blocking send. */
  for (int k = 0; k < kCount; ++k)
    CHECK_MPI(MPI_Send(sbuf[k], (int)sizes[k], MPI_BYTE, next, 6, MPI_COMM_WORLD));
  for (int k = 0; k < kCount; ++k) {
    CHECK_MPI(MPI_Wait(&rreq[k], &st));
    check_recv(&st, rbuf[k], prev, 1, k);
  }

  /* Phase 2: half the receives posted before the sends and half after, so some messages match
   * posted receives and others wait in the unexpected queue; all nonblocking. */
  for (int k = 0; k < kCount; ++k) jobs_fill(sbuf[k], (size_t)sizes[k], seed_of(rank, 2, k));
  for (int k = 0; k < kCount / 2; ++k)
    CHECK_MPI(MPI_Irecv(rbuf[k], (int)sizes[k], MPI_BYTE, prev, 7, MPI_COMM_WORLD, &rreq[k]));
  CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
  for (int k = 0; k < kCount; ++k)
    CHECK_MPI(MPI_Isend(sbuf[k], (int)sizes[k], MPI_BYTE, next, 7, MPI_COMM_WORLD, &sreq[k]));
  for (int k = kCount / 2; k < kCount; ++k)
    CHECK_MPI(MPI_Irecv(rbuf[k], (int)sizes[k], MPI_BYTE, prev, 7, MPI_COMM_WORLD, &rreq[k]));
  for (int k = 0; k < kCount; ++k) {
    CHECK_MPI(MPI_Wait(&rreq[k], &st));
    check_recv(&st, rbuf[k], prev, 2, k);
  }
  CHECK_MPI(MPI_Waitall(kCount, sreq, MPI_STATUSES_IGNORE));

  for (int k = 0; k < kCount; ++k) {
    free(sbuf[k]);
    free(rbuf[k]);
  }
  free(big);
  jobs_done("job_order");
  CHECK_MPI(MPI_Finalize());
  return 0;
}
