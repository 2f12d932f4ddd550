/* Reductions on every communicator size (world, dup, reversed, splits): Reduce (every root),
 * Allreduce, Reduce_scatter(_block), Scan and Exscan, on int/long/float/double with SUM, MAX and
 * MIN, MAXLOC/MINLOC on the pair types, a commutative and a non-commutative user op; in place
 * and not; counts from 0 to 4 Mi elements; each algorithm forced in turn through its
 * MPR_COLL_*_ALG override. Results are checked against values computed locally. */
#include "coll_matrix.h"

static int salt_;

typedef struct {
  MPI_Datatype type;
  const char *name;
  size_t size;
} Ty;
static const Ty kTypes[] = {{MPI_INT, "int", sizeof(int)},
                            {MPI_LONG, "long", sizeof(long)},
                            {MPI_FLOAT, "float", sizeof(float)},
                            {MPI_DOUBLE, "double", sizeof(double)}};
static const struct {
  MPI_Op op;
  const char *name;
} kOps[] = {{MPI_SUM, "SUM"}, {MPI_MAX, "MAX"}, {MPI_MIN, "MIN"}};

static void put(int t, void *b, size_t i, long v) {
  switch (t) {
    case 0:
      ((int *)b)[i] = (int)v;
      break;
    case 1:
      ((long *)b)[i] = v;
      break;
    case 2:
      ((float *)b)[i] = (float)v;
      break;
    default:
      ((double *)b)[i] = (double)v;
      break;
  }
}
static long get(int t, const void *b, size_t i) {
  switch (t) {
    case 0:
      return ((const int *)b)[i];
    case 1:
      return ((const long *)b)[i];
    case 2:
      return (long)((const float *)b)[i];
    default:
      return (long)((const double *)b)[i];
  }
}
static long combine(int op, long a, long b) {
  return op == 0 ? a + b : op == 1 ? (a > b ? a : b) : (a < b ? a : b);
}
/* op over ranks [lo, hi) of coll_val(r, i, salt). */
static long expect(int op, int lo, int hi, size_t i, int salt) {
  long acc = coll_val(lo, i, salt);
  for (int r = lo + 1; r < hi; ++r) acc = combine(op, acc, coll_val(r, i, salt));
  return acc;
}

/* Affine maps x -> m*x + c (mod p) as m << 32 | c: composition is associative, not commutative. */
static const uint64_t kP = 2147483647u;
static uint64_t affine(int r, size_t i, int salt) {
  uint64_t m = ((uint64_t)r * 7919u + i * 31u + (uint64_t)salt + 2u) % kP;
  uint64_t c = ((uint64_t)r * 104729u + i + 1u) % kP;
  return m << 32 | c;
}
static uint64_t compose(uint64_t a, uint64_t b) { /* a after b */
  uint64_t ma = a >> 32, ca = a & 0xffffffffu, mb = b >> 32, cb = b & 0xffffffffu;
  return (ma * mb % kP) << 32 | ((ma * cb + ca) % kP);
}
static void compose_op(void *in, void *inout, int *len, MPI_Datatype *type) {
  (void)type;
  const uint64_t *a = in;
  uint64_t *b = inout;
  for (int i = 0; i < *len; ++i) b[i] = compose(a[i], b[i]);
}
static void int_sum_op(void *in, void *inout, int *len, MPI_Datatype *type) {
  (void)type;
  const int *a = in;
  int *b = inout;
  for (int i = 0; i < *len; ++i) b[i] += a[i];
}
static uint64_t expect_affine(int lo, int hi, size_t i, int salt) {
  uint64_t acc = affine(lo, i, salt);
  for (int r = lo + 1; r < hi; ++r) acc = compose(acc, affine(r, i, salt));
  return acc;
}

static MPI_Op compose_mpi_, sum_mpi_;
static char *in_, *out_;
static size_t cap_;

static void need(size_t bytes) {
  if (bytes <= cap_) return;
  free(in_);
  free(out_);
  in_ = jobs_malloc(bytes);
  out_ = jobs_malloc(bytes);
  cap_ = bytes;
}

static const char *kAllreduceAlgs[] = {NULL, "recursive_doubling", "rabenseifner", "ring"};
static const char *kReduceAlgs[] = {NULL, "binomial", "rabenseifner"};
static const char *kRsAlgs[] = {NULL, "ring", "reduce_then_scatter"};
#define NALGS(a) ((int)(sizeof(a) / sizeof((a)[0])))

