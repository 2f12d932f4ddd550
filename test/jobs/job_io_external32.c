/* Data representations: "external32" round trips of a struct of int, double, short, long and
 * char (the file bytes checked against the standard's big-endian encoding, 19 bytes an
 * element, no padding), a filetype of MPI_LONG laid out with external32's 4-byte longs,
 * MPI_File_get_type_extent, collective two-phase access in external32, and a user data
 * representation registered with MPI_Register_datarep (its callbacks run, the file holds the
 * converted bytes, blocking and nonblocking), plus the errors: a name taken twice, an unknown
 * one. */
#include "io_util.h"

struct rec {
  int a;
  double b;
  short c;
  long d;
  char e;
};
enum { NREC = 50, EXT_REC = 4 + 8 + 2 + 4 + 1 };

static int rank, size;

static struct rec make_rec(int r, int i) {
  struct rec x;
  memset(&x, 0, sizeof x);
  x.a = -(r * 1000 + i) - 1;
  x.b = (r * 1000 + i) * 0.5 - 3.25;
  x.c = (short)(i - 20);
  x.d = (long)(r * 1000 + i) * -3;
  x.e = (char)('A' + i % 26);
  return x;
}

static MPI_Datatype rec_type(void) {
  int bl[5] = {1, 1, 1, 1, 1};
  MPI_Aint disp[5] = {offsetof(struct rec, a), offsetof(struct rec, b), offsetof(struct rec, c),
                      offsetof(struct rec, d), offsetof(struct rec, e)};
  MPI_Datatype types[5] = {MPI_INT, MPI_DOUBLE, MPI_SHORT, MPI_LONG, MPI_CHAR}, t, r;
  CHECK_MPI(MPI_Type_create_struct(5, bl, disp, types, &t));
  CHECK_MPI(MPI_Type_create_resized(t, 0, sizeof(struct rec), &r));
  CHECK_MPI(MPI_Type_commit(&r));
  MPI_Type_free(&t);
  return r;
}

static uint64_t be(const unsigned char *p, int n) {
  uint64_t v = 0;
  for (int i = 0; i < n; ++i) v = v << 8 | p[i];
  return v;
}

static void check_ext_rec(const unsigned char *p, struct rec x, size_t at) {
  CHECK_MSG((int32_t)be(p, 4) == x.a, "record at %zu: int %d, expected %d", at, (int32_t)be(p, 4), x.a);
  uint64_t bits = be(p + 4, 8);
  double b;
  memcpy(&b, &bits, 8);
  CHECK_MSG(b == x.b, "record at %zu: double %g, expected %g", at, b, x.b);
  CHECK_MSG((int16_t)be(p + 12, 2) == x.c, "record at %zu: short", at);
  CHECK_MSG((int32_t)be(p + 14, 4) == (int32_t)x.d, "record at %zu: long %d, expected %ld", at,
            (int32_t)be(p + 14, 4), x.d);
  CHECK_MSG((char)p[18] == x.e, "record at %zu: char", at);
}

static void records(void) {
  char path[4200];
  snprintf(path, sizeof path, "%s", io_path("records.ext32"));
  MPI_Datatype rt = rec_type();
  MPI_File fh;
  MPI_Status st;
  int count;
  CHECK_MPI(MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_RDWR, MPI_INFO_NULL,
                          &fh));
  CHECK_MPI(MPI_File_set_view(fh, 0, MPI_BYTE, MPI_BYTE, "external32", MPI_INFO_NULL));
  MPI_Aint ext;
  CHECK_MPI(MPI_File_get_type_extent(fh, MPI_LONG, &ext));
  CHECK_INT(ext, ==, 4);
  CHECK_MPI(MPI_File_get_type_extent(fh, MPI_LONG_DOUBLE, &ext));
  CHECK_INT(ext, ==, 16);
  CHECK_MPI(MPI_File_get_type_extent(fh, MPI_INT, &ext));
  CHECK_INT(ext, ==, 4);
  MPI_Offset disp = -1;
  MPI_Datatype et, ft;
  char rep[MPI_MAX_DATAREP_STRING];
  CHECK_MPI(MPI_File_get_view(fh, &disp, &et, &ft, rep));
  CHECK_MSG(!strcmp(rep, "external32"), "get_view datarep \"%s\"", rep);

  struct rec *recs = (struct rec *)jobs_malloc(sizeof(struct rec) * NREC);
  for (int i = 0; i < NREC; ++i) recs[i] = make_rec(rank, i);
  CHECK_MPI(MPI_File_write_at_all(fh, (MPI_Offset)rank * NREC * EXT_REC, recs, NREC, rt, &st));
  CHECK_MPI(MPI_Get_count(&st, rt, &count));
  CHECK_INT(count, ==, NREC);
  CHECK_MPI(MPI_File_sync(fh));
  CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
  if (rank == 0) {
    size_t n = 0;
    unsigned char *file = io_slurp(path, &n);
    CHECK_INT(n, ==, (size_t)size * NREC * EXT_REC);
    for (int r = 0; r < size; ++r)
      for (int i = 0; i < NREC; ++i) {
        size_t at = ((size_t)r * NREC + i) * EXT_REC;
        check_ext_rec(file + at, make_rec(r, i), at);
      }
    free(file);
  }
  /* Read another rank's records back, independently and nonblocking. */
  const int peer = (rank + 1) % size;
  memset(recs, 0, sizeof(struct rec) * NREC);
  MPI_Request req;
  CHECK_MPI(MPI_File_iread_at(fh, (MPI_Offset)peer * NREC * EXT_REC, recs, NREC, rt, &req));
  CHECK_MPI(MPI_Wait(&req, &st));
  CHECK_MPI(MPI_Get_count(&st, rt, &count));
  CHECK_INT(count, ==, NREC);
  for (int i = 0; i < NREC; ++i) {
    struct rec x = make_rec(peer, i);
    CHECK_MSG(recs[i].a == x.a && recs[i].b == x.b && recs[i].c == x.c && recs[i].d == x.d &&
                  recs[i].e == x.e,
              "record %d of rank %d read back wrong", i, peer);
  }
  CHECK_MPI(MPI_File_close(&fh));
  MPI_Type_free(&rt);
  free(recs);
}

