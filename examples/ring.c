/* ring: a token travels around the ranks several times; each rank adds its rank number.
 * Usage: ring [laps]    (default 10) */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank = 0, size = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  int laps = argc > 1 ? atoi(argv[1]) : 10;
  if (laps < 1) laps = 1;
  int next = (rank + 1) % size, prev = (rank + size - 1) % size;

  long long token = 0;
  for (int lap = 0; lap < laps; ++lap) {
    if (rank == 0) {
      /* Nonblocking send so a single-rank job (next == prev == self) cannot deadlock. */
      MPI_Request req;
      MPI_Isend(&token, 1, MPI_LONG_LONG, next, lap, MPI_COMM_WORLD, &req);
      MPI_Recv(&token, 1, MPI_LONG_LONG, prev, lap, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      MPI_Wait(&req, MPI_STATUS_IGNORE);
    } else {
      MPI_Recv(&token, 1, MPI_LONG_LONG, prev, lap, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      token += rank;
      MPI_Send(&token, 1, MPI_LONG_LONG, next, lap, MPI_COMM_WORLD);
    }
  }

  int ok = 1;
  if (rank == 0) {
    long long expected = (long long)laps * size * (size - 1) / 2;
    ok = token == expected;
    printf("ring: %d laps over %d ranks, token %lld (expected %lld): %s\n", laps, size, token,
           expected, ok ? "ok" : "WRONG");
  }
  MPI_Bcast(&ok, 1, MPI_INT, 0, MPI_COMM_WORLD);
  MPI_Finalize();
  return ok ? 0 : 1;
}
