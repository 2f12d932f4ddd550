/* pi: midpoint-rule integration of 4/(1+x^2) over [0,1], split across ranks.
 * Usage: pi [intervals]    (default 10000000) */
#include <math.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#ifndef M_PI
#define M_PI 3.14159265358979323846
#endif

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank = 0, size = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);

  /* Only rank 0 is trusted to read the command line; everyone else learns n from the Bcast. */
  long long n = 0;
  if (rank == 0) n = argc > 1 ? atoll(argv[1]) : 10000000LL;
  if (n < 1) n = 1;
  double t0 = MPI_Wtime();
  MPI_Bcast(&n, 1, MPI_LONG_LONG, 0, MPI_COMM_WORLD);

  double h = 1.0 / (double)n, local = 0.0;
  for (long long i = rank; i < n; i += size) {
    double x = h * ((double)i + 0.5);
    local += 4.0 / (1.0 + x * x);
  }
  local *= h;

  double pi = 0.0;
  MPI_Reduce(&local, &pi, 1, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
  int ok = 1;
  if (rank == 0) {
    /* Midpoint-rule error is h^2/24 * |f'(1) - f'(0)| = h^2/12 (allow twice that); summing
     * n terms of size <= 4 adds at most about 4 * n * DBL_EPSILON of rounding. */
    double tolerance = h * h / 6.0 + 4.0 * (double)n * 2.3e-16 + 1e-12;
    double err = fabs(pi - M_PI);
    ok = err <= tolerance;
    printf("pi ~ %.15f, error %.3g (tolerance %.3g), %lld intervals on %d ranks, %.3f s: %s\n",
           pi, err, tolerance, n, size, MPI_Wtime() - t0, ok ? "ok" : "WRONG");
  }
  MPI_Bcast(&ok, 1, MPI_INT, 0, MPI_COMM_WORLD);
  MPI_Finalize();
  return ok ? 0 : 1;
}