/* A filetype of longs: every other one, in external32's 4-byte size. */
static void long_filetype(void) {
  char path[4200];
  snprintf(path, sizeof path, "%s", io_path("longs.ext32"));
  MPI_File fh;
  MPI_Status st;
  MPI_Datatype vec;
  CHECK_MPI(MPI_Type_vector(4, 1, 2, MPI_LONG, &vec));
  CHECK_MPI(MPI_Type_commit(&vec));
  CHECK_MPI(MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_RDWR, MPI_INFO_NULL,
                          &fh));
  CHECK_MPI(MPI_File_set_view(fh, (MPI_Offset)rank * 28, MPI_LONG, vec, "external32",
                              MPI_INFO_NULL));
  MPI_Aint ext;
  CHECK_MPI(MPI_File_get_type_extent(fh, vec, &ext));
  CHECK_INT(ext, ==, 28); /* 7 longs of 4 bytes: 4 data, 3 gaps */
  long v[4] = {rank * 10L + 1, -2L, 0x7fffffffL, -(rank * 10L) - 4};
  CHECK_MPI(MPI_File_write_all(fh, v, 4, MPI_LONG, &st));
  MPI_Offset pos;
  CHECK_MPI(MPI_File_get_position(fh, &pos));
  CHECK_INT(pos, ==, 4);
  MPI_Offset byte;
  CHECK_MPI(MPI_File_get_byte_offset(fh, 3, &byte));
  CHECK_INT(byte, ==, rank * 28 + 24);
  CHECK_MPI(MPI_File_close(&fh));
  if (rank == 0) {
    size_t n = 0;
    unsigned char *file = io_slurp(path, &n);
    CHECK_INT(n, ==, (size_t)28 * (size - 1) + 28);
    for (int r = 0; r < size; ++r) {
      long w[4] = {r * 10L + 1, -2L, 0x7fffffffL, -(r * 10L) - 4};
      for (int k = 0; k < 4; ++k)
        CHECK_MSG((int32_t)be(file + r * 28 + 8 * k, 4) == (int32_t)w[k], "rank %d long %d", r, k);
    }
    free(file);
  }
  MPI_Type_free(&vec);
}

/* Two-phase collective access in external32 (forced): ranks' ints interleave. */
static void collective(void) {
  char path[4200];
  snprintf(path, sizeof path, "%s", io_path("coll.ext32"));
  MPI_Info info;
  MPI_Info_create(&info);
  MPI_Info_set(info, "romio_cb_write", "enable");
  MPI_Info_set(info, "romio_cb_read", "enable");
  MPI_Info_set(info, "cb_buffer_size", "256");
  MPI_File fh;
  MPI_Status st;
  CHECK_MPI(MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_RDWR, info, &fh));
  MPI_Info_free(&info);
  MPI_Datatype vec, ft;
  CHECK_MPI(MPI_Type_vector(100, 1, size, MPI_INT, &vec));
  CHECK_MPI(MPI_Type_create_resized(vec, 0, (MPI_Aint)sizeof(int) * 100 * size, &ft));
  CHECK_MPI(MPI_Type_commit(&ft));
  CHECK_MPI(MPI_File_set_view(fh, (MPI_Offset)sizeof(int) * rank, MPI_INT, ft, "external32",
                              MPI_INFO_NULL));
  int v[100], back[100];
  for (int i = 0; i < 100; ++i) v[i] = rank * 100000 + i * 3 - 50;
  CHECK_MPI(MPI_File_write_all(fh, v, 100, MPI_INT, &st));
  CHECK_MPI(MPI_File_seek(fh, 0, MPI_SEEK_SET));
  CHECK_MPI(MPI_File_read_all(fh, back, 100, MPI_INT, &st));
  int count;
  CHECK_MPI(MPI_Get_count(&st, MPI_INT, &count));
  CHECK_INT(count, ==, 100);
  for (int i = 0; i < 100; ++i) CHECK_INT(back[i], ==, v[i]);
  CHECK_MPI(MPI_File_close(&fh));
  if (rank == 0) {
    size_t n = 0;
    unsigned char *file = io_slurp(path, &n);
    CHECK_INT(n, ==, (size_t)400 * size);
    for (int i = 0; i < 100; ++i)
      for (int r = 0; r < size; ++r)
        CHECK_INT((int32_t)be(file + 4 * (i * size + r), 4), ==, r * 100000 + i * 3 - 50);
    free(file);
  }
  MPI_Type_free(&vec);
  MPI_Type_free(&ft);
}

