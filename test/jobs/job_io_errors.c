/* MPI-IO errors: each failure gives the right class through the file's error handler (or
 * MPI_FILE_NULL's), with a message naming the call and the file: a missing file, an existing
 * one with MPI_MODE_EXCL, bad access modes, permission (a file this process may not write,
 * even as root: the test drops its file system identity with setfsuid), a directory or a
 * non-directory in the path, a full device (/dev/full) for blocking, collective and
 * nonblocking writes (the last surfacing in MPI_Wait and MPI_Waitall, on the file's handler,
 * never the communicator's fatal one), writes to read-only and reads from write-only files,
 * sequential files, invalid views and arguments, split collectives misused, access modes that
 * differ between ranks. Also: a sieving write near the end of the file writes nothing past what
 * it was asked to. */
#include <sys/fsuid.h>

#include "io_util.h"

static int rank, size;
static int file_handler_calls;

static void count_errors(MPI_File *fh, int *code, ...) {
  (void)fh;
  (void)code;
  ++file_handler_calls;
}

/* The error string names the call and the file. */
static void check_message(int code, const char *call, const char *file) {
  const char *text = jobs_error_text(code);
  CHECK_MSG(strstr(text, call), "error string \"%s\" does not name %s", text, call);
  if (file) CHECK_MSG(strstr(text, file), "error string \"%s\" does not name %s", text, file);
}

static void opening(void) {
  MPI_File fh = MPI_FILE_NULL;
  char missing[4200], dat[4200];
  snprintf(missing, sizeof missing, "%s", io_path("missing.dat"));
  snprintf(dat, sizeof dat, "%s", io_path("exists.dat"));
  int rc = MPI_File_open(MPI_COMM_WORLD, missing, MPI_MODE_RDONLY, MPI_INFO_NULL, &fh);
  CHECK_ERR_CLASS(rc, MPI_ERR_NO_SUCH_FILE);
  check_message(rc, "MPI_File_open", missing);
  CHECK(fh == MPI_FILE_NULL);
  CHECK_MPI(MPI_File_open(MPI_COMM_WORLD, dat, MPI_MODE_CREATE | MPI_MODE_WRONLY, MPI_INFO_NULL,
                          &fh));
  CHECK_MPI(MPI_File_close(&fh));
  CHECK_ERR_CLASS(MPI_File_open(MPI_COMM_WORLD, dat, MPI_MODE_CREATE | MPI_MODE_EXCL |
                                MPI_MODE_WRONLY, MPI_INFO_NULL, &fh),
                  MPI_ERR_FILE_EXISTS);
  /* Access modes. */
  CHECK_ERR_CLASS(MPI_File_open(MPI_COMM_WORLD, dat, MPI_MODE_RDONLY | MPI_MODE_CREATE,
                                MPI_INFO_NULL, &fh), MPI_ERR_AMODE);
  CHECK_ERR_CLASS(MPI_File_open(MPI_COMM_WORLD, dat, MPI_MODE_RDWR | MPI_MODE_WRONLY,
                                MPI_INFO_NULL, &fh), MPI_ERR_AMODE);
  CHECK_ERR_CLASS(MPI_File_open(MPI_COMM_WORLD, dat, MPI_MODE_RDWR | MPI_MODE_SEQUENTIAL,
                                MPI_INFO_NULL, &fh), MPI_ERR_AMODE);
  CHECK_ERR_CLASS(MPI_File_open(MPI_COMM_WORLD, dat, MPI_MODE_RDWR | 0x10000, MPI_INFO_NULL, &fh),
                  MPI_ERR_AMODE);
  CHECK_ERR_CLASS(MPI_File_open(MPI_COMM_WORLD, dat, 0, MPI_INFO_NULL, &fh), MPI_ERR_AMODE);
  /* Names that cannot be files. */
  CHECK_ERR_CLASS(MPI_File_open(MPI_COMM_WORLD, io_dir, MPI_MODE_RDWR, MPI_INFO_NULL, &fh),
                  MPI_ERR_BAD_FILE);
  char under_file[4300];
  snprintf(under_file, sizeof under_file, "%s/x", dat);
  CHECK_ERR_CLASS(MPI_File_open(MPI_COMM_WORLD, under_file, MPI_MODE_CREATE | MPI_MODE_RDWR,
                                MPI_INFO_NULL, &fh), MPI_ERR_BAD_FILE);
  CHECK_ERR_CLASS(MPI_File_open(MPI_COMM_WORLD, "", MPI_MODE_RDWR, MPI_INFO_NULL, &fh),
                  MPI_ERR_BAD_FILE);
  CHECK_ERR_CLASS(MPI_File_open(MPI_COMM_NULL, dat, MPI_MODE_RDWR, MPI_INFO_NULL, &fh),
                  MPI_ERR_COMM);
  /* Permission: a file mode 0400 opened for writing. Root passes permission checks, so the
   * test takes another file system identity for the open (setfsuid drops CAP_DAC_OVERRIDE). */
  char locked[4200];
  snprintf(locked, sizeof locked, "%s", io_path("locked.dat"));
  if (rank == 0) {
    io_pwrite(locked, "x", 1, 0);
    CHECK(chmod(locked, 0400) == 0);
    CHECK(chmod(io_dir, 0755) == 0); /* the directory is open to all: the file's mode refuses */
  }
  CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
  const int root = geteuid() == 0;
  if (root) setfsuid(65534);
  rc = MPI_File_open(MPI_COMM_WORLD, locked, MPI_MODE_WRONLY, MPI_INFO_NULL, &fh);
  if (root) setfsuid(0);
  CHECK_ERR_CLASS(rc, MPI_ERR_ACCESS);
  check_message(rc, "MPI_File_open", locked);
  /* Access modes must agree. */
  if (size > 1) {
    rc = MPI_File_open(MPI_COMM_WORLD, dat, rank == 0 ? MPI_MODE_RDWR : MPI_MODE_RDONLY,
                       MPI_INFO_NULL, &fh);
    CHECK_ERR_CLASS(rc, MPI_ERR_NOT_SAME);
    CHECK(fh == MPI_FILE_NULL);
  }
  CHECK_ERR_CLASS(MPI_File_delete(missing, MPI_INFO_NULL), MPI_ERR_NO_SUCH_FILE);
}

