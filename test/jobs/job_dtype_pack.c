/* MPI_Pack / MPI_Unpack / MPI_Pack_size round trips, a packed message sent as MPI_PACKED and
 * received as a derived type, type queries through the C API (extent, true extent, resized,
 * names, envelope and contents), MPI_Type_free while a request still uses the type, a struct
 * of absolute addresses (MPI_Get_address) sent from MPI_BOTTOM, and argument errors. */
#include "jobs_util.h"

static int rank_, size_, next_, prev_;

static void check_pack_roundtrip(void) {
  MPI_Datatype v;
  CHECK_MPI(MPI_Type_vector(4, 2, 3, MPI_INT, &v)); /* ints 0,1 3,4 6,7 9,10 */
  CHECK_MPI(MPI_Type_commit(&v));
  int src[2 * 11], out[2 * 11];
  for (int i = 0; i < 22; ++i) {
    src[i] = 100 + i;
    out[i] = -1;
  }
  int psize, dsize;
  CHECK_MPI(MPI_Pack_size(2, v, MPI_COMM_WORLD, &psize));
  CHECK_MPI(MPI_Pack_size(3, MPI_DOUBLE, MPI_COMM_WORLD, &dsize));
  CHECK(psize >= 2 * 8 * (int)sizeof(int));
  char buf[512];
  int pos = 0;
  double d[3] = {1.5, 2.5, 3.5}, d2[3] = {0, 0, 0};
  /* A vector, then doubles, into one buffer; extent of v is 11 ints, so the second element
   * starts at int 11. */
  CHECK_MPI(MPI_Pack(src, 2, v, buf, (int)sizeof buf, &pos, MPI_COMM_WORLD));
  CHECK_INT(pos, ==, 16 * sizeof(int));
  CHECK_MPI(MPI_Pack(d, 3, MPI_DOUBLE, buf, (int)sizeof buf, &pos, MPI_COMM_WORLD));
  CHECK_INT(pos, <=, psize + dsize);
  int end = pos;
  int first[16];
  memcpy(first, buf, sizeof first);
  const int want[16] = {100, 101, 103, 104, 106, 107, 109, 110,
                        111, 112, 114, 115, 117, 118, 120, 121};
  for (int i = 0; i < 16; ++i) CHECK_INT(first[i], ==, want[i]);
  pos = 0;
  CHECK_MPI(MPI_Unpack(buf, end, &pos, out, 2, v, MPI_COMM_WORLD));
  CHECK_MPI(MPI_Unpack(buf, end, &pos, d2, 3, MPI_DOUBLE, MPI_COMM_WORLD));
  CHECK_INT(pos, ==, end);
  for (int i = 0; i < 22; ++i) {
    int in_map = (i % 11) % 3 != 2;
    CHECK_INT(out[i], ==, in_map ? 100 + i : -1);
  }
  CHECK(d2[2] == 3.5);

  /* The packed buffer travels as MPI_PACKED and is received as the vector type. */
  int in[22];
  for (int i = 0; i < 22; ++i) in[i] = -2;
  MPI_Request rq[2];
  CHECK_MPI(MPI_Irecv(in, 2, v, prev_, 4, MPI_COMM_WORLD, &rq[0]));
  CHECK_MPI(MPI_Isend(buf, 16 * (int)sizeof(int), MPI_PACKED, next_, 4, MPI_COMM_WORLD, &rq[1]));
  CHECK_MPI(MPI_Waitall(2, rq, MPI_STATUSES_IGNORE));
  for (int i = 0; i < 22; ++i) CHECK_INT(in[i], ==, out[i] == -1 ? -2 : out[i]);
  CHECK_MPI(MPI_Type_free(&v));
}

