/* MPI_Accumulate with every predefined operation that applies, all ranks accumulating into every
 * rank (itself included) at the same time, to the same elements: MPI_SUM, PROD, MAX, MIN, LAND,
 * LOR, LXOR, BAND, BOR, BXOR, REPLACE on MPI_INT; SUM, PROD, MAX, MIN, REPLACE on MPI_DOUBLE;
 * MAXLOC and MINLOC on MPI_2INT and MPI_DOUBLE_INT (ties on purpose: the lower index wins).
 * Under fences (MPI_Win_create) and under MPI_Win_lock_all (MPI_Win_allocate). Every result is
 * checked exactly against the value computed locally: operands are small integers, halves and
 * powers of two, so sums and products are exact in double in any order. For MPI_REPLACE the
 * order is free: each element must hold one origin's value for it. Guard elements between the
 * regions must stay untouched. A long MPI_SUM vector checks accumulates bigger than any
 * internal chunk. */
#include "jobs_util.h"

static int rank_, size_;

/* Open MPI 4.1.4 (osc rdma and pt2pt) aborts an accumulate of MPI_DOUBLE_INT with MAXLOC/MINLOC
 * ("MPI_DOUBLE_INT datatype is currently unsupported for MPI_MINLOC/MPI_MAXLOC operation");
 * MPI-3.1 11.3.4 allows any predefined operation on predefined types it applies to. With
 * JOBS_REFERENCE_OPENMPI set those two cases are left out; for MPR they run. */
static int reference_openmpi_;

enum { kLen = 37, kGuard = 3, kBig = 20000 };

typedef struct {
  int v, loc;
} IntInt;
typedef struct {
  double v;
  int loc;
} DoubleInt;

enum Kind { kInt, kDouble, kIntInt, kDoubleInt };
typedef struct {
  enum Kind kind;
  MPI_Op op;
  const char *name;
  int len;
} Case;

#define CASE(k, o, n) {k, o, #o " on " n, kLen}
static Case cases_[32];
static int ncases_;

static void make_cases(void) {
  const Case c[] = {
      CASE(kInt, MPI_SUM, "MPI_INT"),        CASE(kInt, MPI_PROD, "MPI_INT"),
      CASE(kInt, MPI_MAX, "MPI_INT"),        CASE(kInt, MPI_MIN, "MPI_INT"),
      CASE(kInt, MPI_LAND, "MPI_INT"),       CASE(kInt, MPI_LOR, "MPI_INT"),
      CASE(kInt, MPI_LXOR, "MPI_INT"),       CASE(kInt, MPI_BAND, "MPI_INT"),
      CASE(kInt, MPI_BOR, "MPI_INT"),        CASE(kInt, MPI_BXOR, "MPI_INT"),
      CASE(kInt, MPI_REPLACE, "MPI_INT"),    CASE(kDouble, MPI_SUM, "MPI_DOUBLE"),
      CASE(kDouble, MPI_PROD, "MPI_DOUBLE"), CASE(kDouble, MPI_MAX, "MPI_DOUBLE"),
      CASE(kDouble, MPI_MIN, "MPI_DOUBLE"),  CASE(kDouble, MPI_REPLACE, "MPI_DOUBLE"),
      CASE(kIntInt, MPI_MAXLOC, "MPI_2INT"), CASE(kIntInt, MPI_MINLOC, "MPI_2INT"),
      CASE(kDoubleInt, MPI_MAXLOC, "MPI_DOUBLE_INT"),
      CASE(kDoubleInt, MPI_MINLOC, "MPI_DOUBLE_INT"),
  };
  ncases_ = 0;
  for (size_t i = 0; i < sizeof c / sizeof c[0]; ++i)
    if (!(reference_openmpi_ && c[i].kind == kDoubleInt)) cases_[ncases_++] = c[i];
  cases_[ncases_++] = (Case){kDouble, MPI_SUM, "MPI_SUM on MPI_DOUBLE (long vector)", kBig};
}

static size_t elem_size(enum Kind k) {
  switch (k) {
    case kInt: return sizeof(int);
    case kDouble: return sizeof(double);
    case kIntInt: return sizeof(IntInt);
    default: return sizeof(DoubleInt);
  }
}
static MPI_Datatype elem_type(enum Kind k) {
  switch (k) {
    case kInt: return MPI_INT;
    case kDouble: return MPI_DOUBLE;
    case kIntInt: return MPI_2INT;
    default: return MPI_DOUBLE_INT;
  }
}

