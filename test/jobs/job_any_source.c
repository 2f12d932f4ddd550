/* MPI_ANY_SOURCE receives from several senders at once: each sender's messages must still arrive
 * in the order it sent them, across eager and rendezvous sizes. Every rank (the root included,
 * through itself) sends kPerSource messages to the root. */
#include "jobs_util.h"

enum { kPerSource = 150 };
static const long kSizes[] = {8, 100, 5000, 70000, 16, 300000, 4096, 4097, 1L << 20, 12};
enum { kNumSizes = sizeof kSizes / sizeof kSizes[0] };

static long size_of(int seq) { return kSizes[seq % kNumSizes]; }
static uint64_t seed_of(int src, int seq, int round) { return (uint64_t)round << 40 | (uint64_t)src << 20 | (uint64_t)seq; }

static void run_round(int root, int round, int use_any_tag) {
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  unsigned char *sbuf[kPerSource];
  MPI_Request req[kPerSource];
  /* Tags differ per message when the root uses MPI_ANY_TAG, so the status tag shows the order. */
  for (int seq = 0; seq < kPerSource; ++seq) {
    sbuf[seq] = jobs_malloc((size_t)size_of(seq));
    jobs_fill(sbuf[seq], (size_t)size_of(seq), seed_of(rank, seq, round));
    int tag = use_any_tag ? 100 + seq : 3;
    CHECK_MPI(MPI_Isend(sbuf[seq], (int)size_of(seq), MPI_BYTE, root, tag, MPI_COMM_WORLD, &req[seq]));
  }
  if (rank == root) {
    long max = 0;
    for (int i = 0; i < kNumSizes; ++i) max = kSizes[i] > max ? kSizes[i] : max;
    unsigned char *buf = jobs_malloc((size_t)max);
    int *next_seq = calloc((size_t)size, sizeof(int));
    CHECK(next_seq != NULL);
    for (int n = 0; n < kPerSource * size; ++n) {
      MPI_Status st;
      CHECK_MPI(MPI_Recv(buf, (int)max, MPI_BYTE, MPI_ANY_SOURCE, use_any_tag ? MPI_ANY_TAG : 3,
                         MPI_COMM_WORLD, &st));
      int src = st.MPI_SOURCE;
      CHECK_MSG(src >= 0 && src < size, "round %d: status source %d out of range", round, src);
      int seq = next_seq[src]++;
      CHECK_MSG(seq < kPerSource, "round %d: more than %d messages from rank %d", round,
                kPerSource, src);
      if (use_any_tag)
        CHECK_MSG(st.MPI_TAG == 100 + seq, "round %d: from rank %d expected message %d (tag %d), "
                  "got tag %d: per-source order broken", round, src, seq, 100 + seq, st.MPI_TAG);
      else
        CHECK_INT(st.MPI_TAG, ==, 3);
      int count = -1;
      CHECK_MPI(MPI_Get_count(&st, MPI_BYTE, &count));
      CHECK_MSG(count == size_of(seq), "round %d: message %d from rank %d has %d bytes, expected "
                "%ld: per-source order broken", round, seq, src, count, size_of(seq));
      char what[80];
      snprintf(what, sizeof what, "round %d message %d from rank %d", round, seq, src);
      CHECK_PATTERN(buf, count, seed_of(src, seq, round), what);
    }
    for (int s = 0; s < size; ++s) CHECK_INT(next_seq[s], ==, kPerSource);
    free(next_seq);
    free(buf);
  }
  CHECK_MPI(MPI_Waitall(kPerSource, req, MPI_STATUSES_IGNORE));
  for (int seq = 0; seq < kPerSource; ++seq) free(sbuf[seq]);
}

int main(int argc, char **argv) {
  CHECK_MPI(MPI_Init(&argc, &argv));
  CHECK_MPI(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
  int size;
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  run_round(0, 0, 0);
  CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
  run_round(size - 1, 1, 1);
  jobs_done("job_any_source");
  CHECK_MPI(MPI_Finalize());
  return 0;
}
