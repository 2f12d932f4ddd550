/* Derived datatypes in one-sided operations. Each rank puts to / gets from / accumulates into
 * its ring neighbours' windows of ints (disp unit sizeof(int)):
 * - put: origin vector -> target contiguous; contiguous -> target vector; contiguous -> target
 *   indexed_block; struct of two int blocks -> target hindexed; a resized type with a non-zero
 *   (and a negative) lower bound, count > 1, on both sides;
 * - get: target vector -> origin contiguous; target indexed_block -> origin resized;
 * - accumulate (MPI_SUM) from every rank with a vector target type;
 * - MPI_Rput, MPI_Rget, MPI_Raccumulate under MPI_Win_lock_all, completed with MPI_Waitall.
 * Puts and gets run under fences and under MPI_Win_lock. The expected memory image is computed
 * from explicit element offset lists (not from MPI's datatype engine), and every element of the
 * target window is checked, so a write to a gap or past the end fails too. Ring: rank r puts to
 * r+1 and gets from r-1. */
#include "jobs_util.h"

enum { kWin = 2048, kMaxElems = 512 };

static int rank_, size_, next_, prev_;

/* MPICH 4.0.2 (ch4:ucx, Debian) completes an MPI_Rget whose target datatype is derived before
 * the data has arrived (MPI-3.1 11.3.5: completion of the request means the data is in the
 * origin buffer); it is there after MPI_Win_unlock_all. With JOBS_REFERENCE_MPICH set that check
 * waits for the unlock; for MPR it is made right after MPI_Waitall. */
static int reference_mpich_;

/* A datatype and the element offsets (in ints, relative to the buffer pointer) it touches, in
 * type map order, for `count` instances. */
typedef struct {
  MPI_Datatype type;
  int count;
  int n;
  int offs[kMaxElems];
  const char *name;
} Layout;

static void add_off(Layout *l, int off) {
  CHECK(l->n < kMaxElems);
  l->offs[l->n++] = off;
}

static Layout contiguous(int n) {
  Layout l = {MPI_INT, n, 0, {0}, "contiguous"};
  for (int i = 0; i < n; ++i) add_off(&l, i);
  return l;
}

/* count blocks of blen ints, stride ints apart */
static Layout vector(int count, int blen, int stride) {
  Layout l = {MPI_DATATYPE_NULL, 1, 0, {0}, "vector"};
  CHECK_MPI(MPI_Type_vector(count, blen, stride, MPI_INT, &l.type));
  CHECK_MPI(MPI_Type_commit(&l.type));
  for (int b = 0; b < count; ++b)
    for (int j = 0; j < blen; ++j) add_off(&l, b * stride + j);
  return l;
}

static Layout indexed_block(void) {
  static const int displs[] = {0, 5, 9, 20, 21 + 3, 40, 33};
  const int blen = 3, count = (int)(sizeof displs / sizeof displs[0]);
  Layout l = {MPI_DATATYPE_NULL, 1, 0, {0}, "indexed_block"};
  CHECK_MPI(MPI_Type_create_indexed_block(count, blen, displs, MPI_INT, &l.type));
  CHECK_MPI(MPI_Type_commit(&l.type));
  for (int b = 0; b < count; ++b)
    for (int j = 0; j < blen; ++j) add_off(&l, displs[b] + j);
  return l;
}

/* hindexed: byte displacements, blocks of different lengths, out of address order */
static Layout hindexed(void) {
  static const int blens[] = {4, 1, 6, 2};
  static const int ints[] = {30, 2, 11, 50};
  MPI_Aint bytes[4];
  for (int i = 0; i < 4; ++i) bytes[i] = (MPI_Aint)ints[i] * (MPI_Aint)sizeof(int);
  Layout l = {MPI_DATATYPE_NULL, 1, 0, {0}, "hindexed"};
  CHECK_MPI(MPI_Type_create_hindexed(4, blens, bytes, MPI_INT, &l.type));
  CHECK_MPI(MPI_Type_commit(&l.type));
  for (int b = 0; b < 4; ++b)
    for (int j = 0; j < blens[b]; ++j) add_off(&l, ints[b] + j);
  return l;
}

