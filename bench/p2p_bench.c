/* p2p_bench: point-to-point latency, bandwidth, bidirectional bandwidth and message rate
 * between ranks 0 and 1. Plain MPI (no MPR extensions), so the same source builds with any
 * MPI's mpicc; bench/compare runs it under MPR, Open MPI and MPICH.
 *
 * Usage: p2p_bench --test lat|bw|bibw|rate|where [options]
 *   --test T     lat   ping-pong with MPI_Send/MPI_Recv; time is half the round trip (us)
 *                bw    rank 0 posts a window of MPI_Isend, rank 1 a window of MPI_Irecv, both
 *                      MPI_Waitall, then rank 1 sends a 4-byte ack; MB/s (10^6 bytes/s)
 *                bibw  both ranks post a window of MPI_Irecv and a window of MPI_Isend, then
 *                      MPI_Waitall; MB/s counting both directions
 *                rate  the bw pattern, reported in messages per second
 *                where every rank prints the CPUs it may run on, then exits
 *   -n BYTES     smallest size (default 1, 8 for rate); k/m suffixes
 *   -m BYTES     largest size (default 4m for lat, 16m for bw/bibw, 8 for rate)
 *   -f F         factor between sizes (default 2)
 *   -w W         window: messages in flight per iteration in bw/bibw/rate (default 64)
 *   -t SECONDS   timed work per size (default 0.2), split into the batches
 *   -b B         batches per size (default 7)
 *
 * Every size is checked first (one message each way, every byte compared), then warmed up
 * while the iteration count is calibrated (doubled until a batch takes t/b seconds), then
 * timed as B batches of that many iterations. Each batch gives one figure on rank 0; the output
 * line carries the median batch and the best one. Bandwidth and rate tests reuse one send and
 * one receive buffer for the whole window, as the usual MPI benchmark suites do. Ranks other
 * than 0 and 1 (if any) only take part in the barriers.
 *
 * Output: '#' comment lines, then per size "test bytes iters median best" with the unit in
 * the header comment (us, MB/s or msg/s). A wrong message is reported on stderr and the exit
 * status is 1. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* sched_getaffinity, pthread_setaffinity_np */
#endif
#include <mpi.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum Test { kLat, kBw, kBibw, kRate, kWhere };
static const char *const kTestNames[] = {"lat", "bw", "bibw", "rate", "where"};
static const char *const kUnits[] = {"us", "MB/s", "MB/s", "msg/s", ""};

enum { kTagData = 1, kTagAck = 2, kTagCheck = 3, kMaxWindow = 1024, kMaxBatches = 64 };

static int rank_, size_;
static char *sbuf_, *rbuf_;
static MPI_Request reqs_[2 * kMaxWindow];
/* MPI_STATUSES_IGNORE through a variable: MPICH defines it as (MPI_Status *)1, which gcc 12's
 * -Wstringop-overflow takes for a zero-sized array when it sees the constant at the call. */
static MPI_Status *volatile no_statuses_;

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

