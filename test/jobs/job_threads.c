/* MPI_THREAD_MULTIPLE: several threads per rank call MPI at once. Each part starts T threads
 * (argument 1, default 4) that run the same function with their own index, then joins them
 * and checks what they saw:
 *   tagged     each thread sends to rank+1 and receives from rank-1 on its own tag; messages
 *              of one (source, tag) arrive in the order they were sent
 *   wildcard   every thread receives with MPI_ANY_SOURCE/MPI_ANY_TAG from one stream: every
 *              message is taken exactly once, and each thread sees each sender's tag in order
 *   probe      Iprobe+Recv on a thread's own tag, and Mprobe/Improbe+Mrecv/Imrecv racing on
 *              shared tags: a probed message goes to its prober, every message exactly once
 *   comms      each thread duplicates, uses (allreduce, bcast, barrier) and frees its own
 *              communicators, while the others do the same
 *   rma        threads put, accumulate and fetch-and-op into one window during lock_all
 *   bsend      threads Bsend through one attached buffer
 *   handoff    a request posted by one thread is completed by another, and a generalized
 *              request completed by a thread while the main thread waits in MPI_Wait
 * At least 2 ranks. */
#include <pthread.h>

#include "jobs_util.h"

enum { kMaxThreads = 16, kMsgs = 60 };

static int rank_, size_, next_, prev_, nthreads_ = 4;
static MPI_Comm world_;

typedef void* (*ThreadFn)(void*);

static void run_threads(ThreadFn fn) {
  pthread_t th[kMaxThreads];
  for (long t = 0; t < nthreads_; ++t) CHECK_INT(pthread_create(&th[t], NULL, fn, (void*)t), ==, 0);
  for (int t = 0; t < nthreads_; ++t) CHECK_INT(pthread_join(th[t], NULL), ==, 0);
  CHECK_MPI(MPI_Barrier(world_));
}

/* Message sizes: eager, at the eager limit, rendezvous. */
static size_t size_of(int seq) {
  static const size_t sizes[] = {8, 0, 4000, 70000, 16, 300000};
  return sizes[seq % 6];
}

static uint64_t seed_of(int src, int thread, int seq) {
  return (uint64_t)src * 1000003u + (uint64_t)thread * 1009u + (uint64_t)seq;
}

/* ---- tagged: per-thread streams between neighbours -------------------------------------- */

static void* tagged(void* arg) {
  const int t = (int)(long)arg;
  unsigned char *sbuf = jobs_malloc(300000), *rbuf = jobs_malloc(300000);
  for (int seq = 0; seq < kMsgs; ++seq) {
    const size_t n = size_of(seq);
    jobs_fill(sbuf, n, seed_of(rank_, t, seq));
    MPI_Request r[2];
    MPI_Status st;
    if (seq % 3 == 0) {
      CHECK_MPI(MPI_Isend(sbuf, (int)n, MPI_BYTE, next_, t, world_, &r[0]));
      CHECK_MPI(MPI_Recv(rbuf, 300000, MPI_BYTE, prev_, t, world_, &st));
      CHECK_MPI(MPI_Wait(&r[0], MPI_STATUS_IGNORE));
    } else {
      CHECK_MPI(MPI_Irecv(rbuf, 300000, MPI_BYTE, prev_, t, world_, &r[0]));
      if (seq % 3 == 1)
        CHECK_MPI(MPI_Isend(sbuf, (int)n, MPI_BYTE, next_, t, world_, &r[1]));
      else
        CHECK_MPI(MPI_Issend(sbuf, (int)n, MPI_BYTE, next_, t, world_, &r[1]));
      MPI_Status sts[2];
      CHECK_MPI(MPI_Waitall(2, r, sts));
      st = sts[0];
    }
    int count = -1;
    MPI_Get_count(&st, MPI_BYTE, &count);
    CHECK_MSG(count == (int)n && st.MPI_TAG == t && st.MPI_SOURCE == prev_,
              "thread %d message %d: %d bytes tag %d from %d, expected %zu bytes tag %d from %d", t,
              seq, count, st.MPI_TAG, st.MPI_SOURCE, n, t, prev_);
    char what[64];
    snprintf(what, sizeof what, "thread %d message %d", t, seq);
    CHECK_PATTERN(rbuf, n, seed_of(prev_, t, seq), what);
  }
  free(sbuf);
  free(rbuf);
  return NULL;
}

