/* Atomic one-sided operations under passive target synchronization:
 * - a counter on rank 0 incremented by MPI_Fetch_and_op(MPI_SUM, MPI_LONG) from every rank
 *   (rank 0 included), under MPI_Win_lock(EXCLUSIVE) per operation, under one
 *   MPI_Win_lock(SHARED) epoch and under MPI_Win_lock_all: the values fetched by all ranks
 *   together must be exactly 0 .. total-1 (no increment lost or seen twice) and the counter
 *   must end at total (read back with MPI_Fetch_and_op(MPI_NO_OP));
 * - a mutex: a lock word on rank 0 taken with an MPI_Compare_and_swap spin (+ MPI_Win_flush)
 *   and released with MPI_Fetch_and_op(MPI_REPLACE), protecting a non-atomic read-modify-write
 *   (MPI_Get, flush, add, MPI_Put, flush) of a counter on rank 1; the counter must be exact and
 *   the lock word must always hold the owner's id when it is released;
 * - MPI_Get_accumulate: MPI_REPLACE as an atomic swap chain (the old values fetched plus the
 *   final value are each rank's id exactly once, plus the initial value), MPI_SUM on a vector,
 *   MPI_NO_OP reading without changing.
 * Args: [increments per rank per phase] (default 100). */
#include "jobs_util.h"

static int rank_, size_;
static int kInc = 100;

/* Open MPI 4.1.4 with its default one-sided component here (osc rdma over btl vader, whose
 * atomics are emulated with messages) crashes in MPI_Compare_and_swap: SIGSEGV in
 * mca_btl_vader_emu_acswap on the caller's own window, and in the target's handler of an
 * emulated CAS from another rank. With JOBS_REFERENCE_OPENMPI set the mutex phase is left out,
 * unless the one-sided component is pt2pt (mpirun --mca osc pt2pt, seen as OMPI_MCA_osc), with
 * which Open MPI passes everything here. For MPR it always runs. */
static int skip_mutex_;

/* Window of longs on every rank, disp unit sizeof(long). */
enum {
  kCtrExclusive = 0, /* counters on rank 0, one per phase */
  kCtrShared = 1,
  kCtrLockAll = 2,
  kMutex = 3,       /* lock word on rank 0: 0 free, else owner rank + 1 */
  kMutexCount = 4,  /* the protected counter, on rank 1 % size */
  kSwap = 5,        /* Get_accumulate(REPLACE) chain on rank 0 */
  kVec = 8,         /* Get_accumulate(SUM) vector of kVecLen on rank size-1 */
  kVecLen = 16,
  kWinLongs = kVec + kVecLen + 4,
};
static const long kSwapInitial = -1000;

static int cmp_long(const void *a, const void *b) {
  long x = *(const long *)a, y = *(const long *)b;
  return x < y ? -1 : x > y;
}

/* Every rank's fetched values together must be a permutation of 0 .. size*n-1. */
static void check_permutation(const long *mine, int n, const char *what) {
  long *all = rank_ == 0 ? jobs_malloc((size_t)n * (size_t)size_ * sizeof(long)) : NULL;
  CHECK_MPI(MPI_Gather(mine, n, MPI_LONG, all, n, MPI_LONG, 0, MPI_COMM_WORLD));
  if (rank_ == 0) {
    const long total = (long)n * size_;
    qsort(all, (size_t)total, sizeof(long), cmp_long);
    for (long i = 0; i < total; ++i)
      CHECK_MSG(all[i] == i, "%s: sorted fetched values [%ld] = %ld, expected %ld (%s)", what, i,
                all[i], i, i > 0 && all[i] == all[i - 1] ? "a value was fetched twice"
                                                         : "a value is missing");
    free(all);
  }
}

/* Current value of word `disp` on `target`, read atomically (needs an open access epoch). */
static long read_word(MPI_Win win, int target, int disp) {
  long dummy = 0, value = -999;
  CHECK_MPI(MPI_Fetch_and_op(&dummy, &value, MPI_LONG, target, disp, MPI_NO_OP, win));
  CHECK_MPI(MPI_Win_flush(target, win));
  return value;
}

static void check_final(MPI_Win win, int disp, long expected, const char *what) {
  CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
  CHECK_MPI(MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, win));
  long v = read_word(win, 0, disp);
  CHECK_MPI(MPI_Win_unlock(0, win));
  CHECK_MSG(v == expected, "%s: counter ends at %ld, expected %ld", what, v, expected);
}