/* struct of an int pair at 0 and three ints at 7 (both MPI_INT), resized to extent 12 ints */
static Layout struct_ish(int count) {
  int blens[2] = {2, 3};
  MPI_Aint displs[2] = {0, 7 * (MPI_Aint)sizeof(int)};
  MPI_Datatype types[2] = {MPI_INT, MPI_INT}, s;
  Layout l = {MPI_DATATYPE_NULL, count, 0, {0}, "struct (resized)"};
  CHECK_MPI(MPI_Type_create_struct(2, blens, displs, types, &s));
  CHECK_MPI(MPI_Type_create_resized(s, 0, 12 * (MPI_Aint)sizeof(int), &l.type));
  CHECK_MPI(MPI_Type_free(&s));
  CHECK_MPI(MPI_Type_commit(&l.type));
  for (int k = 0; k < count; ++k) {
    for (int j = 0; j < 2; ++j) add_off(&l, 12 * k + j);
    for (int j = 0; j < 3; ++j) add_off(&l, 12 * k + 7 + j);
  }
  return l;
}

/* Blocks at ints {lo, lo+5, lo+10} of 2 ints each, resized to lower bound lo and extent 13
 * ints: with lo < 0 the data lies before the buffer pointer (and before the target disp). */
static Layout resized_lb(int lo, int count) {
  int displs[3] = {lo, lo + 5, lo + 10};
  MPI_Datatype ib;
  Layout l = {MPI_DATATYPE_NULL, count, 0, {0}, lo < 0 ? "resized, negative lb" : "resized, lb > 0"};
  CHECK_MPI(MPI_Type_create_indexed_block(3, 2, displs, MPI_INT, &ib));
  CHECK_MPI(MPI_Type_create_resized(ib, (MPI_Aint)lo * (MPI_Aint)sizeof(int),
                                    13 * (MPI_Aint)sizeof(int), &l.type));
  CHECK_MPI(MPI_Type_free(&ib));
  CHECK_MPI(MPI_Type_commit(&l.type));
  MPI_Aint lb = 0, extent = 0;
  CHECK_MPI(MPI_Type_get_extent(l.type, &lb, &extent));
  CHECK_INT(lb, ==, (MPI_Aint)lo * (MPI_Aint)sizeof(int));
  CHECK_INT(extent, ==, 13 * (MPI_Aint)sizeof(int));
  for (int k = 0; k < count; ++k)
    for (int b = 0; b < 3; ++b)
      for (int j = 0; j < 2; ++j) add_off(&l, 13 * k + displs[b] + j);
  return l;
}

static void free_layout(Layout *l) {
  if (l->type != MPI_INT) CHECK_MPI(MPI_Type_free(&l->type));
}

static int origin_val(int rank, int i, int salt) { return rank * 1000000 + salt * 10000 + i; }
static int fresh_val(int owner, int i) { return -1 - owner * 100000 - i; }

/* The origin buffer: kWin ints, pointer at `base` so negative offsets work. */
static int obuf_[kWin];
enum { kOriginBase = 64 };

static void fill_origin(int salt) {
  for (int i = 0; i < kWin; ++i) obuf_[i] = origin_val(rank_, i - kOriginBase, salt);
}

static void fresh_window(int *mem) {
  for (int i = 0; i < kWin; ++i) mem[i] = fresh_val(rank_, i);
}

/* Expected image of my window after prev_ put origin layout o into target layout t at disp. */
static void expect_put(int *img, const Layout *o, const Layout *t, int disp, int salt) {
  CHECK_INT(o->n, ==, t->n);
  for (int i = 0; i < kWin; ++i) img[i] = fresh_val(rank_, i);
  for (int j = 0; j < o->n; ++j) img[disp + t->offs[j]] = origin_val(prev_, o->offs[j], salt);
}

static void compare_window(const int *mem, const int *img, const char *what, const Layout *o,
                           const Layout *t) {
  for (int i = 0; i < kWin; ++i)
    CHECK_MSG(mem[i] == img[i], "%s (origin %s -> target %s): window element %d is %d, expected "
              "%d", what, o->name, t->name, i, mem[i], img[i]);
}

enum Sync { kFence, kLock };

