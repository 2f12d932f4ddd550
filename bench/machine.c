/* machine: what the hardware under bench/compare's MPI numbers can do, measured in the same
 * run. No MPI.
 *
 * Usage: machine [--test memcpy,c2c] [--sizes 64k,1m,4m,16m] [--cpus A,B] [-t SECONDS] [-b B]
 *   memcpy  single-thread memcpy bandwidth (GB/s, 10^9 bytes copied per second) from one buffer
 *           of each size to another, the thread pinned to CPU A; both buffers are touched first
 *   c2c     cache-line ping-pong between two threads pinned to CPUs A and B: each writes a
 *           counter in one shared 64-byte line and spins until the other has answered; the
 *           figure is the one-way latency (ns, half a round trip)
 *   --cpus  the two CPUs (default the first two this process may use)
 *   -t      seconds of timed work per item (default 0.2), split into the batches
 *   -b      batches per item (default 7)
 * Like p2p_bench, the work of each item is calibrated (doubled until a batch takes t/b), then
 * timed as B batches; output lines are "test bytes iters median best" after '#' comments. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* sched_getaffinity, pthread_setaffinity_np */
#endif
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

enum { kMaxBatches = 64, kMaxSizes = 32 };

static double now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static long parse_size(const char *text, char **end) {
  long v = strtol(text, end, 0);
  if (**end == 'k' || **end == 'K') v <<= 10, ++*end;
  else if (**end == 'm' || **end == 'M') v <<= 20, ++*end;
  return v;
}

static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}

static int pin(int cpu) {
  cpu_set_t set;
  CPU_ZERO(&set);
  CPU_SET(cpu, &set);
  return pthread_setaffinity_np(pthread_self(), sizeof set, &set);
}

/* Through a volatile pointer, so the compiler calls the C library's memcpy every time (the
 * copy MPI libraries make) and cannot merge or drop repeated copies. */
static void *(*volatile copy_)(void *, const void *, size_t) = memcpy;

static double time_copies(char *dst, const char *src, long bytes, long reps) {
  double t0 = now();
  for (long r = 0; r < reps; ++r) copy_(dst, src, (size_t)bytes);
  return now() - t0;
}

/* The shared cache line and the answering thread. */
static struct {
  _Alignas(64) atomic_long v;
  char pad[64 - sizeof(atomic_long)];
} line_;
static int answer_cpu_;

static void *answer(void *arg) {
  (void)arg;
  if (pin(answer_cpu_) != 0) fprintf(stderr, "machine: could not pin to CPU %d\n", answer_cpu_);
  long expect = 1;
  for (;;) {
    long v;
    while ((v = atomic_load_explicit(&line_.v, memory_order_acquire)) != expect)
      if (v < 0) return NULL;
    atomic_store_explicit(&line_.v, expect + 1, memory_order_release);
    expect += 2;
  }
}

static long next_ = 1;

static double time_round_trips(long iters) {
  double t0 = now();
  for (long i = 0; i < iters; ++i) {
    atomic_store_explicit(&line_.v, next_, memory_order_release);
    while (atomic_load_explicit(&line_.v, memory_order_acquire) != next_ + 1) {
    }
    next_ += 2;
  }
  return now() - t0;
}

/* Calibrate by doubling while the faster of two runs takes less than a batch should (these
 * runs are the warmup; taking the faster keeps one preempted run from ending it early), then
 * time the batches into secs; returns the iterations per batch. */
static long measure(double (*timed)(long, void *), void *ctx, double per_batch, int batches,
                    double *secs) {
  long iters = 1;
  for (;;) {
    double a = timed(iters, ctx), b = timed(iters, ctx);
    if ((a < b ? a : b) >= per_batch || iters >= (1L << 40)) break;
    iters *= 2;
  }
  for (int b = 0; b < batches; ++b) secs[b] = timed(iters, ctx);
  return iters;
}

struct CopyCtx {
  char *dst, *src;
  long bytes;
};
static double copy_timed(long iters, void *ctx) {
  struct CopyCtx *c = ctx;
  return time_copies(c->dst, c->src, c->bytes, iters);
}
static double c2c_timed(long iters, void *ctx) {
  (void)ctx;
  return time_round_trips(iters);
}

