/* rma_bench: one-sided communication latency and bandwidth between two ranks, in the style of
 * the OSU one-sided benchmarks (passive target, lock once per batch). Plain MPI, so the same
 * source builds with any MPI (examples/bench/compare-rma.sh runs it under MPR, Open MPI and
 * MPICH).
 *
 * Usage: rma_bench [-m max_bytes] [-n min_bytes] [-f factor] [-i iterations] [-b batches] [-w window]
 *                  [-c list] [-a allocate|create]
 *   -m  largest size in bytes, k/m suffixes (default 4m)
 *   -n  smallest size (default 8)
 *   -f  factor between sizes (default 2)
 *   -i  operations per latency batch up to 16 KiB (default 1000; fewer above, at least 10)
 *   -b  batches per size and test (default 5); the median batch is reported
 *   -w  puts/gets per flush in the bandwidth tests (default 64, capped at 16 MiB per flush)
 *   -c  comma list of tests: put,get,acc,fop,putbw,getbw (default all)
 *   -a  how the target's window is made: MPI_Win_allocate (default) or MPI_Win_create on
 *       malloc'd memory
 * Rank 0 is the origin, rank 1 the target (it waits in MPI_Barrier meanwhile); other ranks, if
 * any, only take part in the collective calls.
 *
 * Tests, each under one MPI_Win_lock(MPI_LOCK_SHARED, 1)/MPI_Win_unlock per batch:
 *   put_us  MPI_Put + MPI_Win_flush per operation: latency of a remotely complete put
 *   get_us  MPI_Get + MPI_Win_flush per operation
 *   acc_us  MPI_Accumulate(MPI_SUM, MPI_DOUBLE, bytes/8 elements) + MPI_Win_flush
 *   fop_us  MPI_Fetch_and_op(MPI_SUM, MPI_LONG) + MPI_Win_flush (8-byte row only)
 *   put_MBs window puts of `bytes` then one MPI_Win_flush, repeated; 10^6 bytes per second
 *   get_MBs the same with gets
 * Output: comment lines start with '#'; then one line per size:
 *   bytes put_us get_us acc_us fop_us put_MBs get_MBs    ("-" where a test did not run)
 * Before timing each size the data of a put, a get and an accumulate is checked, so a broken
 * library cannot look fast; a wrong result is reported on stderr and the exit status is 1. */
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

enum Test { kPut, kGet, kAcc, kFop, kPutBw, kGetBw, kNumTests };
static const char *kNames[] = {"put", "get", "acc", "fop", "putbw", "getbw"};
static const char *kColumns[] = {"put_us", "get_us", "acc_us", "fop_us", "put_MBs", "get_MBs"};

static char *origin_, *result_;
static char *win_mem_;
static MPI_Win win_;

static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}

static unsigned char pattern(long bytes, long i) { return (unsigned char)((i * 131 + bytes) >> 2); }

/* Checks one put, get and accumulate of `bytes`; returns non-zero on rank 0 if wrong. */
static int verify(long bytes) {
  int bad = 0;
  const long nd = bytes / (long)sizeof(double);
  /* put a pattern, target checks it */
  if (rank_ == 0) {
    for (long i = 0; i < bytes; ++i) origin_[i] = (char)pattern(bytes, i);
    MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 1, 0, win_);
    MPI_Put(origin_, (int)bytes, MPI_BYTE, 1, 0, (int)bytes, MPI_BYTE, win_);
    MPI_Win_unlock(1, win_);
  }
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank_ == 1) {
    MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 1, 0, win_);
    for (long i = 0; i < bytes && !bad; ++i) bad = (unsigned char)win_mem_[i] != pattern(bytes, i);
    /* a new pattern for the get */
    for (long i = 0; i < bytes; ++i) win_mem_[i] = (char)pattern(bytes + 1, i);
    MPI_Win_unlock(1, win_);
    if (bad) fprintf(stderr, "rma_bench: MPI_Put of %ld bytes delivered wrong data\n", bytes);
  }
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank_ == 0) {
    memset(result_, 0, (size_t)bytes);
    MPI_Win_lock(MPI_LOCK_SHARED, 1, 0, win_);
    MPI_Get(result_, (int)bytes, MPI_BYTE, 1, 0, (int)bytes, MPI_BYTE, win_);
    MPI_Win_unlock(1, win_);
    for (long i = 0; i < bytes && !bad; ++i) bad = (unsigned char)result_[i] != pattern(bytes + 1, i);
    if (bad) fprintf(stderr, "rma_bench: MPI_Get of %ld bytes returned wrong data\n", bytes);
  }
  MPI_Barrier(MPI_COMM_WORLD);
  /* accumulate: target holds 0.5 * i, origin adds i twice */
  if (nd > 0) {
    if (rank_ == 1) {
      MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 1, 0, win_);
      for (long i = 0; i < nd; ++i) ((double *)win_mem_)[i] = 0.5 * (double)(i % 1000);
      MPI_Win_unlock(1, win_);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank_ == 0) {
      for (long i = 0; i < nd; ++i) ((double *)origin_)[i] = (double)(i % 1000);
      MPI_Win_lock(MPI_LOCK_SHARED, 1, 0, win_);
      MPI_Accumulate(origin_, (int)nd, MPI_DOUBLE, 1, 0, (int)nd, MPI_DOUBLE, MPI_SUM, win_);
      MPI_Accumulate(origin_, (int)nd, MPI_DOUBLE, 1, 0, (int)nd, MPI_DOUBLE, MPI_SUM, win_);
      MPI_Win_unlock(1, win_);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank_ == 1) {
      int wrong = 0;
      MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 1, 0, win_);
      for (long i = 0; i < nd && !wrong; ++i)
        wrong = ((double *)win_mem_)[i] != 2.5 * (double)(i % 1000);
      MPI_Win_unlock(1, win_);
      if (wrong) fprintf(stderr, "rma_bench: MPI_Accumulate of %ld doubles is wrong\n", nd);
      bad |= wrong;
    }
  }
  int any = 0;
  MPI_Allreduce(&bad, &any, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  return any;
}