/* Values. t = target rank, r = origin rank, i = element, salt varies per round. */
static int h(int t, int r, int i, int salt) {
  unsigned x = (unsigned)(t * 7919 + r * 104729 + i * 31 + salt * 1009 + 12345);
  x ^= x >> 13;
  x *= 2654435761u;
  x ^= x >> 16;
  return (int)(x & 0x7fffffff);
}

static int init_int(MPI_Op op, int t, int i, int salt) {
  int x = h(t, -1, i, salt);
  if (op == MPI_PROD) return 1 + x % 3;                    /* 1..3 */
  if (op == MPI_LAND || op == MPI_LOR || op == MPI_LXOR) return x % 3 == 0 ? 0 : x % 5 + 1;
  if (op == MPI_SUM) return x % 2001 - 1000;
  return x - 0x3fffffff;                                  /* any int, either sign */
}
static int contrib_int(MPI_Op op, int t, int r, int i, int salt) {
  int x = h(t, r, i, salt);
  if (op == MPI_PROD) return (x % 4 == 0) ? -1 : (x % 4 == 1 ? 2 : 1); /* |product| <= 3*2^8 */
  if (op == MPI_LAND) return x % 7 == 0 ? 0 : x % 9 - 4 + (x % 9 == 4); /* mostly nonzero */
  if (op == MPI_LOR) return x % 5 == 0 ? (x % 3) + 1 : 0;               /* mostly zero */
  if (op == MPI_LXOR) return x % 2 ? x % 7 + 1 : 0;
  if (op == MPI_SUM) return x % 2001 - 1000;
  return x - 0x3fffffff;
}
static int fold_int(MPI_Op op, int a, int b) {
  if (op == MPI_SUM) return a + b;
  if (op == MPI_PROD) return a * b;
  if (op == MPI_MAX) return a > b ? a : b;
  if (op == MPI_MIN) return a < b ? a : b;
  if (op == MPI_LAND) return a && b;
  if (op == MPI_LOR) return a || b;
  if (op == MPI_LXOR) return !a != !b;
  if (op == MPI_BAND) return a & b;
  if (op == MPI_BOR) return a | b;
  if (op == MPI_BXOR) return a ^ b;
  return b; /* REPLACE: not used for the check */
}

static double init_double(MPI_Op op, int t, int i, int salt) {
  int x = h(t, -1, i, salt);
  if (op == MPI_PROD) return (double)(1 + x % 5) * (x % 2 ? 1.0 : -1.0); /* +-1..5 */
  return (double)(x % 4001 - 2000) * 0.5;
}
static double contrib_double(MPI_Op op, int t, int r, int i, int salt) {
  int x = h(t, r, i, salt);
  if (op == MPI_PROD) {
    static const double f[] = {0.5, 2.0, -1.0, 1.0, 4.0, -0.25};
    return f[x % 6];
  }
  return (double)(x % 4001 - 2000) * 0.25;
}
static double fold_double(MPI_Op op, double a, double b) {
  if (op == MPI_SUM) return a + b;
  if (op == MPI_PROD) return a * b;
  if (op == MPI_MAX) return a > b ? a : b;
  if (op == MPI_MIN) return a < b ? a : b;
  return b;
}

/* MAXLOC/MINLOC pairs: few distinct values so ties happen; index from the origin. */
static IntInt init_ii(int t, int i, int salt) {
  int x = h(t, -1, i, salt);
  return (IntInt){x % 4, 50 + x % 7};
}
static IntInt contrib_ii(int t, int r, int i, int salt) {
  int x = h(t, r, i, salt);
  return (IntInt){x % 4, (r * 13 + i) % 61};
}
static DoubleInt init_di(int t, int i, int salt) {
  int x = h(t, -1, i, salt);
  return (DoubleInt){(double)(x % 4) * 0.5, 50 + x % 7};
}
static DoubleInt contrib_di(int t, int r, int i, int salt) {
  int x = h(t, r, i, salt);
  return (DoubleInt){(double)(x % 4) * 0.5, (r * 13 + i) % 61};
}
/* MPI-3.1 5.9.4: MAXLOC keeps the larger value; on a tie the smaller index. MINLOC alike. */
static void fold_loc(MPI_Op op, double *av, int *al, double bv, int bl) {
  const int better = op == MPI_MAXLOC ? bv > *av : bv < *av;
  if (better) {
    *av = bv;
    *al = bl;
  } else if (bv == *av && bl < *al) {
    *al = bl;
  }
}

/* Layout: case c occupies [offset_[c], offset_[c] + len) elements of its kind, in bytes, with
 * kGuard guard elements after it (filled with 0x5A bytes). */
static size_t offset_[32], total_bytes_;

