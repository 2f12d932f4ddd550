/* An MPI program (linked with MPR's libmpi) for mprun's job-control checks:
 *
 *   mprun_mpi_probe nofinalize R   rank R returns 0 from main without MPI_Finalize after a
 *                                  barrier; the others wait for it in a second barrier
 *   mprun_mpi_probe hang           every rank prints "ready R" after a barrier, then blocks in
 *                                  MPI_Recv for a message that never comes
 *   mprun_mpi_probe hang-noint     the same with SIGINT ignored (only a second Ctrl-C, which
 *                                  mprun turns into SIGKILL, ends it)
 *   mprun_mpi_probe affinity       prints "rank R affinity L" (sched_getaffinity after
 *                                  MPI_Init) and finalizes
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* CPU_SET and sched_getaffinity */
#endif
#include <mpi.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void print_affinity(int rank) {
  cpu_set_t set;
  CPU_ZERO(&set);
  char list[1024] = "";
  size_t len = 0;
  if (sched_getaffinity(0, sizeof set, &set) == 0) {
    for (int c = 0; c < CPU_SETSIZE && len < sizeof list - 16;) {
      if (!CPU_ISSET(c, &set)) {
        ++c;
        continue;
      }
      int end = c;
      while (end + 1 < CPU_SETSIZE && CPU_ISSET(end + 1, &set)) ++end;
      len += (size_t)snprintf(list + len, sizeof list - len, "%s%d", len ? "," : "", c);
      if (end > c) len += (size_t)snprintf(list + len, sizeof list - len, "-%d", end);
      c = end + 1;
    }
  }
  printf("rank %d affinity %s\n", rank, list);
}

int main(int argc, char **argv) {
  if (argc < 2) {
    fprintf(stderr, "usage: %s nofinalize R | hang | hang-noint | affinity\n", argv[0]);
    return 64;
  }
  const char *mode = argv[1];
  if (strcmp(mode, "hang-noint") == 0) signal(SIGINT, SIG_IGN);
  MPI_Init(&argc, &argv);
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  setvbuf(stdout, NULL, _IOLBF, 0);

  if (strcmp(mode, "nofinalize") == 0) {
    int target = argc > 2 ? atoi(argv[2]) : 0;
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == target) return 0;
    MPI_Barrier(MPI_COMM_WORLD);
  } else if (strncmp(mode, "hang", 4) == 0) {
    MPI_Barrier(MPI_COMM_WORLD);
    printf("ready %d\n", rank);
    int v;
    MPI_Recv(&v, 1, MPI_INT, MPI_ANY_SOURCE, 99, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  } else if (strcmp(mode, "affinity") == 0) {
    print_affinity(rank);
  } else {
    fprintf(stderr, "unknown mode %s\n", mode);
    MPI_Abort(MPI_COMM_WORLD, 64);
  }
  MPI_Finalize();
  return 0;
}
