/* thread_rate: message rate between ranks 0 and 1 with several thread pairs at
 * MPI_THREAD_MULTIPLE (the pattern of OSU's osu_mbw_mr, with threads instead of rank pairs).
 * Plain MPI, so the same source builds with any MPI's mpicc.
 *
 * Usage: thread_rate [-T threads] [-s bytes] [-w window] [-i iterations] [-b batches] [-c]
 *   -T N   thread pairs (default 1): thread t of rank 0 sends to thread t of rank 1
 *   -s B   message size (default 8)
 *   -w W   window: rank 0's thread posts W MPI_Isend, rank 1's W MPI_Irecv, both MPI_Waitall,
 *          then rank 1's thread answers with a 4-byte ack (default 64)
 *   -i N   windows per batch per thread (default 2000)
 *   -b B   batches (default 7); each gives one rate, the median is reported
 *   -c     all pairs on MPI_COMM_WORLD, told apart by tag; by default each pair has its own
 *          communicator (MPI_Comm_dup), as threaded applications usually do
 *   -L     request MPI_THREAD_SINGLE instead and run one pair on the main thread (the
 *          single-threaded baseline of the same loop)
 *
 * Every batch starts all threads at a barrier of the process and one of the job; its rate is
 * all pairs' messages over the time from the start to the slowest thread's end, measured on
 * rank 0. Output: "threads bytes median_msg_per_s best_msg_per_s". Every message of the
 * first window of each batch is checked; a wrong one is reported and the exit status is 1. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <mpi.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { kMaxThreads = 16, kMaxWindow = 256, kMaxBatches = 64, kTagAck = 1000 };

static int rank_, threads_ = 1, size_bytes_ = 8, window_ = 64, iters_ = 2000, batches_ = 7;
static int use_world_, single_;
static MPI_Comm comms_[kMaxThreads];
static pthread_barrier_t start_, end_;
static int failed_;
/* MPI_STATUSES_IGNORE through a variable: MPICH defines it as (MPI_Status *)1, which gcc 12's
 * -Wstringop-overflow takes for a zero-sized array when it sees the constant at the call. */
static MPI_Status* volatile no_statuses_;

static int cmp_double(const void* a, const void* b) {
  double x = *(const double*)a, y = *(const double*)b;
  return x < y ? -1 : x > y;
}

static void run_pair(int t, int check) {
  MPI_Comm comm = use_world_ ? MPI_COMM_WORLD : comms_[t];
  const int tag = use_world_ ? t : 0;
  static __thread char sbuf[kMaxWindow][64], rbuf[kMaxWindow][64];
  MPI_Request reqs[kMaxWindow];
  int ack = 0;
  for (int i = 0; i < iters_; ++i) {
    if (rank_ == 0) {
      if (check && i == 0)
        for (int k = 0; k < window_; ++k) memset(sbuf[k], (t * 31 + k) & 0x7f, size_bytes_);
      for (int k = 0; k < window_; ++k)
        MPI_Isend(sbuf[k], size_bytes_, MPI_CHAR, 1, tag, comm, &reqs[k]);
      MPI_Waitall(window_, reqs, no_statuses_);
      MPI_Recv(&ack, 1, MPI_INT, 1, kTagAck + t, comm, MPI_STATUS_IGNORE);
    } else {
      for (int k = 0; k < window_; ++k)
        MPI_Irecv(rbuf[k], size_bytes_, MPI_CHAR, 0, tag, comm, &reqs[k]);
      MPI_Waitall(window_, reqs, no_statuses_);
      if (check && i == 0)
        for (int k = 0; k < window_; ++k)
          for (int b = 0; b < size_bytes_; ++b)
            if (rbuf[k][b] != (char)((t * 31 + k) & 0x7f)) {
              fprintf(stderr, "thread_rate: pair %d message %d byte %d wrong\n", t, k, b);
              __atomic_store_n(&failed_, 1, __ATOMIC_RELAXED);
              break;
            }
      MPI_Send(&ack, 1, MPI_INT, 0, kTagAck + t, comm);
    }
  }
}

static double batch_start_, batch_end_[kMaxThreads];

static void* thread_main(void* arg) {
  const int t = (int)(long)arg;
  for (int b = -1; b < batches_; ++b) { /* batch -1 warms up */
    pthread_barrier_wait(&start_);     /* the main thread passed the job's barrier */
    run_pair(t, 1);
    batch_end_[t] = MPI_Wtime();
    pthread_barrier_wait(&end_);
  }
  return NULL;
}

