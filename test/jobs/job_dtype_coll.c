/* Collectives on derived datatypes: Bcast and Allreduce on a contiguous derived type (4
 * doubles) with a user op, Reduce with it at several roots, Bcast of a strided vector received
 * by other ranks as another layout of the same signature, Allreduce with a user op on a struct
 * type, small and large counts. Gaps of non-contiguous buffers must keep their contents.
 * MPR also applies predefined ops to derived types made of one basic type (as MPICH does);
 * Open MPI rejects that with MPI_ERR_OP, so those checks are skipped when it is the reference. */
#include "jobs_util.h"

static int rank_, size_, reference_;

/* Sums the doubles of `len` elements of a contiguous type of 4 doubles. */
static void quad_sum(void *in, void *inout, int *len, MPI_Datatype *type) {
  int size;
  MPI_Type_size(*type, &size);
  const double *a = in;
  double *b = inout;
  for (int i = 0; i < *len * size / (int)sizeof(double); ++i) b[i] += a[i];
}

struct pt {
  int id;
  double w;
};

static void pt_max(void *in, void *inout, int *len, MPI_Datatype *type) {
  (void)type;
  const struct pt *a = in;
  struct pt *b = inout;
  for (int i = 0; i < *len; ++i)
    if (a[i].w > b[i].w || (a[i].w == b[i].w && a[i].id < b[i].id)) b[i] = a[i];
}

static void check_contiguous(int count) {
  MPI_Datatype quad;
  CHECK_MPI(MPI_Type_contiguous(4, MPI_DOUBLE, &quad));
  CHECK_MPI(MPI_Type_commit(&quad));
  double *buf = jobs_malloc((size_t)count * 4 * sizeof(double));
  double *sum = jobs_malloc((size_t)count * 4 * sizeof(double));
  MPI_Op op;
  CHECK_MPI(MPI_Op_create(quad_sum, 1, &op));
  for (int root = 0; root < size_; root += (size_ > 3 ? size_ - 1 : 1)) {
    for (int i = 0; i < 4 * count; ++i) buf[i] = rank_ == root ? i * 0.5 + root : -1;
    CHECK_MPI(MPI_Bcast(buf, count, quad, root, MPI_COMM_WORLD));
    for (int i = 0; i < 4 * count; ++i)
      CHECK_MSG(buf[i] == i * 0.5 + root, "bcast root %d count %d: [%d] = %g", root, count, i,
                buf[i]);
    for (int i = 0; i < 4 * count; ++i) buf[i] = rank_ + i % 5;
    CHECK_MPI(MPI_Reduce(buf, sum, count, quad, op, root, MPI_COMM_WORLD));
    if (rank_ == root)
      for (int i = 0; i < 4 * count; ++i)
        CHECK_MSG(sum[i] == size_ * (size_ - 1) / 2.0 + size_ * (i % 5),
                  "reduce root %d: [%d] = %g", root, i, sum[i]);
  }
  for (int i = 0; i < 4 * count; ++i) buf[i] = (rank_ + 1) * (i % 3);
  CHECK_MPI(MPI_Allreduce(buf, sum, count, quad, op, MPI_COMM_WORLD));
  for (int i = 0; i < 4 * count; ++i)
    CHECK_MSG(sum[i] == size_ * (size_ + 1) / 2.0 * (i % 3), "allreduce: [%d] = %g", i, sum[i]);
  CHECK_MPI(MPI_Allreduce(MPI_IN_PLACE, buf, count, quad, op, MPI_COMM_WORLD));
  for (int i = 0; i < 4 * count; ++i) CHECK(buf[i] == size_ * (size_ + 1) / 2.0 * (i % 3));
  if (!reference_) {
    for (int i = 0; i < 4 * count; ++i) buf[i] = (rank_ + 1) * (i % 3);
    CHECK_MPI(MPI_Allreduce(MPI_IN_PLACE, buf, count, quad, MPI_MAX, MPI_COMM_WORLD));
    for (int i = 0; i < 4 * count; ++i) CHECK(buf[i] == size_ * (i % 3));
  }
  CHECK_MPI(MPI_Op_free(&op));
  free(sum);
  free(buf);
  CHECK_MPI(MPI_Type_free(&quad));
}

