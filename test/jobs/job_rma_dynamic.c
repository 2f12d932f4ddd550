/* Dynamic windows: MPI_Win_create_dynamic, each rank attaches two separate buffers and
 * publishes their addresses (MPI_Get_address, MPI_Allgather); under MPI_Win_lock_all every rank
 * puts into both regions of its right neighbour and gets from both regions of its left one;
 * then detaches one buffer, frees it, attaches a new one of another size at another address,
 * republishes, and repeats. Completion by MPI_Win_flush, MPI_Win_flush_all (remote completion:
 * the data is at the target) and MPI_Win_flush_local, MPI_Win_flush_local_all (local
 * completion: the origin buffer may be reused at once, the target still gets the old data).
 * Window attributes of the dynamic flavor. Ring: rank r puts to r+1, gets from r-1. */
#include "jobs_util.h"

static int rank_, size_, next_, prev_;

enum { kRounds = 4 };

typedef struct {
  long *p;
  int n;
  MPI_Aint addr;
} Region;

/* Region layout (longs): [0, n/2) written by the left neighbour, [n/2, n) set by the owner and
 * read by the right neighbour. */
static long owner_val(int owner, int region, int round, int i) {
  return (long)owner * 100000000L + region * 1000000L + round * 10000L + i;
}
static long put_val(int from, int region, int round, int i) {
  return -((long)from * 100000000L + region * 1000000L + round * 10000L + i) - 1;
}

static void fill_region(Region *r, int region, int round) {
  for (int i = 0; i < r->n; ++i) r->p[i] = i < r->n / 2 ? -7 : owner_val(rank_, region, round, i);
}

static void publish(const Region *r, MPI_Aint *all_addr, int *all_n) {
  CHECK_MPI(MPI_Allgather(&r->addr, 1, MPI_AINT, all_addr, 1, MPI_AINT, MPI_COMM_WORLD));
  CHECK_MPI(MPI_Allgather(&r->n, 1, MPI_INT, all_n, 1, MPI_INT, MPI_COMM_WORLD));
}

static Region new_region(MPI_Win win, int n) {
  Region r;
  r.n = n;
  r.p = jobs_malloc((size_t)n * sizeof(long));
  memset(r.p, 0, (size_t)n * sizeof(long));
  CHECK_MPI(MPI_Get_address(r.p, &r.addr));
  CHECK_MPI(MPI_Win_attach(win, r.p, (MPI_Aint)n * (MPI_Aint)sizeof(long)));
  return r;
}

static void check_attrs(MPI_Win win) {
  int *flavor = NULL, *unit = NULL, flag = 0;
  MPI_Aint *size = NULL;
  void *base = (void *)&flag;
  CHECK_MPI(MPI_Win_get_attr(win, MPI_WIN_CREATE_FLAVOR, &flavor, &flag));
  CHECK_MSG(flag && *flavor == MPI_WIN_FLAVOR_DYNAMIC, "MPI_WIN_CREATE_FLAVOR %d, expected "
            "MPI_WIN_FLAVOR_DYNAMIC (%d)", flag ? *flavor : -1, MPI_WIN_FLAVOR_DYNAMIC);
  /* MPI-3.1 11.2.6: a dynamic window has base MPI_BOTTOM, size 0, disp unit 1. */
  CHECK_MPI(MPI_Win_get_attr(win, MPI_WIN_BASE, &base, &flag));
  CHECK_MSG(flag && base == MPI_BOTTOM, "MPI_WIN_BASE of a dynamic window: %p (flag %d), "
            "expected MPI_BOTTOM", base, flag);
  CHECK_MPI(MPI_Win_get_attr(win, MPI_WIN_SIZE, &size, &flag));
  CHECK_MSG(flag && *size == 0, "MPI_WIN_SIZE of a dynamic window: %ld, expected 0",
            flag ? (long)*size : -1L);
  CHECK_MPI(MPI_Win_get_attr(win, MPI_WIN_DISP_UNIT, &unit, &flag));
  CHECK_MSG(flag && *unit == 1, "MPI_WIN_DISP_UNIT of a dynamic window: %d, expected 1",
            flag ? *unit : -1);
}

/* Many regions and ranges over adjacent ones: each rank attaches kMany separate longs (more
 * than a small fixed table would hold) and one array as two halves attached separately; the
 * left neighbour puts into every single long, then one put and one get cross the halves'
 * boundary. */
enum { kMany = 200, kHalf = 8 };