/* One message each way with a known pattern; returns the number of wrong bytes seen here. */
static long check_size(long bytes) {
  long wrong = 0;
  if (rank_ > 1) return 0;
  const int peer = 1 - rank_;
  for (long i = 0; i < bytes; ++i) sbuf_[i] = (char)(rank_ * 31 + i * 7 + bytes);
  memset(rbuf_, 0, (size_t)bytes);
  if (rank_ == 0) {
    MPI_Send(sbuf_, (int)bytes, MPI_CHAR, peer, kTagCheck, MPI_COMM_WORLD);
    MPI_Recv(rbuf_, (int)bytes, MPI_CHAR, peer, kTagCheck, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  } else {
    MPI_Recv(rbuf_, (int)bytes, MPI_CHAR, peer, kTagCheck, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Send(sbuf_, (int)bytes, MPI_CHAR, peer, kTagCheck, MPI_COMM_WORLD);
  }
  for (long i = 0; i < bytes; ++i)
    if (rbuf_[i] != (char)(peer * 31 + i * 7 + bytes)) ++wrong;
  return wrong;
}

/* Runs `iters` iterations of the test; returns rank 0's elapsed seconds (0 elsewhere). */
static double run(int test, long bytes, int iters, int window) {
  const int n = (int)bytes;
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank_ > 1) return 0;
  const double t0 = MPI_Wtime();
  if (test == kLat) {
    if (rank_ == 0) {
      for (int i = 0; i < iters; ++i) {
        MPI_Send(sbuf_, n, MPI_CHAR, 1, kTagData, MPI_COMM_WORLD);
        MPI_Recv(rbuf_, n, MPI_CHAR, 1, kTagData, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      }
    } else {
      for (int i = 0; i < iters; ++i) {
        MPI_Recv(rbuf_, n, MPI_CHAR, 0, kTagData, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        MPI_Send(sbuf_, n, MPI_CHAR, 0, kTagData, MPI_COMM_WORLD);
      }
    }
  } else if (test == kBw || test == kRate) {
    if (rank_ == 0) {
      for (int i = 0; i < iters; ++i) {
        for (int w = 0; w < window; ++w)
          MPI_Isend(sbuf_, n, MPI_CHAR, 1, kTagData, MPI_COMM_WORLD, &reqs_[w]);
        MPI_Waitall(window, reqs_, no_statuses_);
        MPI_Recv(rbuf_, 4, MPI_CHAR, 1, kTagAck, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      }
    } else {
      for (int i = 0; i < iters; ++i) {
        for (int w = 0; w < window; ++w)
          MPI_Irecv(rbuf_, n, MPI_CHAR, 0, kTagData, MPI_COMM_WORLD, &reqs_[w]);
        MPI_Waitall(window, reqs_, no_statuses_);
        MPI_Send(sbuf_, 4, MPI_CHAR, 0, kTagAck, MPI_COMM_WORLD);
      }
    }
  } else { /* kBibw */
    const int peer = 1 - rank_;
    for (int i = 0; i < iters; ++i) {
      for (int w = 0; w < window; ++w)
        MPI_Irecv(rbuf_, n, MPI_CHAR, peer, kTagData, MPI_COMM_WORLD, &reqs_[w]);
      for (int w = 0; w < window; ++w)
        MPI_Isend(sbuf_, n, MPI_CHAR, peer, kTagData, MPI_COMM_WORLD, &reqs_[window + w]);
      MPI_Waitall(2 * window, reqs_, no_statuses_);
    }
  }
  return MPI_Wtime() - t0;
}

/* The figure one batch stands for, in the test's unit. */
static double figure(int test, long bytes, int iters, int window, double secs) {
  switch (test) {
    case kLat:
      return secs / iters / 2 * 1e6;
    case kBw:
      return (double)bytes * window * iters / secs / 1e6;
    case kBibw:
      return 2.0 * (double)bytes * window * iters / secs / 1e6;
    default:
      return (double)window * iters / secs;
  }
}

static void print_where(void) {
  cpu_set_t set;
  char line[512] = "";
  int len = 0;
  CPU_ZERO(&set);
  if (sched_getaffinity(0, sizeof set, &set) != 0) {
    snprintf(line, sizeof line, "unknown");
  } else {
    for (int c = 0; c < CPU_SETSIZE && len < (int)sizeof line - 8; ++c)
      if (CPU_ISSET(c, &set)) len += snprintf(line + len, sizeof line - (size_t)len, "%s%d", len ? "," : "", c);
  }
  char *all = rank_ == 0 ? malloc(sizeof line * (size_t)size_) : NULL;
  MPI_Gather(line, (int)sizeof line, MPI_CHAR, all, (int)sizeof line, MPI_CHAR, 0, MPI_COMM_WORLD);
  if (rank_ == 0) {
    for (int r = 0; r < size_; ++r) printf("rank %d cpus %s\n", r, all + (size_t)r * sizeof line);
    free(all);
  }
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank_);
  MPI_Comm_size(MPI_COMM_WORLD, &size_);
  no_statuses_ = MPI_STATUSES_IGNORE;
  int test = -1, window = 64, batches = 7;
  long min = -1, max = -1;
  double factor = 2, target = 0.2;
  for (int i = 1; i < argc; ++i) {
    const char *opt = argv[i], *val = i + 1 < argc ? argv[i + 1] : NULL;
    int ok = val != NULL;
    if (ok && !strcmp(opt, "--test")) {
      for (int t = 0; t <= kWhere; ++t)
        if (!strcmp(val, kTestNames[t])) test = t;
      ok = test >= 0;
    } else if (ok && !strcmp(opt, "-n")) {
      min = parse_size(val);
    } else if (ok && !strcmp(opt, "-m")) {
      max = parse_size(val);
    } else if (ok && !strcmp(opt, "-f")) {
      factor = atof(val);
    } else if (ok && !strcmp(opt, "-w")) {
      window = atoi(val);
    } else if (ok && !strcmp(opt, "-t")) {
      target = atof(val);
    } else if (ok && !strcmp(opt, "-b")) {
      batches = atoi(val);
    } else {
      ok = 0;
    }
    if (!ok) {
      if (rank_ == 0)
        fprintf(stderr, "p2p_bench: bad option %s%s%s (see the comment at the top of p2p_bench.c)\n",
                opt, val ? " " : "", val ? val : "");
      MPI_Abort(MPI_COMM_WORLD, 2);
    }
    ++i;
  }
  if (test == kWhere) {
    print_where();
    MPI_Finalize();
    return 0;
  }
  if (min < 0) min = test == kRate ? 8 : 1;
  if (test < 0 || size_ < 2 || min < 1 || factor <= 1 || window < 1 || window > kMaxWindow ||
      batches < 1 || batches > kMaxBatches || target <= 0) {
    if (rank_ == 0)
      fprintf(stderr, "p2p_bench: needs --test lat|bw|bibw|rate|where, 2 or more ranks, -n >= 1, "
                      "-f > 1, 1 <= -w <= %d, 1 <= -b <= %d, -t > 0\n", kMaxWindow, kMaxBatches);
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  if (max < 0) max = test == kLat ? 4L << 20 : test == kRate ? 8 : 16L << 20;
  if (max > (1L << 30)) max = 1L << 30;
  sbuf_ = malloc((size_t)max + 64);
  rbuf_ = malloc((size_t)max + 64);
  if (!sbuf_ || !rbuf_) MPI_Abort(MPI_COMM_WORLD, 3);
  memset(sbuf_, 1, (size_t)max + 64);
  memset(rbuf_, 0, (size_t)max + 64);
  if (rank_ == 0) {
    printf("# p2p_bench --test %s: ranks 0 and 1 of %d, window %d, %d batches of %.3g s per size\n",
           kTestNames[test], size_, test == kLat ? 1 : window, batches, target);
    printf("# %-5s %10s %8s %14s %14s   (%s, median and best batch)\n", "test", "bytes", "iters",
           "median", "best", kUnits[test]);
    fflush(stdout);
  }
  int bad = 0;
  long last = 0;
  for (double d = (double)min; d <= (double)max * 1.0000001; d *= factor) {
    const long bytes = (long)(d + 0.5);
    if (bytes == last) continue;
    last = bytes;
    long wrong = check_size(bytes), any_wrong = 0;
    MPI_Allreduce(&wrong, &any_wrong, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
    if (any_wrong) {
      if (rank_ == 0) fprintf(stderr, "p2p_bench: %ld bytes: %ld wrong bytes received\n", bytes, any_wrong);
      bad = 1;
    }
    /* Calibrate (these runs are the warmup): double the iterations until the faster of two
     * runs takes at least target / batches on rank 0, which decides for everyone (the faster,
     * so that one run slowed down by other work on the machine does not end it early). */
    int iters = 1;
    for (;;) {
      double t = run(test, bytes, iters, window), t2 = run(test, bytes, iters, window);
      if (t2 < t) t = t2;
      int next = rank_ == 0 && t < target / batches && iters < (1 << 22) ? 2 * iters : 0;
      MPI_Bcast(&next, 1, MPI_INT, 0, MPI_COMM_WORLD);
      if (!next) break;
      iters = next;
    }
    double figs[kMaxBatches];
    for (int b = 0; b < batches; ++b) {
      double t = run(test, bytes, iters, window);
      figs[b] = rank_ == 0 ? figure(test, bytes, iters, window, t) : 0;
    }
    if (rank_ == 0) {
      qsort(figs, (size_t)batches, sizeof(double), cmp_double);
      const double best = test == kLat ? figs[0] : figs[batches - 1];
      printf("  %-5s %10ld %8d %14.3f %14.3f\n", kTestNames[test], bytes, iters, figs[batches / 2], best);
      fflush(stdout);
    }
  }
  free(sbuf_);
  free(rbuf_);
  MPI_Finalize();
  return bad;
}
