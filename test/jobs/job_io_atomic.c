/* MPI-IO consistency: (1) atomic mode with overlapping writes: writers repeatedly write one
 * region, each write all one byte value and made of many pieces (a file type with holes);
 * readers read the region meanwhile, and every read must see one write's value in every byte,
 * never a mix; (2) without atomic mode, ranks writing disjoint interleaved pieces at the same
 * time, some through data sieving (read-modify-write of whole windows) and some with plain
 * writes, must never lose each other's data; (3) MPI_File_set_atomicity's flag must agree. */
#include "io_util.h"

enum { PIECE = 512, PIECES = 64, ITERS = 16 };

static int rank, size;

static void atomic_overlap(void) {
  char path[4200];
  snprintf(path, sizeof path, "%s", io_path("atomic.dat"));
  MPI_File fh;
  MPI_Info info;
  MPI_Info_create(&info);
  MPI_Info_set(info, "romio_ds_write", "disable"); /* one write per piece: many system calls */
  CHECK_MPI(MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_RDWR, info, &fh));
  MPI_Info_free(&info);
  CHECK_MPI(MPI_File_set_atomicity(fh, 1));
  int flag = 0;
  CHECK_MPI(MPI_File_get_atomicity(fh, &flag));
  CHECK_INT(flag, ==, 1);
  /* Pieces of PIECE bytes with gaps of PIECE: every write is PIECES separate pwrites. */
  MPI_Datatype vec, ft;
  CHECK_MPI(MPI_Type_vector(PIECES, PIECE, 2 * PIECE, MPI_BYTE, &vec));
  CHECK_MPI(MPI_Type_create_resized(vec, 0, 2 * PIECE * PIECES, &ft));
  CHECK_MPI(MPI_Type_commit(&ft));
  CHECK_MPI(MPI_File_set_view(fh, 0, MPI_BYTE, ft, "native", MPI_INFO_NULL));
  const int bytes = PIECE * PIECES;
  unsigned char *buf = jobs_malloc(bytes);
  MPI_Status st;
  int count;
  /* Start from a uniform region so every read has something to check. */
  if (rank == 0) {
    memset(buf, 0xFF, bytes);
    CHECK_MPI(MPI_File_write_at(fh, 0, buf, bytes, MPI_BYTE, &st));
  }
  CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
  const int writer = size == 1 || rank % 2 == 0;
  int reads = 0;
  for (int it = 0; it < ITERS; ++it) {
    if (writer) {
      memset(buf, (unsigned char)(rank * ITERS + it), bytes);
      CHECK_MPI(MPI_File_write_at(fh, 0, buf, bytes, MPI_BYTE, &st));
      CHECK_MPI(MPI_Get_count(&st, MPI_BYTE, &count));
      CHECK_INT(count, ==, bytes);
    }
    if (!writer || size == 1) {
      for (int k = 0; k < 4; ++k, ++reads) {
        CHECK_MPI(MPI_File_read_at(fh, 0, buf, bytes, MPI_BYTE, &st));
        CHECK_MPI(MPI_Get_count(&st, MPI_BYTE, &count));
        CHECK_INT(count, ==, bytes);
        for (int i = 1; i < bytes; ++i)
          CHECK_MSG(buf[i] == buf[0],
                    "atomic read %d saw a torn write: byte %d is 0x%02x, byte 0 is 0x%02x",
                    reads, i, buf[i], buf[0]);
      }
    }
  }
  CHECK_MPI(MPI_File_set_atomicity(fh, 0));
  CHECK_MPI(MPI_File_close(&fh));
  MPI_Type_free(&vec);
  MPI_Type_free(&ft);
  /* The region ends as one writer's last write; the gaps were never written. */
  if (rank == 0) {
    size_t n = 0;
    unsigned char *file = io_slurp(path, &n);
    CHECK_INT(n, ==, 2 * PIECE * PIECES - PIECE);
    const unsigned char v = file[0];
    CHECK_MSG(v % ITERS == ITERS - 1, "final value 0x%02x is not a last write", v);
    for (size_t i = 0; i < n; ++i)
      CHECK_MSG(file[i] == ((i / PIECE) % 2 ? 0 : v), "byte %zu is 0x%02x", i, file[i]);
    free(file);
  }
  free(buf);
}