int main(int argc, char **argv) {
  const char *tests = "memcpy,c2c";
  long sizes[kMaxSizes] = {64L << 10, 1L << 20, 4L << 20, 16L << 20};
  int nsizes = 4, cpus[2] = {-1, -1}, batches = 7;
  double target = 0.2;
  for (int i = 1; i < argc; i += 2) {
    const char *opt = argv[i], *val = i + 1 < argc ? argv[i + 1] : NULL;
    char *end = NULL;
    int ok = val != NULL;
    if (ok && !strcmp(opt, "--test")) {
      tests = val;
    } else if (ok && !strcmp(opt, "--sizes")) {
      nsizes = 0;
      for (const char *p = val; *p && nsizes < kMaxSizes; p = *end == ',' ? end + 1 : end) {
        sizes[nsizes] = parse_size(p, &end);
        if (end == p || sizes[nsizes] < 1 || (*end && *end != ',')) {
          ok = 0;
          break;
        }
        ++nsizes;
      }
    } else if (ok && !strcmp(opt, "--cpus")) {
      ok = sscanf(val, "%d,%d", &cpus[0], &cpus[1]) == 2;
    } else if (ok && !strcmp(opt, "-t")) {
      target = atof(val);
    } else if (ok && !strcmp(opt, "-b")) {
      batches = atoi(val);
    } else {
      ok = 0;
    }
    if (!ok || target <= 0 || batches < 1 || batches > kMaxBatches) {
      fprintf(stderr, "machine: bad option %s (see the comment at the top of machine.c)\n", opt);
      return 2;
    }
  }
  cpu_set_t allowed;
  CPU_ZERO(&allowed);
  sched_getaffinity(0, sizeof allowed, &allowed);
  for (int c = 0, k = 0; c < CPU_SETSIZE && k < 2; ++c)
    if (CPU_ISSET(c, &allowed) && cpus[k] < 0 && (k == 0 || c != cpus[0])) cpus[k++] = c;
  printf("# machine: %d CPUs usable, memcpy on CPU %d, c2c between CPUs %d and %d, %d batches of "
         "%.3g s per item\n", CPU_COUNT(&allowed), cpus[0], cpus[0], cpus[1], batches, target);
  printf("# %-6s %10s %12s %10s %10s   (memcpy GB/s, c2c ns one-way; median and best batch)\n",
         "test", "bytes", "iters", "median", "best");
  fflush(stdout);
  if (cpus[0] < 0 || pin(cpus[0]) != 0) fprintf(stderr, "machine: could not pin to CPU %d\n", cpus[0]);
  double secs[kMaxBatches];
  if (strstr(tests, "memcpy")) {
    long max = 0;
    for (int s = 0; s < nsizes; ++s) max = sizes[s] > max ? sizes[s] : max;
    struct CopyCtx c = {malloc((size_t)max), malloc((size_t)max), 0};
    if (!c.dst || !c.src) return 3;
    memset(c.src, 3, (size_t)max);
    memset(c.dst, 0, (size_t)max);
    for (int s = 0; s < nsizes; ++s) {
      c.bytes = sizes[s];
      long iters = measure(copy_timed, &c, target / batches, batches, secs);
      qsort(secs, (size_t)batches, sizeof(double), cmp_double);
      const double gb = (double)c.bytes * (double)iters / 1e9;
      printf("  %-6s %10ld %12ld %10.2f %10.2f\n", "memcpy", c.bytes, iters,
             gb / secs[batches / 2], gb / secs[0]);
      fflush(stdout);
    }
    if (c.dst[max - 1] != 3) fprintf(stderr, "machine: memcpy copied wrong data\n");
    free(c.dst);
    free(c.src);
  }
  if (strstr(tests, "c2c")) {
    if (cpus[1] < 0) {
      fprintf(stderr, "machine: c2c needs two CPUs, this process may use one\n");
      return 1;
    }
    pthread_t peer;
    answer_cpu_ = cpus[1];
    atomic_store(&line_.v, 0);
    if (pthread_create(&peer, NULL, answer, NULL) != 0) return 3;
    long iters = measure(c2c_timed, NULL, target / batches, batches, secs);
    atomic_store(&line_.v, -1);
    pthread_join(peer, NULL);
    qsort(secs, (size_t)batches, sizeof(double), cmp_double);
    printf("  %-6s %10d %12ld %10.1f %10.1f\n", "c2c", 64, iters,
           secs[batches / 2] / (double)iters / 2 * 1e9, secs[0] / (double)iters / 2 * 1e9);
  }
  return 0;
}
