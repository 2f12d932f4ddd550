/* Expected to fail (checked by run-tests.sh): every rank exchanges 64 KiB messages around a ring
 * forever; after ~300 ms rank 1 (rank 0 when alone; FAIL_SIGKILL_VICTIM=N picks rank N) kills
 * itself with SIGKILL. The launcher must
 * notice, kill the survivors (blocked in MPI calls) and exit with 128+9, leaving no process and no
 * shared-memory file behind. The dying rank prints its wall-clock time first so the runner can
 * measure how long the job took to end. */
#include "jobs_util.h"

#include <signal.h>
#include <sys/time.h>

int main(int argc, char** argv) {
  CHECK_MPI(MPI_Init(&argc, &argv));
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  int victim = size > 1 ? 1 : 0;
  const char* pick = getenv("FAIL_SIGKILL_VICTIM");
  if (pick && *pick) victim = atoi(pick) % size;
  int next = (rank + 1) % size, prev = (rank + size - 1) % size;
  enum { kBytes = 64 * 1024 };
  unsigned char *out = jobs_malloc(kBytes), *in = jobs_malloc(kBytes);
  jobs_fill(out, kBytes, (uint64_t)rank);
  double t0 = MPI_Wtime();
  for (long iter = 0;; ++iter) {
    if (rank == victim && iter >= 10 && MPI_Wtime() - t0 > 0.3) {
      struct timeval tv;
      gettimeofday(&tv, NULL);
      printf("fail_sigkill: rank %d raises SIGKILL at %ld.%06ld after %ld exchanges\n", rank,
             (long)tv.tv_sec, (long)tv.tv_usec, iter);
      fflush(stdout);
      raise(SIGKILL);
    }
    MPI_Sendrecv(out, kBytes, MPI_BYTE, next, 1, in, kBytes, MPI_BYTE, prev, 1, MPI_COMM_WORLD,
                 MPI_STATUS_IGNORE);
  }
}
