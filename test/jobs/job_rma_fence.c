/* One-sided communication under fences: a 1-D halo exchange done with MPI_Put into the
 * neighbours' windows (MPI_Win_create on user memory and MPI_Win_allocate), checked bit for bit
 * against the same computation exchanging halos with MPI_Sendrecv; the ends of the line put to
 * MPI_PROC_NULL. MPI_Get of a neighbour's interior; fence assertions; windows of size zero on
 * some ranks of a communicator whose ranks are not MPI_COMM_WORLD's; the window attributes
 * (MPI_WIN_BASE, _SIZE, _DISP_UNIT, _CREATE_FLAVOR, _MODEL), MPI_Win_get_group and the window
 * name. Line: rank r's left neighbour is r-1, its right r+1 (MPI_PROC_NULL past the ends). */
#include "jobs_util.h"

enum { kN = 96, kH = 2, kIters = 12, kTotal = kN + 2 * kH };

static int rank_, size_, left_, right_;

/* Known deviations of the reference libraries, tolerated only when the runner says which one
 * runs the job (JOBS_REFERENCE_OPENMPI / JOBS_REFERENCE_MPICH); for MPR every check is strict.
 * - Open MPI 4.1.4 names every window ("rdma window 3", "pt2pt window 3"); MPI-3.1 6.8: a window
 *   never named has the empty name.
 * - MPICH 4.0.2 (ch4:ucx, Debian) misplaces puts into MPI_Win_allocate windows whose size is not
 *   a multiple of 16 bytes (a 4-rank window of 20 bytes per rank: puts land in the wrong rank's
 *   part or past the slot), and its MPI_WIN_BASE then differs from the base MPI_Win_allocate
 *   returned. With JOBS_REFERENCE_MPICH the odd-sized window is rounded up to 64 bytes. */
static int reference_openmpi_, reference_mpich_;

/* Initial value of interior point i (0-based in the rank's part of the line). */
static double initial(int rank, int i) { return (double)((rank * kN + i) % 17) * 0.5 - 3.0; }

/* A boundary value for the halo cells at the ends of the line (never overwritten there). */
static const double kBoundary = 100.0;

static void init_line(double *u) {
  for (int i = 0; i < kTotal; ++i) u[i] = kBoundary;
  for (int i = 0; i < kN; ++i) u[kH + i] = initial(rank_, i);
}

/* One step of a 5-point smoothing stencil on the interior; the halos must be current. */
static void step(double *u, double *tmp) {
  for (int i = kH; i < kH + kN; ++i)
    tmp[i] = 0.125 * u[i - 2] + 0.25 * u[i - 1] + 0.25 * u[i] + 0.25 * u[i + 1] + 0.125 * u[i + 2];
  for (int i = kH; i < kH + kN; ++i) u[i] = tmp[i];
}