/* One put case: I put to next_, check what prev_ put into my window. */
static void put_case(MPI_Win win, int *mem, enum Sync sync, const Layout *o, const Layout *t,
                     int disp, int salt) {
  static int img[kWin];
  const char *what = sync == kFence ? "put under fence" : "put under lock";
  fill_origin(salt);
  if (sync == kFence) {
    CHECK_MPI(MPI_Win_fence(0, win));
    fresh_window(mem);
    CHECK_MPI(MPI_Win_fence(0, win));
    CHECK_MPI(MPI_Put(obuf_ + kOriginBase, o->count, o->type, next_, disp, t->count, t->type, win));
    CHECK_MPI(MPI_Win_fence(0, win));
    expect_put(img, o, t, disp, salt);
    compare_window(mem, img, what, o, t);
  } else {
    CHECK_MPI(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, rank_, 0, win));
    fresh_window(mem);
    CHECK_MPI(MPI_Win_unlock(rank_, win));
    CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
    CHECK_MPI(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, next_, 0, win));
    CHECK_MPI(MPI_Put(obuf_ + kOriginBase, o->count, o->type, next_, disp, t->count, t->type, win));
    CHECK_MPI(MPI_Win_unlock(next_, win));
    CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
    expect_put(img, o, t, disp, salt);
    CHECK_MPI(MPI_Win_lock(MPI_LOCK_SHARED, rank_, 0, win));
    compare_window(mem, img, what, o, t);
    CHECK_MPI(MPI_Win_unlock(rank_, win));
  }
}

/* One get case: prev_'s window holds window_val(prev_, i); I get target layout t at disp into
 * origin layout o and check the whole origin buffer. */
static int window_val(int owner, int i, int salt) { return owner * 7000000 + salt * 3000 + i; }

static void get_case(MPI_Win win, int *mem, enum Sync sync, const Layout *o, const Layout *t,
                     int disp, int salt) {
  const char *what = sync == kFence ? "get under fence" : "get under lock";
  for (int i = 0; i < kWin; ++i) obuf_[i] = -7 - i;
  if (sync == kFence) {
    CHECK_MPI(MPI_Win_fence(0, win));
    for (int i = 0; i < kWin; ++i) mem[i] = window_val(rank_, i, salt);
    CHECK_MPI(MPI_Win_fence(0, win));
    CHECK_MPI(MPI_Get(obuf_ + kOriginBase, o->count, o->type, prev_, disp, t->count, t->type, win));
    CHECK_MPI(MPI_Win_fence(0, win));
  } else {
    CHECK_MPI(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, rank_, 0, win));
    for (int i = 0; i < kWin; ++i) mem[i] = window_val(rank_, i, salt);
    CHECK_MPI(MPI_Win_unlock(rank_, win));
    CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
    CHECK_MPI(MPI_Win_lock(MPI_LOCK_SHARED, prev_, 0, win));
    CHECK_MPI(MPI_Get(obuf_ + kOriginBase, o->count, o->type, prev_, disp, t->count, t->type, win));
    CHECK_MPI(MPI_Win_unlock(prev_, win));
    CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
  }
  static int want[kWin];
  for (int i = 0; i < kWin; ++i) want[i] = -7 - i;
  CHECK_INT(o->n, ==, t->n);
  for (int j = 0; j < o->n; ++j)
    want[kOriginBase + o->offs[j]] = window_val(prev_, disp + t->offs[j], salt);
  for (int i = 0; i < kWin; ++i)
    CHECK_MSG(obuf_[i] == want[i], "%s (origin %s <- target %s): origin element %d is %d, "
              "expected %d", what, o->name, t->name, i - kOriginBase, obuf_[i], want[i]);
}

/* Every rank accumulates (MPI_SUM) a contiguous block into every rank's window through a
 * vector target type. */
static void accumulate_vector(MPI_Win win, int *mem) {
  Layout v = vector(20, 2, 5); /* 40 ints spread over 97 */
  const int disp = 300;
  int contrib[40];
  CHECK_MPI(MPI_Win_fence(0, win));
  fresh_window(mem);
  CHECK_MPI(MPI_Win_fence(0, win));
  for (int j = 0; j < 40; ++j) contrib[j] = (rank_ + 1) * (j + 1);
  for (int k = 0; k < size_; ++k)
    CHECK_MPI(MPI_Accumulate(contrib, 40, MPI_INT, (rank_ + k) % size_, disp, 1, v.type, MPI_SUM,
                             win));
  CHECK_MPI(MPI_Win_fence(0, win));
  static int img[kWin];
  for (int i = 0; i < kWin; ++i) img[i] = fresh_val(rank_, i);
  const int ranksum = size_ * (size_ + 1) / 2;
  for (int j = 0; j < 40; ++j) img[disp + v.offs[j]] += ranksum * (j + 1);
  Layout c = contiguous(40);
  compare_window(mem, img, "accumulate(MPI_SUM) from every rank", &c, &v);
  free_layout(&v);
}