/* ---- wildcard: one stream, taken by racing any-source/any-tag receives ------------------ */

/* The message's first word names it: sender thread * kMsgs + seq. */
static pthread_mutex_t seen_lock_ = PTHREAD_MUTEX_INITIALIZER;
static int seen_[kMaxThreads * kMsgs];

static void* wildcard_send(void* arg) {
  const int t = (int)(long)arg;
  int buf[64];
  for (int seq = 0; seq < kMsgs; ++seq) {
    buf[0] = t * kMsgs + seq;
    const int n = 1 + seq % 64;
    for (int i = 1; i < n; ++i) buf[i] = buf[0] * 7 + i;
    CHECK_MPI(MPI_Send(buf, n, MPI_INT, next_, t, world_));
  }
  return NULL;
}

static void* wildcard_recv(void* arg) {
  (void)arg;
  int last_seq[kMaxThreads];
  for (int i = 0; i < kMaxThreads; ++i) last_seq[i] = -1;
  int buf[64];
  for (int k = 0; k < kMsgs; ++k) {
    MPI_Status st;
    CHECK_MPI(MPI_Recv(buf, 64, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, world_, &st));
    int n = -1;
    MPI_Get_count(&st, MPI_INT, &n);
    const int from_thread = buf[0] / kMsgs, seq = buf[0] % kMsgs;
    CHECK_MSG(st.MPI_SOURCE == prev_ && st.MPI_TAG == from_thread && n == 1 + seq % 64,
              "message %d: source %d tag %d count %d", buf[0], st.MPI_SOURCE, st.MPI_TAG, n);
    for (int i = 1; i < n; ++i) CHECK_INT(buf[i], ==, buf[0] * 7 + i);
    /* The stream of one tag is matched in send order; this thread's receives are a
     * subsequence of it. */
    CHECK_MSG(seq > last_seq[from_thread], "tag %d: message %d after %d", from_thread, seq,
              last_seq[from_thread]);
    last_seq[from_thread] = seq;
    pthread_mutex_lock(&seen_lock_);
    ++seen_[buf[0]];
    pthread_mutex_unlock(&seen_lock_);
  }
  return NULL;
}

static void run_wildcard(void) {
  memset(seen_, 0, sizeof seen_);
  pthread_t th[2 * kMaxThreads];
  for (long t = 0; t < nthreads_; ++t) {
    CHECK_INT(pthread_create(&th[2 * t], NULL, wildcard_send, (void*)t), ==, 0);
    CHECK_INT(pthread_create(&th[2 * t + 1], NULL, wildcard_recv, NULL), ==, 0);
  }
  for (int t = 0; t < 2 * nthreads_; ++t) CHECK_INT(pthread_join(th[t], NULL), ==, 0);
  for (int i = 0; i < nthreads_ * kMsgs; ++i)
    CHECK_MSG(seen_[i] == 1, "message %d (thread %d, seq %d) received %d times", i, i / kMsgs,
              i % kMsgs, seen_[i]);
  CHECK_MPI(MPI_Barrier(world_));
}

/* ---- probe: own-tag Iprobe+Recv, and matched probes racing on shared tags ---------------- */

