/* Passive target progress: the target makes no MPI call while others access its window.
 * Rank 0 creates a window (MPI_Win_allocate; MPI_Win_create on malloc'd memory; MPI_Win_create
 * on MPI_Alloc_mem memory) and then computes in a loop without any MPI call, reading a flag word
 * of its own window directly (an atomic load: valid in the unified memory model, so the job
 * checks MPI_WIN_MODEL == MPI_WIN_UNIFIED first and skips, saying so, when it is separate).
 * Meanwhile every other rank runs rounds of lock(EXCLUSIVE)/put/flush/get/unlock and
 * lock(SHARED)/Fetch_and_op/unlock epochs on rank 0 and finally adds 1 to the flag word with
 * MPI_Accumulate(MPI_SUM). Rank 0 must see the flag reach nranks-1 within 10 s (else the library
 * needs the target to call MPI for passive target operations to progress: FAIL). Then the data:
 * every slot holds its writer's last round, the counter is exact and the fetched values are
 * distinct. Args: [rounds] (default 20) [deadline seconds] (default 10) [kinds: comma list of
 * allocate,create,allocmem] (default all three).
 *
 * MPI-3.1 11.7.3 allows the "weak" reading in which passive target operations wait until the
 * target calls MPI, so this checks a property MPR promises (progress without the target), not
 * the standard's minimum. The reference libraries:
 * - Open MPI 4.1.4 passes with MPI_Win_allocate (osc sm: plain shared memory) but not with
 *   MPI_Win_create (osc rdma over vader emulates atomics and locks with messages the target must
 *   handle; the flag stays 0). With JOBS_REFERENCE_OPENMPI set only MPI_Win_allocate runs.
 * - MPICH 4.0.2 never progresses without MPIR_CVAR_ASYNC_PROGRESS=1; with it all three pass, at
 *   8 ranks on 2 cores slowly (20 rounds take about a minute). With JOBS_REFERENCE_MPICH set the
 *   job sets that variable itself before MPI_Init (unless set), runs 5 rounds and waits 60 s. */
#include "jobs_util.h"

static int rank_, size_;
static int rounds_ = 20;
static double deadline_ = 10.0;

enum { kFlag = 0, kCounter = 1, kSlots = 2, kSlot = 64 };

static long val(int from, int round, int i) { return (long)from * 1000000L + round * 1000L + i; }

static double now_s(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static int cmp_long(const void *a, const void *b) {
  long x = *(const long *)a, y = *(const long *)b;
  return x < y ? -1 : x > y;
}

/* Rank 0's loop: no MPI call in here. Returns the seconds it spun. */
static double spin_until_flag(long *mem, const char *what) {
  const double t0 = now_s();
  volatile double work = 0;
  unsigned long iters = 0;
  for (;;) {
    const long flag = __atomic_load_n(&mem[kFlag], __ATOMIC_ACQUIRE);
    if (flag == size_ - 1) break;
    CHECK_MSG(flag >= 0 && flag < size_, "%s: flag word is %ld, expected 0..%d", what, flag,
              size_ - 1);
    for (int k = 0; k < 1000; ++k) work = work * 0.999 + (double)k; /* computing */
    if (++iters % 64 == 0 && now_s() - t0 > deadline_)
      jobs_fail(__FILE__, __LINE__, "%s: rank 0 spun %.1f s without calling MPI and the flag "
                "word is %ld, expected %d: passive target operations do not progress while the "
                "target is out of MPI", what, now_s() - t0, flag, size_ - 1);
  }
  return now_s() - t0;
}

static void origin_rounds(MPI_Win win, long *fetched, const char *what) {
  long out[kSlot], back[kSlot];
  const long one = 1;
  const int slot = kSlots + rank_ * kSlot;
  for (int round = 0; round < rounds_; ++round) {
    for (int i = 0; i < kSlot; ++i) {
      out[i] = val(rank_, round, i);
      back[i] = -1;
    }
    CHECK_MPI(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 0, 0, win));
    CHECK_MPI(MPI_Put(out, kSlot, MPI_LONG, 0, slot, kSlot, MPI_LONG, win));
    CHECK_MPI(MPI_Win_flush(0, win));
    CHECK_MPI(MPI_Get(back, kSlot, MPI_LONG, 0, slot, kSlot, MPI_LONG, win));
    CHECK_MPI(MPI_Win_unlock(0, win));
    for (int i = 0; i < kSlot; ++i)
      CHECK_MSG(back[i] == out[i], "%s, round %d: put then get of my slot on rank 0: element %d "
                "reads %ld, expected %ld", what, round, i, back[i], out[i]);

    fetched[round] = -1;
    CHECK_MPI(MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, win));
    CHECK_MPI(MPI_Fetch_and_op(&one, &fetched[round], MPI_LONG, 0, kCounter, MPI_SUM, win));
    CHECK_MPI(MPI_Win_unlock(0, win));
  }
  CHECK_MPI(MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, win));
  CHECK_MPI(MPI_Accumulate(&one, 1, MPI_LONG, 0, kFlag, 1, MPI_LONG, MPI_SUM, win));
  CHECK_MPI(MPI_Win_unlock(0, win));
}