static void check_queries(void) {
  MPI_Datatype v, r, d, c;
  CHECK_MPI(MPI_Type_vector(3, 2, 4, MPI_DOUBLE, &v));
  MPI_Aint lb, ext, tlb, text;
  CHECK_MPI(MPI_Type_get_extent(v, &lb, &ext)); /* queries work before commit */
  CHECK_INT(lb, ==, 0);
  CHECK_INT(ext, ==, 10 * 8);
  CHECK_MPI(MPI_Type_create_resized(v, -16, 128, &r));
  CHECK_MPI(MPI_Type_get_extent(r, &lb, &ext));
  CHECK_INT(lb, ==, -16);
  CHECK_INT(ext, ==, 128);
  CHECK_MPI(MPI_Type_get_true_extent(r, &tlb, &text));
  CHECK_INT(tlb, ==, 0);
  CHECK_INT(text, ==, 80);
  MPI_Count lbx, extx, sizex;
  CHECK_MPI(MPI_Type_get_extent_x(r, &lbx, &extx));
  CHECK_INT(extx, ==, 128);
  CHECK_MPI(MPI_Type_get_true_extent_x(r, &lbx, &extx));
  CHECK_INT(extx, ==, 80);
  CHECK_MPI(MPI_Type_size_x(r, &sizex));
  CHECK_INT(sizex, ==, 48);
  CHECK_MPI(MPI_Type_contiguous(2, r, &c));
  CHECK_MPI(MPI_Type_get_extent(c, &lb, &ext));
  CHECK_INT(lb, ==, -16);
  CHECK_INT(ext, ==, 256);

  CHECK_MPI(MPI_Type_dup(r, &d));
  char name[MPI_MAX_OBJECT_NAME];
  int len;
  CHECK_MPI(MPI_Type_set_name(d, "halo column"));
  CHECK_MPI(MPI_Type_get_name(d, name, &len));
  CHECK(strcmp(name, "halo column") == 0);
  CHECK_INT(len, ==, 11);
  CHECK_MPI(MPI_Type_get_name(MPI_DOUBLE, name, &len));
  CHECK(strcmp(name, "MPI_DOUBLE") == 0);

  int ni, na, nd, comb;
  CHECK_MPI(MPI_Type_get_envelope(MPI_INT, &ni, &na, &nd, &comb));
  CHECK_INT(comb, ==, MPI_COMBINER_NAMED);
  CHECK_MPI(MPI_Type_get_envelope(v, &ni, &na, &nd, &comb));
  CHECK_INT(comb, ==, MPI_COMBINER_VECTOR);
  CHECK_INT(ni, ==, 3);
  CHECK_INT(na, ==, 0);
  CHECK_INT(nd, ==, 1);
  int ints[3];
  MPI_Aint addrs[1];
  MPI_Datatype types[1];
  CHECK_MPI(MPI_Type_get_contents(v, 3, 0, 1, ints, addrs, types));
  CHECK_INT(ints[0], ==, 3);
  CHECK_INT(ints[1], ==, 2);
  CHECK_INT(ints[2], ==, 4);
  CHECK(types[0] == MPI_DOUBLE);
  CHECK_MPI(MPI_Type_get_envelope(r, &ni, &na, &nd, &comb));
  CHECK_INT(comb, ==, MPI_COMBINER_RESIZED);
  CHECK_INT(na, ==, 2);
  CHECK_MPI(MPI_Type_get_contents(r, 0, 2, 1, ints, (MPI_Aint[2]){0, 0}, types));
  /* A derived type comes back as a handle the caller owns. */
  MPI_Aint lb2, ext2;
  CHECK_MPI(MPI_Type_get_extent(types[0], &lb2, &ext2));
  CHECK_INT(ext2, ==, 80);
  CHECK_MPI(MPI_Type_free(&types[0]));
  CHECK_MPI(MPI_Type_get_envelope(d, &ni, &na, &nd, &comb));
  CHECK_INT(comb, ==, MPI_COMBINER_DUP);

  CHECK_MPI(MPI_Type_free(&c));
  CHECK_MPI(MPI_Type_free(&d));
  CHECK_MPI(MPI_Type_free(&r));
  CHECK_MPI(MPI_Type_free(&v));
}

static void check_free_in_flight(void) {
  /* Type freed after the sends and receives were started, before they complete; a large
   * message so it is still in flight. */
  const int n = 1 << 20;
  int *a = jobs_malloc(3 * (size_t)n * sizeof(int));
  int *b = jobs_malloc(3 * (size_t)n * sizeof(int));
  for (int i = 0; i < 3 * n; ++i) {
    a[i] = rank_ + i;
    b[i] = -1;
  }
  MPI_Datatype t;
  CHECK_MPI(MPI_Type_vector(n, 1, 3, MPI_INT, &t));
  CHECK_MPI(MPI_Type_commit(&t));
  MPI_Request rq[2];
  CHECK_MPI(MPI_Irecv(b, 1, t, prev_, 6, MPI_COMM_WORLD, &rq[0]));
  CHECK_MPI(MPI_Isend(a, 1, t, next_, 6, MPI_COMM_WORLD, &rq[1]));
  CHECK_MPI(MPI_Type_free(&t));
  CHECK_MPI(MPI_Waitall(2, rq, MPI_STATUSES_IGNORE));
  for (int i = 0; i < 3 * n; ++i)
    CHECK_MSG(b[i] == (i % 3 == 0 ? prev_ + i : -1), "freed type: b[%d] = %d", i, b[i]);
  free(a);
  free(b);
}