static void* probe_own_tag(void* arg) {
  const int t = (int)(long)arg;
  unsigned char *sbuf = jobs_malloc(300000), *rbuf = jobs_malloc(300000);
  for (int seq = 0; seq < kMsgs / 2; ++seq) {
    const size_t n = size_of(seq);
    MPI_Request r;
    jobs_fill(sbuf, n, seed_of(rank_, t, seq));
    CHECK_MPI(MPI_Isend(sbuf, (int)n, MPI_BYTE, next_, 100 + t, world_, &r));
    int flag = 0;
    MPI_Status st;
    while (!flag) CHECK_MPI(MPI_Iprobe(MPI_ANY_SOURCE, 100 + t, world_, &flag, &st));
    int count = -1;
    MPI_Get_count(&st, MPI_BYTE, &count);
    CHECK_MSG(count == (int)n && st.MPI_SOURCE == prev_, "probe: %d bytes from %d", count,
              st.MPI_SOURCE);
    CHECK_MPI(MPI_Recv(rbuf, count, MPI_BYTE, st.MPI_SOURCE, 100 + t, world_, MPI_STATUS_IGNORE));
    CHECK_PATTERN(rbuf, n, seed_of(prev_, t, seq), "Iprobe+Recv");
    CHECK_MPI(MPI_Wait(&r, MPI_STATUS_IGNORE));
  }
  free(sbuf);
  free(rbuf);
  return NULL;
}

/* Every thread sends kMsgs messages on tag 200 + t % 2 and takes kMsgs messages of that tag
 * with matched probes, alternating Mprobe+Mrecv and Improbe+Imrecv. */
static void* probe_matched(void* arg) {
  const int t = (int)(long)arg;
  MPI_Request sreq[kMsgs];
  int sbuf[kMsgs][2];
  for (int seq = 0; seq < kMsgs; ++seq) {
    sbuf[seq][0] = t * kMsgs + seq;
    sbuf[seq][1] = ~sbuf[seq][0];
    CHECK_MPI(MPI_Isend(sbuf[seq], 1 + seq % 2, MPI_INT, next_, 200 + t % 2, world_, &sreq[seq]));
  }
  for (int k = 0; k < kMsgs; ++k) {
    MPI_Message msg = MPI_MESSAGE_NULL;
    MPI_Status st;
    /* A thread takes as many messages of its tag as it sent on it (ranks send alike), so
     * every probe is answered; threads t and t + 2 race for the same messages. */
    const int tag = 200 + t % 2;
    if (k % 2 == 0) {
      CHECK_MPI(MPI_Mprobe(k % 3 ? MPI_ANY_SOURCE : prev_, tag, world_, &msg, &st));
    } else {
      int flag = 0;
      while (!flag) CHECK_MPI(MPI_Improbe(prev_, tag, world_, &flag, &msg, &st));
    }
    int n = -1, buf[2] = {-1, -1};
    MPI_Get_count(&st, MPI_INT, &n);
    MPI_Status rst;
    if (k % 4 < 2) {
      CHECK_MPI(MPI_Mrecv(buf, n, MPI_INT, &msg, &rst));
    } else {
      MPI_Request r;
      CHECK_MPI(MPI_Imrecv(buf, n, MPI_INT, &msg, &r));
      CHECK_MPI(MPI_Wait(&r, &rst));
    }
    CHECK(msg == MPI_MESSAGE_NULL);
    int rn = -1;
    MPI_Get_count(&rst, MPI_INT, &rn);
    const int id = buf[0];
    CHECK_MSG(rn == n && id >= 0 && id < nthreads_ * kMsgs && n == 1 + (id % kMsgs) % 2 &&
                  rst.MPI_TAG == st.MPI_TAG && rst.MPI_TAG == 200 + (id / kMsgs) % 2,
              "matched probe: %d ints (probed %d), id %d, tag %d (probed %d)", rn, n, id,
              rst.MPI_TAG, st.MPI_TAG);
    if (n == 2) CHECK_INT(buf[1], ==, ~id);
    pthread_mutex_lock(&seen_lock_);
    ++seen_[id];
    pthread_mutex_unlock(&seen_lock_);
  }
  CHECK_MPI(MPI_Waitall(kMsgs, sreq, MPI_STATUSES_IGNORE));
  return NULL;
}

