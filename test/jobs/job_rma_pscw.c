/* Generalized active target synchronization (MPI_Win_post / start / complete / wait), groups
 * built with MPI_Group_incl from the window's group:
 * - ring: each rank exposes its window to its left neighbour and accesses its right one, both
 *   epochs open at once; after MPI_Win_wait (or an MPI_Win_test loop on odd ranks) the
 *   neighbour's data must be there, with no other synchronization;
 * - star in: rank 0 exposes to all others, each puts into its own slot of rank 0's window;
 *   rank 0 polls with MPI_Win_test (it must report false while an origin is still held back
 *   before MPI_Win_start, and true eventually);
 * - star out: every other rank exposes to rank 0, which puts into and gets from all of them in
 *   one access epoch.
 * Several iterations with different values. */
#include "jobs_util.h"

static int rank_, size_, next_, prev_;

enum { kIters = 10, kSlot = 8 };

static long val(int from, int to, int iter, int i) {
  return (long)from * 1000000L + (long)to * 10000L + iter * 100L + i;
}

static MPI_Group group_of(MPI_Win win, const int *ranks, int n) {
  MPI_Group all, g;
  CHECK_MPI(MPI_Win_get_group(win, &all));
  CHECK_MPI(MPI_Group_incl(all, n, ranks, &g));
  CHECK_MPI(MPI_Group_free(&all));
  int gsize = -1;
  CHECK_MPI(MPI_Group_size(g, &gsize));
  CHECK_INT(gsize, ==, n);
  return g;
}

static void ring(MPI_Win win, long *mem) {
  MPI_Group left = group_of(win, &prev_, 1), right = group_of(win, &next_, 1);
  long out[kSlot];
  for (int iter = 0; iter < kIters; ++iter) {
    for (int i = 0; i < kSlot; ++i) mem[i] = -1;
    /* exposure to prev_ (it puts into me), access to next_ */
    CHECK_MPI(MPI_Win_post(left, 0, win));
    CHECK_MPI(MPI_Win_start(right, 0, win));
    for (int i = 0; i < kSlot; ++i) out[i] = val(rank_, next_, iter, i);
    CHECK_MPI(MPI_Put(out, kSlot, MPI_LONG, next_, 0, kSlot, MPI_LONG, win));
    /* also read back one value of next_'s second slot, which nobody writes in this epoch */
    long probe = -5;
    CHECK_MPI(MPI_Get(&probe, 1, MPI_LONG, next_, kSlot + 1, 1, MPI_LONG, win));
    CHECK_MPI(MPI_Win_complete(win));
    CHECK_MSG(probe == val(next_, next_, 0, 1), "ring iteration %d: MPI_Get from rank %d gave "
              "%ld after MPI_Win_complete, expected %ld", iter, next_, probe,
              val(next_, next_, 0, 1));
    if (rank_ % 2) {
      for (int flag = 0; !flag;) CHECK_MPI(MPI_Win_test(win, &flag));
    } else {
      CHECK_MPI(MPI_Win_wait(win));
    }
    for (int i = 0; i < kSlot; ++i)
      CHECK_MSG(mem[i] == val(prev_, rank_, iter, i), "ring iteration %d: after MPI_Win_%s "
                "element %d is %ld, expected %ld from rank %d", iter, rank_ % 2 ? "test" : "wait",
                i, mem[i], val(prev_, rank_, iter, i), prev_);
  }
  CHECK_MPI(MPI_Group_free(&left));
  CHECK_MPI(MPI_Group_free(&right));
}

