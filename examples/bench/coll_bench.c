/* coll_bench: latency of collectives per message size. Plain MPI, so the same source builds
 * with any MPI (examples/bench/compare-coll.sh runs it under MPR, Open MPI and MPICH).
 *
 * Usage: coll_bench [-c list] [-m max_bytes] [-n min_bytes] [-t seconds] [-b batches]
 *   -c  comma list of barrier,bcast,reduce,allreduce,allgather,alltoall (default all)
 *   -m  largest size in bytes, k/m suffixes (default 4m); sizes go up by factors of 2
 *   -n  smallest size (default 8)
 *   -t  seconds of timed calls per size (default 0.3), split into batches
 *   -b  batches per size (default 11)
 * Sizes: bcast the buffer; reduce and allreduce the vector (MPI_FLOAT, MPI_SUM); allgather and
 * alltoall the block each rank contributes per peer.
 *
 * On a shared machine one slow batch (a rank descheduled by someone else's compile) can hide
 * everything else, so each size is timed as batches of back-to-back calls: a batch's time is
 * the slowest rank's mean per call, and the line reports the median and the best batch, in
 * microseconds. The first call of every size is checked, so a broken library cannot look
 * fast. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int rank_, size_;

static long parse_size(const char *text) {
  char *end = NULL;
  long v = strtol(text, &end, 0);
  if (end && (*end == 'k' || *end == 'K')) v <<= 10;
  if (end && (*end == 'm' || *end == 'M')) v <<= 20;
  return v;
}

enum Coll { kBarrier, kBcast, kReduce, kAllreduce, kAllgather, kAlltoall, kNumColl };
static const char *kNames[] = {"barrier", "bcast", "reduce", "allreduce", "allgather", "alltoall"};

static char *a_, *b_;

static void run_once(int c, long bytes) {
  const int nf = (int)(bytes / 4 > 0 ? bytes / 4 : 1);
  switch (c) {
    case kBarrier:
      MPI_Barrier(MPI_COMM_WORLD);
      break;
    case kBcast:
      MPI_Bcast(a_, (int)bytes, MPI_CHAR, 0, MPI_COMM_WORLD);
      break;
    case kReduce:
      MPI_Reduce(a_, b_, nf, MPI_FLOAT, MPI_SUM, 0, MPI_COMM_WORLD);
      break;
    case kAllreduce:
      MPI_Allreduce(a_, b_, nf, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD);
      break;
    case kAllgather:
      MPI_Allgather(a_, (int)bytes, MPI_CHAR, b_, (int)bytes, MPI_CHAR, MPI_COMM_WORLD);
      break;
    default:
      MPI_Alltoall(a_, (int)bytes, MPI_CHAR, b_, (int)bytes, MPI_CHAR, MPI_COMM_WORLD);
      break;
  }
}

/* Fill inputs so the first call's result is known; returns 0 if it is right. */
static void prepare(int c, long bytes) {
  const long nf = bytes / 4 > 0 ? bytes / 4 : 1;
  if (c == kReduce || c == kAllreduce) {
    for (long i = 0; i < nf; ++i) ((float *)a_)[i] = (float)(rank_ + (i % 3));
  } else {
    for (long i = 0; i < bytes * size_; ++i)
      a_[i] = (char)(rank_ == 0 || c != kBcast ? rank_ * 7 + i % 11 : 0);
  }
}

static int verify(int c, long bytes) {
  const long nf = bytes / 4 > 0 ? bytes / 4 : 1;
  const float sum = (float)size_ * (float)(size_ - 1) / 2.0f;
  switch (c) {
    case kBcast:
      for (long i = 0; i < bytes; ++i)
        if (a_[i] != (char)(i % 11)) return 1;
      return 0;
    case kReduce:
    case kAllreduce:
      if (c == kReduce && rank_ != 0) return 0;
      for (long i = 0; i < nf; ++i)
        if (((float *)b_)[i] != sum + (float)(size_ * (i % 3))) return 1;
      return 0;
    case kAllgather:
      for (int r = 0; r < size_; ++r)
        for (long i = 0; i < bytes; ++i)
          if (b_[r * bytes + i] != (char)(r * 7 + i % 11)) return 1;
      return 0;
    case kAlltoall:
      for (int r = 0; r < size_; ++r)
        for (long i = 0; i < bytes; ++i)
          if (b_[r * bytes + i] != (char)(r * 7 + (rank_ * bytes + i) % 11)) return 1;
      return 0;
    default:
      return 0;
  }
}