/* A user representation: ints stored with every byte XORed with 0x5A. */
static int conversions;
static int xor_extent(MPI_Datatype t, MPI_Aint *extent, void *extra) {
  (void)extra;
  MPI_Aint lb;
  return MPI_Type_get_extent(t, &lb, extent);
}
static int xor_write(void *userbuf, MPI_Datatype t, int count, void *filebuf, MPI_Offset position,
                     void *extra) {
  CHECK(t == MPI_INT && extra == &conversions);
  ++conversions;
  const unsigned char *in = (const unsigned char *)userbuf + position * sizeof(int);
  unsigned char *out = (unsigned char *)filebuf;
  for (size_t i = 0; i < (size_t)count * sizeof(int); ++i) out[i] = in[i] ^ 0x5A;
  return MPI_SUCCESS;
}
static int xor_read(void *userbuf, MPI_Datatype t, int count, void *filebuf, MPI_Offset position,
                    void *extra) {
  CHECK(t == MPI_INT && extra == &conversions);
  ++conversions;
  unsigned char *out = (unsigned char *)userbuf + position * sizeof(int);
  const unsigned char *in = (const unsigned char *)filebuf;
  for (size_t i = 0; i < (size_t)count * sizeof(int); ++i) out[i] = in[i] ^ 0x5A;
  return MPI_SUCCESS;
}

static void user_datarep(void) {
  CHECK_MPI(MPI_Register_datarep("mpr-test-xor", xor_read, xor_write, xor_extent, &conversions));
  CHECK_ERR_CLASS(MPI_Register_datarep("mpr-test-xor", xor_read, xor_write, xor_extent, NULL),
                  MPI_ERR_DUP_DATAREP);
  CHECK_ERR_CLASS(MPI_Register_datarep("external32", xor_read, xor_write, xor_extent, NULL),
                  MPI_ERR_DUP_DATAREP);
  char path[4200];
  snprintf(path, sizeof path, "%s", io_path("user.rep"));
  MPI_File fh;
  MPI_Status st;
  CHECK_MPI(MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_RDWR, MPI_INFO_NULL,
                          &fh));
  CHECK_ERR_CLASS(MPI_File_set_view(fh, 0, MPI_INT, MPI_INT, "no-such-rep", MPI_INFO_NULL),
                  MPI_ERR_UNSUPPORTED_DATAREP);
  CHECK_MPI(MPI_File_set_view(fh, 0, MPI_INT, MPI_INT, "mpr-test-xor", MPI_INFO_NULL));
  int v[64], back[64];
  for (int i = 0; i < 64; ++i) v[i] = rank * 64 + i;
  CHECK_MPI(MPI_File_write_at(fh, rank * 64, v, 32, MPI_INT, &st));
  MPI_Request req;
  CHECK_MPI(MPI_File_iwrite_at(fh, rank * 64 + 32, v + 32, 32, MPI_INT, &req));
  CHECK_MPI(MPI_Wait(&req, &st));
  CHECK(conversions >= 2);
  CHECK_MPI(MPI_File_sync(fh));
  CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
  CHECK_MPI(MPI_File_read_at(fh, ((rank + 1) % size) * 64, back, 64, MPI_INT, &st));
  for (int i = 0; i < 64; ++i) CHECK_INT(back[i], ==, ((rank + 1) % size) * 64 + i);
  CHECK_MPI(MPI_File_close(&fh));
  if (rank == 0) {
    size_t n = 0;
    unsigned char *file = io_slurp(path, &n);
    CHECK_INT(n, ==, sizeof(int) * 64 * size);
    for (int i = 0; i < 64 * size; ++i) {
      int x;
      unsigned char b[sizeof(int)];
      for (size_t k = 0; k < sizeof(int); ++k) b[k] = file[i * sizeof(int) + k] ^ 0x5A;
      memcpy(&x, b, sizeof x);
      CHECK_INT(x, ==, i);
    }
    free(file);
  }
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  io_setup("ext32");
  records();
  long_filetype();
  collective();
  user_datarep();
  io_teardown();
  jobs_done("job_io_external32");
  MPI_Finalize();
  return 0;
}