static void many_and_adjacent(void) {
  MPI_Win win;
  CHECK_MPI(MPI_Win_create_dynamic(MPI_INFO_NULL, MPI_COMM_WORLD, &win));
  long *cell[kMany];
  MPI_Aint mine[kMany + 1];
  for (int i = 0; i < kMany; ++i) {
    cell[i] = jobs_malloc(sizeof(long));
    *cell[i] = -1;
    CHECK_MPI(MPI_Win_attach(win, cell[i], sizeof(long)));
    CHECK_MPI(MPI_Get_address(cell[i], &mine[i]));
  }
  long *arr = jobs_malloc(2 * kHalf * sizeof(long));
  for (int i = 0; i < 2 * kHalf; ++i) arr[i] = rank_ * 1000 + i;
  CHECK_MPI(MPI_Win_attach(win, arr, kHalf * sizeof(long)));
  CHECK_MPI(MPI_Win_attach(win, arr + kHalf, kHalf * sizeof(long)));
  CHECK_MPI(MPI_Get_address(arr, &mine[kMany]));
  MPI_Aint *theirs = jobs_malloc(sizeof(MPI_Aint) * (kMany + 1) * (size_t)size_);
  CHECK_MPI(MPI_Allgather(mine, kMany + 1, MPI_AINT, theirs, kMany + 1, MPI_AINT,
                          MPI_COMM_WORLD));
  const MPI_Aint *t = theirs + (size_t)next_ * (kMany + 1);

  CHECK_MPI(MPI_Win_lock_all(0, win));
  long v[kMany];
  for (int i = 0; i < kMany; ++i) {
    v[i] = rank_ * 10000 + i;
    CHECK_MPI(MPI_Put(&v[i], 1, MPI_LONG, next_, t[i], 1, MPI_LONG, win));
  }
  /* Four longs each side of the boundary between the halves. */
  long across[8], back[8];
  for (int i = 0; i < 8; ++i) across[i] = -(rank_ * 100 + i) - 1;
  CHECK_MPI(MPI_Put(across, 8, MPI_LONG, next_, t[kMany] + (kHalf - 4) * (MPI_Aint)sizeof(long),
                    8, MPI_LONG, win));
  CHECK_MPI(MPI_Win_flush(next_, win));
  CHECK_MPI(MPI_Get(back, 8, MPI_LONG, next_, t[kMany] + (kHalf - 4) * (MPI_Aint)sizeof(long), 8,
                    MPI_LONG, win));
  CHECK_MPI(MPI_Win_flush(next_, win));
  for (int i = 0; i < 8; ++i) CHECK_INT(back[i], ==, across[i]);
  CHECK_MPI(MPI_Win_unlock_all(win));
  CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
  for (int i = 0; i < kMany; ++i) CHECK_INT(*cell[i], ==, prev_ * 10000 + i);
  for (int i = 0; i < 2 * kHalf; ++i) {
    const int k = i - (kHalf - 4);
    CHECK_INT(arr[i], ==, k >= 0 && k < 8 ? -(prev_ * 100 + k) - 1 : rank_ * 1000 + i);
  }

  /* Past the end of the second half is still outside. */
  CHECK_MPI(MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN));
  CHECK_MPI(MPI_Win_lock_all(0, win));
  CHECK_ERR_CLASS(MPI_Put(across, 8, MPI_LONG, next_,
                          t[kMany] + (2 * kHalf - 4) * (MPI_Aint)sizeof(long), 8, MPI_LONG, win),
                  MPI_ERR_RMA_RANGE);
  CHECK_MPI(MPI_Win_unlock_all(win));
  CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
  for (int i = 0; i < kMany; ++i) {
    CHECK_MPI(MPI_Win_detach(win, cell[i]));
    free(cell[i]);
  }
  CHECK_MPI(MPI_Win_detach(win, arr));
  CHECK_MPI(MPI_Win_detach(win, arr + kHalf));
  free(arr);
  free(theirs);
  CHECK_MPI(MPI_Win_free(&win));
}