/* root < 0: Allreduce. */
static void one_reduce(const TestComm *tc, int root, const char *alg, size_t n, int t, int op,
                       int in_place) {
  int rank, size;
  MPI_Comm_rank(tc->comm, &rank);
  MPI_Comm_size(tc->comm, &size);
  const int salt = ++salt_, receives = root < 0 || rank == root;
  const int mine_in_place = in_place && receives;
  need(n * 8 + 8);
  for (size_t i = 0; i < n; ++i) {
    put(t, in_, i, coll_val(rank, i, salt));
    put(t, out_, i, mine_in_place ? coll_val(rank, i, salt) : -9999);
  }
  const void *send = mine_in_place ? MPI_IN_PLACE : in_;
  if (root < 0)
    CHECK_MPI(MPI_Allreduce(send, out_, (int)n, kTypes[t].type, kOps[op].op, tc->comm));
  else
    CHECK_MPI(MPI_Reduce(send, out_, (int)n, kTypes[t].type, kOps[op].op, root, tc->comm));
  if (!receives) return;
  for (size_t i = 0; i < n; ++i) {
    long want = expect(op, 0, size, i, salt), got = get(t, out_, i);
    CHECK_MSG(got == want, "%s on %s, alg %s, root %d, %zu x %s %s%s: [%zu] = %ld, expected %ld",
              root < 0 ? "Allreduce" : "Reduce", tc->name, alg ? alg : "auto", root, n,
              kTypes[t].name, kOps[op].name, in_place ? " in place" : "", i, got, want);
  }
}

static void check_reduce_allreduce(const TestComm *tc) {
  int size;
  MPI_Comm_size(tc->comm, &size);
  static const size_t kFull[] = {0, 1, 3, 8, 100, 1031, 65539};
  static const size_t kLight[] = {0, 1, 5, 1031};
  const size_t *counts = tc->full ? kFull : kLight;
  const int ncounts = tc->full ? 7 : 4;
  for (int a = 0; a < NALGS(kAllreduceAlgs); ++a) {
    coll_force("MPR_COLL_ALLREDUCE_ALG", kAllreduceAlgs[a]);
    for (int c = 0; c < ncounts; ++c)
      for (int t = 0; t < 4; ++t)
        for (int ip = 0; ip < 2; ++ip)
          one_reduce(tc, -1, kAllreduceAlgs[a], counts[c], t, (t + c) % 3, ip);
    if (tc->full) one_reduce(tc, -1, kAllreduceAlgs[a], (size_t)4 << 20, 0, 0, a % 2);
  }
  coll_force("MPR_COLL_ALLREDUCE_ALG", NULL);
  for (int a = 0; a < NALGS(kReduceAlgs); ++a) {
    coll_force("MPR_COLL_REDUCE_ALG", kReduceAlgs[a]);
    for (int root = 0; root < size; ++root)
      for (int c = 0; c < ncounts; ++c)
        for (int ip = 0; ip < 2; ++ip)
          one_reduce(tc, root, kReduceAlgs[a], counts[c], (root + c) % 4, c % 3, ip);
    if (tc->full) one_reduce(tc, size - 1, kReduceAlgs[a], (size_t)4 << 20, 3, 0, 1);
  }
  coll_force("MPR_COLL_REDUCE_ALG", NULL);
}

