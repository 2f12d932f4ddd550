/* MPI-IO access matrix: every way to position an access (explicit offset, individual file
 * pointer, shared file pointer, ordered) x blocking / nonblocking / split collective x
 * independent / collective, with a non-contiguous memory type (gaps that must stay untouched)
 * and non-contiguous file types, under three hint sets (defaults; two-phase and data sieving
 * forced with 2 aggregators and tiny buffers, the _c forms; both disabled). Every written file
 * is compared byte for byte with the image the test builds the way POSIX would lay it out, and
 * read back through MPI the same way. Nonblocking accesses complete in MPI_Waitall and
 * MPI_Test together with point-to-point requests. */
#include "io_util.h"

enum Where { AT, IND, SHARED, ORDERED };
enum How { BLOCK, NONBLOCK, SPLIT };
struct Case {
  enum Where where;
  enum How how;
  int coll;
  const char *name;
};
static const struct Case cases[] = {
    {AT, BLOCK, 0, "at"},        {AT, BLOCK, 1, "at_all"},     {AT, NONBLOCK, 0, "iat"},
    {AT, NONBLOCK, 1, "iat_all"}, {AT, SPLIT, 1, "at_all_split"}, {IND, BLOCK, 0, "ind"},
    {IND, BLOCK, 1, "all"},      {IND, NONBLOCK, 0, "i"},      {IND, NONBLOCK, 1, "iall"},
    {IND, SPLIT, 1, "all_split"}, {SHARED, BLOCK, 0, "shared"}, {SHARED, NONBLOCK, 0, "ishared"},
    {ORDERED, BLOCK, 1, "ordered"}, {ORDERED, SPLIT, 1, "ordered_split"},
};

/* Interleaved views (explicit offsets, individual pointers): each tile holds K blocks of B ints
 * of every rank in rank order; a rank writes two tiles' worth in two calls. */
enum { K = 64, B = 5, PER_CALL = K * B };
/* Shared and ordered: one view for all, every other block of B2 ints a hole; records of L ints,
 * R of them per rank. */
enum { K2 = 16, B2 = 4, L = 6, R = 5 };

static int rank, size, variant;

static int value(int r, int i) { return r * 1000000 + i + 1; }

/* The memory type: blocks of 2 ints every 3, so a third of the buffer is gaps. */
static MPI_Datatype mem_type(int ints) {
  MPI_Datatype t;
  CHECK_MPI(MPI_Type_vector(ints / 2, 2, 3, MPI_INT, &t));
  CHECK_MPI(MPI_Type_commit(&t));
  return t;
}
static int *mem_alloc(int ints) { return (int *)jobs_malloc(sizeof(int) * (size_t)(ints / 2 * 3)); }
static int *mem_at(int *buf, int i) { return buf + i / 2 * 3 + i % 2; }
static void mem_fill(int *buf, int ints, int r, int first) {
  for (int i = 0; i < ints / 2 * 3; ++i) buf[i] = -7;
  for (int i = 0; i < ints; ++i) *mem_at(buf, i) = value(r, first + i);
}
static void mem_check(int *buf, int ints, int r, int first, const char *what) {
  for (int i = 0; i < ints / 2 * 3; ++i)
    if (i % 3 == 2) CHECK_MSG(buf[i] == -7, "%s: gap int %d overwritten (%d)", what, i, buf[i]);
  for (int i = 0; i < ints; ++i)
    CHECK_MSG(*mem_at(buf, i) == value(r, first + i), "%s: int %d is %d, expected %d", what, i,
              *mem_at(buf, i), value(r, first + i));
}

static MPI_Info hints(void) {
  MPI_Info info;
  MPI_Info_create(&info);
  if (variant == 1) {
    MPI_Info_set(info, "cb_nodes", size > 1 ? "2" : "1");
    MPI_Info_set(info, "romio_cb_write", "enable");
    MPI_Info_set(info, "romio_cb_read", "enable");
    MPI_Info_set(info, "cb_buffer_size", "4096");
    MPI_Info_set(info, "romio_ds_write", "enable");
    MPI_Info_set(info, "romio_ds_read", "enable");
    MPI_Info_set(info, "ind_wr_buffer_size", "1024");
    MPI_Info_set(info, "ind_rd_buffer_size", "2048");
    MPI_Info_set(info, "striping_unit", "512");
  } else if (variant == 2) {
    MPI_Info_set(info, "romio_cb_write", "disable");
    MPI_Info_set(info, "romio_cb_read", "disable");
    MPI_Info_set(info, "romio_ds_write", "disable");
    MPI_Info_set(info, "romio_ds_read", "disable");
  }
  return info;
}