static void full_device(void) {
  MPI_File fh;
  MPI_Errhandler counting;
  MPI_Status st, sts[3];
  char buf[4096] = {1};
  CHECK_MPI(MPI_File_open(MPI_COMM_WORLD, "/dev/full", MPI_MODE_WRONLY, MPI_INFO_NULL, &fh));
  int rc = MPI_File_write_at(fh, 0, buf, sizeof buf, MPI_BYTE, &st);
  CHECK_ERR_CLASS(rc, MPI_ERR_NO_SPACE);
  check_message(rc, "MPI_File_write_at", "/dev/full");
  CHECK_ERR_CLASS(MPI_File_write_at_all(fh, rank * 4096, buf, sizeof buf, MPI_BYTE, &st),
                  MPI_ERR_NO_SPACE);
  /* Nonblocking: the error comes from the completion call, to the file's handler. */
  CHECK_MPI(MPI_File_create_errhandler(count_errors, &counting));
  CHECK_MPI(MPI_File_set_errhandler(fh, counting));
  MPI_Request req;
  CHECK_MPI(MPI_File_iwrite_at(fh, 0, buf, sizeof buf, MPI_BYTE, &req));
  rc = MPI_Wait(&req, &st);
  CHECK_ERR_CLASS(rc, MPI_ERR_NO_SPACE);
  CHECK(req == MPI_REQUEST_NULL);
  CHECK_INT(file_handler_calls, ==, 1);
  MPI_Request reqs[3];
  int token = rank, in = -1;
  CHECK_MPI(MPI_Irecv(&in, 1, MPI_INT, (rank + size - 1) % size, 5, MPI_COMM_WORLD, &reqs[0]));
  CHECK_MPI(MPI_File_iwrite_at_all(fh, rank * 4096, buf, sizeof buf, MPI_BYTE, &reqs[1]));
  CHECK_MPI(MPI_Isend(&token, 1, MPI_INT, (rank + 1) % size, 5, MPI_COMM_WORLD, &reqs[2]));
  rc = MPI_Waitall(3, reqs, sts);
  CHECK_ERR_CLASS(rc, MPI_ERR_IN_STATUS);
  int cls;
  MPI_Error_class(sts[1].MPI_ERROR, &cls);
  CHECK_INT(cls, ==, MPI_ERR_NO_SPACE);
  CHECK_INT(sts[0].MPI_ERROR, ==, MPI_SUCCESS);
  CHECK_INT(in, ==, (rank + size - 1) % size);
  CHECK_INT(file_handler_calls, ==, 2);
  CHECK_MPI(MPI_File_close(&fh));
  CHECK_MPI(MPI_Errhandler_free(&counting));
}