/* The reference: halos exchanged with MPI_Sendrecv. */
static void reference_run(double *v, int iters) {
  double tmp[kTotal];
  init_line(v);
  for (int it = 0; it < iters; ++it) {
    /* my first kH interior cells -> left's right halo; my last kH -> right's left halo */
    CHECK_MPI(MPI_Sendrecv(v + kH, kH, MPI_DOUBLE, left_, 1, v + kH + kN, kH, MPI_DOUBLE, right_, 1,
                           MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    CHECK_MPI(MPI_Sendrecv(v + kN, kH, MPI_DOUBLE, right_, 2, v, kH, MPI_DOUBLE, left_, 2,
                           MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    step(v, tmp);
  }
}

/* The same with MPI_Put into the neighbours' windows; u is the window's memory (disp unit
 * sizeof(double)). With `asserts` the fences carry MPI_MODE_* assertions that hold here. */
static void rma_run(double *u, MPI_Win win, int iters, int asserts) {
  double tmp[kTotal];
  /* Local stores into the window between fences, while nobody accesses it. */
  CHECK_MPI(MPI_Win_fence(asserts ? MPI_MODE_NOPRECEDE : 0, win));
  init_line(u);
  for (int it = 0; it < iters; ++it) {
    /* Open the epoch (nothing of mine outstanding: NOPRECEDE; step() stored into the window
     * since the last fence, so no NOSTORE here), then close it (nothing follows before the next
     * opening fence: NOSUCCEED, no local stores meanwhile: NOSTORE, no puts after it: NOPUT). */
    CHECK_MPI(MPI_Win_fence(asserts ? MPI_MODE_NOPRECEDE : 0, win));
    CHECK_MPI(MPI_Put(u + kH, kH, MPI_DOUBLE, left_, kH + kN, kH, MPI_DOUBLE, win));
    CHECK_MPI(MPI_Put(u + kN, kH, MPI_DOUBLE, right_, 0, kH, MPI_DOUBLE, win));
    CHECK_MPI(MPI_Win_fence(
        asserts ? MPI_MODE_NOSUCCEED | MPI_MODE_NOSTORE | MPI_MODE_NOPUT : 0, win));
    step(u, tmp);
  }
  CHECK_MPI(MPI_Win_fence(0, win));
}

static void compare_lines(const double *u, const double *v, const char *what) {
  for (int i = 0; i < kTotal; ++i)
    CHECK_MSG(memcmp(&u[i], &v[i], sizeof(double)) == 0,
              "%s: cell %d is %.17g with MPI_Put, %.17g with MPI_Sendrecv (left %d, right %d)",
              what, i, u[i], v[i], left_, right_);
}

/* After the run: get the right neighbour's whole interior and compare it with what it sends. */
static void check_get(const double *u, MPI_Win win, const char *what) {
  double got[kN], sent[kN];
  for (int i = 0; i < kN; ++i) got[i] = -12345.0;
  CHECK_MPI(MPI_Win_fence(0, win));
  CHECK_MPI(MPI_Get(got, kN, MPI_DOUBLE, right_, kH, kN, MPI_DOUBLE, win));
  /* a single-element get from my own window in the same epoch */
  double mine = -1.0;
  CHECK_MPI(MPI_Get(&mine, 1, MPI_DOUBLE, rank_, kH + 3, 1, MPI_DOUBLE, win));
  CHECK_MPI(MPI_Win_fence(0, win));
  CHECK_MSG(mine == u[kH + 3], "%s: MPI_Get from my own window gave %g, expected %g", what, mine,
            u[kH + 3]);
  CHECK_MPI(MPI_Sendrecv(u + kH, kN, MPI_DOUBLE, left_, 3, sent, kN, MPI_DOUBLE, right_, 3,
                         MPI_COMM_WORLD, MPI_STATUS_IGNORE));
  if (right_ == MPI_PROC_NULL) {
    for (int i = 0; i < kN; ++i)
      CHECK_MSG(got[i] == -12345.0, "%s: MPI_Get from MPI_PROC_NULL wrote [%d] = %g", what, i,
                got[i]);
    return;
  }
  for (int i = 0; i < kN; ++i)
    CHECK_MSG(got[i] == sent[i], "%s: MPI_Get of rank %d's interior [%d] = %.17g, it holds %.17g",
              what, right_, i, got[i], sent[i]);
}

static void check_attrs(MPI_Win win, void *base, MPI_Aint size, int disp_unit, int flavor,
                        MPI_Comm comm, const char *what) {
  void *got_base = NULL;
  MPI_Aint *got_size = NULL;
  int *got_unit = NULL, *got_flavor = NULL, *got_model = NULL, flag = 0;
  CHECK_MPI(MPI_Win_get_attr(win, MPI_WIN_BASE, &got_base, &flag));
  CHECK_MSG(flag, "%s: MPI_WIN_BASE not set", what);
  if (size > 0)
    CHECK_MSG(got_base == base, "%s: MPI_WIN_BASE %p, expected %p", what, got_base, base);
  flag = 0;
  CHECK_MPI(MPI_Win_get_attr(win, MPI_WIN_SIZE, &got_size, &flag));
  CHECK_MSG(flag && got_size, "%s: MPI_WIN_SIZE not set", what);
  CHECK_MSG(*got_size == size, "%s: MPI_WIN_SIZE %ld, expected %ld", what, (long)*got_size,
            (long)size);
  flag = 0;
  CHECK_MPI(MPI_Win_get_attr(win, MPI_WIN_DISP_UNIT, &got_unit, &flag));
  CHECK_MSG(flag && got_unit, "%s: MPI_WIN_DISP_UNIT not set", what);
  CHECK_MSG(*got_unit == disp_unit, "%s: MPI_WIN_DISP_UNIT %d, expected %d", what, *got_unit,
            disp_unit);
  flag = 0;
  CHECK_MPI(MPI_Win_get_attr(win, MPI_WIN_CREATE_FLAVOR, &got_flavor, &flag));
  CHECK_MSG(flag && got_flavor, "%s: MPI_WIN_CREATE_FLAVOR not set", what);
  CHECK_MSG(*got_flavor == flavor, "%s: MPI_WIN_CREATE_FLAVOR %d, expected %d", what, *got_flavor,
            flavor);
  flag = 0;
  CHECK_MPI(MPI_Win_get_attr(win, MPI_WIN_MODEL, &got_model, &flag));
  CHECK_MSG(flag && got_model, "%s: MPI_WIN_MODEL not set", what);
  CHECK_MSG(*got_model == MPI_WIN_UNIFIED || *got_model == MPI_WIN_SEPARATE,
            "%s: MPI_WIN_MODEL %d is neither MPI_WIN_UNIFIED (%d) nor MPI_WIN_SEPARATE (%d)", what,
            *got_model, MPI_WIN_UNIFIED, MPI_WIN_SEPARATE);

  /* The window's group is the communicator's, in the same order. */
  MPI_Group wg, cg;
  int result = -1;
  CHECK_MPI(MPI_Win_get_group(win, &wg));
  CHECK_MPI(MPI_Comm_group(comm, &cg));
  CHECK_MPI(MPI_Group_compare(wg, cg, &result));
  CHECK_MSG(result == MPI_IDENT, "%s: MPI_Win_get_group vs the communicator's group: %d, "
            "expected MPI_IDENT (%d)", what, result, MPI_IDENT);
  int gsize = -1, grank = -1, crank = -1;
  CHECK_MPI(MPI_Group_size(wg, &gsize));
  CHECK_MPI(MPI_Group_rank(wg, &grank));
  CHECK_MPI(MPI_Comm_rank(comm, &crank));
  CHECK_INT(gsize, ==, size_);
  CHECK_INT(grank, ==, crank);
  CHECK_MPI(MPI_Group_free(&wg));
  CHECK_MPI(MPI_Group_free(&cg));
  CHECK(wg == MPI_GROUP_NULL);
}


static void check_name(MPI_Win win) {
  char name[MPI_MAX_OBJECT_NAME];
  int len = -1;
  memset(name, 'x', sizeof name);
  CHECK_MPI(MPI_Win_get_name(win, name, &len));
  CHECK_MSG(len >= 0 && len < MPI_MAX_OBJECT_NAME && name[len] == '\0',
            "unnamed window: MPI_Win_get_name length %d, string not terminated there", len);
  if (!reference_openmpi_)
    CHECK_MSG(len == 0 && name[0] == '\0', "unnamed window: name \"%s\" (length %d), expected "
              "empty", name, len);
  char want[64];
  snprintf(want, sizeof want, "halo window of rank %d", rank_);
  CHECK_MPI(MPI_Win_set_name(win, want));
  CHECK_MPI(MPI_Win_get_name(win, name, &len));
  CHECK_MSG(strcmp(name, want) == 0 && len == (int)strlen(want),
            "MPI_Win_get_name gave \"%s\" (length %d), expected \"%s\"", name, len, want);
  CHECK_MPI(MPI_Win_set_name(win, "renamed"));
  CHECK_MPI(MPI_Win_get_name(win, name, &len));
  CHECK_MSG(strcmp(name, "renamed") == 0 && len == 7, "after renaming: \"%s\" (length %d)", name,
            len);
}

static void halo_with_create(void) {
  double *u = jobs_malloc(kTotal * sizeof(double)), v[kTotal];
  MPI_Win win;
  CHECK_MPI(MPI_Win_create(u, kTotal * sizeof(double), sizeof(double), MPI_INFO_NULL,
                           MPI_COMM_WORLD, &win));
  check_attrs(win, u, kTotal * sizeof(double), sizeof(double), MPI_WIN_FLAVOR_CREATE,
              MPI_COMM_WORLD, "MPI_Win_create");
  check_name(win);
  for (int asserts = 0; asserts < 2; ++asserts) {
    reference_run(v, kIters);
    rma_run(u, win, kIters, asserts);
    compare_lines(u, v, asserts ? "MPI_Win_create, fences with assertions" : "MPI_Win_create");
  }
  check_get(u, win, "MPI_Win_create");
  CHECK_MPI(MPI_Win_free(&win));
  CHECK(win == MPI_WIN_NULL);
  free(u);
}

static void halo_with_allocate(void) {
  double *u = NULL, v[kTotal];
  MPI_Win win;
  CHECK_MPI(MPI_Win_allocate(kTotal * sizeof(double), sizeof(double), MPI_INFO_NULL,
                             MPI_COMM_WORLD, &u, &win));
  CHECK_MSG(u != NULL, "MPI_Win_allocate returned a NULL base for %zu bytes",
            kTotal * sizeof(double));
  check_attrs(win, u, kTotal * sizeof(double), sizeof(double), MPI_WIN_FLAVOR_ALLOCATE,
              MPI_COMM_WORLD, "MPI_Win_allocate");
  reference_run(v, kIters + 3);
  rma_run(u, win, kIters + 3, 1);
  compare_lines(u, v, "MPI_Win_allocate");
  check_get(u, win, "MPI_Win_allocate");
  CHECK_MPI(MPI_Win_free(&win));
}

/* A communicator in reverse order: window ranks are the communicator's, not MPI_COMM_WORLD's.
 * Ranks with an odd communicator rank expose nothing (size 0); everyone puts its world rank
 * into slot [its rank] of every even rank's window, and gets slot [0] of the next even rank. */
static void zero_size_windows(int allocate) {
  MPI_Comm rev;
  CHECK_MPI(MPI_Comm_split(MPI_COMM_WORLD, 0, size_ - rank_, &rev));
  int me = -1;
  CHECK_MPI(MPI_Comm_rank(rev, &me));
  CHECK_INT(me, ==, size_ - 1 - rank_);
  const int exposes = me % 2 == 0;
  MPI_Aint bytes = exposes ? (MPI_Aint)(size_ + 1) * (MPI_Aint)sizeof(int) : 0;
  if (reference_mpich_ && allocate) bytes = (bytes + 63) / 64 * 64;
  int *mem = NULL;
  MPI_Win win;
  const char *what = allocate ? "zero-size windows (MPI_Win_allocate)" : "zero-size windows";
  if (allocate) {
    CHECK_MPI(MPI_Win_allocate(bytes, sizeof(int), MPI_INFO_NULL, rev, &mem, &win));
    check_attrs(win, mem, bytes, sizeof(int), MPI_WIN_FLAVOR_ALLOCATE, rev, what);
  } else {
    mem = exposes ? jobs_malloc((size_t)bytes) : NULL;
    CHECK_MPI(MPI_Win_create(mem, bytes, sizeof(int), MPI_INFO_NULL, rev, &win));
    check_attrs(win, mem, bytes, sizeof(int), MPI_WIN_FLAVOR_CREATE, rev, what);
  }
  CHECK_MPI(MPI_Win_fence(0, win));
  if (exposes)
    for (int i = 0; i <= size_; ++i) mem[i] = -1;
  CHECK_MPI(MPI_Win_fence(0, win));
  for (int t = 0; t < size_; t += 2)
    CHECK_MPI(MPI_Put(&rank_, 1, MPI_INT, t, me, 1, MPI_INT, win));
  CHECK_MPI(MPI_Win_fence(0, win));
  if (exposes) {
    for (int i = 0; i < size_; ++i)
      CHECK_MSG(mem[i] == size_ - 1 - i, "%s: slot %d of my window holds %d, expected world rank "
                "%d", what, i, mem[i], size_ - 1 - i);
    CHECK_MSG(mem[size_] == -1, "%s: the slot past the puts was overwritten with %d", what,
              mem[size_]);
  }
  int got = -7, target = (me / 2 * 2 + 2) % ((size_ + 1) / 2 * 2);
  CHECK_MPI(MPI_Get(&got, 1, MPI_INT, target, 0, 1, MPI_INT, win));
  CHECK_MPI(MPI_Win_fence(MPI_MODE_NOSUCCEED, win));
  CHECK_MSG(got == size_ - 1, "%s: MPI_Get of slot 0 of rank %d gave %d, expected %d", what,
            target, got, size_ - 1);
  CHECK_MPI(MPI_Win_free(&win));
  if (!allocate) free(mem);
  CHECK_MPI(MPI_Comm_free(&rev));
}

int main(int argc, char **argv) {
  CHECK_MPI(MPI_Init(&argc, &argv));
  CHECK_MPI(MPI_Comm_rank(MPI_COMM_WORLD, &rank_));
  CHECK_MPI(MPI_Comm_size(MPI_COMM_WORLD, &size_));
  reference_openmpi_ = getenv("JOBS_REFERENCE_OPENMPI") != NULL;
  reference_mpich_ = getenv("JOBS_REFERENCE_MPICH") != NULL;
  left_ = rank_ > 0 ? rank_ - 1 : MPI_PROC_NULL;
  right_ = rank_ + 1 < size_ ? rank_ + 1 : MPI_PROC_NULL;
  halo_with_create();
  halo_with_allocate();
  zero_size_windows(0);
  zero_size_windows(1);
  jobs_done("job_rma_fence");
  CHECK_MPI(MPI_Finalize());
  return 0;
}