/* The nonblocking form completes in a Waitall with a ring exchange, or in a Test loop. */
static void complete(MPI_Request *io, MPI_Status *st, int use_test) {
  int to = (rank + 1) % size, from = (rank + size - 1) % size, out = rank, in = -1;
  MPI_Request reqs[3];
  MPI_Status sts[3];
  CHECK_MPI(MPI_Irecv(&in, 1, MPI_INT, from, 77, MPI_COMM_WORLD, &reqs[0]));
  reqs[1] = *io;
  CHECK_MPI(MPI_Isend(&out, 1, MPI_INT, to, 77, MPI_COMM_WORLD, &reqs[2]));
  if (use_test) {
    int flag = 0;
    while (!flag) CHECK_MPI(MPI_Test(&reqs[1], &flag, &sts[1]));
    CHECK(reqs[1] == MPI_REQUEST_NULL);
    MPI_Status io_st = sts[1];
    CHECK_MPI(MPI_Waitall(3, reqs, sts)); /* the I/O request is MPI_REQUEST_NULL by now */
    *st = io_st;
  } else {
    CHECK_MPI(MPI_Waitall(3, reqs, sts));
    *st = sts[1];
  }
  CHECK_INT(in, ==, from);
  *io = MPI_REQUEST_NULL;
}

/* One access of `count` memtype elements in the case's way. */
static void do_access(MPI_File fh, const struct Case *c, int write, MPI_Offset off, void *buf,
                   int count, MPI_Datatype t, MPI_Status *st) {
  MPI_Request req = MPI_REQUEST_NULL;
  const int use_c = variant == 1;
  switch (c->where) {
    case AT:
      if (c->how == BLOCK && !c->coll)
        CHECK_MPI(write ? (use_c ? MPI_File_write_at_c(fh, off, buf, count, t, st)
                                 : MPI_File_write_at(fh, off, buf, count, t, st))
                        : (use_c ? MPI_File_read_at_c(fh, off, buf, count, t, st)
                                 : MPI_File_read_at(fh, off, buf, count, t, st)));
      else if (c->how == BLOCK)
        CHECK_MPI(write ? (use_c ? MPI_File_write_at_all_c(fh, off, buf, count, t, st)
                                 : MPI_File_write_at_all(fh, off, buf, count, t, st))
                        : (use_c ? MPI_File_read_at_all_c(fh, off, buf, count, t, st)
                                 : MPI_File_read_at_all(fh, off, buf, count, t, st)));
      else if (c->how == NONBLOCK && !c->coll)
        CHECK_MPI(write ? (use_c ? MPI_File_iwrite_at_c(fh, off, buf, count, t, &req)
                                 : MPI_File_iwrite_at(fh, off, buf, count, t, &req))
                        : (use_c ? MPI_File_iread_at_c(fh, off, buf, count, t, &req)
                                 : MPI_File_iread_at(fh, off, buf, count, t, &req)));
      else if (c->how == NONBLOCK)
        CHECK_MPI(write ? (use_c ? MPI_File_iwrite_at_all_c(fh, off, buf, count, t, &req)
                                 : MPI_File_iwrite_at_all(fh, off, buf, count, t, &req))
                        : (use_c ? MPI_File_iread_at_all_c(fh, off, buf, count, t, &req)
                                 : MPI_File_iread_at_all(fh, off, buf, count, t, &req)));
      else if (write) {
        CHECK_MPI(use_c ? MPI_File_write_at_all_begin_c(fh, off, buf, count, t)
                        : MPI_File_write_at_all_begin(fh, off, buf, count, t));
        CHECK_MPI(MPI_File_write_at_all_end(fh, buf, st));
      } else {
        CHECK_MPI(use_c ? MPI_File_read_at_all_begin_c(fh, off, buf, count, t)
                        : MPI_File_read_at_all_begin(fh, off, buf, count, t));
        CHECK_MPI(MPI_File_read_at_all_end(fh, buf, st));
      }
      break;
    case IND:
      if (c->how == BLOCK && !c->coll)
        CHECK_MPI(write ? MPI_File_write(fh, buf, count, t, st) : MPI_File_read(fh, buf, count, t, st));
      else if (c->how == BLOCK)
        CHECK_MPI(write ? MPI_File_write_all(fh, buf, count, t, st)
                        : MPI_File_read_all(fh, buf, count, t, st));
      else if (c->how == NONBLOCK && !c->coll)
        CHECK_MPI(write ? MPI_File_iwrite(fh, buf, count, t, &req)
                        : MPI_File_iread(fh, buf, count, t, &req));
      else if (c->how == NONBLOCK)
        CHECK_MPI(write ? MPI_File_iwrite_all(fh, buf, count, t, &req)
                        : MPI_File_iread_all(fh, buf, count, t, &req));
      else if (write) {
        CHECK_MPI(MPI_File_write_all_begin(fh, buf, count, t));
        CHECK_MPI(MPI_File_write_all_end(fh, buf, st));
      } else {
        CHECK_MPI(MPI_File_read_all_begin(fh, buf, count, t));
        CHECK_MPI(MPI_File_read_all_end(fh, buf, st));
      }
      break;
    case SHARED:
      if (c->how == BLOCK)
        CHECK_MPI(write ? MPI_File_write_shared(fh, buf, count, t, st)
                        : MPI_File_read_shared(fh, buf, count, t, st));
      else
        CHECK_MPI(write ? MPI_File_iwrite_shared(fh, buf, count, t, &req)
                        : MPI_File_iread_shared(fh, buf, count, t, &req));
      break;
    case ORDERED:
      if (c->how == BLOCK)
        CHECK_MPI(write ? MPI_File_write_ordered(fh, buf, count, t, st)
                        : MPI_File_read_ordered(fh, buf, count, t, st));
      else if (write) {
        CHECK_MPI(MPI_File_write_ordered_begin(fh, buf, count, t));
        CHECK_MPI(MPI_File_write_ordered_end(fh, buf, st));
      } else {
        CHECK_MPI(MPI_File_read_ordered_begin(fh, buf, count, t));
        CHECK_MPI(MPI_File_read_ordered_end(fh, buf, st));
      }
      break;
  }
  if (req != MPI_REQUEST_NULL) complete(&req, st, !write);
}