/* ---- comms: concurrent creation, collectives and freeing --------------------------------- */

static MPI_Comm thread_comm_[kMaxThreads];

static void* comms(void* arg) {
  const int t = (int)(long)arg;
  for (int round = 0; round < 8; ++round) {
    MPI_Comm d;
    CHECK_MPI(MPI_Comm_dup(thread_comm_[t], &d));
    long in = rank_ + 1 + t * 100 + round, out = 0;
    CHECK_MPI(MPI_Allreduce(&in, &out, 1, MPI_LONG, MPI_SUM, d));
    CHECK_INT(out, ==, (long)size_ * (size_ + 1) / 2 + (long)size_ * (t * 100 + round));
    int root = round % size_, v = rank_ == root ? t * 1000 + round : -1;
    CHECK_MPI(MPI_Bcast(&v, 1, MPI_INT, root, d));
    CHECK_INT(v, ==, t * 1000 + round);
    MPI_Comm half;
    CHECK_MPI(MPI_Comm_split(d, rank_ % 2, -rank_, &half));
    int hr = -1, hs = 0;
    MPI_Comm_rank(half, &hr);
    MPI_Comm_size(half, &hs);
    CHECK_INT(hs, ==, (size_ + 1 - rank_ % 2) / 2);
    CHECK_MPI(MPI_Barrier(half));
    MPI_Request r;
    CHECK_MPI(MPI_Ibarrier(d, &r));
    CHECK_MPI(MPI_Wait(&r, MPI_STATUS_IGNORE));
    CHECK_MPI(MPI_Comm_free(&half));
    CHECK_MPI(MPI_Comm_free(&d));
  }
  return NULL;
}

/* ---- rma: one window, threads putting and accumulating during lock_all ------------------- */

static long* win_mem_;
static MPI_Win win_;
/* Layout per rank: [0, kMaxThreads * kMsgs) put slots, then one counter, then one sum. */
enum { kCounter = kMaxThreads * kMsgs, kSum = kCounter + 1, kWinLongs = kSum + 1 };
static long fetched_[kMaxThreads][kMsgs];

static void* rma(void* arg) {
  const int t = (int)(long)arg;
  for (int seq = 0; seq < kMsgs; ++seq) {
    long v = seed_of(rank_, t, seq), one = 1;
    CHECK_MPI(MPI_Put(&v, 1, MPI_LONG, next_, t * kMsgs + seq, 1, MPI_LONG, win_));
    CHECK_MPI(MPI_Accumulate(&one, 1, MPI_LONG, next_, kSum, 1, MPI_LONG, MPI_SUM, win_));
    CHECK_MPI(MPI_Fetch_and_op(&one, &fetched_[t][seq], MPI_LONG, 0, kCounter, MPI_SUM, win_));
    if (seq % 8 == 7) CHECK_MPI(MPI_Win_flush(next_, win_));
  }
  CHECK_MPI(MPI_Win_flush_all(win_));
  return NULL;
}

