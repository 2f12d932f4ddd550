/* Derived datatypes point to point, around a ring (each rank sends to rank+1 and receives from
 * rank-1; with one rank it talks to itself): a strided vector received as contiguous bytes, as
 * another type of the same signature and as itself, in an eager size (1 KiB of data) and a
 * rendezvous size (32 MiB); contiguous data received into a strided type; an array of structs
 * with gaps; a subarray of a 3D array into another 3D array at another place; MPI_Get_elements
 * and MPI_Get_count on a short message; Sendrecv with derived types on both sides. Receivers
 * fill their buffers with a sentinel first: bytes outside the type map must keep it. */
#include "jobs_util.h"

static int rank_, size_, next_, prev_;

static double val(int src, size_t i) { return src * 1e7 + (double)i + 0.25; }

/* Send `scount` of `stype` to next_ while receiving `rcount` of `rtype` from prev_. */
static void ring(const void *sbuf, int scount, MPI_Datatype stype, void *rbuf, int rcount,
                 MPI_Datatype rtype, MPI_Status *st) {
  MPI_Request rq[2];
  CHECK_MPI(MPI_Irecv(rbuf, rcount, rtype, prev_, 11, MPI_COMM_WORLD, &rq[0]));
  CHECK_MPI(MPI_Isend(sbuf, scount, stype, next_, 11, MPI_COMM_WORLD, &rq[1]));
  MPI_Status sts[2];
  CHECK_MPI(MPI_Waitall(2, rq, sts));
  if (st) *st = sts[0];
}

static void check_vector(size_t n) {
  /* Sender: every other double of a 2n array. */
  MPI_Datatype every2, pairs, idx;
  CHECK_MPI(MPI_Type_vector((int)n, 1, 2, MPI_DOUBLE, &every2));
  CHECK_MPI(MPI_Type_commit(&every2));
  /* Same signature, another layout: pairs of doubles every 3 doubles. */
  CHECK_MPI(MPI_Type_vector((int)(n / 2), 2, 3, MPI_DOUBLE, &pairs));
  CHECK_MPI(MPI_Type_commit(&pairs));
  /* And an indexed type: blocks of n/4 doubles in reverse block order, one double apart. */
  int bl[4], disp[4];
  for (int b = 0; b < 4; ++b) {
    bl[b] = (int)(n / 4);
    disp[b] = (3 - b) * (int)(n / 4 + 1);
  }
  CHECK_MPI(MPI_Type_indexed(4, bl, disp, MPI_DOUBLE, &idx));
  CHECK_MPI(MPI_Type_commit(&idx));

  double *src = jobs_malloc(2 * n * sizeof(double));
  for (size_t i = 0; i < 2 * n; ++i) src[i] = (i % 2) ? -1.0 : val(rank_, i / 2);

  /* as contiguous bytes */
  double *flat = jobs_malloc(n * sizeof(double));
  MPI_Status st;
  int count;
  ring(src, 1, every2, flat, (int)(n * sizeof(double)), MPI_BYTE, &st);
  CHECK_MPI(MPI_Get_count(&st, MPI_BYTE, &count));
  CHECK_INT(count, ==, n * sizeof(double));
  for (size_t i = 0; i < n; ++i)
    CHECK_MSG(flat[i] == val(prev_, i), "n=%zu bytes: element %zu is %g", n, i, flat[i]);

  /* as another layout of the same signature */
  size_t plen = 3 * (n / 2);
  double *p = jobs_malloc(plen * sizeof(double));
  for (size_t i = 0; i < plen; ++i) p[i] = -5;
  ring(src, 1, every2, p, 1, pairs, &st);
  CHECK_MPI(MPI_Get_count(&st, pairs, &count));
  CHECK_INT(count, ==, 1);
  for (size_t i = 0; i < n; ++i)
    CHECK_MSG(p[(i / 2) * 3 + i % 2] == val(prev_, i), "n=%zu pairs: element %zu", n, i);
  for (size_t j = 2; j < plen; j += 3) CHECK_MSG(p[j] == -5, "n=%zu pairs: gap %zu written", n, j);

  /* as an indexed type */
  size_t ilen = 4 * (n / 4 + 1);
  double *q = jobs_malloc(ilen * sizeof(double));
  for (size_t i = 0; i < ilen; ++i) q[i] = -6;
  ring(src, 1, every2, q, 1, idx, &st);
  for (size_t i = 0; i < n; ++i) {
    size_t b = i / (n / 4), k = i % (n / 4);
    CHECK_MSG(q[(3 - b) * (n / 4 + 1) + k] == val(prev_, i), "n=%zu indexed: element %zu", n, i);
  }
  for (size_t b = 0; b < 4; ++b) CHECK(q[b * (n / 4 + 1) + n / 4] == -6);

  /* as itself, and contiguous into strided */
  double *same = jobs_malloc(2 * n * sizeof(double));
  for (size_t i = 0; i < 2 * n; ++i) same[i] = -7;
  ring(src, 1, every2, same, 1, every2, &st);
  for (size_t i = 0; i < n; ++i) {
    CHECK_MSG(same[2 * i] == val(prev_, i), "n=%zu same type: element %zu", n, i);
    CHECK_MSG(same[2 * i + 1] == -7, "n=%zu same type: gap %zu written", n, i);
  }
  for (size_t i = 0; i < n; ++i) flat[i] = val(rank_, i) + 1;
  for (size_t i = 0; i < 2 * n; ++i) same[i] = -8;
  ring(flat, (int)n, MPI_DOUBLE, same, 1, every2, &st);
  for (size_t i = 0; i < n; ++i) {
    CHECK_MSG(same[2 * i] == val(prev_, i) + 1, "n=%zu into strided: element %zu", n, i);
    CHECK_MSG(same[2 * i + 1] == -8, "n=%zu into strided: gap %zu written", n, i);
  }

  free(same);
  free(q);
  free(p);
  free(flat);
  free(src);
  CHECK_MPI(MPI_Type_free(&idx));
  CHECK_MPI(MPI_Type_free(&pairs));
  CHECK_MPI(MPI_Type_free(&every2));
  CHECK(every2 == MPI_DATATYPE_NULL);
}