static void check_count(MPI_Status *st, MPI_Datatype t, int expect, const char *what) {
  int n = -1;
  CHECK_MPI(MPI_Get_count(st, t, &n));
  CHECK_MSG(n == expect, "%s: MPI_Get_count %d, expected %d", what, n, expect);
}

/* ---- explicit offsets and individual pointers: interleaved views ---- */
static void interleaved(const struct Case *c) {
  char name[64], what[128];
  snprintf(name, sizeof name, "v%d-%s.dat", variant, c->name);
  char path[4200];
  snprintf(path, sizeof path, "%s", io_path(name));
  MPI_Datatype vec, tile, mt = mem_type(PER_CALL);
  CHECK_MPI(MPI_Type_vector(K, B, B * size, MPI_INT, &vec));
  CHECK_MPI(MPI_Type_create_resized(vec, 0, (MPI_Aint)sizeof(int) * K * B * size, &tile));
  CHECK_MPI(MPI_Type_commit(&tile));
  MPI_Info info = hints();
  MPI_File fh;
  MPI_Status st;
  int *buf = mem_alloc(PER_CALL);
  CHECK_MPI(MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_RDWR, info, &fh));
  CHECK_MPI(MPI_File_set_view(fh, (MPI_Offset)sizeof(int) * B * rank, MPI_INT, tile, "native",
                              MPI_INFO_NULL));
  for (int half = 0; half < 2; ++half) {
    mem_fill(buf, PER_CALL, rank, half * PER_CALL);
    do_access(fh, c, 1, (MPI_Offset)half * PER_CALL, buf, 1, mt, &st);
    snprintf(what, sizeof what, "variant %d %s write %d", variant, c->name, half);
    check_count(&st, mt, 1, what);
  }
  if (c->where == IND) {
    MPI_Offset pos = -1;
    CHECK_MPI(MPI_File_get_position(fh, &pos));
    CHECK_INT(pos, ==, 2 * PER_CALL);
  }
  CHECK_MPI(MPI_File_close(&fh));
  if (rank == 0) {
    const size_t n = (size_t)2 * K * B * size;
    int *expect = (int *)jobs_malloc(sizeof(int) * n);
    for (int t = 0; t < 2; ++t)
      for (int k = 0; k < K; ++k)
        for (int r = 0; r < size; ++r)
          for (int j = 0; j < B; ++j)
            expect[((size_t)(t * K + k) * size + r) * B + j] = value(r, (t * K + k) * B + j);
    CHECK_FILE(path, expect, sizeof(int) * n);
    free(expect);
  }
  /* Read back: another process's data where possible (the view of the next rank). */
  const int peer = (rank + 1) % size;
  CHECK_MPI(MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_RDONLY, info, &fh));
  CHECK_MPI(MPI_File_set_view(fh, (MPI_Offset)sizeof(int) * B * peer, MPI_INT, tile, "native",
                              MPI_INFO_NULL));
  for (int half = 0; half < 2; ++half) {
    for (int i = 0; i < PER_CALL / 2 * 3; ++i) buf[i] = -7;
    do_access(fh, c, 0, (MPI_Offset)half * PER_CALL, buf, 1, mt, &st);
    snprintf(what, sizeof what, "variant %d %s read %d", variant, c->name, half);
    check_count(&st, mt, 1, what);
    mem_check(buf, PER_CALL, peer, half * PER_CALL, what);
  }
  /* Past the end: nothing more. */
  for (int i = 0; i < PER_CALL / 2 * 3; ++i) buf[i] = -7;
  do_access(fh, c, 0, (MPI_Offset)2 * PER_CALL, buf, 1, mt, &st);
  snprintf(what, sizeof what, "variant %d %s read past the end", variant, c->name);
  check_count(&st, MPI_INT, 0, what);
  for (int i = 0; i < PER_CALL / 2 * 3; ++i) CHECK_MSG(buf[i] == -7, "%s: int %d written", what, i);
  CHECK_MPI(MPI_File_close(&fh));
  MPI_Info_free(&info);
  MPI_Type_free(&vec);
  MPI_Type_free(&tile);
  MPI_Type_free(&mt);
  free(buf);
}

