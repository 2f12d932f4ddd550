/* pingpong: latency and bandwidth between ranks 0 and 1 for sizes 0 B .. max, data checked.
 * Usage: pingpong [-i iterations] [-m max_bytes] [-w warmup]
 *   -i  round trips per size for sizes <= 64 KiB (default 1000); larger sizes scale it down
 *   -m  largest message in bytes, k/m suffixes allowed (default 4m)
 *   -w  untimed round trips before each size (default 10)
 * Ranks other than 0 and 1 only wait. Exits non-zero if any received byte is wrong. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static long parse_size(const char *text) {
  char *end = NULL;
  long v = strtol(text, &end, 0);
  if (end && (*end == 'k' || *end == 'K')) v <<= 10;
  if (end && (*end == 'm' || *end == 'M')) v <<= 20;
  return v;
}

static unsigned char pattern(long size, long i) { return (unsigned char)((i * 7 + size * 13 + 1) ^ (i >> 8)); }

static void fill(unsigned char *buf, long size) {
  for (long i = 0; i < size; ++i) buf[i] = pattern(size, i);
}

/* Returns the offset of the first wrong byte, or -1. */
static long first_bad(const unsigned char *buf, long size) {
  for (long i = 0; i < size; ++i)
    if (buf[i] != pattern(size, i)) return i;
  return -1;
}

/* Large messages get fewer round trips so the whole run stays short. */
static int iterations_for(long size, int iters) {
  if (size <= 65536) return iters;
  long n = (long)iters * 65536 / size;
  return n < 4 ? 4 : (int)n;
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank = 0, size = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);

  int iters = 1000, warmup = 10;
  long max_size = 4L << 20;
  for (int a = 1; a < argc; ++a) {
    if (strcmp(argv[a], "-i") == 0 && a + 1 < argc) iters = atoi(argv[++a]);
    else if (strcmp(argv[a], "-m") == 0 && a + 1 < argc) max_size = parse_size(argv[++a]);
    else if (strcmp(argv[a], "-w") == 0 && a + 1 < argc) warmup = atoi(argv[++a]);
    else {
      if (rank == 0) fprintf(stderr, "usage: pingpong [-i iterations] [-m max_bytes] [-w warmup]\n");
      MPI_Finalize();
      return 2;
    }
  }
  if (size < 2) {
    if (rank == 0) fprintf(stderr, "pingpong: needs at least 2 ranks (got %d)\n", size);
    MPI_Finalize();
    return 2;
  }
  if (iters < 1) iters = 1;
  if (warmup < 0) warmup = 0;
  if (max_size < 0) max_size = 0;

  unsigned char *sbuf = malloc(max_size > 0 ? (size_t)max_size : 1);
  unsigned char *rbuf = malloc(max_size > 0 ? (size_t)max_size : 1);
  if (!sbuf || !rbuf) {
    fprintf(stderr, "pingpong: rank %d: cannot allocate 2 x %ld bytes\n", rank, max_size);
    MPI_Abort(MPI_COMM_WORLD, 1);
  }

  int errors = 0;
  if (rank == 0) printf("%10s %8s %14s %14s\n", "bytes", "iters", "latency_us", "bandwidth_MB/s");
  for (long bytes = 0; bytes <= max_size; bytes = bytes ? bytes * 2 : 1) {
    int n = iterations_for(bytes, iters);
    fill(sbuf, bytes);
    memset(rbuf, 0, (size_t)bytes);
    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = 0.0;
    for (int it = -warmup; it < n; ++it) {
      if (it == 0) t0 = MPI_Wtime();
      if (rank == 0) {
        MPI_Send(sbuf, (int)bytes, MPI_BYTE, 1, 1, MPI_COMM_WORLD);
        MPI_Recv(rbuf, (int)bytes, MPI_BYTE, 1, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      } else if (rank == 1) {
        MPI_Recv(rbuf, (int)bytes, MPI_BYTE, 0, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        MPI_Send(sbuf, (int)bytes, MPI_BYTE, 0, 1, MPI_COMM_WORLD);
      }
    }
    double elapsed = MPI_Wtime() - t0;
    if (rank <= 1) {
      long bad = first_bad(rbuf, bytes);
      if (bad >= 0) {
        fprintf(stderr, "pingpong: rank %d: %ld-byte message corrupt at offset %ld: got %u, expected %u\n",
                rank, bytes, bad, rbuf[bad], pattern(bytes, bad));
        ++errors;
      }
    }
    if (rank == 0) {
      double latency_us = elapsed / (2.0 * n) * 1e6;
      double mbps = latency_us > 0 ? (double)bytes / latency_us : 0.0;
      printf("%10ld %8d %14.2f %14.2f\n", bytes, n, latency_us, mbps);
      fflush(stdout);
    }
    if (bytes >= max_size) break;
  }

  int total = 0;
  MPI_Allreduce(&errors, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  if (rank == 0) printf("pingpong: %s\n", total ? "DATA ERRORS" : "all data verified");
  free(sbuf);
  free(rbuf);
  MPI_Finalize();
  return total ? 1 : 0;
}
