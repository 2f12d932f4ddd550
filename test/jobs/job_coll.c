/* Collectives: Barrier waits for the last rank; Bcast, Reduce and Allreduce on ints and doubles
 * with every root, counts 0 .. 1M, MPI_IN_PLACE, predefined ops, and user ops (a non-commutative
 * one must be applied in rank order); Reduce_local. Values are chosen so every sum is exact. */
#include "jobs_util.h"

static int rank_, size_;
static const int kCounts[] = {0, 1, 2, 3, 17, 1000, 4097, 65537, 1 << 20};
enum { kNumCounts = sizeof kCounts / sizeof kCounts[0] };

static int ival(int r, int i) { return (r + 1) * (i % 7 + 1) - 3 * r + i % 1000; }
static int pval(int r, int i) { return (i + r) % 3 == 0 ? 2 : ((i + r) % 3 == 1 ? -1 : 1); }
static double dval(int r, int i) { return (r + 1) * 0.5 + i % 13 - 4.0; }

/* Affine maps x -> m*x + c (mod p), packed as m << 32 | c: composition is associative but not
 * commutative, so a reduction that reorders ranks gives a different answer. */
static const uint64_t kP = 2147483647u;
static uint64_t affine(int r, int i) {
  uint64_t m = (uint64_t)(r * 7919 + i * 31 + 2) % kP, c = (uint64_t)(r * 104729 + i + 1) % kP;
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

static void check_barrier(void) {
  /* The last rank to arrive comes 200 ms late, probing meanwhile; every other rank tells it when
   * it has left. A notice that arrives before the late rank has even entered means someone left
   * too early. Causal rather than timed, so a rank descheduled for a while cannot fail it. */
  enum { kLeftTag = 77 };
  int late = size_ - 1;
  for (int round = 0; round < 3; ++round) {
    CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
    if (rank_ == late) {
      int early = jobs_sleep_watching(200, MPI_COMM_WORLD, MPI_ANY_SOURCE, kLeftTag);
      CHECK_MSG(early < 0, "round %d: rank %d left MPI_Barrier before rank %d entered it", round,
                early, late);
    }
    CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
    if (rank_ != late) {
      CHECK_MPI(MPI_Send(&round, 1, MPI_INT, late, kLeftTag, MPI_COMM_WORLD));
    } else {
      for (int i = 0; i < size_ - 1; ++i) {
        int r = -1;
        CHECK_MPI(MPI_Recv(&r, 1, MPI_INT, MPI_ANY_SOURCE, kLeftTag, MPI_COMM_WORLD,
                           MPI_STATUS_IGNORE));
        CHECK_INT(r, ==, round);
      }
    }
  }
  for (int i = 0; i < 100; ++i) CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
}

static void check_bcast(int *ibuf, double *dbuf) {
  for (int root = 0; root < size_; ++root)
    for (int c = 0; c < kNumCounts; ++c) {
      int n = kCounts[c];
      for (int i = 0; i < n; ++i) {
        ibuf[i] = rank_ == root ? ival(root, i) : -1;
        dbuf[i] = rank_ == root ? dval(root, i) : -1.0;
      }
      CHECK_MPI(MPI_Bcast(ibuf, n, MPI_INT, root, MPI_COMM_WORLD));
      CHECK_MPI(MPI_Bcast(dbuf, n, MPI_DOUBLE, root, MPI_COMM_WORLD));
      for (int i = 0; i < n; ++i) {
        CHECK_MSG(ibuf[i] == ival(root, i), "Bcast root %d count %d: int[%d] = %d, expected %d",
                  root, n, i, ibuf[i], ival(root, i));
        CHECK_MSG(dbuf[i] == dval(root, i), "Bcast root %d count %d: double[%d] = %g, expected %g",
                  root, n, i, dbuf[i], dval(root, i));
      }
    }
}

/* Expected results at each index, computed once: [0..3] SUM/MAX/MIN (ints), PROD (small ints);
 * [4..5] SUM/MAX (doubles). */
static int *want_int_[4];
static double *want_dbl_[2];

static void compute_expected(int n) {
  for (int o = 0; o < 4; ++o) want_int_[o] = jobs_malloc((size_t)n * sizeof(int));
  for (int o = 0; o < 2; ++o) want_dbl_[o] = jobs_malloc((size_t)n * sizeof(double));
  for (int i = 0; i < n; ++i) {
    int sum = 0, max = ival(0, i), min = ival(0, i), prod = 1;
    double dsum = 0.0, dmax = dval(0, i);
    for (int r = 0; r < size_; ++r) {
      int v = ival(r, i);
      sum += v;
      max = v > max ? v : max;
      min = v < min ? v : min;
      prod *= pval(r, i);
      dsum += dval(r, i);
      dmax = dval(r, i) > dmax ? dval(r, i) : dmax;
    }
    want_int_[0][i] = sum, want_int_[1][i] = max, want_int_[2][i] = min, want_int_[3][i] = prod;
    want_dbl_[0][i] = dsum, want_dbl_[1][i] = dmax;
  }
}

/* root < 0 means Allreduce. in_place: the root (or everyone, for Allreduce) passes MPI_IN_PLACE. */
static void check_reduce(int root, int n, int in_place, int *in, int *out, double *din,
                         double *dout) {
  const char *name = root < 0 ? "Allreduce" : "Reduce";
  int receives = root < 0 || rank_ == root;
  int my_in_place = in_place && receives;
  struct {
    MPI_Op op;
    const char *name;
  } const ops[] = {{MPI_SUM, "SUM"}, {MPI_MAX, "MAX"}, {MPI_MIN, "MIN"}, {MPI_PROD, "PROD"}};
  for (int o = 0; o < 4; ++o) {
    for (int i = 0; i < n; ++i) {
      int v = o == 3 ? pval(rank_, i) : ival(rank_, i);
      in[i] = v;
      out[i] = my_in_place ? v : -7;
    }
    const void *send = my_in_place ? MPI_IN_PLACE : in;
    if (root < 0)
      CHECK_MPI(MPI_Allreduce(send, out, n, MPI_INT, ops[o].op, MPI_COMM_WORLD));
    else
      CHECK_MPI(MPI_Reduce(send, out, n, MPI_INT, ops[o].op, root, MPI_COMM_WORLD));
    if (!receives) continue;
    for (int i = 0; i < n; ++i)
      CHECK_MSG(out[i] == want_int_[o][i], "%s(%s, int) root %d count %d%s: [%d] = %d, expected "
                "%d", name, ops[o].name, root, n, in_place ? " IN_PLACE" : "", i, out[i],
                want_int_[o][i]);
  }
  for (int o = 0; o < 2; ++o) {
    MPI_Op op = o == 0 ? MPI_SUM : MPI_MAX;
    for (int i = 0; i < n; ++i) {
      din[i] = dval(rank_, i);
      dout[i] = my_in_place ? din[i] : -7.0;
    }
    const void *send = my_in_place ? MPI_IN_PLACE : din;
    if (root < 0)
      CHECK_MPI(MPI_Allreduce(send, dout, n, MPI_DOUBLE, op, MPI_COMM_WORLD));
    else
      CHECK_MPI(MPI_Reduce(send, dout, n, MPI_DOUBLE, op, root, MPI_COMM_WORLD));
    if (!receives) continue;
    for (int i = 0; i < n; ++i)
      CHECK_MSG(dout[i] == want_dbl_[o][i], "%s(%s, double) root %d count %d%s: [%d] = %.17g, "
                "expected %.17g", name, o == 0 ? "SUM" : "MAX", root, n,
                in_place ? " IN_PLACE" : "", i, dout[i], want_dbl_[o][i]);
  }
}

static void check_user_ops(void) {
  MPI_Op compose_mpi, sum_mpi;
  CHECK_MPI(MPI_Op_create(compose_op, 0, &compose_mpi));
  CHECK_MPI(MPI_Op_create(int_sum_op, 1, &sum_mpi));
  static const int counts[] = {1, 5, 1000, 100003};
  uint64_t *in = jobs_malloc(100003 * sizeof(uint64_t)), *out = jobs_malloc(100003 * sizeof(uint64_t));
  for (int c = 0; c < 4; ++c) {
    int n = counts[c];
    for (int root = -1; root < size_; ++root) {
      for (int i = 0; i < n; ++i) in[i] = affine(rank_, i), out[i] = 0;
      if (root < 0)
        CHECK_MPI(MPI_Allreduce(in, out, n, MPI_UINT64_T, compose_mpi, MPI_COMM_WORLD));
      else
        CHECK_MPI(MPI_Reduce(in, out, n, MPI_UINT64_T, compose_mpi, root, MPI_COMM_WORLD));
      if (root >= 0 && rank_ != root) continue;
      for (int i = 0; i < n; ++i) {
        uint64_t want = affine(0, i);
        for (int r = 1; r < size_; ++r) want = compose(want, affine(r, i));
        CHECK_MSG(out[i] == want, "%s with a non-commutative user op, root %d count %d: [%d] = "
                  "%#llx, expected %#llx (operands not combined in rank order)",
                  root < 0 ? "Allreduce" : "Reduce", root, n, i, (unsigned long long)out[i],
                  (unsigned long long)want);
      }
    }
    int *iin = (int *)in, *iout = (int *)out;
    for (int i = 0; i < n; ++i) iin[i] = ival(rank_, i);
    CHECK_MPI(MPI_Allreduce(iin, iout, n, MPI_INT, sum_mpi, MPI_COMM_WORLD));
    for (int i = 0; i < n; ++i)
      CHECK_MSG(iout[i] == want_int_[0][i], "Allreduce with a commutative user op, count %d: "
                "[%d] = %d, expected %d", n, i, iout[i], want_int_[0][i]);
  }
  /* Reduce_local: inoutbuf = inbuf op inoutbuf, locally. */
  uint64_t a[3] = {affine(1, 0), affine(2, 1), affine(3, 2)}, b[3] = {affine(4, 0), affine(5, 1),
                                                                        affine(6, 2)};
  uint64_t b0[3] = {b[0], b[1], b[2]};
  CHECK_MPI(MPI_Reduce_local(a, b, 3, MPI_UINT64_T, compose_mpi));
  for (int i = 0; i < 3; ++i) CHECK_MSG(b[i] == compose(a[i], b0[i]), "Reduce_local(user op) [%d]", i);
  int x[4] = {1, 2, 3, 4}, y[4] = {10, 20, 30, 40};
  CHECK_MPI(MPI_Reduce_local(x, y, 4, MPI_INT, MPI_SUM));
  for (int i = 0; i < 4; ++i) CHECK_INT(y[i], ==, 11 * (i + 1));
  CHECK_MPI(MPI_Reduce_local(x, y, 4, MPI_INT, MPI_MAX));
  for (int i = 0; i < 4; ++i) CHECK_INT(y[i], ==, 11 * (i + 1));
  CHECK_MPI(MPI_Op_free(&compose_mpi));
  CHECK_MPI(MPI_Op_free(&sum_mpi));
  CHECK(compose_mpi == MPI_OP_NULL && sum_mpi == MPI_OP_NULL);
  free(in);
  free(out);
}

int main(int argc, char **argv) {
  CHECK_MPI(MPI_Init(&argc, &argv));
  CHECK_MPI(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
  MPI_Comm_rank(MPI_COMM_WORLD, &rank_);
  MPI_Comm_size(MPI_COMM_WORLD, &size_);
  int max = kCounts[kNumCounts - 1];
  int *in = jobs_malloc((size_t)max * sizeof(int)), *out = jobs_malloc((size_t)max * sizeof(int));
  double *din = jobs_malloc((size_t)max * sizeof(double));
  double *dout = jobs_malloc((size_t)max * sizeof(double));

  compute_expected(max);
  check_barrier();
  check_bcast(in, din);
  /* Every root for the small and medium counts; the largest counts at the first and last root. */
  for (int c = 0; c < kNumCounts; ++c)
    for (int root = 0; root < size_; ++root) {
      if (kCounts[c] > 5000 && root != 0 && root != size_ - 1) continue;
      check_reduce(root, kCounts[c], 0, in, out, din, dout);
      check_reduce(root, kCounts[c], 1, in, out, din, dout);
    }
  for (int c = 0; c < kNumCounts; ++c) {
    check_reduce(-1, kCounts[c], 0, in, out, din, dout);
    check_reduce(-1, kCounts[c], 1, in, out, din, dout);
  }
  check_user_ops();
  free(in);
  free(out);
  free(din);
  free(dout);
  for (int o = 0; o < 4; ++o) free(want_int_[o]);
  for (int o = 0; o < 2; ++o) free(want_dbl_[o]);
  jobs_done("job_coll");
  CHECK_MPI(MPI_Finalize());
  return 0;
}