/* ---- shared pointer and ordered: one view with holes, records of L ints ---- */
static size_t stream_to_file(size_t p) { /* int index in the file of stream int p */
  size_t tile = p / (K2 * B2), in = p % (K2 * B2);
  return tile * 2 * K2 * B2 + in / B2 * 2 * B2 + in % B2;
}
static int record_value(int r, int seq, int k) {
  return k == 0 ? r : k == 1 ? seq : r * 100 + seq * 7 + k;
}

static void shared(const struct Case *c) {
  char name[64], what[128];
  snprintf(name, sizeof name, "v%d-%s.dat", variant, c->name);
  char path[4200];
  snprintf(path, sizeof path, "%s", io_path(name));
  MPI_Datatype vec, holes, mt = mem_type(L * R);
  CHECK_MPI(MPI_Type_vector(K2, B2, 2 * B2, MPI_INT, &vec));
  CHECK_MPI(MPI_Type_create_resized(vec, 0, (MPI_Aint)sizeof(int) * 2 * B2 * K2, &holes));
  CHECK_MPI(MPI_Type_commit(&holes));
  MPI_Info info = hints();
  MPI_File fh;
  MPI_Status st;
  const int ordered = c->where == ORDERED;
  int *buf = mem_alloc(L * R);
  CHECK_MPI(MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_RDWR, info, &fh));
  CHECK_MPI(MPI_File_set_view(fh, 0, MPI_INT, holes, "native", MPI_INFO_NULL));
  for (int i = 0; i < L * R / 2 * 3; ++i) buf[i] = -7;
  for (int seq = 0; seq < R; ++seq)
    for (int k = 0; k < L; ++k) *mem_at(buf, seq * L + k) = record_value(rank, seq, k);
  MPI_Datatype rec;
  CHECK_MPI(MPI_Type_vector(L / 2, 2, 3, MPI_INT, &rec)); /* one record of the memory layout */
  CHECK_MPI(MPI_Type_commit(&rec));
  if (ordered) {
    do_access(fh, c, 1, 0, buf, 1, mt, &st);
    check_count(&st, mt, 1, c->name);
  } else {
    for (int seq = 0; seq < R; ++seq) {
      do_access(fh, c, 1, 0, mem_at(buf, seq * L), 1, rec, &st);
      check_count(&st, rec, 1, c->name);
    }
  }
  CHECK_MPI(MPI_File_sync(fh));
  CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
  MPI_Offset pos = -1;
  CHECK_MPI(MPI_File_get_position_shared(fh, &pos));
  CHECK_INT(pos, ==, (MPI_Offset)size * R * L);
  CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD)); /* everybody saw it before it moves again */
  if (rank == 0) {
    size_t n = 0;
    int *file = (int *)io_slurp(path, &n);
    const size_t total = (size_t)size * R * L;
    CHECK_INT(n, ==, sizeof(int) * (stream_to_file(total - 1) + 1));
    int *seen = (int *)calloc((size_t)size * R, sizeof(int));
    for (size_t q = 0; q < (size_t)size * R; ++q) {
      int r = file[stream_to_file(q * L)], seq = file[stream_to_file(q * L + 1)];
      CHECK_MSG(r >= 0 && r < size && seq >= 0 && seq < R, "record %zu: rank %d seq %d", q, r, seq);
      if (ordered) CHECK_MSG((size_t)(r * R + seq) == q, "ordered record %zu is rank %d's %d", q, r, seq);
      CHECK_MSG(!seen[r * R + seq]++, "rank %d's record %d written twice", r, seq);
      for (int k = 0; k < L; ++k)
        CHECK_MSG(file[stream_to_file(q * L + k)] == record_value(r, seq, k),
                  "record %zu int %d is %d", q, k, file[stream_to_file(q * L + k)]);
    }
    for (size_t i = 0; i < n / sizeof(int); ++i) { /* the holes stay zero */
      size_t in_tile = i % (2 * K2 * B2);
      if (in_tile % (2 * B2) >= B2) CHECK_MSG(file[i] == 0, "hole int %zu is %d", i, file[i]);
    }
    free(seen);
    free(file);
  }
  /* Read back through the shared pointer. */
  CHECK_MPI(MPI_File_seek_shared(fh, 0, MPI_SEEK_SET));
  for (int i = 0; i < L * R / 2 * 3; ++i) buf[i] = -7;
  if (ordered) {
    do_access(fh, c, 0, 0, buf, 1, mt, &st);
    check_count(&st, mt, 1, c->name);
    snprintf(what, sizeof what, "variant %d %s read", variant, c->name);
    for (int seq = 0; seq < R; ++seq)
      for (int k = 0; k < L; ++k)
        CHECK_MSG(*mem_at(buf, seq * L + k) == record_value(rank, seq, k), "%s: record %d int %d",
                  what, seq, k);
  } else {
    for (int seq = 0; seq < R; ++seq) {
      do_access(fh, c, 0, 0, mem_at(buf, seq * L), 1, rec, &st);
      check_count(&st, rec, 1, c->name);
    }
    /* Together the ranks read every record once. */
    int *mine = (int *)jobs_malloc(sizeof(int) * 2 * R), *all = NULL;
    for (int seq = 0; seq < R; ++seq) {
      mine[2 * seq] = *mem_at(buf, seq * L);
      mine[2 * seq + 1] = *mem_at(buf, seq * L + 1);
      for (int k = 0; k < L; ++k)
        CHECK_MSG(*mem_at(buf, seq * L + k) == record_value(mine[2 * seq], mine[2 * seq + 1], k),
                  "%s read: a torn record", c->name);
    }
    if (rank == 0) all = (int *)jobs_malloc(sizeof(int) * 2 * R * size);
    CHECK_MPI(MPI_Gather(mine, 2 * R, MPI_INT, all, 2 * R, MPI_INT, 0, MPI_COMM_WORLD));
    if (rank == 0) {
      int *seen = (int *)calloc((size_t)size * R, sizeof(int));
      for (int q = 0; q < size * R; ++q) CHECK(!seen[all[2 * q] * R + all[2 * q + 1]]++);
      free(seen);
      free(all);
    }
    free(mine);
  }
  for (int i = 0; i < L * R / 2 * 3; ++i)
    if (i % 3 == 2) CHECK_MSG(buf[i] == -7, "%s read: gap int %d overwritten", c->name, i);
  CHECK_MPI(MPI_File_close(&fh));
  MPI_Info_free(&info);
  MPI_Type_free(&rec);
  MPI_Type_free(&vec);
  MPI_Type_free(&holes);
  MPI_Type_free(&mt);
  free(buf);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  io_setup("matrix");
  for (variant = 0; variant < 3; ++variant)
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; ++i) {
      if (cases[i].where == AT || cases[i].where == IND)
        interleaved(&cases[i]);
      else
        shared(&cases[i]);
    }
  io_teardown();
  jobs_done("job_io_matrix");
  MPI_Finalize();
  return 0;
}