static void counter_phases(MPI_Win win) {
  long *got = jobs_malloc((size_t)kInc * sizeof(long));
  const long one = 1;
  const long total = (long)kInc * size_;

  /* 1. one exclusive lock per increment */
  for (int i = 0; i < kInc; ++i) {
    got[i] = -1;
    CHECK_MPI(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 0, 0, win));
    CHECK_MPI(MPI_Fetch_and_op(&one, &got[i], MPI_LONG, 0, kCtrExclusive, MPI_SUM, win));
    CHECK_MPI(MPI_Win_unlock(0, win));
    CHECK_MSG(got[i] >= 0 && got[i] < total, "exclusive lock: fetched %ld, outside 0..%ld",
              got[i], total - 1);
  }
  check_permutation(got, kInc, "Fetch_and_op under MPI_Win_lock(EXCLUSIVE)");
  check_final(win, kCtrExclusive, total, "Fetch_and_op under MPI_Win_lock(EXCLUSIVE)");

  /* 2. one shared lock epoch, everyone at once; results read after a flush every few ops */
  CHECK_MPI(MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, win));
  for (int i = 0; i < kInc; ++i) {
    got[i] = -1;
    CHECK_MPI(MPI_Fetch_and_op(&one, &got[i], MPI_LONG, 0, kCtrShared, MPI_SUM, win));
    if (i % 7 == 6) CHECK_MPI(MPI_Win_flush(0, win));
  }
  CHECK_MPI(MPI_Win_unlock(0, win));
  check_permutation(got, kInc, "Fetch_and_op under MPI_Win_lock(SHARED)");
  check_final(win, kCtrShared, total, "Fetch_and_op under MPI_Win_lock(SHARED)");

  /* 3. lock_all; each result checked right after its flush */
  CHECK_MPI(MPI_Win_lock_all(0, win));
  long prev = -1;
  for (int i = 0; i < kInc; ++i) {
    got[i] = -1;
    CHECK_MPI(MPI_Fetch_and_op(&one, &got[i], MPI_LONG, 0, kCtrLockAll, MPI_SUM, win));
    CHECK_MPI(MPI_Win_flush(0, win));
    CHECK_MSG(got[i] > prev, "lock_all: fetched %ld after %ld: the counter went backwards", got[i],
              prev);
    prev = got[i];
  }
  CHECK_MPI(MPI_Win_unlock_all(win));
  check_permutation(got, kInc, "Fetch_and_op under MPI_Win_lock_all");
  check_final(win, kCtrLockAll, total, "Fetch_and_op under MPI_Win_lock_all");
  free(got);
}

/* Compare-and-swap mutex on rank 0 protecting a plain get/put increment on rank 1 % size. */
static void mutex_phase(MPI_Win win, int rounds_each) {
  const int data_rank = 1 % size_;
  const long free_word = 0, mine = rank_ + 1;
  const int rounds = rounds_each * size_; /* increments in all */
  CHECK_MPI(MPI_Win_lock_all(0, win));
  for (int r = 0; r < rounds_each; ++r) {
    long old = -1;
    for (;;) {
      CHECK_MPI(MPI_Compare_and_swap(&mine, &free_word, &old, MPI_LONG, 0, kMutex, win));
      CHECK_MPI(MPI_Win_flush(0, win));
      if (old == free_word) break;
      CHECK_MSG(old >= 1 && old <= size_ && old != mine,
                "mutex: lock word holds %ld (expected 0 or another rank's id 1..%d)", old, size_);
    }
    /* critical section: a read-modify-write that is not atomic by itself */
    long value = -1;
    CHECK_MPI(MPI_Get(&value, 1, MPI_LONG, data_rank, kMutexCount, 1, MPI_LONG, win));
    CHECK_MPI(MPI_Win_flush(data_rank, win));
    CHECK_MSG(value >= 0 && value < rounds, "mutex: counter reads %ld", value);
    value += 1;
    CHECK_MPI(MPI_Put(&value, 1, MPI_LONG, data_rank, kMutexCount, 1, MPI_LONG, win));
    CHECK_MPI(MPI_Win_flush(data_rank, win));
    /* release: the word must still say we own it */
    CHECK_MPI(MPI_Fetch_and_op(&free_word, &old, MPI_LONG, 0, kMutex, MPI_REPLACE, win));
    CHECK_MPI(MPI_Win_flush(0, win));
    CHECK_MSG(old == mine, "mutex: released a lock word holding %ld, expected my id %ld", old,
              mine);
  }
  CHECK_MPI(MPI_Win_unlock_all(win));
  CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
  CHECK_MPI(MPI_Win_lock(MPI_LOCK_SHARED, data_rank, 0, win));
  long final_count = read_word(win, data_rank, kMutexCount);
  CHECK_MPI(MPI_Win_unlock(data_rank, win));
  CHECK_MSG(final_count == rounds, "mutex: protected counter ends at %ld, expected %d (an "
            "increment was lost: the critical sections overlapped)", final_count, rounds);
  CHECK_MPI(MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, win));
  long word = read_word(win, 0, kMutex);
  CHECK_MPI(MPI_Win_unlock(0, win));
  CHECK_MSG(word == 0, "mutex: lock word ends at %ld, expected 0 (free)", word);
}