static void check_rget(const int *getbuf, const Layout *ib, int get_disp, int salt) {
  for (int j = 0; j < 21; ++j)
    CHECK_MSG(getbuf[j] == window_val(prev_, get_disp + ib->offs[j], salt), "MPI_Rget from rank "
              "%d (indexed_block -> contiguous): element %d is %d after MPI_Waitall, expected %d",
              prev_, j, getbuf[j], window_val(prev_, get_disp + ib->offs[j], salt));
  CHECK_MSG(getbuf[21] == -5, "MPI_Rget wrote past its 21 elements: %d", getbuf[21]);
}

/* Request-based operations under lock_all. */
static void request_based(MPI_Win win, int *mem) {
  Layout vec = vector(8, 3, 4), ib = indexed_block(), cont = contiguous(24);
  const int salt = 77, put_disp = 100, get_disp = 600, acc_disp = 900;
  CHECK_MPI(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, rank_, 0, win));
  for (int i = 0; i < kWin; ++i) mem[i] = window_val(rank_, i, salt);
  CHECK_MPI(MPI_Win_unlock(rank_, win));
  CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));

  static int getbuf[kWin];
  for (int i = 0; i < kWin; ++i) getbuf[i] = -5;
  fill_origin(salt);
  int acc[21];
  for (int j = 0; j < 21; ++j) acc[j] = rank_ + 1;
  MPI_Request reqs[4];
  CHECK_MPI(MPI_Win_lock_all(0, win));
  /* vector (24 ints) -> next_ contiguous */
  CHECK_MPI(MPI_Rput(obuf_ + kOriginBase, 1, vec.type, next_, put_disp, 24, MPI_INT, win,
                     &reqs[0]));
  /* prev_'s indexed_block (21 ints) -> contiguous */
  CHECK_MPI(MPI_Rget(getbuf, 21, MPI_INT, prev_, get_disp, 1, ib.type, win, &reqs[1]));
  /* everyone adds rank+1 into rank 0's indexed_block at acc_disp, and into next_'s */
  CHECK_MPI(MPI_Raccumulate(acc, 21, MPI_INT, 0, acc_disp, 1, ib.type, MPI_SUM, win, &reqs[2]));
  CHECK_MPI(MPI_Raccumulate(acc, 21, MPI_INT, next_, acc_disp + 100, 1, ib.type, MPI_SUM, win,
                            &reqs[3]));
  MPI_Status sts[4]; /* not MPI_STATUSES_IGNORE: gcc 12 -Werror trips over MPICH's (MPI_Status *)1 */
  CHECK_MPI(MPI_Waitall(4, reqs, sts));
  for (int i = 0; i < 4; ++i) CHECK(reqs[i] == MPI_REQUEST_NULL);
  /* Rget is complete: the data is here */
  if (!reference_mpich_) check_rget(getbuf, &ib, get_disp, salt);
  /* Rput is only locally complete: the origin buffer may be reused now */
  for (int i = 0; i < kWin; ++i) obuf_[i] = 0;
  CHECK_MPI(MPI_Win_unlock_all(win));
  if (reference_mpich_) check_rget(getbuf, &ib, get_disp, salt);
  CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));

  static int img[kWin];
  for (int i = 0; i < kWin; ++i) img[i] = window_val(rank_, i, salt);
  for (int j = 0; j < 24; ++j)
    img[put_disp + cont.offs[j]] = origin_val(prev_, vec.offs[j], salt);
  for (int j = 0; j < 21; ++j) {
    if (rank_ == 0) img[acc_disp + ib.offs[j]] += size_ * (size_ + 1) / 2;
    img[acc_disp + 100 + ib.offs[j]] += prev_ + 1;
  }
  CHECK_MPI(MPI_Win_lock(MPI_LOCK_SHARED, rank_, 0, win));
  for (int i = 0; i < kWin; ++i)
    CHECK_MSG(mem[i] == img[i], "MPI_Rput/MPI_Raccumulate: window element %d is %d, expected %d",
              i, mem[i], img[i]);
  CHECK_MPI(MPI_Win_unlock(rank_, win));
  CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
  free_layout(&vec);
  free_layout(&ib);
  free_layout(&cont);
}