static void check_absolute(void) {
  /* A struct of absolute addresses of three separate variables, sent from MPI_BOTTOM. */
  static int x;
  static double y[2];
  static char z[5];
  x = 40 + rank_;
  y[0] = rank_ + 0.5;
  y[1] = rank_ + 1.5;
  memcpy(z, "wxyz", 5);
  z[0] = (char)('a' + rank_ % 26);
  MPI_Aint addr[3], base;
  CHECK_MPI(MPI_Get_address(&x, &addr[0]));
  CHECK_MPI(MPI_Get_address(y, &addr[1]));
  CHECK_MPI(MPI_Get_address(z, &addr[2]));
  CHECK_MPI(MPI_Get_address(y, &base));
  CHECK(MPI_Aint_diff(MPI_Aint_add(base, 8), base) == 8);
  CHECK(MPI_Aint_add(base, MPI_Aint_diff(addr[2], base)) == addr[2]);
  int bl[3] = {1, 2, 5};
  MPI_Datatype types[3] = {MPI_INT, MPI_DOUBLE, MPI_CHAR}, t;
  CHECK_MPI(MPI_Type_create_struct(3, bl, addr, types, &t));
  CHECK_MPI(MPI_Type_commit(&t));
  unsigned char packed[4 + 16 + 5];
  MPI_Request rq[2];
  CHECK_MPI(MPI_Irecv(packed, (int)sizeof packed, MPI_BYTE, prev_, 8, MPI_COMM_WORLD, &rq[0]));
  CHECK_MPI(MPI_Isend(MPI_BOTTOM, 1, t, next_, 8, MPI_COMM_WORLD, &rq[1]));
  CHECK_MPI(MPI_Waitall(2, rq, MPI_STATUSES_IGNORE));
  int xi;
  double yd[2];
  memcpy(&xi, packed, 4);
  memcpy(yd, packed + 4, 16);
  CHECK_INT(xi, ==, 40 + prev_);
  CHECK(yd[1] == prev_ + 1.5);
  CHECK_INT(packed[20], ==, 'a' + prev_ % 26);
  CHECK_INT(packed[24], ==, 0);
  CHECK_MPI(MPI_Type_free(&t));
}

static void check_errors(void) {
  CHECK_MPI(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
  MPI_Datatype t = MPI_DATATYPE_NULL, predefined = MPI_INT;
  CHECK_ERR_CLASS(MPI_Type_contiguous(-1, MPI_INT, &t), MPI_ERR_COUNT);
  CHECK_ERR_CLASS(MPI_Type_free(&predefined), MPI_ERR_TYPE);
  CHECK_MPI(MPI_Type_contiguous(2, MPI_INT, &t));
  int x[2] = {1, 2};
  CHECK_ERR_CLASS(MPI_Send(x, 1, t, next_, 9, MPI_COMM_WORLD), MPI_ERR_TYPE); /* not committed */
  /* The message names the unnamed type by what built it. */
  const char *why = jobs_error_text(MPI_Send(x, 1, t, next_, 9, MPI_COMM_WORLD));
  CHECK_MSG(strstr(why, "datatype (unnamed, from MPI_Type_contiguous, handle 0x") != NULL,
            "MPI_Send's message does not name the uncommitted datatype: '%s'", why);
  CHECK_MPI(MPI_Type_free(&t));
  CHECK_MPI(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL));
}

int main(int argc, char **argv) {
  CHECK_MPI(MPI_Init(&argc, &argv));
  CHECK_MPI(MPI_Comm_rank(MPI_COMM_WORLD, &rank_));
  CHECK_MPI(MPI_Comm_size(MPI_COMM_WORLD, &size_));
  next_ = (rank_ + 1) % size_;
  prev_ = (rank_ + size_ - 1) % size_;
  check_pack_roundtrip();
  check_queries();
  check_free_in_flight();
  check_absolute();
  check_errors();
  jobs_done("job_dtype_pack");
  CHECK_MPI(MPI_Finalize());
  return 0;
}