static int verify_fop(void) {
  int bad = 0;
  if (rank_ == 1) {
    MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 1, 0, win_);
    *(long *)win_mem_ = 40;
    MPI_Win_unlock(1, win_);
  }
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank_ == 0) {
    long one = 2, a = -1, b = -1;
    MPI_Win_lock(MPI_LOCK_SHARED, 1, 0, win_);
    MPI_Fetch_and_op(&one, &a, MPI_LONG, 1, 0, MPI_SUM, win_);
    MPI_Win_flush(1, win_);
    MPI_Fetch_and_op(&one, &b, MPI_LONG, 1, 0, MPI_SUM, win_);
    MPI_Win_unlock(1, win_);
    bad = a != 40 || b != 42;
    if (bad) fprintf(stderr, "rma_bench: MPI_Fetch_and_op fetched %ld, %ld (expected 40, 42)\n", a, b);
  }
  int any = 0;
  MPI_Allreduce(&bad, &any, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  return any;
}

/* One batch on rank 0; returns microseconds per operation (latency) or MB/s (bandwidth). */
static double batch(int t, long bytes, int iters, int window) {
  const int nd = (int)(bytes / (long)sizeof(double));
  long one = 1, fetched = 0;
  MPI_Win_lock(MPI_LOCK_SHARED, 1, 0, win_);
  double t0 = MPI_Wtime();
  switch (t) {
    case kPut:
      for (int i = 0; i < iters; ++i) {
        MPI_Put(origin_, (int)bytes, MPI_BYTE, 1, 0, (int)bytes, MPI_BYTE, win_);
        MPI_Win_flush(1, win_);
      }
      break;
    case kGet:
      for (int i = 0; i < iters; ++i) {
        MPI_Get(result_, (int)bytes, MPI_BYTE, 1, 0, (int)bytes, MPI_BYTE, win_);
        MPI_Win_flush(1, win_);
      }
      break;
    case kAcc:
      for (int i = 0; i < iters; ++i) {
        MPI_Accumulate(origin_, nd, MPI_DOUBLE, 1, 0, nd, MPI_DOUBLE, MPI_SUM, win_);
        MPI_Win_flush(1, win_);
      }
      break;
    case kFop:
      for (int i = 0; i < iters; ++i) {
        MPI_Fetch_and_op(&one, &fetched, MPI_LONG, 1, 0, MPI_SUM, win_);
        MPI_Win_flush(1, win_);
      }
      break;
    default:
      /* window ops to distinct target offsets (as OSU does), then one flush */
      for (int i = 0; i < iters; ++i) {
        for (int w = 0; w < window; ++w) {
          if (t == kPutBw)
            MPI_Put(origin_ + (long)w * bytes, (int)bytes, MPI_BYTE, 1, (MPI_Aint)w * bytes,
                    (int)bytes, MPI_BYTE, win_);
          else
            MPI_Get(result_ + (long)w * bytes, (int)bytes, MPI_BYTE, 1, (MPI_Aint)w * bytes,
                    (int)bytes, MPI_BYTE, win_);
        }
        MPI_Win_flush(1, win_);
      }
      break;
  }
  double elapsed = MPI_Wtime() - t0;
  MPI_Win_unlock(1, win_);
  if (t == kPutBw || t == kGetBw) return (double)bytes * window * iters / elapsed / 1e6;
  return elapsed / iters * 1e6;
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank_);
  MPI_Comm_size(MPI_COMM_WORLD, &size_);
  long max = 4 << 20, min = 8;
  int iters = 1000, batches = 5, window = 64, want[kNumTests] = {1, 1, 1, 1, 1, 1};
  int use_create = 0, factor = 2;
  for (int i = 1; i < argc; ++i) {
    const char *next = i + 1 < argc ? argv[i + 1] : NULL;
    if (!strcmp(argv[i], "-m") && next)
      max = parse_size(argv[++i]);
    else if (!strcmp(argv[i], "-n") && next)
      min = parse_size(argv[++i]);
    else if (!strcmp(argv[i], "-f") && next)
      factor = atoi(argv[++i]);
    else if (!strcmp(argv[i], "-i") && next)
      iters = atoi(argv[++i]);
    else if (!strcmp(argv[i], "-b") && next)
      batches = atoi(argv[++i]);
    else if (!strcmp(argv[i], "-w") && next)
      window = atoi(argv[++i]);
    else if (!strcmp(argv[i], "-a") && next)
      use_create = !strcmp(argv[++i], "create");
    else if (!strcmp(argv[i], "-c") && next) {
      char *list = argv[++i];
      for (int t = 0; t < kNumTests; ++t) want[t] = 0;
      for (char *tok = strtok(list, ","); tok; tok = strtok(NULL, ","))
        for (int t = 0; t < kNumTests; ++t)
          if (!strcmp(tok, kNames[t])) want[t] = 1;
    } else {
      if (rank_ == 0) fprintf(stderr, "rma_bench: bad option %s (see the comment at the top)\n", argv[i]);
      MPI_Abort(MPI_COMM_WORLD, 2);
    }
  }
  if (size_ < 2) {
    if (rank_ == 0) fprintf(stderr, "rma_bench: needs 2 ranks\n");
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  if (min < 8) min = 8;
  if (factor < 2) factor = 2;
  if (iters < 1) iters = 1000;
  if (batches < 1 || batches > 64) batches = 5;
  if (window < 1) window = 64;
  const long cap = 16L << 20; /* bytes per bandwidth flush */
  const long win_bytes = max * (long)window < cap ? max * (long)window : (cap > max ? cap : max);
  origin_ = malloc((size_t)win_bytes);
  result_ = malloc((size_t)win_bytes);
  if (!origin_ || !result_) MPI_Abort(MPI_COMM_WORLD, 3);
  memset(origin_, 1, (size_t)win_bytes);
  const MPI_Aint expose = rank_ == 1 ? (MPI_Aint)win_bytes : 0;
  char *user_mem = NULL;
  if (use_create) {
    user_mem = rank_ == 1 ? malloc((size_t)win_bytes) : NULL;
    if (rank_ == 1 && !user_mem) MPI_Abort(MPI_COMM_WORLD, 3);
    win_mem_ = user_mem;
    MPI_Win_create(win_mem_, expose, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &win_);
  } else {
    MPI_Win_allocate(expose, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &win_mem_, &win_);
  }
  if (rank_ == 0) {
    printf("# rma_bench: %d ranks (origin 0, target 1), %s window, %d batches per size, median "
           "batch; latency %d ops per batch up to 16 KiB, bandwidth %d ops per flush\n",
           size_, use_create ? "MPI_Win_create" : "MPI_Win_allocate", batches, iters, window);
    printf("# %9s %10s %10s %10s %10s %10s %10s\n", "bytes", kColumns[0], kColumns[1], kColumns[2],
           kColumns[3], kColumns[4], kColumns[5]);
    fflush(stdout);
  }
  int bad = 0;
  if (want[kFop]) bad |= verify_fop();
  for (long bytes = min; bytes <= max; bytes *= factor) {
    bad |= verify(bytes);
    int n = bytes <= 16384 ? iters : (int)((long)iters * 16384 / bytes);
    if (n < 10) n = 10;
    int w = (long)window * bytes > cap ? (int)(cap / bytes) : window;
    if (w < 1) w = 1;
    int nbw = n / w > 0 ? n / w : 1; /* flushes per bandwidth batch */
    if (nbw < 3) nbw = 3;
    double result[kNumTests];
    for (int t = 0; t < kNumTests; ++t) {
      result[t] = -1;
      if (!want[t] || (t == kFop && bytes != 8) || (t == kAcc && bytes < 8)) continue;
      double times[64];
      if (rank_ == 0) {
        batch(t, bytes, t >= kPutBw ? 1 : 2, w); /* warm-up */
        for (int b = 0; b < batches; ++b) times[b] = batch(t, bytes, t >= kPutBw ? nbw : n, w);
        qsort(times, (size_t)batches, sizeof(double), cmp_double);
        result[t] = times[batches / 2];
      }
      MPI_Barrier(MPI_COMM_WORLD);
    }
    if (rank_ == 0) {
      printf("  %9ld", bytes);
      for (int t = 0; t < kNumTests; ++t) {
        if (result[t] < 0)
          printf(" %10s", "-");
        else
          printf(" %10.2f", result[t]);
      }
      printf("\n");
      fflush(stdout);
    }
  }
  MPI_Win_free(&win_);
  free(user_mem);
  free(origin_);
  free(result_);
  MPI_Finalize();
  return bad;
}
