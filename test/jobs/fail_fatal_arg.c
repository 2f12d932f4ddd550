/* Expected to fail (checked by run-tests.sh): under the default MPI_ERRORS_ARE_FATAL handler,
 * rank 0 sends to a rank that does not exist. The job must end with a non-zero status and an
 * error message that names MPI_Send; the other ranks wait in a barrier meanwhile. */
#include "jobs_util.h"

int main(int argc, char **argv) {
  CHECK_MPI(MPI_Init(&argc, &argv));
  int rank, size, value = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (rank == 0) {
    MPI_Send(&value, 1, MPI_INT, size + 3, 0, MPI_COMM_WORLD);
    fprintf(stderr, "fail_fatal_arg: MPI_Send to rank %d returned under MPI_ERRORS_ARE_FATAL\n",
            size + 3);
    return 1;
  }
  MPI_Barrier(MPI_COMM_WORLD);
  fprintf(stderr, "fail_fatal_arg: rank %d left a barrier that rank 0 never entered\n", rank);
  MPI_Finalize();
  return 1;
}