static void arguments(void) {
  char path[4200];
  snprintf(path, sizeof path, "%s", io_path("args.dat"));
  MPI_File fh;
  MPI_Status st;
  int buf[16] = {0};
  MPI_Offset off;
  CHECK_ERR_CLASS(MPI_File_write_at(MPI_FILE_NULL, 0, buf, 1, MPI_INT, &st), MPI_ERR_FILE);
  CHECK_ERR_CLASS(MPI_File_get_size(MPI_FILE_NULL, &off), MPI_ERR_FILE);
  CHECK_MPI(MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_RDWR, MPI_INFO_NULL,
                          &fh));
  CHECK_ERR_CLASS(MPI_File_write_at(fh, -1, buf, 1, MPI_INT, &st), MPI_ERR_ARG);
  CHECK_ERR_CLASS(MPI_File_write_at(fh, 0, buf, -1, MPI_INT, &st), MPI_ERR_COUNT);
  CHECK_ERR_CLASS(MPI_File_write_at(fh, 0, buf, 1, MPI_DATATYPE_NULL, &st), MPI_ERR_TYPE);
  CHECK_ERR_CLASS(MPI_File_write_at(fh, 0, NULL, 1, MPI_INT, &st), MPI_ERR_BUFFER);
  MPI_Datatype uncommitted;
  CHECK_MPI(MPI_Type_contiguous(2, MPI_INT, &uncommitted));
  CHECK_ERR_CLASS(MPI_File_write_at(fh, 0, buf, 1, uncommitted, &st), MPI_ERR_TYPE);
  CHECK_ERR_CLASS(MPI_File_seek(fh, 0, 12345), MPI_ERR_ARG);
  CHECK_ERR_CLASS(MPI_File_seek(fh, -5, MPI_SEEK_SET), MPI_ERR_ARG);
  CHECK_ERR_CLASS(MPI_File_set_size(fh, -1), MPI_ERR_ARG);
  /* Views: negative displacement, MPI_DISPLACEMENT_CURRENT without SEQUENTIAL, a filetype that
   * is not made of etypes, displacements going backwards or bytes covered twice in a writable
   * file (type maps a view may not have: MPI_ERR_IO, as in ROMIO), an access that is not whole
   * etypes. */
  CHECK_ERR_CLASS(MPI_File_set_view(fh, -8, MPI_INT, MPI_INT, "native", MPI_INFO_NULL),
                  MPI_ERR_ARG);
  CHECK_ERR_CLASS(MPI_File_set_view(fh, MPI_DISPLACEMENT_CURRENT, MPI_INT, MPI_INT, "native",
                                    MPI_INFO_NULL), MPI_ERR_ARG);
  CHECK_ERR_CLASS(MPI_File_set_view(fh, 0, MPI_INT, MPI_SHORT, "native", MPI_INFO_NULL),
                  MPI_ERR_TYPE);
  CHECK_ERR_CLASS(MPI_File_set_view(fh, 0, MPI_INT, uncommitted, "native", MPI_INFO_NULL),
                  MPI_ERR_TYPE);
  int bl[2] = {1, 1};
  MPI_Aint disps[2] = {8, 0};
  MPI_Datatype backwards;
  CHECK_MPI(MPI_Type_create_hindexed(2, bl, disps, MPI_INT, &backwards));
  CHECK_MPI(MPI_Type_commit(&backwards));
  int rc = MPI_File_set_view(fh, 0, MPI_INT, backwards, "native", MPI_INFO_NULL);
  CHECK_ERR_CLASS(rc, MPI_ERR_IO);
  check_message(rc, "MPI_File_set_view", path);
  int twice_len[2] = {3, 1}, twice_at[2] = {0, 1};
  MPI_Datatype twice;
  CHECK_MPI(MPI_Type_indexed(2, twice_len, twice_at, MPI_INT, &twice));
  CHECK_MPI(MPI_Type_commit(&twice));
  CHECK_ERR_CLASS(MPI_File_set_view(fh, 0, MPI_INT, twice, "native", MPI_INFO_NULL), MPI_ERR_IO);
  CHECK_MPI(MPI_File_set_view(fh, 0, MPI_INT, MPI_INT, "native", MPI_INFO_NULL));
  CHECK_ERR_CLASS(MPI_File_write_at(fh, 0, buf, 1, MPI_SHORT, &st), MPI_ERR_TYPE);
  /* Split collectives: one at a time, matching ends, the same buffer. */
  CHECK_ERR_CLASS(MPI_File_write_all_end(fh, buf, &st), MPI_ERR_OTHER);
  CHECK_MPI(MPI_File_write_all_begin(fh, buf, 4, MPI_INT));
  CHECK_ERR_CLASS(MPI_File_write_at_all_begin(fh, 0, buf, 4, MPI_INT), MPI_ERR_OTHER);
  CHECK_ERR_CLASS(MPI_File_read_all_end(fh, buf, &st), MPI_ERR_OTHER);
  CHECK_ERR_CLASS(MPI_File_write_all_end(fh, buf + 1, &st), MPI_ERR_BUFFER);
  CHECK_MPI(MPI_File_write_all_end(fh, buf, &st));
  CHECK_MPI(MPI_File_close(&fh));
  MPI_Type_free(&uncommitted);
  MPI_Type_free(&backwards);

  /* Read-only and write-only files; sequential files. */
  CHECK_MPI(MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_RDONLY, MPI_INFO_NULL, &fh));
  CHECK_ERR_CLASS(MPI_File_write_at(fh, 0, buf, 1, MPI_INT, &st), MPI_ERR_READ_ONLY);
  CHECK_ERR_CLASS(MPI_File_write_ordered(fh, buf, 1, MPI_INT, &st), MPI_ERR_READ_ONLY);
  CHECK_ERR_CLASS(MPI_File_set_size(fh, 0), MPI_ERR_READ_ONLY);
  /* Reading a byte twice is allowed. */
  CHECK_MPI(MPI_File_set_view(fh, 0, MPI_INT, twice, "native", MPI_INFO_NULL));
  CHECK_MPI(MPI_File_close(&fh));
  MPI_Type_free(&twice);
  CHECK_MPI(MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_WRONLY | MPI_MODE_SEQUENTIAL,
                          MPI_INFO_NULL, &fh));
  CHECK_ERR_CLASS(MPI_File_read_shared(fh, buf, 1, MPI_INT, &st), MPI_ERR_ACCESS);
  CHECK_ERR_CLASS(MPI_File_write_at(fh, 0, buf, 1, MPI_INT, &st), MPI_ERR_UNSUPPORTED_OPERATION);
  CHECK_ERR_CLASS(MPI_File_get_position(fh, &off), MPI_ERR_UNSUPPORTED_OPERATION);
  CHECK_ERR_CLASS(MPI_File_write(fh, buf, 1, MPI_INT, &st), MPI_ERR_UNSUPPORTED_OPERATION);
  CHECK_ERR_CLASS(MPI_File_preallocate(fh, 100), MPI_ERR_UNSUPPORTED_OPERATION);
  CHECK_MPI(MPI_File_close(&fh));
}

