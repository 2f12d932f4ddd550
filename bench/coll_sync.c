/* coll_sync: collective latency per message size, one call at a time. Plain MPI.
 *
 * Usage: coll_sync [-c list] [-n min_bytes] [-m max_bytes] [-t seconds] [-b batches]
 *   options and sizes as examples/bench/coll_bench: -c barrier,bcast,reduce,allreduce,
 *   allgather,alltoall (default bcast,allreduce), sizes from -n (8) to -m (1m) by factors of 2,
 *   -t seconds per size (0.2), -b batches (7). bcast and reduce use root 0 throughout.
 *
 * The difference from coll_bench is the pattern. coll_bench times back-to-back calls, so
 * successive calls can overlap (a bcast root can start the next call while the last leaf is
 * still receiving) and a batch's figure is the slowest rank's mean per call. Here every call is
 * preceded by an MPI_Barrier that is not timed, each rank times only its own call, and a
 * batch's figure is the mean over ranks of each rank's mean per call - the "average latency"
 * the OSU micro-benchmarks report for their collective tests. A bcast root that returns as
 * soon as its data is out therefore counts for less than in coll_bench.
 *
 * Output: '#' comment lines, then per size "coll bytes calls median_us best_us" (the format
 * of coll_bench). The first call of each size is checked; a wrong result is reported on stderr
 * and the exit status is 1. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum Coll { kBarrier, kBcast, kReduce, kAllreduce, kAllgather, kAlltoall, kNumColl };
static const char *const kNames[] = {"barrier", "bcast", "reduce", "allreduce", "allgather", "alltoall"};
enum { kMaxBatches = 64 };

static int rank_, size_;
static char *a_, *b_;

static long parse_size(const char *text) {
  char *end = NULL;
  long v = strtol(text, &end, 0);
  if (end && (*end == 'k' || *end == 'K')) v <<= 10;
  if (end && (*end == 'm' || *end == 'M')) v <<= 20;
  return v;
}

static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}

static void call(int c, long bytes) {
  const int n = (int)bytes, nf = (int)(bytes / 4 > 0 ? bytes / 4 : 1);
  switch (c) {
    case kBarrier:
      MPI_Barrier(MPI_COMM_WORLD);
      break;
    case kBcast:
      MPI_Bcast(a_, n, MPI_CHAR, 0, MPI_COMM_WORLD);
      break;
    case kReduce:
      MPI_Reduce(a_, b_, nf, MPI_FLOAT, MPI_SUM, 0, MPI_COMM_WORLD);
      break;
    case kAllreduce:
      MPI_Allreduce(a_, b_, nf, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD);
      break;
    case kAllgather:
      MPI_Allgather(a_, n, MPI_CHAR, b_, n, MPI_CHAR, MPI_COMM_WORLD);
      break;
    default:
      MPI_Alltoall(a_, n, MPI_CHAR, b_, n, MPI_CHAR, MPI_COMM_WORLD);
      break;
  }
}

/* Byte i of the block rank r sends to rank d (bcast: only the root's block 0 counts). */
static char pattern(int r, int d, long i) { return (char)(r * 13 + d * 5 + i % 251); }

/* Fills the inputs, makes one call and returns the number of wrong results seen here. */
static long checked_call(int c, long bytes) {
  const long nf = bytes / 4 > 0 ? bytes / 4 : 1;
  long wrong = 0;
  if (c == kReduce || c == kAllreduce) {
    for (long i = 0; i < nf; ++i) ((float *)a_)[i] = (float)(rank_ + i % 5);
  } else {
    for (int d = 0; d < size_; ++d)
      for (long i = 0; i < bytes; ++i)
        a_[d * bytes + i] = c == kBcast && rank_ != 0 ? 0 : pattern(rank_, d, i);
  }
  call(c, bytes);
  if (c == kBcast) {
    for (long i = 0; i < bytes; ++i) wrong += a_[i] != pattern(0, 0, i);
  } else if (c == kAllreduce || (c == kReduce && rank_ == 0)) {
    for (long i = 0; i < nf; ++i)
      wrong += ((float *)b_)[i] != (float)(size_ * (size_ - 1) / 2 + size_ * (i % 5));
  } else if (c == kAllgather) {
    for (int r = 0; r < size_; ++r)
      for (long i = 0; i < bytes; ++i) wrong += b_[r * bytes + i] != pattern(r, 0, i);
  } else if (c == kAlltoall) {
    for (int r = 0; r < size_; ++r)
      for (long i = 0; i < bytes; ++i) wrong += b_[r * bytes + i] != pattern(r, rank_, i);
  }
  return wrong;
}