static void star_in(MPI_Win win, long *mem) {
  int *others = jobs_malloc((size_t)size_ * sizeof(int));
  for (int r = 1; r < size_; ++r) others[r - 1] = r;
  const int zero = 0;
  for (int iter = 0; iter < kIters; ++iter) {
    if (rank_ == 0) {
      if (size_ == 1) continue;
      MPI_Group g = group_of(win, others, size_ - 1);
      for (int i = 0; i < size_ * kSlot; ++i) mem[i] = -1;
      CHECK_MPI(MPI_Win_post(g, 0, win));
      /* The last rank does not start its access epoch before it hears from us, so the
       * exposure epoch cannot be complete yet: MPI_Win_test must say so. */
      int flag = 1;
      CHECK_MPI(MPI_Win_test(win, &flag));
      CHECK_MSG(!flag, "star iteration %d: MPI_Win_test reports the exposure epoch complete "
                "while rank %d has not even started its access epoch", iter, size_ - 1);
      int go = iter;
      CHECK_MPI(MPI_Send(&go, 1, MPI_INT, size_ - 1, 99, MPI_COMM_WORLD));
      for (flag = 0; !flag;) CHECK_MPI(MPI_Win_test(win, &flag));
      for (int r = 1; r < size_; ++r)
        for (int i = 0; i < kSlot; ++i)
          CHECK_MSG(mem[r * kSlot + i] == val(r, 0, iter, i), "star iteration %d: after "
                    "MPI_Win_test returned true, rank %d's element %d is %ld, expected %ld", iter,
                    r, i, mem[r * kSlot + i], val(r, 0, iter, i));
      for (int i = 0; i < kSlot; ++i)
        CHECK_MSG(mem[i] == -1, "star iteration %d: rank 0's own slot changed to %ld", iter,
                  mem[i]);
      CHECK_MPI(MPI_Group_free(&g));
    } else {
      if (rank_ == size_ - 1) {
        int go = -1;
        CHECK_MPI(MPI_Recv(&go, 1, MPI_INT, 0, 99, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
        CHECK_INT(go, ==, iter);
      }
      MPI_Group g = group_of(win, &zero, 1);
      long out[kSlot];
      for (int i = 0; i < kSlot; ++i) out[i] = val(rank_, 0, iter, i);
      CHECK_MPI(MPI_Win_start(g, 0, win));
      CHECK_MPI(MPI_Put(out, kSlot, MPI_LONG, 0, rank_ * kSlot, kSlot, MPI_LONG, win));
      CHECK_MPI(MPI_Win_complete(win));
      CHECK_MPI(MPI_Group_free(&g));
    }
  }
  free(others);
}

static void star_out(MPI_Win win, long *mem) {
  int *others = jobs_malloc((size_t)size_ * sizeof(int));
  for (int r = 1; r < size_; ++r) others[r - 1] = r;
  const int zero = 0;
  for (int iter = 0; iter < kIters; ++iter) {
    if (rank_ == 0) {
      if (size_ == 1) continue;
      MPI_Group g = group_of(win, others, size_ - 1);
      long *out = jobs_malloc((size_t)size_ * kSlot * sizeof(long));
      long *in = jobs_malloc((size_t)size_ * sizeof(long));
      CHECK_MPI(MPI_Win_start(g, 0, win));
      for (int r = 1; r < size_; ++r) {
        for (int i = 0; i < kSlot; ++i) out[r * kSlot + i] = val(0, r, iter, i);
        in[r] = -3;
        CHECK_MPI(MPI_Put(out + r * kSlot, kSlot, MPI_LONG, r, 2 * kSlot, kSlot, MPI_LONG, win));
        CHECK_MPI(MPI_Get(&in[r], 1, MPI_LONG, r, 3 * kSlot, 1, MPI_LONG, win));
      }
      CHECK_MPI(MPI_Win_complete(win));
      for (int r = 1; r < size_; ++r)
        CHECK_MSG(in[r] == val(r, r, iter, 77), "star-out iteration %d: MPI_Get from rank %d gave "
                  "%ld, expected %ld", iter, r, in[r], val(r, r, iter, 77));
      free(out);
      free(in);
      CHECK_MPI(MPI_Group_free(&g));
    } else {
      MPI_Group g = group_of(win, &zero, 1);
      for (int i = 0; i < kSlot; ++i) mem[2 * kSlot + i] = -1;
      mem[3 * kSlot] = val(rank_, rank_, iter, 77);
      CHECK_MPI(MPI_Win_post(g, 0, win));
      CHECK_MPI(MPI_Win_wait(win));
      for (int i = 0; i < kSlot; ++i)
        CHECK_MSG(mem[2 * kSlot + i] == val(0, rank_, iter, i), "star-out iteration %d: after "
                  "MPI_Win_wait element %d is %ld, expected %ld", iter, i, mem[2 * kSlot + i],
                  val(0, rank_, iter, i));
      CHECK_MPI(MPI_Group_free(&g));
    }
  }
  free(others);
}

static void run(MPI_Win win, long *mem) {
  /* slot 1 (ring Get target) holds a fixed value nobody overwrites */
  for (int i = 0; i < kSlot; ++i) mem[kSlot + i] = val(rank_, rank_, 0, i);
  CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
  ring(win, mem);
  CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
  star_in(win, mem);
  CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
  star_out(win, mem);
  CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
}

int main(int argc, char **argv) {
  CHECK_MPI(MPI_Init(&argc, &argv));
  CHECK_MPI(MPI_Comm_rank(MPI_COMM_WORLD, &rank_));
  CHECK_MPI(MPI_Comm_size(MPI_COMM_WORLD, &size_));
  next_ = (rank_ + 1) % size_;
  prev_ = (rank_ + size_ - 1) % size_;
  const size_t longs = (size_t)(size_ + 4) * kSlot;

  long *mem = jobs_malloc(longs * sizeof(long));
  MPI_Win win;
  CHECK_MPI(MPI_Win_create(mem, (MPI_Aint)(longs * sizeof(long)), sizeof(long), MPI_INFO_NULL,
                           MPI_COMM_WORLD, &win));
  run(win, mem);
  CHECK_MPI(MPI_Win_free(&win));
  free(mem);

  CHECK_MPI(MPI_Win_allocate((MPI_Aint)(longs * sizeof(long)), sizeof(long), MPI_INFO_NULL,
                             MPI_COMM_WORLD, &mem, &win));
  run(win, mem);
  CHECK_MPI(MPI_Win_free(&win));
  jobs_done("job_rma_pscw");
  CHECK_MPI(MPI_Finalize());
  return 0;
}
