/* Expected to fail (checked by run-tests.sh): rank 1 (rank 0 when alone) calls
 * MPI_Abort(MPI_COMM_WORLD, 7) while every other rank blocks in a receive nobody will satisfy.
 * The launcher must end the whole job promptly with exit status 7. */
#include "jobs_util.h"

int main(int argc, char **argv) {
  CHECK_MPI(MPI_Init(&argc, &argv));
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  int aborter = size > 1 ? 1 : 0;
  CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
  if (rank == aborter) {
    /* Give the others time to be deep inside their blocking receive. */
    jobs_sleep_ms(200);
    printf("fail_abort: rank %d calls MPI_Abort(MPI_COMM_WORLD, 7)\n", rank);
    fflush(stdout);
    MPI_Abort(MPI_COMM_WORLD, 7);
    fprintf(stderr, "fail_abort: MPI_Abort returned\n");
    return 1;
  }
  int value = 0;
  MPI_Recv(&value, 1, MPI_INT, MPI_ANY_SOURCE, 1234, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  fprintf(stderr, "fail_abort: rank %d received a message nobody sent\n", rank);
  MPI_Finalize();
  return 1;
}