/* `calls` barrier-separated calls; returns this rank's seconds inside the collective and sets
 * *wall to the whole loop's time. */
static double timed_calls(int c, long bytes, int calls, double *wall) {
  double inside = 0;
  const double start = MPI_Wtime();
  for (int i = 0; i < calls; ++i) {
    MPI_Barrier(MPI_COMM_WORLD);
    const double t0 = MPI_Wtime();
    call(c, bytes);
    inside += MPI_Wtime() - t0;
  }
  *wall = MPI_Wtime() - start;
  return inside;
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank_);
  MPI_Comm_size(MPI_COMM_WORLD, &size_);
  long min = 8, max = 1L << 20;
  double target = 0.2;
  int batches = 7, want[kNumColl] = {0, 1, 0, 1, 0, 0};
  for (int i = 1; i < argc; i += 2) {
    const char *opt = argv[i], *val = i + 1 < argc ? argv[i + 1] : NULL;
    int ok = val != NULL;
    if (ok && !strcmp(opt, "-m")) {
      max = parse_size(val);
    } else if (ok && !strcmp(opt, "-n")) {
      min = parse_size(val);
    } else if (ok && !strcmp(opt, "-t")) {
      target = atof(val);
    } else if (ok && !strcmp(opt, "-b")) {
      batches = atoi(val);
    } else if (ok && !strcmp(opt, "-c")) {
      char list[256];
      snprintf(list, sizeof list, "%s", val);
      memset(want, 0, sizeof want);
      for (char *tok = strtok(list, ","); tok; tok = strtok(NULL, ",")) {
        int found = 0;
        for (int c = 0; c < kNumColl; ++c)
          if (!strcmp(tok, kNames[c])) want[c] = found = 1;
        ok = ok && found;
      }
    } else {
      ok = 0;
    }
    if (!ok || min < 1 || max < min || target <= 0 || batches < 1 || batches > kMaxBatches) {
      if (rank_ == 0) fprintf(stderr, "coll_sync: bad option %s (see the top of coll_sync.c)\n", opt);
      MPI_Abort(MPI_COMM_WORLD, 2);
    }
  }
  a_ = malloc((size_t)max * (size_t)size_ + 64);
  b_ = malloc((size_t)max * (size_t)size_ + 64);
  if (!a_ || !b_) MPI_Abort(MPI_COMM_WORLD, 3);
  memset(b_, 0, (size_t)max * (size_t)size_ + 64);
  if (rank_ == 0) {
    printf("# coll_sync: %d ranks, barrier before every call (untimed), mean over ranks, %d batches "
           "per size\n# %-10s %10s %8s %12s %12s\n", size_, batches, "coll", "bytes", "calls",
           "median_us", "best_us");
    fflush(stdout);
  }
  int bad = 0;
  for (int c = 0; c < kNumColl; ++c) {
    if (!want[c]) continue;
    for (long bytes = min; bytes <= max; bytes *= 2) {
      if (c == kBarrier && bytes > min) break;
      long wrong = checked_call(c, bytes), any = 0;
      MPI_Allreduce(&wrong, &any, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
      if (any) {
        if (rank_ == 0) fprintf(stderr, "coll_sync: %s %ld bytes: %ld wrong results\n", kNames[c], bytes, any);
        bad = 1;
      }
      /* Calibrate on rank 0's wall time, barriers included (the faster of two runs). */
      int calls = 1;
      for (;;) {
        double w1, w2;
        timed_calls(c, bytes, calls, &w1);
        timed_calls(c, bytes, calls, &w2);
        int next = rank_ == 0 && (w1 < w2 ? w1 : w2) < target / batches && calls < (1 << 20) ? 2 * calls : 0;
        MPI_Bcast(&next, 1, MPI_INT, 0, MPI_COMM_WORLD);
        if (!next) break;
        calls = next;
      }
      double figs[kMaxBatches];
      for (int b = 0; b < batches; ++b) {
        double wall, mine = timed_calls(c, bytes, calls, &wall) / calls, sum = 0;
        MPI_Reduce(&mine, &sum, 1, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
        figs[b] = sum / size_;
      }
      if (rank_ == 0) {
        qsort(figs, (size_t)batches, sizeof(double), cmp_double);
        printf("  %-10s %10ld %8d %12.2f %12.2f\n", kNames[c], c == kBarrier ? 0 : bytes, calls,
               figs[batches / 2] * 1e6, figs[0] * 1e6);
        fflush(stdout);
      }
    }
  }
  free(a_);
  free(b_);
  MPI_Finalize();
  return bad;
}