static void get_accumulate_phase(MPI_Win win) {
  const int vec_rank = size_ - 1;
  /* swap chain: each rank swaps its id into word kSwap on rank 0 once */
  long id = rank_, old = -77;
  CHECK_MPI(MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, win));
  CHECK_MPI(MPI_Get_accumulate(&id, 1, MPI_LONG, &old, 1, MPI_LONG, 0, kSwap, 1, MPI_LONG,
                               MPI_REPLACE, win));
  CHECK_MPI(MPI_Win_unlock(0, win));
  /* vector sum on vec_rank: element i gets (rank+1)*(i+1) from every rank */
  long add[kVecLen], before[kVecLen];
  for (int i = 0; i < kVecLen; ++i) {
    add[i] = (long)(rank_ + 1) * (i + 1);
    before[i] = -1;
  }
  CHECK_MPI(MPI_Win_lock_all(0, win));
  CHECK_MPI(MPI_Get_accumulate(add, kVecLen, MPI_LONG, before, kVecLen, MPI_LONG, vec_rank, kVec,
                               kVecLen, MPI_LONG, MPI_SUM, win));
  CHECK_MPI(MPI_Win_unlock_all(win));
  const long ranksum = (long)size_ * (size_ + 1) / 2;
  for (int i = 0; i < kVecLen; ++i)
    CHECK_MSG(before[i] >= 0 && before[i] % (i + 1) == 0 &&
                  before[i] <= (ranksum - (rank_ + 1)) * (i + 1),
              "Get_accumulate(SUM): old value of element %d is %ld, not a partial sum of the "
              "other ranks' contributions", i, before[i]);
  CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));

  /* MPI_NO_OP reads without changing, with any origin buffer content */
  long now[kVecLen], junk[kVecLen];
  for (int i = 0; i < kVecLen; ++i) junk[i] = 999999;
  CHECK_MPI(MPI_Win_lock(MPI_LOCK_SHARED, vec_rank, 0, win));
  CHECK_MPI(MPI_Get_accumulate(junk, kVecLen, MPI_LONG, now, kVecLen, MPI_LONG, vec_rank, kVec,
                               kVecLen, MPI_LONG, MPI_NO_OP, win));
  CHECK_MPI(MPI_Win_unlock(vec_rank, win));
  for (int i = 0; i < kVecLen; ++i)
    CHECK_MSG(now[i] == ranksum * (i + 1), "Get_accumulate(SUM) then NO_OP: element %d is %ld, "
              "expected %ld", i, now[i], ranksum * (i + 1));
  CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
  CHECK_MPI(MPI_Win_lock(MPI_LOCK_SHARED, vec_rank, 0, win));
  CHECK_MPI(MPI_Get_accumulate(junk, kVecLen, MPI_LONG, now, kVecLen, MPI_LONG, vec_rank, kVec,
                               kVecLen, MPI_LONG, MPI_NO_OP, win));
  CHECK_MPI(MPI_Win_unlock(vec_rank, win));
  for (int i = 0; i < kVecLen; ++i)
    CHECK_MSG(now[i] == ranksum * (i + 1), "MPI_NO_OP changed element %d to %ld (expected %ld)", i,
              now[i], ranksum * (i + 1));

  /* the swap chain: old values + the final value = {initial} + every id, each once */
  long *olds = rank_ == 0 ? jobs_malloc((size_t)(size_ + 1) * sizeof(long)) : NULL;
  CHECK_MPI(MPI_Gather(&old, 1, MPI_LONG, olds, 1, MPI_LONG, 0, MPI_COMM_WORLD));
  if (rank_ == 0) {
    CHECK_MPI(MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, win));
    olds[size_] = read_word(win, 0, kSwap);
    CHECK_MPI(MPI_Win_unlock(0, win));
    qsort(olds, (size_t)size_ + 1, sizeof(long), cmp_long);
    CHECK_MSG(olds[0] == kSwapInitial, "Get_accumulate(REPLACE) swap chain: the initial value "
              "%ld was fetched by nobody and is not the final value (smallest seen: %ld)",
              kSwapInitial, olds[0]);
    for (int i = 1; i <= size_; ++i)
      CHECK_MSG(olds[i] == i - 1, "Get_accumulate(REPLACE) swap chain: sorted old/final values "
                "[%d] = %ld, expected id %d exactly once", i, olds[i], i - 1);
    free(olds);
  }

  /* MPI_Accumulate(MPI_REPLACE) behaves as an atomic put */
  CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
  if (rank_ == size_ - 1) {
    long v = 4242;
    CHECK_MPI(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 0, 0, win));
    CHECK_MPI(MPI_Accumulate(&v, 1, MPI_LONG, 0, kSwap, 1, MPI_LONG, MPI_REPLACE, win));
    CHECK_MPI(MPI_Win_unlock(0, win));
  }
  CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
  CHECK_MPI(MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, win));
  long v = read_word(win, 0, kSwap);
  CHECK_MPI(MPI_Win_unlock(0, win));
  CHECK_MSG(v == 4242, "after Accumulate(REPLACE, 4242) the word holds %ld", v);
}

