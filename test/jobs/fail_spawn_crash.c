/* Expected to fail (checked by run-tests.sh): the ranks spawn two children and wait for a message
 * from them that never comes; child 1 kills itself with SIGKILL once it has met its parents. The
 * launcher must end the whole job (parents blocked in MPI_Recv, the other child in a barrier)
 * with exit status 137 and a line naming the child as "rank 1 of spawned job ...". */
#include <signal.h>
#include <string.h>

#include "jobs_util.h"

int main(int argc, char** argv) {
  CHECK_MPI(MPI_Init(&argc, &argv));
  MPI_Comm parent, inter;
  CHECK_MPI(MPI_Comm_get_parent(&parent));
  if (parent != MPI_COMM_NULL) {
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank == 1) raise(SIGKILL);
    MPI_Barrier(MPI_COMM_WORLD); /* never completes */
    return 0;
  }
  char* args[] = {"child", NULL};
  CHECK_MPI(MPI_Comm_spawn(argv[0], args, 2, MPI_INFO_NULL, 0, MPI_COMM_WORLD, &inter,
                           MPI_ERRCODES_IGNORE));
  int v;
  MPI_Recv(&v, 1, MPI_INT, 0, 0, inter, MPI_STATUS_IGNORE); /* never completes */
  return 0;
}