struct rec {
  int id;
  /* 4 bytes of padding */
  double x;
  char tag[3];
  /* 5 bytes of padding */
};

static void check_struct(int n) {
  int bl[3] = {1, 1, 3};
  MPI_Aint disp[3] = {offsetof(struct rec, id), offsetof(struct rec, x),
                      offsetof(struct rec, tag)};
  MPI_Datatype types[3] = {MPI_INT, MPI_DOUBLE, MPI_CHAR}, raw, rt;
  CHECK_MPI(MPI_Type_create_struct(3, bl, disp, types, &raw));
  CHECK_MPI(MPI_Type_create_resized(raw, 0, sizeof(struct rec), &rt));
  CHECK_MPI(MPI_Type_commit(&rt));
  int size;
  MPI_Aint lb, extent, tlb, text;
  CHECK_MPI(MPI_Type_size(rt, &size));
  CHECK_INT(size, ==, 4 + 8 + 3);
  CHECK_MPI(MPI_Type_get_extent(rt, &lb, &extent));
  CHECK_INT(lb, ==, 0);
  CHECK_INT(extent, ==, sizeof(struct rec));
  CHECK_MPI(MPI_Type_get_true_extent(rt, &tlb, &text));
  CHECK_INT(tlb, ==, 0);
  CHECK_INT(text, ==, offsetof(struct rec, tag) + 3);

  struct rec *out = jobs_malloc((size_t)n * sizeof *out);
  struct rec *in = jobs_malloc((size_t)n * sizeof *in);
  memset(out, 0x11, (size_t)n * sizeof *out);
  for (int i = 0; i < n; ++i) {
    out[i].id = rank_ * 100000 + i;
    out[i].x = val(rank_, (size_t)i);
    out[i].tag[0] = 'a' + (char)(i % 26);
    out[i].tag[1] = 'A' + (char)(rank_ % 26);
    out[i].tag[2] = (char)i;
  }
  memset(in, 0x5c, (size_t)n * sizeof *in);
  MPI_Status st;
  ring(out, n, rt, in, n, rt, &st);
  for (int i = 0; i < n; ++i) {
    CHECK_INT(in[i].id, ==, prev_ * 100000 + i);
    CHECK(in[i].x == val(prev_, (size_t)i));
    CHECK_INT(in[i].tag[0], ==, 'a' + i % 26);
    CHECK_INT(in[i].tag[1], ==, 'A' + prev_ % 26);
    CHECK_INT(in[i].tag[2], ==, (char)i);
    const unsigned char *bytes = (const unsigned char *)&in[i];
    for (size_t b = 4; b < 8; ++b)
      CHECK_MSG(bytes[b] == 0x5c, "struct %d: padding byte %zu written", i, b);
    for (size_t b = offsetof(struct rec, tag) + 3; b < sizeof(struct rec); ++b)
      CHECK_MSG(bytes[b] == 0x5c, "struct %d: trailing byte %zu written", i, b);
  }
  /* The same array as packed bytes: 15 bytes per record, no padding. */
  unsigned char *packed = jobs_malloc((size_t)n * 15);
  ring(out, n, rt, packed, n * 15, MPI_BYTE, &st);
  for (int i = 0; i < n; ++i) {
    int id;
    double x;
    memcpy(&id, packed + 15 * i, 4);
    memcpy(&x, packed + 15 * i + 4, 8);
    CHECK_INT(id, ==, prev_ * 100000 + i);
    CHECK(x == val(prev_, (size_t)i));
    CHECK_INT(packed[15 * i + 12], ==, 'a' + i % 26);
  }
  free(packed);
  free(in);
  free(out);
  CHECK_MPI(MPI_Type_free(&rt));
  CHECK_MPI(MPI_Type_free(&raw));
}