static void run_all(MPI_Win win, int *mem) {
  for (int s = 0; s < 2; ++s) {
    const enum Sync sync = s == 0 ? kFence : kLock;
    int salt = 10 * s;
    Layout vec = vector(16, 3, 7), cont48 = contiguous(48), tvec = vector(16, 3, 5);
    Layout ib = indexed_block(), cont21 = contiguous(21), hix = hindexed();
    Layout st = struct_ish(4), cont13 = contiguous(13);
    Layout pos = resized_lb(4, 3), neg = resized_lb(-6, 3), cont20 = contiguous(20);
    put_case(win, mem, sync, &vec, &cont48, 100, ++salt);   /* vector -> contiguous */
    put_case(win, mem, sync, &cont48, &tvec, 200, ++salt);  /* contiguous -> vector */
    put_case(win, mem, sync, &cont21, &ib, 400, ++salt);    /* contiguous -> indexed_block */
    put_case(win, mem, sync, &ib, &ib, 0, ++salt);          /* indexed_block both sides, disp 0 */
    put_case(win, mem, sync, &st, &cont20, 500, ++salt);    /* struct -> contiguous */
    put_case(win, mem, sync, &cont13, &hix, 700, ++salt);   /* contiguous -> hindexed */
    put_case(win, mem, sync, &neg, &pos, 800, ++salt);      /* resized lb<0 -> resized lb>0 */
    put_case(win, mem, sync, &pos, &neg, 900, ++salt);      /* and back (target data at 894..) */
    put_case(win, mem, sync, &vec, &tvec, kWin - 78, ++salt); /* ends at the window's last int */
    Layout v18 = vector(6, 3, 4);
    get_case(win, mem, sync, &cont48, &vec, 1000, ++salt);  /* target vector -> contiguous */
    get_case(win, mem, sync, &neg, &v18, 1200, ++salt);     /* vector -> resized lb<0 */
    get_case(win, mem, sync, &cont20, &st, 1300, ++salt);   /* struct -> contiguous */
    get_case(win, mem, sync, &hix, &cont13, 1400, ++salt);  /* contiguous -> hindexed */
    get_case(win, mem, sync, &ib, &cont21, kWin - 21, ++salt); /* the window's last 21 ints */
    Layout *all[] = {&vec, &cont48, &tvec, &ib,  &cont21, &hix, &st,
                     &cont13, &pos, &neg, &cont20, &v18};
    for (size_t i = 0; i < sizeof all / sizeof all[0]; ++i) free_layout(all[i]);
  }
}

int main(int argc, char **argv) {
  CHECK_MPI(MPI_Init(&argc, &argv));
  CHECK_MPI(MPI_Comm_rank(MPI_COMM_WORLD, &rank_));
  CHECK_MPI(MPI_Comm_size(MPI_COMM_WORLD, &size_));
  reference_mpich_ = getenv("JOBS_REFERENCE_MPICH") != NULL;
  next_ = (rank_ + 1) % size_;
  prev_ = (rank_ + size_ - 1) % size_;

  int *mem = jobs_malloc(kWin * sizeof(int));
  MPI_Win win;
  CHECK_MPI(MPI_Win_create(mem, kWin * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD,
                           &win));
  run_all(win, mem);
  accumulate_vector(win, mem);
  request_based(win, mem);
  CHECK_MPI(MPI_Win_free(&win));
  free(mem);

  /* The same on MPI_Win_allocate memory. */
  CHECK_MPI(MPI_Win_allocate(kWin * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &mem,
                             &win));
  run_all(win, mem);
  request_based(win, mem);
  CHECK_MPI(MPI_Win_free(&win));
  jobs_done("job_rma_dtype");
  CHECK_MPI(MPI_Finalize());
  return 0;
}