/* MAXLOC on MPI_DOUBLE_INT, MINLOC on MPI_2INT: many ties, so the lowest rank must win. */
static void check_pairs(const TestComm *tc) {
  int rank, size;
  MPI_Comm_rank(tc->comm, &rank);
  MPI_Comm_size(tc->comm, &size);
  typedef struct {
    double v;
    int i;
  } DI;
  typedef struct {
    int v, i;
  } II;
  static const size_t kCounts[] = {1, 7, 1000};
  for (int a = 0; a < NALGS(kAllreduceAlgs); ++a) {
    coll_force("MPR_COLL_ALLREDUCE_ALG", kAllreduceAlgs[a]);
    coll_force("MPR_COLL_REDUCE_ALG", kReduceAlgs[a % NALGS(kReduceAlgs)]);
    for (int c = 0; c < 3; ++c)
      for (int k = 0; k < 3; ++k) {
        const int root = k == 0 ? -1 : k == 1 ? 0 : size - 1;
        const size_t n = kCounts[c];
        const int salt = ++salt_, receives = root < 0 || rank == root;
        DI *din = jobs_malloc(n * sizeof(DI)), *dout = jobs_malloc(n * sizeof(DI));
        II *iin = jobs_malloc(n * sizeof(II)), *iout = jobs_malloc(n * sizeof(II));
        for (size_t i = 0; i < n; ++i) {
          din[i].v = (double)(coll_val(rank, i, salt) % 5);
          din[i].i = rank;
          iin[i].v = (int)(coll_val(rank, i, salt) % 5);
          iin[i].i = rank;
        }
        if (root < 0) {
          CHECK_MPI(MPI_Allreduce(din, dout, (int)n, MPI_DOUBLE_INT, MPI_MAXLOC, tc->comm));
          CHECK_MPI(MPI_Allreduce(iin, iout, (int)n, MPI_2INT, MPI_MINLOC, tc->comm));
        } else {
          CHECK_MPI(MPI_Reduce(din, dout, (int)n, MPI_DOUBLE_INT, MPI_MAXLOC, root, tc->comm));
          CHECK_MPI(MPI_Reduce(iin, iout, (int)n, MPI_2INT, MPI_MINLOC, root, tc->comm));
        }
        for (size_t i = 0; receives && i < n; ++i) {
          double best = -1e9;
          int best_at = -1, low = 1 << 30, low_at = -1;
          for (int r = 0; r < size; ++r) {
            long v = coll_val(r, i, salt) % 5;
            if ((double)v > best) best = (double)v, best_at = r;
            if (v < low) low = (int)v, low_at = r;
          }
          CHECK_MSG(dout[i].v == best && dout[i].i == best_at,
                    "MAXLOC on %s root %d alg %s count %zu: [%zu] = (%g, %d), expected (%g, %d)",
                    tc->name, root, kAllreduceAlgs[a] ? kAllreduceAlgs[a] : "auto", n, i, dout[i].v,
                    dout[i].i, best, best_at);
          CHECK_MSG(iout[i].v == low && iout[i].i == low_at,
                    "MINLOC on %s root %d count %zu: [%zu] = (%d, %d), expected (%d, %d)", tc->name,
                    root, n, i, iout[i].v, iout[i].i, low, low_at);
        }
        free(din), free(dout), free(iin), free(iout);
      }
  }
  coll_force("MPR_COLL_ALLREDUCE_ALG", NULL);
  coll_force("MPR_COLL_REDUCE_ALG", NULL);
}

