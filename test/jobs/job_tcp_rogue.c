/* Run by test/run-tests.sh with MPR_BTL=self,tcp and MPR_VERBOSE=1: while the job waits (in MPI,
 * so its ranks progress), the runner sends garbage and a forged handshake to a listening port
 * it read from the verbose output, then creates the file named by $JOB_TCP_ROGUE_GO. The job
 * then exchanges data between every pair and checks it: foreign connections must change
 * nothing. Prints "OK job_tcp_rogue". */
#include "jobs_util.h"

#include <unistd.h>

int main(int argc, char** argv) {
  CHECK_MPI(MPI_Init(&argc, &argv));
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const char* go = getenv("JOB_TCP_ROGUE_GO");
  /* Every rank talks to every other once first, so the job's own connections are up. */
  int token = rank, sum = 0;
  CHECK_MPI(MPI_Allreduce(&token, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
  CHECK(sum == size * (size - 1) / 2);
  if (rank == 0) {
    printf("job_tcp_rogue: ready\n");
    fflush(stdout);
  }
  /* Wait for the runner, calling MPI meanwhile (rank 0 decides; the others wait in a bcast
   * that rank 0 starts when the file appears, up to 60 s). */
  int started = 0;
  if (rank == 0) {
    for (int i = 0; i < 60000 && go && access(go, F_OK) != 0; ++i) {
      int flag;
      CHECK_MPI(MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &flag, MPI_STATUS_IGNORE));
      usleep(1000);
    }
    started = 1;
  }
  CHECK_MPI(MPI_Bcast(&started, 1, MPI_INT, 0, MPI_COMM_WORLD));
  CHECK(started == 1);
  enum { kBytes = 256 * 1024 };
  unsigned char *out = jobs_malloc(kBytes), *in = jobs_malloc(kBytes);
  for (int peer = 0; peer < size; ++peer) {
    if (peer == rank) continue;
    jobs_fill(out, kBytes, (uint64_t)(rank * 1000 + peer));
    CHECK_MPI(MPI_Sendrecv(out, kBytes, MPI_BYTE, peer, 5, in, kBytes, MPI_BYTE, peer, 5,
                           MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    CHECK_PATTERN(in, kBytes, peer * 1000 + rank, "data from a peer");
  }
  free(out);
  free(in);
  CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
  if (rank == 0) printf("OK job_tcp_rogue\n");
  CHECK_MPI(MPI_Finalize());
  return 0;
}