static void check_vector_bcast(int n) {
  /* The root sends every other int of a 2n array; the others receive blocks of 2 ints every
   * 3 ints; the signatures (n ints) match. */
  MPI_Datatype every2, pairs;
  CHECK_MPI(MPI_Type_vector(n, 1, 2, MPI_INT, &every2));
  CHECK_MPI(MPI_Type_vector(n / 2, 2, 3, MPI_INT, &pairs));
  CHECK_MPI(MPI_Type_commit(&every2));
  CHECK_MPI(MPI_Type_commit(&pairs));
  int root = size_ - 1;
  size_t len = 3 * (size_t)n;
  int *buf = jobs_malloc(len * sizeof(int));
  for (size_t i = 0; i < len; ++i) buf[i] = rank_ == root ? (i % 2 ? -9 : (int)i * 3) : -4;
  CHECK_MPI(MPI_Bcast(buf, 1, rank_ == root ? every2 : pairs, root, MPI_COMM_WORLD));
  if (rank_ != root)
    for (int i = 0; i < n; ++i) {
      size_t at = (size_t)(i / 2) * 3 + (size_t)(i % 2);
      CHECK_MSG(buf[at] == 2 * i * 3, "vector bcast n=%d: element %d = %d", n, i, buf[at]);
      if (i % 2) CHECK_MSG(buf[at + 1] == -4, "vector bcast n=%d: gap after %d written", n, i);
    }
  /* MPI_SUM on a strided type of ints: only the elements are combined, the gaps keep theirs. */
  if (!reference_) {
    int *in = jobs_malloc(2 * (size_t)n * sizeof(int));
    int *out = jobs_malloc(2 * (size_t)n * sizeof(int));
    for (int i = 0; i < 2 * n; ++i) {
      in[i] = i % 2 ? 1000 : rank_ + i;
      out[i] = -3;
    }
    CHECK_MPI(MPI_Allreduce(in, out, 1, every2, MPI_SUM, MPI_COMM_WORLD));
    for (int i = 0; i < 2 * n; ++i)
      CHECK_MSG(out[i] == (i % 2 ? -3 : size_ * (size_ - 1) / 2 + size_ * i),
                "strided allreduce n=%d: [%d] = %d", n, i, out[i]);
    free(out);
    free(in);
  }
  free(buf);
  CHECK_MPI(MPI_Type_free(&pairs));
  CHECK_MPI(MPI_Type_free(&every2));
}

static void check_user_op_struct(void) {
  int bl[2] = {1, 1};
  MPI_Aint disp[2] = {offsetof(struct pt, id), offsetof(struct pt, w)};
  MPI_Datatype types[2] = {MPI_INT, MPI_DOUBLE}, t;
  CHECK_MPI(MPI_Type_create_struct(2, bl, disp, types, &t));
  CHECK_MPI(MPI_Type_commit(&t));
  MPI_Op op;
  CHECK_MPI(MPI_Op_create(pt_max, 1, &op));
  struct pt in[3], out[3];
  for (int i = 0; i < 3; ++i) {
    in[i].id = rank_;
    in[i].w = (double)((rank_ * 7 + i * 3) % (size_ + 2));
  }
  CHECK_MPI(MPI_Allreduce(in, out, 3, t, op, MPI_COMM_WORLD));
  for (int i = 0; i < 3; ++i) {
    int best = 0;
    double bw = -1;
    for (int r = 0; r < size_; ++r) {
      double w = (double)((r * 7 + i * 3) % (size_ + 2));
      if (w > bw) {
        bw = w;
        best = r;
      }
    }
    CHECK_INT(out[i].id, ==, best);
    CHECK(out[i].w == bw);
  }
  CHECK_MPI(MPI_Op_free(&op));
  CHECK_MPI(MPI_Type_free(&t));
}

int main(int argc, char **argv) {
  CHECK_MPI(MPI_Init(&argc, &argv));
  CHECK_MPI(MPI_Comm_rank(MPI_COMM_WORLD, &rank_));
  CHECK_MPI(MPI_Comm_size(MPI_COMM_WORLD, &size_));
  reference_ = getenv("JOBS_REFERENCE_OPENMPI") != NULL;
  check_contiguous(1);
  check_contiguous(3);
  check_contiguous(1 << 17); /* 4 MiB */
  check_vector_bcast(10);
  check_vector_bcast(1 << 20);
  check_user_op_struct();
  jobs_done("job_dtype_coll");
  CHECK_MPI(MPI_Finalize());
  return 0;
}