/* A non-commutative op must be applied in rank order by every reduction. */
static void check_noncommutative(const TestComm *tc) {
  int rank, size;
  MPI_Comm_rank(tc->comm, &rank);
  MPI_Comm_size(tc->comm, &size);
  static const size_t kCounts[] = {1, 6, 1000, 65539};
  const int ncounts = tc->full ? 4 : 3;
  need(65539 * 8 * (size_t)size + 8);
  uint64_t *in = (uint64_t *)in_, *out = (uint64_t *)out_;
  for (int c = 0; c < ncounts; ++c) {
    const size_t n = kCounts[c];
    for (int a = 0; a < NALGS(kAllreduceAlgs); ++a) {
      coll_force("MPR_COLL_ALLREDUCE_ALG", kAllreduceAlgs[a]);
      coll_force("MPR_COLL_REDUCE_ALG", kReduceAlgs[a % NALGS(kReduceAlgs)]);
      coll_force("MPR_COLL_REDUCE_SCATTER_ALG", kRsAlgs[a % NALGS(kRsAlgs)]);
      for (int root = -1; root < size; ++root) {
        const int salt = ++salt_;
        for (size_t i = 0; i < n; ++i) in[i] = affine(rank, i, salt), out[i] = 0;
        if (root < 0)
          CHECK_MPI(MPI_Allreduce(in, out, (int)n, MPI_UINT64_T, compose_mpi_, tc->comm));
        else
          CHECK_MPI(MPI_Reduce(in, out, (int)n, MPI_UINT64_T, compose_mpi_, root, tc->comm));
        if (root >= 0 && rank != root) continue;
        for (size_t i = 0; i < n; ++i)
          CHECK_MSG(out[i] == expect_affine(0, size, i, salt),
                    "%s with a non-commutative op on %s, alg %s, root %d, count %zu: [%zu] "
                    "wrong (operands not combined in rank order)",
                    root < 0 ? "Allreduce" : "Reduce", tc->name,
                    kAllreduceAlgs[a] ? kAllreduceAlgs[a] : "auto", root, n, i);
      }
      /* Reduce_scatter_block: rank r gets elements [r*n, r*n + n) of the reduced vector. */
      int salt = ++salt_;
      for (size_t i = 0; i < n * (size_t)size; ++i) in[i] = affine(rank, i, salt);
      CHECK_MPI(MPI_Reduce_scatter_block(in, out, (int)n, MPI_UINT64_T, compose_mpi_, tc->comm));
      for (size_t i = 0; i < n; ++i)
        CHECK_MSG(out[i] == expect_affine(0, size, (size_t)rank * n + i, salt),
                  "Reduce_scatter_block with a non-commutative op on %s, count %zu: [%zu] wrong",
                  tc->name, n, i);
    }
    for (int ex = 0; ex < 2; ++ex) {
      const int salt = ++salt_;
      for (size_t i = 0; i < n; ++i) in[i] = affine(rank, i, salt), out[i] = 7;
      if (ex)
        CHECK_MPI(MPI_Exscan(in, out, (int)n, MPI_UINT64_T, compose_mpi_, tc->comm));
      else
        CHECK_MPI(MPI_Scan(in, out, (int)n, MPI_UINT64_T, compose_mpi_, tc->comm));
      if (ex && rank == 0) continue;
      for (size_t i = 0; i < n; ++i)
        CHECK_MSG(out[i] == expect_affine(0, ex ? rank : rank + 1, i, salt),
                  "%s with a non-commutative op on %s, count %zu: [%zu] wrong at rank %d",
                  ex ? "Exscan" : "Scan", tc->name, n, i, rank);
    }
  }
  coll_force("MPR_COLL_ALLREDUCE_ALG", NULL);
  coll_force("MPR_COLL_REDUCE_ALG", NULL);
  coll_force("MPR_COLL_REDUCE_SCATTER_ALG", NULL);
  /* A commutative user op through every allreduce algorithm. */
  for (int a = 0; a < NALGS(kAllreduceAlgs); ++a) {
    coll_force("MPR_COLL_ALLREDUCE_ALG", kAllreduceAlgs[a]);
    const int salt = ++salt_, n = 1031;
    int *iin = (int *)in_, *iout = (int *)out_;
    for (int i = 0; i < n; ++i) iin[i] = (int)coll_val(rank, (size_t)i, salt);
    CHECK_MPI(MPI_Allreduce(iin, iout, n, MPI_INT, sum_mpi_, tc->comm));
    for (int i = 0; i < n; ++i)
      CHECK_MSG(iout[i] == expect(0, 0, size, (size_t)i, salt),
                "Allreduce with a commutative user op on %s alg %s: [%d] = %d", tc->name,
                kAllreduceAlgs[a] ? kAllreduceAlgs[a] : "auto", i, iout[i]);
  }
  coll_force("MPR_COLL_ALLREDUCE_ALG", NULL);
}

static void check_scan(const TestComm *tc) {
  int rank;
  MPI_Comm_rank(tc->comm, &rank);
  static const size_t kCounts[] = {0, 1, 9, 1031, 65539};
  const int ncounts = tc->full ? 5 : 3;
  for (int ex = 0; ex < 2; ++ex)
    for (int c = 0; c < ncounts; ++c)
      for (int t = 0; t < 4; ++t)
        for (int ip = 0; ip < 2; ++ip) {
          const size_t n = kCounts[c];
          const int salt = ++salt_, op = (t + c + ex) % 3;
          need(n * 8 + 8);
          for (size_t i = 0; i < n; ++i) {
            put(t, in_, i, coll_val(rank, i, salt));
            put(t, out_, i, ip ? coll_val(rank, i, salt) : -9999);
          }
          const void *send = ip ? MPI_IN_PLACE : in_;
          if (ex)
            CHECK_MPI(MPI_Exscan(send, out_, (int)n, kTypes[t].type, kOps[op].op, tc->comm));
          else
            CHECK_MPI(MPI_Scan(send, out_, (int)n, kTypes[t].type, kOps[op].op, tc->comm));
          if (ex && rank == 0) continue;
          for (size_t i = 0; i < n; ++i) {
            long want = expect(op, 0, ex ? rank : rank + 1, i, salt), got = get(t, out_, i);
            CHECK_MSG(got == want, "%s on %s, %zu x %s %s%s: [%zu] = %ld at rank %d, expected %ld",
                      ex ? "Exscan" : "Scan", tc->name, n, kTypes[t].name, kOps[op].name,
                      ip ? " in place" : "", i, got, rank, want);
          }
        }
}