int main(int argc, char **argv) {
  CHECK_MPI(MPI_Init(&argc, &argv));
  CHECK_MPI(MPI_Comm_rank(MPI_COMM_WORLD, &rank_));
  CHECK_MPI(MPI_Comm_size(MPI_COMM_WORLD, &size_));
  const char *osc = getenv("OMPI_MCA_osc");
  skip_mutex_ = getenv("JOBS_REFERENCE_OPENMPI") != NULL && !(osc && strstr(osc, "pt2pt"));
  if (argc > 1) kInc = atoi(argv[1]);
  CHECK_MSG(kInc > 0, "bad argument %s", argv[1]);

  long *mem = NULL;
  MPI_Win win;
  CHECK_MPI(MPI_Win_allocate(kWinLongs * sizeof(long), sizeof(long), MPI_INFO_NULL,
                             MPI_COMM_WORLD, &mem, &win));
  /* Initialise my own window under an exclusive lock of it, so the values are public. */
  CHECK_MPI(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, rank_, 0, win));
  for (int i = 0; i < kWinLongs; ++i) mem[i] = 0;
  mem[kSwap] = kSwapInitial;
  CHECK_MPI(MPI_Win_unlock(rank_, win));
  CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));

  counter_phases(win);
  if (!skip_mutex_) mutex_phase(win, kInc / 5 > 0 ? kInc / 5 : 1);
  get_accumulate_phase(win);

  CHECK_MPI(MPI_Win_free(&win));

  /* The same counter on a window of user memory (MPI_Win_create). */
  long *user = jobs_malloc(kWinLongs * sizeof(long));
  for (int i = 0; i < kWinLongs; ++i) user[i] = 0;
  CHECK_MPI(MPI_Win_create(user, kWinLongs * sizeof(long), sizeof(long), MPI_INFO_NULL,
                           MPI_COMM_WORLD, &win));
  CHECK_MPI(MPI_Win_lock_all(0, win));
  long *got = jobs_malloc((size_t)kInc * sizeof(long));
  const long one = 1;
  for (int i = 0; i < kInc; ++i) {
    CHECK_MPI(MPI_Fetch_and_op(&one, &got[i], MPI_LONG, size_ - 1, kCtrLockAll, MPI_SUM, win));
    CHECK_MPI(MPI_Win_flush(size_ - 1, win));
  }
  CHECK_MPI(MPI_Win_unlock_all(win));
  check_permutation(got, kInc, "Fetch_and_op on an MPI_Win_create window");
  CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
  if (rank_ == size_ - 1) {
    CHECK_MPI(MPI_Win_lock(MPI_LOCK_SHARED, rank_, 0, win));
    CHECK_MSG(user[kCtrLockAll] == (long)kInc * size_, "MPI_Win_create window: counter in my "
              "memory is %ld, expected %ld", user[kCtrLockAll], (long)kInc * size_);
    CHECK_MPI(MPI_Win_unlock(rank_, win));
  }
  CHECK_MPI(MPI_Win_free(&win));
  free(user);
  free(got);
  jobs_done("job_rma_atomic");
  CHECK_MPI(MPI_Finalize());
  return 0;
}