static void check_subarray(void) {
  /* 3D arrays in C order. The sender's block [2..5) x [1..5) x [3..9) of a 6x7x10 array goes
   * into the block [0..3) x [2..6) x [0..6) of the receiver's 4x6x8 array. */
  int ss[3] = {6, 7, 10}, sub[3] = {3, 4, 6}, st0[3] = {2, 1, 3};
  int rs[3] = {4, 6, 8}, rst[3] = {0, 2, 0};
  MPI_Datatype s3, r3;
  CHECK_MPI(MPI_Type_create_subarray(3, ss, sub, st0, MPI_ORDER_C, MPI_DOUBLE, &s3));
  CHECK_MPI(MPI_Type_create_subarray(3, rs, sub, rst, MPI_ORDER_C, MPI_DOUBLE, &r3));
  CHECK_MPI(MPI_Type_commit(&s3));
  CHECK_MPI(MPI_Type_commit(&r3));
  MPI_Aint lb, extent;
  CHECK_MPI(MPI_Type_get_extent(s3, &lb, &extent));
  CHECK_INT(lb, ==, 0);
  CHECK_INT(extent, ==, 6 * 7 * 10 * sizeof(double));
  double a[6][7][10], b[4][6][8];
  for (int i = 0; i < 6; ++i)
    for (int j = 0; j < 7; ++j)
      for (int k = 0; k < 10; ++k) a[i][j][k] = rank_ * 1000 + i * 100 + j * 10 + k;
  for (int i = 0; i < 4; ++i)
    for (int j = 0; j < 6; ++j)
      for (int k = 0; k < 8; ++k) b[i][j][k] = -1;
  ring(a, 1, s3, b, 1, r3, NULL);
  for (int i = 0; i < 4; ++i)
    for (int j = 0; j < 6; ++j)
      for (int k = 0; k < 8; ++k) {
        int inside = i < 3 && j >= 2 && j < 6 && k < 6;
        double want = inside ? prev_ * 1000 + (i + 2) * 100 + (j - 2 + 1) * 10 + (k + 3) : -1;
        CHECK_MSG(b[i][j][k] == want, "subarray: b[%d][%d][%d] = %g, expected %g", i, j, k,
                  b[i][j][k], want);
      }
  /* And into plain doubles: the block in C order. */
  double flat[3 * 4 * 6];
  ring(a, 1, s3, flat, 3 * 4 * 6, MPI_DOUBLE, NULL);
  for (int n = 0; n < 3 * 4 * 6; ++n) {
    int i = n / 24, j = n / 6 % 4, k = n % 6;
    CHECK(flat[n] == prev_ * 1000 + (i + 2) * 100 + (j + 1) * 10 + (k + 3));
  }
  CHECK_MPI(MPI_Type_free(&s3));
  CHECK_MPI(MPI_Type_free(&r3));
}