static void check_reduce_scatter(const TestComm *tc) {
  int rank, size;
  MPI_Comm_rank(tc->comm, &rank);
  MPI_Comm_size(tc->comm, &size);
  static const int kBlocks[] = {0, 1, 5, 1031, 65539};
  const int nblocks = tc->full ? 5 : 4;
  int *counts = jobs_malloc((size_t)size * sizeof(int));
  for (int a = 0; a < NALGS(kRsAlgs); ++a) {
    coll_force("MPR_COLL_REDUCE_SCATTER_ALG", kRsAlgs[a]);
    for (int c = 0; c < nblocks + 2; ++c)
      for (int ip = 0; ip < 2; ++ip) {
        /* The first rows: equal blocks (the _block variant); the last two: uneven, with zeros. */
        const int block = c < nblocks ? kBlocks[c] : 0, vector = c >= nblocks;
        const int salt = ++salt_, t = (c + a) % 4, op = (c + ip) % 3;
        size_t total = 0, first = 0;
        for (int r = 0; r < size; ++r) {
          counts[r] = vector ? ((r * 3 + salt) % 4) * (c == nblocks ? 1 : 1000) : block;
          if (r < rank) first += (size_t)counts[r];
          total += (size_t)counts[r];
        }
        need(total * 8 + 8);
        for (size_t i = 0; i < total; ++i) put(t, ip ? out_ : in_, i, coll_val(rank, i, salt));
        const void *send = ip ? MPI_IN_PLACE : in_;
        if (vector)
          CHECK_MPI(MPI_Reduce_scatter(send, out_, counts, kTypes[t].type, kOps[op].op, tc->comm));
        else
          CHECK_MPI(
              MPI_Reduce_scatter_block(send, out_, block, kTypes[t].type, kOps[op].op, tc->comm));
        for (int i = 0; i < counts[rank]; ++i) {
          long want = expect(op, 0, size, first + (size_t)i, salt), got = get(t, out_, (size_t)i);
          CHECK_MSG(got == want,
                    "Reduce_scatter%s on %s alg %s, %d x %s %s%s: [%d] = %ld, "
                    "expected %ld",
                    vector ? "" : "_block", tc->name, kRsAlgs[a] ? kRsAlgs[a] : "auto",
                    counts[rank], kTypes[t].name, kOps[op].name, ip ? " in place" : "", i, got,
                    want);
        }
      }
  }
  coll_force("MPR_COLL_REDUCE_SCATTER_ALG", NULL);
  free(counts);
}

int main(int argc, char **argv) {
  coll_allow_switching();
  CHECK_MPI(MPI_Init(&argc, &argv));
  CHECK_MPI(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
  CHECK_MPI(MPI_Op_create(compose_op, 0, &compose_mpi_));
  CHECK_MPI(MPI_Op_create(int_sum_op, 1, &sum_mpi_));
  TestComm comms[kMaxTestComms];
  const int ncomms = coll_make_comms(comms);
  for (int i = 0; i < ncomms; ++i) {
    /* Members of one communicator make the same calls, so their salts agree; members of
     * different halves of a split do not, hence the reset. */
    salt_ = i * 100000;
    check_reduce_allreduce(&comms[i]);
    check_pairs(&comms[i]);
    check_noncommutative(&comms[i]);
    check_scan(&comms[i]);
    check_reduce_scatter(&comms[i]);
  }
  coll_free_comms(comms, ncomms);
  CHECK_MPI(MPI_Op_free(&compose_mpi_));
  CHECK_MPI(MPI_Op_free(&sum_mpi_));
  free(in_);
  free(out_);
  jobs_done("job_coll_reduce");
  CHECK_MPI(MPI_Finalize());
  return 0;
}