static void layout(void) {
  size_t off = 0;
  for (int c = 0; c < ncases_; ++c) {
    const size_t es = elem_size(cases_[c].kind);
    off = (off + 15) / 16 * 16;
    offset_[c] = off;
    off += (size_t)(cases_[c].len + kGuard) * es;
  }
  total_bytes_ = (off + 15) / 16 * 16;
}

/* Write the initial target values for `salt` into my window memory. */
static void fill_target(char *mem, int salt) {
  memset(mem, 0x5A, total_bytes_);
  for (int c = 0; c < ncases_; ++c) {
    const Case *k = &cases_[c];
    char *p = mem + offset_[c];
    for (int i = 0; i < k->len; ++i) {
      switch (k->kind) {
        case kInt: ((int *)p)[i] = init_int(k->op, rank_, i, salt + c); break;
        case kDouble: ((double *)p)[i] = init_double(k->op, rank_, i, salt + c); break;
        case kIntInt: ((IntInt *)p)[i] = init_ii(rank_, i, salt + c); break;
        default: ((DoubleInt *)p)[i] = init_di(rank_, i, salt + c); break;
      }
    }
  }
}

/* The origin buffer of case c for target t. */
static void fill_origin(void *buf, int c, int t, int salt) {
  const Case *k = &cases_[c];
  for (int i = 0; i < k->len; ++i) {
    switch (k->kind) {
      case kInt: ((int *)buf)[i] = contrib_int(k->op, t, rank_, i, salt + c); break;
      case kDouble: ((double *)buf)[i] = contrib_double(k->op, t, rank_, i, salt + c); break;
      case kIntInt: ((IntInt *)buf)[i] = contrib_ii(t, rank_, i, salt + c); break;
      default: ((DoubleInt *)buf)[i] = contrib_di(t, rank_, i, salt + c); break;
    }
  }
}

/* Issue every case's accumulate from me to every target (in a rank-dependent order). */
static void issue_all(MPI_Win win, void **bufs, int salt) {
  for (int k = 0; k < size_; ++k) {
    const int t = (rank_ + k) % size_;
    for (int c = 0; c < ncases_; ++c) {
      void *buf = bufs[t * ncases_ + c];
      fill_origin(buf, c, t, salt);
      const MPI_Aint disp = (MPI_Aint)offset_[c];
      CHECK_MPI(MPI_Accumulate(buf, cases_[c].len, elem_type(cases_[c].kind), t, disp,
                               cases_[c].len, elem_type(cases_[c].kind), cases_[c].op, win));
    }
  }
}

static void check_target(const char *mem, int salt, const char *how) {
  for (int c = 0; c < ncases_; ++c) {
    const Case *k = &cases_[c];
    const char *p = mem + offset_[c];
    const size_t es = elem_size(k->kind);
    for (int i = 0; i < k->len; ++i) {
      const int s = salt + c;
      if (k->kind == kInt) {
        const int got = ((const int *)p)[i];
        if (k->op == MPI_REPLACE) {
          int ok = 0;
          for (int r = 0; r < size_ && !ok; ++r) ok = got == contrib_int(k->op, rank_, r, i, s);
          CHECK_MSG(ok, "%s, %s: element %d is %d, which no rank put there", how, k->name, i,
                    got);
          continue;
        }
        int want = init_int(k->op, rank_, i, s);
        for (int r = 0; r < size_; ++r) want = fold_int(k->op, want, contrib_int(k->op, rank_, r, i, s));
        CHECK_MSG(got == want, "%s, %s: element %d is %d, expected %d", how, k->name, i, got, want);
      } else if (k->kind == kDouble) {
        const double got = ((const double *)p)[i];
        if (k->op == MPI_REPLACE) {
          int ok = 0;
          for (int r = 0; r < size_ && !ok; ++r)
            ok = got == contrib_double(k->op, rank_, r, i, s);
          CHECK_MSG(ok, "%s, %s: element %d is %g, which no rank put there", how, k->name, i,
                    got);
          continue;
        }
        double want = init_double(k->op, rank_, i, s);
        for (int r = 0; r < size_; ++r)
          want = fold_double(k->op, want, contrib_double(k->op, rank_, r, i, s));
        CHECK_MSG(got == want, "%s, %s: element %d is %.17g, expected %.17g", how, k->name, i, got,
                  want);
      } else if (k->kind == kIntInt) {
        const IntInt got = ((const IntInt *)p)[i];
        IntInt in = init_ii(rank_, i, s);
        double wv = in.v;
        int wl = in.loc;
        for (int r = 0; r < size_; ++r) {
          IntInt b = contrib_ii(rank_, r, i, s);
          fold_loc(k->op, &wv, &wl, b.v, b.loc);
        }
        CHECK_MSG(got.v == (int)wv && got.loc == wl, "%s, %s: element %d is (%d, %d), expected "
                  "(%d, %d)", how, k->name, i, got.v, got.loc, (int)wv, wl);
      } else {
        const DoubleInt got = ((const DoubleInt *)p)[i];
        DoubleInt in = init_di(rank_, i, s);
        double wv = in.v;
        int wl = in.loc;
        for (int r = 0; r < size_; ++r) {
          DoubleInt b = contrib_di(rank_, r, i, s);
          fold_loc(k->op, &wv, &wl, b.v, b.loc);
        }
        CHECK_MSG(got.v == wv && got.loc == wl, "%s, %s: element %d is (%g, %d), expected "
                  "(%g, %d)", how, k->name, i, got.v, got.loc, wv, wl);
      }
    }
    const unsigned char *g = (const unsigned char *)p + (size_t)k->len * es;
    for (size_t b = 0; b < (size_t)kGuard * es; ++b)
      CHECK_MSG(g[b] == 0x5A, "%s, %s: guard byte %zu after the region was changed to 0x%02x",
                how, k->name, b, g[b]);
  }
}