/* After the spin: everyone checks rank 0's window. */
static void check_data(MPI_Win win, long *mem, const long *fetched, const char *what) {
  const long total = (long)(size_ - 1) * rounds_;
  if (rank_ == 0) {
    CHECK_MPI(MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, win));
    CHECK_MSG(mem[kCounter] == total, "%s: counter on rank 0 is %ld, expected %ld", what,
              mem[kCounter], total);
    CHECK_MSG(mem[kFlag] == size_ - 1, "%s: flag is %ld after the spin, expected %d", what,
              mem[kFlag], size_ - 1);
    for (int r = 1; r < size_; ++r)
      for (int i = 0; i < kSlot; ++i)
        CHECK_MSG(mem[kSlots + r * kSlot + i] == val(r, rounds_ - 1, i), "%s: rank %d's slot "
                  "element %d is %ld, expected %ld", what, r, i, mem[kSlots + r * kSlot + i],
                  val(r, rounds_ - 1, i));
    for (int i = 0; i < kSlot; ++i)
      CHECK_MSG(mem[kSlots + i] == -9, "%s: rank 0's own (unused) slot element %d changed to %ld",
                what, i, mem[kSlots + i]);
    CHECK_MPI(MPI_Win_unlock(0, win));
  } else {
    long counter = -1, slot[kSlot];
    const int other = rank_ % (size_ - 1) + 1; /* someone else's slot (mine when size is 2) */
    CHECK_MPI(MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, win));
    CHECK_MPI(MPI_Get(&counter, 1, MPI_LONG, 0, kCounter, 1, MPI_LONG, win));
    CHECK_MPI(MPI_Get(slot, kSlot, MPI_LONG, 0, kSlots + other * kSlot, kSlot, MPI_LONG, win));
    CHECK_MPI(MPI_Win_unlock(0, win));
    CHECK_MSG(counter == total, "%s: counter read from rank 0 is %ld, expected %ld", what, counter,
              total);
    for (int i = 0; i < kSlot; ++i)
      CHECK_MSG(slot[i] == val(other, rounds_ - 1, i), "%s: rank %d's slot element %d on rank 0 "
                "reads %ld, expected %ld", what, other, i, slot[i], val(other, rounds_ - 1, i));
  }
  /* the fetched counter values of all origins: exactly 0 .. total-1 */
  long *all = rank_ == 0 ? jobs_malloc((size_t)size_ * (size_t)rounds_ * sizeof(long)) : NULL;
  CHECK_MPI(MPI_Gather(fetched, rounds_, MPI_LONG, all, rounds_, MPI_LONG, 0, MPI_COMM_WORLD));
  if (rank_ == 0) {
    qsort(all + rounds_, (size_t)total, sizeof(long), cmp_long); /* skip rank 0's entries */
    for (long i = 0; i < total; ++i)
      CHECK_MSG(all[rounds_ + i] == i, "%s: sorted Fetch_and_op results [%ld] = %ld, expected %ld",
                what, i, all[rounds_ + i], i);
    free(all);
  }
}

enum Flavor { kAllocate, kCreateMalloc, kCreateAllocMem };
static const char *const kFlavorNames[] = {"MPI_Win_allocate", "MPI_Win_create (malloc)",
                                           "MPI_Win_create (MPI_Alloc_mem)"};