/* Seconds per call of `calls` back-to-back calls, on the slowest rank (same on every rank). */
static double time_calls(int c, long bytes, int calls) {
  MPI_Barrier(MPI_COMM_WORLD);
  double t0 = MPI_Wtime();
  for (int i = 0; i < calls; ++i) run_once(c, bytes);
  double mine = (MPI_Wtime() - t0) / calls, worst = 0;
  MPI_Allreduce(&mine, &worst, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  return worst;
}

static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank_);
  MPI_Comm_size(MPI_COMM_WORLD, &size_);
  long max = 4 << 20, min = 8;
  double target = 0.3;
  int batches = 11, want[kNumColl] = {1, 1, 1, 1, 1, 1};
  for (int i = 1; i + 1 < argc; i += 2) {
    if (!strcmp(argv[i], "-m"))
      max = parse_size(argv[i + 1]);
    else if (!strcmp(argv[i], "-n"))
      min = parse_size(argv[i + 1]);
    else if (!strcmp(argv[i], "-t"))
      target = atof(argv[i + 1]);
    else if (!strcmp(argv[i], "-b"))
      batches = atoi(argv[i + 1]);
    else if (!strcmp(argv[i], "-c")) {
      for (int c = 0; c < kNumColl; ++c) want[c] = strstr(argv[i + 1], kNames[c]) != NULL;
      /* "reduce" is a substring of "allreduce": only count it when named on its own. */
      want[kReduce] = 0;
      for (char *tok = strtok(argv[i + 1], ","); tok; tok = strtok(NULL, ","))
        if (!strcmp(tok, "reduce")) want[kReduce] = 1;
    } else {
      if (rank_ == 0) fprintf(stderr, "coll_bench: unknown option %s\n", argv[i]);
      MPI_Abort(MPI_COMM_WORLD, 2);
    }
  }
  if (batches < 1 || batches > 64) batches = 11;
  a_ = malloc((size_t)max * (size_t)size_ + 16);
  b_ = malloc((size_t)max * (size_t)size_ + 16);
  if (!a_ || !b_) MPI_Abort(MPI_COMM_WORLD, 3);
  if (rank_ == 0)
    printf("# coll_bench: %d ranks, %d batches per size\n# %-10s %10s %8s %12s %12s\n", size_,
           batches, "coll", "bytes", "calls", "median_us", "best_us");
  int bad = 0;
  for (int c = 0; c < kNumColl; ++c) {
    if (!want[c]) continue;
    for (long bytes = min; bytes <= max; bytes *= 2) {
      if (c == kBarrier && bytes > min) break;
      prepare(c, bytes);
      run_once(c, bytes);
      int wrong = verify(c, bytes), any_wrong = 0;
      MPI_Allreduce(&wrong, &any_wrong, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
      if (any_wrong) {
        if (rank_ == 0)
          fprintf(stderr, "coll_bench: %s %ld bytes gave a wrong result\n", kNames[c], bytes);
        bad = 1;
      }
      for (int i = 0; i < 2; ++i) run_once(c, bytes);
      /* Calibrate: double the calls until a batch takes target / batches (slowest rank). */
      int calls = 1;
      for (;;) {
        double t = time_calls(c, bytes, calls);
        if (t * calls >= target / batches || calls >= 20000) break;
        calls *= 2;
      }
      double times[64];
      for (int b = 0; b < batches; ++b) times[b] = time_calls(c, bytes, calls);
      if (rank_ == 0) {
        qsort(times, (size_t)batches, sizeof(double), cmp_double);
        printf("  %-10s %10ld %8d %12.2f %12.2f\n", kNames[c], c == kBarrier ? 0 : bytes, calls,
               times[batches / 2] * 1e6, times[0] * 1e6);
        fflush(stdout);
      }
    }
  }
  free(a_);
  free(b_);
  MPI_Finalize();
  return bad;
}