/* A sieving write (a read-modify-write of the window) at the end of an empty file writes up to
 * the last byte it was asked to, not to the end of its window. */
static void nothing_past_the_end(void) {
  char path[4200];
  snprintf(path, sizeof path, "%s", io_path("tail.dat"));
  MPI_Info info;
  MPI_Info_create(&info);
  MPI_Info_set(info, "romio_ds_write", "enable");
  MPI_File fh;
  MPI_Status st;
  CHECK_MPI(MPI_File_open(MPI_COMM_SELF, path, MPI_MODE_CREATE | MPI_MODE_RDWR, info, &fh));
  MPI_Info_free(&info);
  MPI_Datatype vec, ft;
  CHECK_MPI(MPI_Type_vector(3, 4, 100, MPI_BYTE, &vec));
  CHECK_MPI(MPI_Type_create_resized(vec, 0, 100000, &ft));
  CHECK_MPI(MPI_Type_commit(&ft));
  CHECK_MPI(MPI_File_set_view(fh, 0, MPI_BYTE, ft, "native", MPI_INFO_NULL));
  CHECK_MPI(MPI_File_write_at(fh, 0, "abcdefghijkl", 12, MPI_BYTE, &st));
  MPI_Offset fsize;
  CHECK_MPI(MPI_File_get_size(fh, &fsize));
  CHECK_INT(fsize, ==, 204);
  CHECK_MPI(MPI_File_close(&fh));
  unsigned char expect[204] = {0};
  memcpy(expect, "abcd", 4);
  memcpy(expect + 100, "efgh", 4);
  memcpy(expect + 200, "ijkl", 4);
  CHECK_FILE(path, expect, 204);
  MPI_Type_free(&vec);
  MPI_Type_free(&ft);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  io_setup("errors");
  opening();
  full_device();
  arguments();
  if (rank == 0) nothing_past_the_end();
  io_teardown();
  jobs_done("job_io_errors");
  MPI_Finalize();
  return 0;
}