/* Returns 0 if skipped because the model is separate. */
static int run(enum Flavor flavor) {
  const char *what = kFlavorNames[flavor];
  /* only rank 0 exposes memory */
  const MPI_Aint bytes =
      rank_ == 0 ? (MPI_Aint)(kSlots + size_ * kSlot) * (MPI_Aint)sizeof(long) : 0;
  long *mem = NULL;
  MPI_Win win;
  if (flavor == kAllocate) {
    CHECK_MPI(MPI_Win_allocate(bytes, sizeof(long), MPI_INFO_NULL, MPI_COMM_WORLD, &mem, &win));
  } else {
    if (flavor == kCreateMalloc)
      mem = rank_ == 0 ? jobs_malloc((size_t)bytes) : NULL;
    else
      CHECK_MPI(MPI_Alloc_mem(bytes, MPI_INFO_NULL, &mem));
    CHECK_MPI(MPI_Win_create(mem, bytes, sizeof(long), MPI_INFO_NULL, MPI_COMM_WORLD, &win));
  }
  int *model = NULL, flag = 0, unified = 0;
  CHECK_MPI(MPI_Win_get_attr(win, MPI_WIN_MODEL, &model, &flag));
  CHECK_MSG(flag, "%s: MPI_WIN_MODEL is not set", what);
  unified = *model == MPI_WIN_UNIFIED;
  CHECK_MPI(MPI_Bcast(&unified, 1, MPI_INT, 0, MPI_COMM_WORLD));
  if (unified) {
    if (rank_ == 0) {
      CHECK_MPI(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 0, 0, win));
      for (int i = 0; i < kSlots + size_ * kSlot; ++i) mem[i] = i < kSlots ? 0 : -9;
      CHECK_MPI(MPI_Win_unlock(0, win));
    }
    long *fetched = jobs_malloc((size_t)rounds_ * sizeof(long));
    for (int i = 0; i < rounds_; ++i) fetched[i] = -1;
    CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
    if (rank_ == 0)
      spin_until_flag(mem, what);
    else
      origin_rounds(win, fetched, what);
    CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
    check_data(win, mem, fetched, what);
    free(fetched);
  }
  CHECK_MPI(MPI_Win_free(&win));
  if (flavor == kCreateMalloc) free(mem);
  if (flavor == kCreateAllocMem) CHECK_MPI(MPI_Free_mem(mem));
  return unified;
}

int main(int argc, char **argv) {
  const int ref_openmpi = getenv("JOBS_REFERENCE_OPENMPI") != NULL;
  const int ref_mpich = getenv("JOBS_REFERENCE_MPICH") != NULL;
  if (ref_mpich) {
    setenv("MPIR_CVAR_ASYNC_PROGRESS", "1", 0);
    rounds_ = 5;
    deadline_ = 60;
  }
  CHECK_MPI(MPI_Init(&argc, &argv));
  CHECK_MPI(MPI_Comm_rank(MPI_COMM_WORLD, &rank_));
  CHECK_MPI(MPI_Comm_size(MPI_COMM_WORLD, &size_));
  if (argc > 1) rounds_ = atoi(argv[1]);
  if (argc > 2) deadline_ = atof(argv[2]);
  const char *kinds = argc > 3 ? argv[3] : ref_openmpi ? "allocate" : "allocate,create,allocmem";
  CHECK_MSG(rounds_ > 0 && deadline_ > 0,
            "usage: job_rma_passive [rounds] [deadline seconds] [allocate,create,allocmem]");
  CHECK_MSG(size_ >= 2, "job_rma_passive needs at least 2 ranks, got %d", size_);
  static const char *const kKindArgs[] = {"allocate", "create", "allocmem"};
  int wanted = 0, ran = 0;
  for (int f = kAllocate; f <= kCreateAllocMem; ++f) {
    /* whole words of the comma list only ("create" is not "allocate") */
    int want = 0;
    for (const char *p = kinds; (p = strstr(p, kKindArgs[f])) != NULL; p += 1) {
      const char end = p[strlen(kKindArgs[f])];
      if ((p == kinds || p[-1] == ',') && (end == '\0' || end == ',')) want = 1;
    }
    if (!want) continue;
    ++wanted;
    ran += run((enum Flavor)f);
  }
  CHECK_MSG(wanted > 0, "no window kind selected by \"%s\" (allocate,create,allocmem)", kinds);
  char name[160];
  snprintf(name, sizeof name, "job_rma_passive%s%s", ran == wanted ? "" : ran == 0
           ? " (SKIPPED: MPI_WIN_MODEL is MPI_WIN_SEPARATE)"
           : " (some window kinds SKIPPED: MPI_WIN_MODEL is MPI_WIN_SEPARATE)",
           wanted < 3 ? " (not every window kind)" : "");
  jobs_done(name);
  CHECK_MPI(MPI_Finalize());
  return 0;
}