static void **alloc_origin_bufs(void) {
  void **bufs = jobs_malloc((size_t)size_ * (size_t)ncases_ * sizeof(void *));
  for (int t = 0; t < size_; ++t)
    for (int c = 0; c < ncases_; ++c)
      bufs[t * ncases_ + c] = jobs_malloc((size_t)cases_[c].len * elem_size(cases_[c].kind));
  return bufs;
}
static void free_origin_bufs(void **bufs) {
  for (int i = 0; i < size_ * ncases_; ++i) free(bufs[i]);
  free(bufs);
}

static void with_fence(int rounds) {
  char *mem = jobs_malloc(total_bytes_);
  void **bufs = alloc_origin_bufs();
  MPI_Win win;
  CHECK_MPI(MPI_Win_create(mem, (MPI_Aint)total_bytes_, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &win));
  for (int round = 0; round < rounds; ++round) {
    const int salt = 1000 * round;
    CHECK_MPI(MPI_Win_fence(0, win));
    fill_target(mem, salt);
    CHECK_MPI(MPI_Win_fence(0, win));
    issue_all(win, bufs, salt);
    CHECK_MPI(MPI_Win_fence(0, win));
    check_target(mem, salt, "fence");
  }
  CHECK_MPI(MPI_Win_fence(0, win));
  CHECK_MPI(MPI_Win_free(&win));
  free_origin_bufs(bufs);
  free(mem);
}

static void with_lock_all(int rounds) {
  char *mem = NULL;
  void **bufs = alloc_origin_bufs();
  MPI_Win win;
  CHECK_MPI(MPI_Win_allocate((MPI_Aint)total_bytes_, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &mem, &win));
  for (int round = 0; round < rounds; ++round) {
    const int salt = 1000 * round + 500;
    CHECK_MPI(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, rank_, 0, win));
    fill_target(mem, salt);
    CHECK_MPI(MPI_Win_unlock(rank_, win));
    CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
    CHECK_MPI(MPI_Win_lock_all(0, win));
    issue_all(win, bufs, salt);
    /* half the rounds complete with flush_all inside the epoch, half with the unlock alone */
    if (round % 2) CHECK_MPI(MPI_Win_flush_all(win));
    CHECK_MPI(MPI_Win_unlock_all(win));
    CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
    CHECK_MPI(MPI_Win_lock(MPI_LOCK_SHARED, rank_, 0, win));
    check_target(mem, salt, round % 2 ? "lock_all + flush_all" : "lock_all");
    CHECK_MPI(MPI_Win_unlock(rank_, win));
    CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
  }
  CHECK_MPI(MPI_Win_free(&win));
  free_origin_bufs(bufs);
}

int main(int argc, char **argv) {
  CHECK_MPI(MPI_Init(&argc, &argv));
  CHECK_MPI(MPI_Comm_rank(MPI_COMM_WORLD, &rank_));
  CHECK_MPI(MPI_Comm_size(MPI_COMM_WORLD, &size_));
  reference_openmpi_ = getenv("JOBS_REFERENCE_OPENMPI") != NULL;
  make_cases();
  layout();
  with_fence(3);
  with_lock_all(4);
  jobs_done("job_rma_accumulate");
  CHECK_MPI(MPI_Finalize());
  return 0;
}
