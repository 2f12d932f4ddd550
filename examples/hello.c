/* hello: every rank reports in; rank 0 checks that all ranks took part.
 * Build: mpicc hello.c -o hello    Run: mprun -n 4 ./hello */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank = 0, size = 0, len = 0;
  char host[MPI_MAX_PROCESSOR_NAME];
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  MPI_Get_processor_name(host, &len);
  printf("Hello from rank %d of %d on %s\n", rank, size, host);
  fflush(stdout);

  /* The sum of all ranks proves every process joined the same job, not N singletons. */
  int sum = 0;
  MPI_Allreduce(&rank, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  int ok = (sum == size * (size - 1) / 2) && rank >= 0 && rank < size;
  if (rank == 0) {
    char lib[MPI_MAX_LIBRARY_VERSION_STRING];
    int version = 0, subversion = 0;
    MPI_Get_library_version(lib, &len);
    MPI_Get_version(&version, &subversion);
    printf("MPI %d.%d, %s\n", version, subversion, lib);
    if (!ok) fprintf(stderr, "hello: sum of ranks is %d, expected %d\n", sum, size * (size - 1) / 2);
  }
  MPI_Finalize();
  return ok ? 0 : 1;
}