int main(int argc, char **argv) {
  CHECK_MPI(MPI_Init(&argc, &argv));
  CHECK_MPI(MPI_Comm_rank(MPI_COMM_WORLD, &rank_));
  CHECK_MPI(MPI_Comm_size(MPI_COMM_WORLD, &size_));
  next_ = (rank_ + 1) % size_;
  prev_ = (rank_ + size_ - 1) % size_;

  MPI_Win win;
  CHECK_MPI(MPI_Win_create_dynamic(MPI_INFO_NULL, MPI_COMM_WORLD, &win));
  check_attrs(win);

  MPI_Aint *addr[2];
  int *len[2];
  for (int k = 0; k < 2; ++k) {
    addr[k] = jobs_malloc((size_t)size_ * sizeof(MPI_Aint));
    len[k] = jobs_malloc((size_t)size_ * sizeof(int));
  }
  /* Region 0 stays; region 1 is replaced every round (sizes 64, 1000+, ... longs; a big one). */
  Region reg[2];
  reg[0] = new_region(win, 200 + 2 * rank_);
  reg[1] = new_region(win, 64);

  CHECK_MPI(MPI_Win_lock_all(0, win));
  for (int round = 0; round < kRounds; ++round) {
    /* (re)fill both regions under the epoch, make them public, tell everyone where they are */
    fill_region(&reg[0], 0, round);
    fill_region(&reg[1], 1, round);
    CHECK_MPI(MPI_Win_sync(win));
    publish(&reg[0], addr[0], len[0]);
    publish(&reg[1], addr[1], len[1]);
    CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));

    for (int k = 0; k < 2; ++k) {
      /* put the first half of next_'s region k; half of it with flush_local + buffer reuse */
      const int half = len[k][next_] / 2;
      long *src = jobs_malloc((size_t)half * sizeof(long));
      for (int i = 0; i < half; ++i) src[i] = put_val(rank_, k, round, i);
      const int first = half / 2;
      CHECK_MPI(MPI_Put(src, first, MPI_LONG, next_, addr[k][next_], first, MPI_LONG, win));
      if (k == 0)
        CHECK_MPI(MPI_Win_flush_local(next_, win));
      else
        CHECK_MPI(MPI_Win_flush_local_all(win));
      /* locally complete: overwriting the source must not change what the target gets */
      for (int i = 0; i < first; ++i) src[i] = 999;
      CHECK_MPI(MPI_Put(src + first, half - first, MPI_LONG, next_,
                        MPI_Aint_add(addr[k][next_], (MPI_Aint)first * (MPI_Aint)sizeof(long)),
                        half - first, MPI_LONG, win));
      if (k == 0)
        CHECK_MPI(MPI_Win_flush(next_, win));
      else
        CHECK_MPI(MPI_Win_flush_all(win));
      free(src);

      /* get the owner-set half of prev_'s region k */
      const int n = len[k][prev_], lo = n / 2;
      long *dst = jobs_malloc((size_t)(n - lo) * sizeof(long));
      for (int i = 0; i < n - lo; ++i) dst[i] = 12345;
      CHECK_MPI(MPI_Get(dst, n - lo, MPI_LONG, prev_,
                        MPI_Aint_add(addr[k][prev_], (MPI_Aint)lo * (MPI_Aint)sizeof(long)),
                        n - lo, MPI_LONG, win));
      CHECK_MPI(k == 0 ? MPI_Win_flush(prev_, win) : MPI_Win_flush_all(win));
      for (int i = 0; i < n - lo; ++i)
        CHECK_MSG(dst[i] == owner_val(prev_, k, round, lo + i), "round %d: MPI_Get of rank %d's "
                  "region %d element %d gave %ld, expected %ld", round, prev_, k, lo + i, dst[i],
                  owner_val(prev_, k, round, lo + i));
      free(dst);
    }

    /* everyone's puts are flushed: after the barrier the data is in my regions */
    CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
    CHECK_MPI(MPI_Win_sync(win));
    for (int k = 0; k < 2; ++k) {
      for (int i = 0; i < reg[k].n; ++i) {
        const long want = i < reg[k].n / 2 ? put_val(prev_, k, round, i)
                                           : owner_val(rank_, k, round, i);
        CHECK_MSG(reg[k].p[i] == want, "round %d: my region %d (%d longs) element %d is %ld, "
                  "expected %ld (%s)", round, k, reg[k].n, i, reg[k].p[i], want,
                  i < reg[k].n / 2 ? "put by my left neighbour" : "my own, untouched");
      }
    }
    CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));

    /* replace region 1: detach (nobody accesses it any more), free, attach a new one */
    CHECK_MPI(MPI_Win_detach(win, reg[1].p));
    free(reg[1].p);
    const int sizes[] = {1000 + 3 * rank_, 8, 1 << 17};
    reg[1] = new_region(win, sizes[round % 3]);
  }
  CHECK_MPI(MPI_Win_unlock_all(win));

  /* A region attached and detached again with no access in between; detach of both. */
  Region extra = new_region(win, 16);
  CHECK_MPI(MPI_Win_detach(win, extra.p));
  free(extra.p);
  CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
  for (int k = 0; k < 2; ++k) {
    CHECK_MPI(MPI_Win_detach(win, reg[k].p));
    free(reg[k].p);
    free(addr[k]);
    free(len[k]);
  }
  CHECK_MPI(MPI_Win_free(&win));
  many_and_adjacent();
  jobs_done("job_rma_dynamic");
  CHECK_MPI(MPI_Finalize());
  return 0;
}
