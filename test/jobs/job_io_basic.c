/* MPI-IO basics: open modes (CREATE, EXCL, DELETE_ON_CLOSE, APPEND, UNIQUE_OPEN, SEQUENTIAL),
 * explicit-offset reads and writes (independent and collective) checked byte for byte against
 * the file as POSIX reads it, reads cut short by the end of the file, size, preallocation,
 * sync, group, amode, hints, atomicity flag, handle conversion, type extents, file error
 * handlers (MPI_ERRORS_RETURN by default, user handlers on a file and on MPI_FILE_NULL); a
 * write-only file written collectively and independently through a view with holes. */
#include "io_util.h"

enum { N = 10000 };

static int handler_calls;
static int handler_class;
static MPI_File handler_file;

static void count_errors(MPI_File *fh, int *code, ...) {
  ++handler_calls;
  handler_file = *fh;
  MPI_Error_class(*code, &handler_class);
}

static void check_info_value(MPI_Info info, const char *key, const char *want) {
  char value[MPI_MAX_INFO_VAL + 1];
  int flag = 0;
  CHECK_MPI(MPI_Info_get(info, key, MPI_MAX_INFO_VAL, value, &flag));
  CHECK_MSG(flag, "hint %s missing from MPI_File_get_info", key);
  CHECK_MSG(!strcmp(value, want), "hint %s is \"%s\", expected \"%s\"", key, value, want);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  io_setup("basic");

  /* MPI_FILE_NULL's handler is MPI_ERRORS_RETURN: a missing file is an error code, no abort. */
  MPI_Errhandler eh;
  CHECK_MPI(MPI_File_get_errhandler(MPI_FILE_NULL, &eh));
  CHECK(eh == MPI_ERRORS_RETURN);
  CHECK_MPI(MPI_Errhandler_free(&eh));
  MPI_File fh = MPI_FILE_NULL;
  CHECK_ERR_CLASS(MPI_File_open(MPI_COMM_WORLD, io_path("missing"), MPI_MODE_RDONLY,
                                MPI_INFO_NULL, &fh),
                  MPI_ERR_NO_SUCH_FILE);
  CHECK(fh == MPI_FILE_NULL);

  /* ---- explicit offsets ---- */
  char path[4200];
  snprintf(path, sizeof path, "%s", io_path("basic.dat"));
  CHECK_MPI(MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_RDWR, MPI_INFO_NULL,
                          &fh));
  int amode = 0;
  CHECK_MPI(MPI_File_get_amode(fh, &amode));
  CHECK_INT(amode, ==, MPI_MODE_CREATE | MPI_MODE_RDWR);
  MPI_Group g, wg;
  int cmp = -1;
  CHECK_MPI(MPI_File_get_group(fh, &g));
  CHECK_MPI(MPI_Comm_group(MPI_COMM_WORLD, &wg));
  CHECK_MPI(MPI_Group_compare(g, wg, &cmp));
  CHECK_INT(cmp, ==, MPI_IDENT);
  MPI_Group_free(&g);
  MPI_Group_free(&wg);
  MPI_Offset fsize = -1;
  CHECK_MPI(MPI_File_get_size(fh, &fsize));
  CHECK_INT(fsize, ==, 0);
  CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD)); /* nobody writes before everybody saw it empty */
  CHECK_MPI(MPI_File_get_errhandler(fh, &eh));
  CHECK(eh == MPI_ERRORS_RETURN);
  CHECK_MPI(MPI_Errhandler_free(&eh));

  unsigned char *buf = jobs_malloc(N), *back = jobs_malloc(N + 64);
  MPI_Status st;
  int count = -1;
  jobs_fill(buf, N, 100 + rank);
  CHECK_MPI(MPI_File_write_at(fh, (MPI_Offset)rank * N, buf, N, MPI_BYTE, &st));
  CHECK_MPI(MPI_Get_count(&st, MPI_BYTE, &count));
  CHECK_INT(count, ==, N);
  /* Collective: the second half of the file, in ints. */
  jobs_fill(buf, N, 200 + rank);
  CHECK_MPI(MPI_File_write_at_all(fh, (MPI_Offset)(size + rank) * N, buf, N / 4, MPI_INT, &st));
  CHECK_MPI(MPI_Get_count(&st, MPI_INT, &count));
  CHECK_INT(count, ==, N / 4);
  CHECK_MPI(MPI_File_sync(fh));
  CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
  CHECK_MPI(MPI_File_sync(fh));
  if (rank == 0) {
    unsigned char *expect = jobs_malloc((size_t)2 * size * N);
    for (int r = 0; r < size; ++r) {
      jobs_fill(expect + (size_t)r * N, N, 100 + r);
      jobs_fill(expect + (size_t)(size + r) * N, N, 200 + r);
    }
    CHECK_FILE(path, expect, (size_t)2 * size * N);
    free(expect);
  }
  CHECK_MPI(MPI_File_get_size(fh, &fsize));
  CHECK_INT(fsize, ==, (MPI_Offset)2 * size * N);
  /* Read the next rank's blocks back, independently and collectively. */
  const int peer = (rank + 1) % size;
  CHECK_MPI(MPI_File_read_at(fh, (MPI_Offset)peer * N, back, N, MPI_BYTE, &st));
  CHECK_MPI(MPI_Get_count(&st, MPI_BYTE, &count));
  CHECK_INT(count, ==, N);
  CHECK_PATTERN(back, N, 100 + peer, "read_at of the next rank's block");
  CHECK_MPI(MPI_File_read_at_all(fh, (MPI_Offset)(size + peer) * N, back, N, MPI_BYTE, &st));
  CHECK_PATTERN(back, N, 200 + peer, "read_at_all of the next rank's block");

  /* A read past the end of the file stops there and leaves the rest of the buffer alone. */
  memset(back, 0xEE, N + 64);
  CHECK_MPI(MPI_File_read_at(fh, fsize - 10, back, 100, MPI_BYTE, &st));
  CHECK_MPI(MPI_Get_count(&st, MPI_BYTE, &count));
  CHECK_INT(count, ==, 10);
  jobs_fill(buf, N, 200 + size - 1);
  CHECK(memcmp(back, buf + N - 10, 10) == 0);
  for (int i = 10; i < 100; ++i) CHECK_INT(back[i], ==, 0xEE);
  memset(back, 0xEE, 100);
  CHECK_MPI(MPI_File_read_at_all(fh, fsize + 5, back, 100, MPI_BYTE, &st));
  CHECK_MPI(MPI_Get_count(&st, MPI_BYTE, &count));
  CHECK_INT(count, ==, 0);
  CHECK_INT(back[0], ==, 0xEE);

  /* Size and preallocation (a barrier after each check: rank 0 may be a step ahead). */
  CHECK_MPI(MPI_File_set_size(fh, (MPI_Offset)size * N));
  CHECK_MPI(MPI_File_get_size(fh, &fsize));
  CHECK_INT(fsize, ==, (MPI_Offset)size * N);
  CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
  CHECK_MPI(MPI_File_preallocate(fh, (MPI_Offset)(size + 1) * N));
  CHECK_MPI(MPI_File_get_size(fh, &fsize));
  CHECK_INT(fsize, ==, (MPI_Offset)(size + 1) * N);
  CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
  CHECK_MPI(MPI_File_preallocate(fh, 10)); /* never shrinks */
  CHECK_MPI(MPI_File_get_size(fh, &fsize));
  CHECK_INT(fsize, ==, (MPI_Offset)(size + 1) * N);
  CHECK_MPI(MPI_File_read_at(fh, 0, back, N, MPI_BYTE, &st));
  CHECK_PATTERN(back, N, 100, "the first block after truncation and preallocation");
  CHECK_MPI(MPI_File_read_at(fh, (MPI_Offset)size * N, back, N, MPI_BYTE, &st));
  CHECK_MPI(MPI_Get_count(&st, MPI_BYTE, &count));
  CHECK_INT(count, ==, N);
  for (int i = 0; i < N; ++i) CHECK_INT(back[i], ==, 0); /* preallocated bytes read as zeros */

  /* Atomicity, handle conversion, extents. */
  int flag = -1;
  CHECK_MPI(MPI_File_get_atomicity(fh, &flag));
  CHECK_INT(flag, ==, 0);
  CHECK_MPI(MPI_File_set_atomicity(fh, 1));
  CHECK_MPI(MPI_File_get_atomicity(fh, &flag));
  CHECK_INT(flag, ==, 1);
  CHECK_MPI(MPI_File_set_atomicity(fh, 0));
  MPI_Fint ff = MPI_File_c2f(fh);
  CHECK(MPI_File_f2c(ff) == fh);
  CHECK(MPI_File_c2f(MPI_FILE_NULL) == 0 && MPI_File_f2c(0) == MPI_FILE_NULL);
  MPI_Aint ext = 0;
  CHECK_MPI(MPI_File_get_type_extent(fh, MPI_INT, &ext));
  CHECK_INT(ext, ==, sizeof(int));
  MPI_Count cext = 0;
  CHECK_MPI(MPI_File_get_type_extent_c(fh, MPI_DOUBLE, &cext));
  CHECK_INT(cext, ==, sizeof(double));

  /* Hints: set at open and with set_info, read back; unknown keys are ignored. */
  MPI_Info info, used;
  CHECK_MPI(MPI_File_get_info(fh, &used));
  check_info_value(used, "filename", path);
  check_info_value(used, "romio_cb_write", "automatic");
  MPI_Info_free(&used);
  MPI_Info_create(&info);
  MPI_Info_set(info, "cb_buffer_size", "1048576");
  MPI_Info_set(info, "romio_ds_read", "disable");
  MPI_Info_set(info, "no_such_hint", "whatever");
  CHECK_MPI(MPI_File_set_info(fh, info));
  CHECK_MPI(MPI_File_get_info(fh, &used));
  check_info_value(used, "cb_buffer_size", "1048576");
  check_info_value(used, "romio_ds_read", "disable");
  int nkeys = 0;
  char key[MPI_MAX_INFO_KEY + 1];
  CHECK_MPI(MPI_Info_get_nkeys(used, &nkeys));
  for (int i = 0; i < nkeys; ++i) {
    CHECK_MPI(MPI_Info_get_nthkey(used, i, key));
    CHECK_MSG(strcmp(key, "no_such_hint") != 0, "an unknown hint was reported as used");
  }
  MPI_Info_free(&used);
  CHECK_MPI(MPI_File_close(&fh));
  CHECK(fh == MPI_FILE_NULL);

  MPI_Info_set(info, "cb_nodes", "1");
  MPI_Info_set(info, "romio_cb_write", "enable");
  MPI_Info_set(info, "file_perm", "600");
  CHECK_MPI(MPI_File_open(MPI_COMM_WORLD, io_path("hinted.dat"),
                          MPI_MODE_CREATE | MPI_MODE_WRONLY | MPI_MODE_UNIQUE_OPEN, info, &fh));
  CHECK_MPI(MPI_File_get_info(fh, &used));
  check_info_value(used, "cb_nodes", "1");
  check_info_value(used, "romio_cb_write", "enable");
  check_info_value(used, "cb_buffer_size", "1048576");
  MPI_Info_free(&used);
  /* Two-phase is forced: the ranks' interleaved ints go through one aggregator. */
  int *ints = (int *)jobs_malloc(sizeof(int) * 64);
  for (int i = 0; i < 64; ++i) ints[i] = rank * 1000 + i;
  MPI_Datatype every_nth;
  CHECK_MPI(MPI_Type_vector(64, 1, size, MPI_INT, &every_nth));
  MPI_Datatype tile;
  CHECK_MPI(MPI_Type_create_resized(every_nth, 0, (MPI_Aint)sizeof(int) * 64 * size, &tile));
  CHECK_MPI(MPI_Type_commit(&tile));
  CHECK_MPI(MPI_File_set_view(fh, (MPI_Offset)sizeof(int) * rank, MPI_INT, tile, "native",
                              MPI_INFO_NULL));
  CHECK_MPI(MPI_File_write_all(fh, ints, 64, MPI_INT, &st));
  CHECK_MPI(MPI_Get_count(&st, MPI_INT, &count));
  CHECK_INT(count, ==, 64);
  CHECK_MPI(MPI_File_close(&fh));
  MPI_Type_free(&every_nth);
  MPI_Type_free(&tile);
  if (rank == 0) {
    int *expect = (int *)jobs_malloc(sizeof(int) * 64 * size);
    for (int i = 0; i < 64; ++i)
      for (int r = 0; r < size; ++r) expect[i * size + r] = r * 1000 + i;
    CHECK_FILE(io_path("hinted.dat"), expect, sizeof(int) * 64 * size);
    free(expect);
    struct stat sb;
    CHECK(stat(io_path("hinted.dat"), &sb) == 0);
    CHECK_MSG((sb.st_mode & 0777) == 0600, "file_perm=600 made mode %o", sb.st_mode & 0777);
  }
  free(ints);
  MPI_Info_free(&info);

  /* EXCL on an existing file; DELETE_ON_CLOSE; MPI_File_delete. */
  CHECK_ERR_CLASS(MPI_File_open(MPI_COMM_WORLD, path,
                                MPI_MODE_CREATE | MPI_MODE_EXCL | MPI_MODE_RDWR, MPI_INFO_NULL,
                                &fh),
                  MPI_ERR_FILE_EXISTS);
  char doc[4200];
  snprintf(doc, sizeof doc, "%s", io_path("delete_on_close.dat"));
  CHECK_MPI(MPI_File_open(MPI_COMM_WORLD, doc,
                          MPI_MODE_CREATE | MPI_MODE_EXCL | MPI_MODE_WRONLY |
                              MPI_MODE_DELETE_ON_CLOSE,
                          MPI_INFO_NULL, &fh));
  CHECK_MPI(MPI_File_write_at_all(fh, rank, "x", 1, MPI_CHAR, &st));
  CHECK(access(doc, F_OK) == 0);
  CHECK_MPI(MPI_File_close(&fh));
  CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
  CHECK_MSG(access(doc, F_OK) != 0 && errno == ENOENT, "%s outlived its DELETE_ON_CLOSE", doc);

  /* APPEND: both file pointers start at the end. */
  char app[4200];
  snprintf(app, sizeof app, "%s", io_path("append.dat"));
  if (rank == 0) {
    jobs_fill(buf, 123, 7);
    io_pwrite(app, buf, 123, 0);
  }
  CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
  CHECK_MPI(MPI_File_open(MPI_COMM_WORLD, app, MPI_MODE_WRONLY | MPI_MODE_APPEND, MPI_INFO_NULL,
                          &fh));
  MPI_Offset pos = -1;
  CHECK_MPI(MPI_File_get_position(fh, &pos));
  CHECK_INT(pos, ==, 123);
  CHECK_MPI(MPI_File_get_position_shared(fh, &pos));
  CHECK_INT(pos, ==, 123);
  CHECK_MPI(MPI_File_write_ordered(fh, &rank, 1, MPI_INT, &st));
  CHECK_MPI(MPI_File_close(&fh));
  if (rank == 0) {
    size_t n = 0;
    unsigned char *got = io_slurp(app, &n);
    CHECK_INT(n, ==, 123 + sizeof(int) * size);
    CHECK_PATTERN(got, 123, 7, "the appended file's original bytes");
    for (int r = 0; r < size; ++r) {
      int v;
      memcpy(&v, got + 123 + sizeof(int) * r, sizeof v);
      CHECK_INT(v, ==, r);
    }
    free(got);
  }

  /* SEQUENTIAL: only the shared file pointer moves. */
  char seq[4200];
  snprintf(seq, sizeof seq, "%s", io_path("sequential.dat"));
  CHECK_MPI(MPI_File_open(MPI_COMM_WORLD, seq,
                          MPI_MODE_CREATE | MPI_MODE_WRONLY | MPI_MODE_SEQUENTIAL, MPI_INFO_NULL,
                          &fh));
  CHECK_ERR_CLASS(MPI_File_write_at(fh, 0, buf, 1, MPI_BYTE, &st), MPI_ERR_UNSUPPORTED_OPERATION);
  CHECK_ERR_CLASS(MPI_File_seek(fh, 0, MPI_SEEK_SET), MPI_ERR_UNSUPPORTED_OPERATION);
  CHECK_MPI(MPI_File_write_ordered(fh, &rank, 1, MPI_INT, &st));
  CHECK_MPI(MPI_File_set_view(fh, MPI_DISPLACEMENT_CURRENT, MPI_INT, MPI_INT, "native",
                              MPI_INFO_NULL));
  MPI_Offset disp = -1;
  MPI_Datatype et, ft;
  char rep[MPI_MAX_DATAREP_STRING];
  CHECK_MPI(MPI_File_get_view(fh, &disp, &et, &ft, rep));
  CHECK_INT(disp, ==, (MPI_Offset)sizeof(int) * size);
  CHECK(et == MPI_INT && ft == MPI_INT && !strcmp(rep, "native"));
  CHECK_MPI(MPI_File_write_ordered(fh, &rank, 1, MPI_INT, &st));
  CHECK_MPI(MPI_File_close(&fh));
  CHECK_ERR_CLASS(MPI_File_get_size(MPI_FILE_NULL, &fsize), MPI_ERR_FILE);
  if (rank == 0) {
    size_t n = 0;
    int *got = (int *)io_slurp(seq, &n);
    CHECK_INT(n, ==, 2 * sizeof(int) * size);
    for (int r = 0; r < size; ++r) CHECK_INT(got[r], ==, r);
    for (int r = 0; r < size; ++r) CHECK_INT(got[size + r], ==, r);
    free(got);
  }

  /* User error handlers: on a file, and on MPI_FILE_NULL for calls without one. */
  MPI_Errhandler counting;
  CHECK_MPI(MPI_File_create_errhandler(count_errors, &counting));
  CHECK_MPI(MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_RDONLY, MPI_INFO_NULL, &fh));
  CHECK_MPI(MPI_File_set_errhandler(fh, counting));
  CHECK_ERR_CLASS(MPI_File_read_at(fh, -1, back, 1, MPI_BYTE, &st), MPI_ERR_ARG);
  CHECK_INT(handler_calls, ==, 1);
  CHECK_INT(handler_class, ==, MPI_ERR_ARG);
  CHECK(handler_file == fh);
  CHECK_MPI(MPI_File_call_errhandler(fh, MPI_ERR_IO));
  CHECK_INT(handler_calls, ==, 2);
  CHECK_INT(handler_class, ==, MPI_ERR_IO);
  CHECK_MPI(MPI_File_close(&fh));
  CHECK_MPI(MPI_File_set_errhandler(MPI_FILE_NULL, counting));
  CHECK_ERR_CLASS(MPI_File_open(MPI_COMM_WORLD, io_path("missing"), MPI_MODE_RDONLY,
                                MPI_INFO_NULL, &fh),
                  MPI_ERR_NO_SUCH_FILE);
  CHECK_INT(handler_calls, ==, 3);
  CHECK(handler_file == MPI_FILE_NULL);
  CHECK_MPI(MPI_File_set_errhandler(MPI_FILE_NULL, MPI_ERRORS_RETURN));
  CHECK_MPI(MPI_Errhandler_free(&counting));

  CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
  if (rank == 0) {
    CHECK_MPI(MPI_File_delete(path, MPI_INFO_NULL));
    CHECK_ERR_CLASS(MPI_File_delete(path, MPI_INFO_NULL), MPI_ERR_NO_SUCH_FILE);
  }
  /* ---- a write-only file written through views with holes: collective (two-phase) and
   * independent (sieving) writes must leave the holes as they were ---- */
  {
    enum { K = 64 };
    char wo[4200];
    snprintf(wo, sizeof wo, "%s", io_path("writeonly.dat"));
    const size_t tile = (size_t)size * 8, total = 2 * K * tile;
    unsigned char *expect = (unsigned char *)jobs_malloc(total);
    memset(expect, 0xEE, total);
    if (rank == 0) io_pwrite(wo, expect, total, 0);
    CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
    CHECK_MPI(MPI_File_open(MPI_COMM_WORLD, wo, MPI_MODE_WRONLY, MPI_INFO_NULL, &fh));
    MPI_Datatype ft;
    CHECK_MPI(MPI_Type_create_resized(MPI_INT, 0, (MPI_Aint)tile, &ft));
    CHECK_MPI(MPI_Type_commit(&ft));
    int vals[K];
    for (int half = 0; half < 2; ++half) {
      CHECK_MPI(MPI_File_set_view(fh, (MPI_Offset)(half * K * tile + (size_t)rank * 8), MPI_INT,
                                  ft, "native", MPI_INFO_NULL));
      for (int k = 0; k < K; ++k) vals[k] = 1000000 * (half + 1) + 1000 * rank + k;
      if (half == 0) CHECK_MPI(MPI_File_write_all(fh, vals, K, MPI_INT, &st));
      else CHECK_MPI(MPI_File_write(fh, vals, K, MPI_INT, &st));
      int got = -1;
      CHECK_MPI(MPI_Get_count(&st, MPI_INT, &got));
      CHECK_INT(got, ==, K);
    }
    CHECK_MPI(MPI_Type_free(&ft));
    CHECK_MPI(MPI_File_close(&fh));
    for (int half = 0; half < 2; ++half)
      for (int r = 0; r < size; ++r)
        for (int k = 0; k < K; ++k) {
          int v = 1000000 * (half + 1) + 1000 * r + k;
          memcpy(expect + half * K * tile + (size_t)k * tile + (size_t)r * 8, &v, sizeof v);
        }
    if (rank == 0) CHECK_FILE(wo, expect, total);
    CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
    if (rank == 0) CHECK_MPI(MPI_File_delete(wo, MPI_INFO_NULL));
    free(expect);
  }

  free(buf);
  free(back);
  io_teardown();
  jobs_done("job_io_basic");
  MPI_Finalize();
  return 0;
}