static void check_partial(void) {
  /* The receive posts 4 records {int, double, double}; 2 records and one more int arrive. */
  int bl[2] = {1, 2};
  MPI_Aint disp[2] = {0, 8};
  MPI_Datatype types[2] = {MPI_INT, MPI_DOUBLE}, t;
  CHECK_MPI(MPI_Type_create_struct(2, bl, disp, types, &t));
  CHECK_MPI(MPI_Type_commit(&t));
  unsigned char msg[2 * 20 + 4];
  for (int r = 0; r < 2; ++r) {
    int id = 7 + r;
    double x[2] = {r + 0.5, r + 1.5};
    memcpy(msg + 20 * r, &id, 4);
    memcpy(msg + 20 * r + 4, x, 16);
  }
  int last = 99;
  memcpy(msg + 40, &last, 4);
  struct {
    int id;
    double x[2];
  } in[4];
  memset(in, 0, sizeof in);
  MPI_Status st;
  ring(msg, (int)sizeof msg, MPI_BYTE, in, 4, t, &st);
  int count, elements;
  MPI_Count elements_x;
  CHECK_MPI(MPI_Get_count(&st, t, &count));
  CHECK_INT(count, ==, MPI_UNDEFINED);
  CHECK_MPI(MPI_Get_elements(&st, t, &elements));
  CHECK_INT(elements, ==, 7);
  CHECK_MPI(MPI_Get_elements_x(&st, t, &elements_x));
  CHECK_INT(elements_x, ==, 7);
  CHECK_INT(in[1].id, ==, 8);
  CHECK(in[1].x[1] == 2.5);
  CHECK_INT(in[2].id, ==, 99);
  CHECK(in[2].x[0] == 0);
  /* Whole records: the count is defined again. */
  ring(msg, 40, MPI_BYTE, in, 4, t, &st);
  CHECK_MPI(MPI_Get_count(&st, t, &count));
  CHECK_INT(count, ==, 2);
  CHECK_MPI(MPI_Type_free(&t));
}

static void check_sendrecv(void) {
  MPI_Datatype col;  /* one column of a 5x5 int matrix */
  CHECK_MPI(MPI_Type_vector(5, 1, 5, MPI_INT, &col));
  CHECK_MPI(MPI_Type_commit(&col));
  int m[5][5], r[5][5];
  for (int i = 0; i < 5; ++i)
    for (int j = 0; j < 5; ++j) {
      m[i][j] = rank_ * 100 + i * 5 + j;
      r[i][j] = -1;
    }
  MPI_Status st;
  /* My column 1 becomes the next rank's column 3. */
  CHECK_MPI(MPI_Sendrecv(&m[0][1], 1, col, next_, 3, &r[0][3], 1, col, prev_, 3, MPI_COMM_WORLD,
                         &st));
  for (int i = 0; i < 5; ++i)
    for (int j = 0; j < 5; ++j)
      CHECK_INT(r[i][j], ==, j == 3 ? prev_ * 100 + i * 5 + 1 : -1);
  CHECK_MPI(MPI_Type_free(&col));
}

int main(int argc, char **argv) {
  CHECK_MPI(MPI_Init(&argc, &argv));
  CHECK_MPI(MPI_Comm_rank(MPI_COMM_WORLD, &rank_));
  CHECK_MPI(MPI_Comm_size(MPI_COMM_WORLD, &size_));
  next_ = (rank_ + 1) % size_;
  prev_ = (rank_ + size_ - 1) % size_;
  check_vector(128);                 /* 1 KiB of data: eager */
  check_vector((size_t)4 << 20);     /* 32 MiB of data: rendezvous */
  check_struct(3);
  check_struct(100000);
  check_subarray();
  check_partial();
  check_sendrecv();
  jobs_done("job_dtype_p2p");
  CHECK_MPI(MPI_Finalize());
  return 0;
}