int main(int argc, char** argv) {
  for (int i = 1; i < argc; ++i) {
    const char* a = argv[i];
    if (!strcmp(a, "-c")) use_world_ = 1;
    else if (!strcmp(a, "-L")) single_ = 1;
    else if (i + 1 < argc && !strcmp(a, "-T")) threads_ = atoi(argv[++i]);
    else if (i + 1 < argc && !strcmp(a, "-s")) size_bytes_ = atoi(argv[++i]);
    else if (i + 1 < argc && !strcmp(a, "-w")) window_ = atoi(argv[++i]);
    else if (i + 1 < argc && !strcmp(a, "-i")) iters_ = atoi(argv[++i]);
    else if (i + 1 < argc && !strcmp(a, "-b")) batches_ = atoi(argv[++i]);
    else {
      fprintf(stderr, "thread_rate: unknown argument '%s'\n", a);
      return 2;
    }
  }
  if (threads_ < 1 || threads_ > kMaxThreads || window_ < 1 || window_ > kMaxWindow ||
      size_bytes_ < 1 || size_bytes_ > 64 || batches_ < 1 || batches_ > kMaxBatches ||
      (single_ && threads_ != 1)) {
    fprintf(stderr, "thread_rate: -T 1..%d (1 with -L), -w 1..%d, -s 1..64, -b 1..%d\n",
            kMaxThreads, kMaxWindow, kMaxBatches);
    return 2;
  }
  int provided = -1;
  no_statuses_ = MPI_STATUSES_IGNORE;
  MPI_Init_thread(&argc, &argv, single_ ? MPI_THREAD_SINGLE : MPI_THREAD_MULTIPLE, &provided);
  int size = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank_);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (size != 2 || (!single_ && provided != MPI_THREAD_MULTIPLE)) {
    if (rank_ == 0)
      fprintf(stderr, "thread_rate: needs 2 ranks and MPI_THREAD_MULTIPLE (provided %d)\n",
              provided);
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  for (int t = 0; t < threads_; ++t) MPI_Comm_dup(MPI_COMM_WORLD, &comms_[t]);
  double rates[kMaxBatches];
  if (single_) {
    run_pair(0, 1); /* warm-up */
    for (int b = 0; b < batches_; ++b) {
      MPI_Barrier(MPI_COMM_WORLD);
      const double t0 = MPI_Wtime();
      run_pair(0, b == 0);
      rates[b] = (double)iters_ * window_ / (MPI_Wtime() - t0);
    }
  } else {
    pthread_barrier_init(&start_, NULL, (unsigned)threads_ + 1);
    pthread_barrier_init(&end_, NULL, (unsigned)threads_ + 1);
    pthread_t th[kMaxThreads];
    for (long t = 0; t < threads_; ++t) pthread_create(&th[t], NULL, thread_main, (void*)t);
    for (int b = -1; b < batches_; ++b) {
      MPI_Barrier(MPI_COMM_WORLD);
      batch_start_ = MPI_Wtime();
      pthread_barrier_wait(&start_);
      pthread_barrier_wait(&end_);
      double last = batch_start_;
      for (int t = 0; t < threads_; ++t)
        if (batch_end_[t] > last) last = batch_end_[t];
      if (b >= 0) rates[b] = (double)iters_ * window_ * threads_ / (last - batch_start_);
    }
    for (int t = 0; t < threads_; ++t) pthread_join(th[t], NULL);
  }
  int failed = failed_, any_failed = 0;
  MPI_Allreduce(&failed, &any_failed, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  if (rank_ == 0) {
    qsort(rates, (size_t)batches_, sizeof rates[0], cmp_double);
    printf("# thread_rate: %d pair(s), %d B, window %d, %s, %s\n", threads_, size_bytes_, window_,
           use_world_ ? "MPI_COMM_WORLD" : "a communicator per pair",
           single_ ? "MPI_THREAD_SINGLE" : "MPI_THREAD_MULTIPLE");
    printf("%d %d %.0f %.0f\n", threads_, size_bytes_, rates[batches_ / 2], rates[batches_ - 1]);
  }
  for (int t = 0; t < threads_; ++t) MPI_Comm_free(&comms_[t]);
  MPI_Finalize();
  return any_failed;
}