static void run_rma(void) {
  CHECK_MPI(MPI_Win_allocate(kWinLongs * sizeof(long), sizeof(long), MPI_INFO_NULL, world_,
                             &win_mem_, &win_));
  CHECK_MPI(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, rank_, 0, win_));
  for (int i = 0; i < kWinLongs; ++i) win_mem_[i] = -1;
  win_mem_[kCounter] = win_mem_[kSum] = 0;
  CHECK_MPI(MPI_Win_unlock(rank_, win_));
  CHECK_MPI(MPI_Barrier(world_));
  CHECK_MPI(MPI_Win_lock_all(0, win_));
  run_threads(rma);
  CHECK_MPI(MPI_Win_unlock_all(win_));
  CHECK_MPI(MPI_Barrier(world_));
  CHECK_MPI(MPI_Win_lock(MPI_LOCK_SHARED, rank_, 0, win_));
  for (int t = 0; t < nthreads_; ++t)
    for (int seq = 0; seq < kMsgs; ++seq)
      CHECK_MSG(win_mem_[t * kMsgs + seq] == (long)seed_of(prev_, t, seq),
                "window slot of thread %d put %d: %ld", t, seq, win_mem_[t * kMsgs + seq]);
  CHECK_INT(win_mem_[kSum], ==, (long)nthreads_ * kMsgs);
  if (rank_ == 0) CHECK_INT(win_mem_[kCounter], ==, (long)size_ * nthreads_ * kMsgs);
  CHECK_MPI(MPI_Win_unlock(rank_, win_));
  /* Every fetch-and-op on rank 0's counter saw a different value: gather them there. */
  const int mine = nthreads_ * kMsgs;
  long* all = rank_ == 0 ? jobs_malloc(sizeof(long) * mine * size_) : NULL;
  CHECK_MPI(MPI_Gather(fetched_, mine, MPI_LONG, all, mine, MPI_LONG, 0, world_));
  if (rank_ == 0) {
    const long total = (long)mine * size_;
    char* hit = calloc((size_t)total, 1);
    for (long i = 0; i < total; ++i) {
      CHECK_MSG(all[i] >= 0 && all[i] < total && !hit[all[i]],
                "fetch_and_op returned %ld (twice, or out of 0..%ld)", all[i], total - 1);
      hit[all[i]] = 1;
    }
    free(hit);
    free(all);
  }
  CHECK_MPI(MPI_Win_free(&win_));
}

/* ---- bsend: one attached buffer, several senders ----------------------------------------- */

static void* bsend(void* arg) {
  const int t = (int)(long)arg;
  int buf[100], in[100];
  for (int seq = 0; seq < kMsgs; ++seq) {
    for (int i = 0; i < 100; ++i) buf[i] = t * 100000 + seq * 100 + i;
    CHECK_MPI(MPI_Bsend(buf, 100, MPI_INT, next_, 300 + t, world_));
    CHECK_MPI(MPI_Recv(in, 100, MPI_INT, prev_, 300 + t, world_, MPI_STATUS_IGNORE));
    for (int i = 0; i < 100; ++i) CHECK_INT(in[i], ==, t * 100000 + seq * 100 + i);
  }
  return NULL;
}

/* ---- handoff: completion by a thread other than the poster ------------------------------- */

static MPI_Request handoff_req_[kMaxThreads];
static int handoff_buf_[kMaxThreads];
static pthread_mutex_t handoff_lock_ = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t handoff_cond_ = PTHREAD_COND_INITIALIZER;
static int handoff_posted_;

/* Thread t posts a receive for tag 400 + t, then waits for the request thread t+1 posted. */
static void* handoff(void* arg) {
  const int t = (int)(long)arg;
  CHECK_MPI(MPI_Irecv(&handoff_buf_[t], 1, MPI_INT, prev_, 400 + t, world_, &handoff_req_[t]));
  pthread_mutex_lock(&handoff_lock_);
  ++handoff_posted_;
  pthread_cond_broadcast(&handoff_cond_);
  while (handoff_posted_ < nthreads_) pthread_cond_wait(&handoff_cond_, &handoff_lock_);
  pthread_mutex_unlock(&handoff_lock_);
  const int other = (t + 1) % nthreads_;
  int v = rank_ * 1000 + other;
  CHECK_MPI(MPI_Send(&v, 1, MPI_INT, next_, 400 + other, world_));
  MPI_Status st;
  CHECK_MPI(MPI_Wait(&handoff_req_[other], &st));
  CHECK_INT(st.MPI_TAG, ==, 400 + other);
  CHECK_INT(handoff_buf_[other], ==, prev_ * 1000 + other);
  return NULL;
}