/* Units of U bytes, unit u belongs to rank u % size. Even ranks write all theirs in one call
 * through a strided view (gaps under 4 KiB: sieved, a read-modify-write of the windows); odd
 * ranks write each unit with its own call. */
enum { U = 64, UNITS_PER_RANK = 256, ROUNDS = 24 };

static void sieving_race(void) {
  char path[4200];
  snprintf(path, sizeof path, "%s", io_path("race.dat"));
  MPI_File fh;
  MPI_Info info;
  MPI_Info_create(&info);
  MPI_Info_set(info, "ind_wr_buffer_size", "8192");
  CHECK_MPI(MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_RDWR, info, &fh));
  MPI_Info_free(&info);
  MPI_Datatype vec, ft;
  CHECK_MPI(MPI_Type_vector(UNITS_PER_RANK, U, U * size, MPI_BYTE, &vec));
  CHECK_MPI(MPI_Type_create_resized(vec, 0, (MPI_Aint)U * size * UNITS_PER_RANK, &ft));
  CHECK_MPI(MPI_Type_commit(&ft));
  unsigned char *buf = jobs_malloc(U * UNITS_PER_RANK);
  MPI_Status st;
  for (int round = 0; round < ROUNDS; ++round) {
    memset(buf, (unsigned char)(1 + rank * ROUNDS + round), U * UNITS_PER_RANK);
    if (rank % 2 == 0) {
      CHECK_MPI(MPI_File_set_view(fh, (MPI_Offset)U * rank, MPI_BYTE, ft, "native", MPI_INFO_NULL));
      CHECK_MPI(MPI_File_write_at(fh, 0, buf, U * UNITS_PER_RANK, MPI_BYTE, &st));
    } else {
      CHECK_MPI(MPI_File_set_view(fh, 0, MPI_BYTE, MPI_BYTE, "native", MPI_INFO_NULL));
      for (int u = 0; u < UNITS_PER_RANK; ++u)
        CHECK_MPI(MPI_File_write_at(fh, (MPI_Offset)U * (u * size + rank), buf, U, MPI_BYTE, &st));
    }
    /* Every round's writes must all be there. */
    CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
    if (rank == 0) {
      size_t n = 0;
      unsigned char *file = io_slurp(path, &n);
      CHECK_INT(n, ==, (size_t)U * size * UNITS_PER_RANK);
      for (size_t i = 0; i < n; ++i) {
        const int owner = (int)(i / U % size);
        CHECK_MSG(file[i] == (unsigned char)(1 + owner * ROUNDS + round),
                  "round %d: byte %zu (rank %d's unit) is 0x%02x: a write was lost", round, i,
                  owner, file[i]);
      }
      free(file);
    }
  }
  CHECK_MPI(MPI_File_close(&fh));
  MPI_Type_free(&vec);
  MPI_Type_free(&ft);
  free(buf);
}

static void flag_agreement(void) {
  if (size < 2) return;
  MPI_File fh;
  CHECK_MPI(MPI_File_open(MPI_COMM_WORLD, io_path("flag.dat"), MPI_MODE_CREATE | MPI_MODE_RDWR,
                          MPI_INFO_NULL, &fh));
  int rc = MPI_File_set_atomicity(fh, rank == 0);
  if (rank == 0) {
    CHECK_MPI(rc);
  } else {
    CHECK_ERR_CLASS(rc, MPI_ERR_NOT_SAME);
  }
  CHECK_MPI(MPI_File_set_atomicity(fh, 0));
  CHECK_MPI(MPI_File_close(&fh));
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  io_setup("atomic");
  atomic_overlap();
  sieving_race();
  flag_agreement();
  io_teardown();
  jobs_done("job_io_atomic");
  MPI_Finalize();
  return 0;
}