static int greq_query(void* extra, MPI_Status* st) {
  MPI_Status_set_elements(st, MPI_BYTE, *(int*)extra);
  MPI_Status_set_cancelled(st, 0);
  st->MPI_SOURCE = MPI_UNDEFINED;
  st->MPI_TAG = MPI_UNDEFINED;
  return MPI_SUCCESS;
}
static int greq_free(void* extra) {
  (void)extra;
  return MPI_SUCCESS;
}
static int greq_cancel(void* extra, int complete) {
  (void)extra;
  (void)complete;
  return MPI_SUCCESS;
}

static MPI_Request greq_;
static int greq_bytes_;
static void* greq_completer(void* arg) {
  (void)arg;
  jobs_sleep_ms(20); /* the main thread is in MPI_Wait by now, most likely */
  greq_bytes_ = 42;
  CHECK_MPI(MPI_Grequest_complete(greq_));
  return NULL;
}

static void run_handoff(void) {
  handoff_posted_ = 0;
  run_threads(handoff);
  CHECK_MPI(MPI_Grequest_start(greq_query, greq_free, greq_cancel, &greq_bytes_, &greq_));
  pthread_t th;
  CHECK_INT(pthread_create(&th, NULL, greq_completer, NULL), ==, 0);
  MPI_Status st;
  CHECK_MPI(MPI_Wait(&greq_, &st));
  int n = -1;
  MPI_Get_count(&st, MPI_BYTE, &n);
  CHECK_INT(n, ==, 42);
  CHECK_INT(pthread_join(th, NULL), ==, 0);
}

int main(int argc, char** argv) {
  int provided = -1;
  CHECK_MPI(MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided));
  CHECK_INT(provided, ==, MPI_THREAD_MULTIPLE);
  int queried = -1, is_main = 0;
  CHECK_MPI(MPI_Query_thread(&queried));
  CHECK_INT(queried, ==, MPI_THREAD_MULTIPLE);
  CHECK_MPI(MPI_Is_thread_main(&is_main));
  CHECK(is_main);
  if (argc > 1) nthreads_ = atoi(argv[1]);
  CHECK_MSG(nthreads_ >= 1 && nthreads_ <= kMaxThreads, "threads: 1..%d", kMaxThreads);
  CHECK_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &world_));
  CHECK_MPI(MPI_Comm_set_errhandler(world_, MPI_ERRORS_RETURN));
  MPI_Comm_rank(world_, &rank_);
  MPI_Comm_size(world_, &size_);
  CHECK_MSG(size_ >= 2, "needs at least 2 ranks");
  next_ = (rank_ + 1) % size_;
  prev_ = (rank_ + size_ - 1) % size_;

  run_threads(tagged);
  run_wildcard();
  run_threads(probe_own_tag);
  memset(seen_, 0, sizeof seen_);
  run_threads(probe_matched);
  for (int i = 0; i < nthreads_ * kMsgs; ++i)
    CHECK_MSG(seen_[i] == 1, "matched message %d taken %d times", i, seen_[i]);

  for (int t = 0; t < nthreads_; ++t) CHECK_MPI(MPI_Comm_dup(world_, &thread_comm_[t]));
  run_threads(comms);
  for (int t = 0; t < nthreads_; ++t) CHECK_MPI(MPI_Comm_free(&thread_comm_[t]));

  run_rma();

  /* Room for every message at once: a Bsend waits for nobody. */
  int bsize = nthreads_ * kMsgs * (100 * (int)sizeof(int) + MPI_BSEND_OVERHEAD);
  void* bbuf = jobs_malloc((size_t)bsize);
  CHECK_MPI(MPI_Buffer_attach(bbuf, bsize));
  run_threads(bsend);
  void* detached;
  CHECK_MPI(MPI_Buffer_detach(&detached, &bsize));
  free(bbuf);

  run_handoff();

  CHECK_MPI(MPI_Comm_free(&world_));
  if (rank_ == 0) printf("OK job_threads: %d ranks, %d threads each\n", size_, nthreads_);
  CHECK_MPI(MPI_Finalize());
  return 0;
}
