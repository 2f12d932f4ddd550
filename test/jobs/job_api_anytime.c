/* Calls MPI-4 allows outside MPI_Init..MPI_Finalize, and MPI 4.1 additions:
 * - MPI_Info objects made, filled, read, duplicated and freed before MPI_Init and after
 *   MPI_Finalize (one made before init is used as a hint inside and freed after finalize);
 * - MPI_Status_get/set_source, _tag, _error round trips, and MPI_ERR_ARG for a NULL status;
 * - MPI_Request_get_status_all/_any/_some, the Fortran 2008 status conversions,
 *   MPI_Type_get_value_index;
 * - MPI_Get_hw_resource_info: the resource type MPI_COMM_TYPE_HW_GUIDED accepts, and this
 *   process's CPUs;
 * - one-sided calls on MPI_PROC_NULL (lock, flush, unlock, request-based put/get) and
 *   zero-size accumulates whose types would not match if anything moved. */
#include <stdlib.h>
#include <string.h>

#include "jobs_util.h"

static void info_roundtrip(const char *when) {
  MPI_Info info, dup;
  int nkeys = -1, flag = 0, len = 0;
  char value[64];
  CHECK_MPI(MPI_Info_create(&info));
  CHECK_MPI(MPI_Info_set(info, "color", "blue"));
  CHECK_MPI(MPI_Info_set(info, "size", "7"));
  CHECK_MPI(MPI_Info_dup(info, &dup));
  CHECK_MPI(MPI_Info_delete(info, "color"));
  CHECK_MPI(MPI_Info_get_nkeys(info, &nkeys));
  CHECK_MSG(nkeys == 1, "%s: 1 key left after a delete, got %d", when, nkeys);
  len = (int)sizeof value;
  CHECK_MPI(MPI_Info_get_string(dup, "color", &len, value, &flag));
  CHECK_MSG(flag && strcmp(value, "blue") == 0, "%s: the dup keeps color=blue", when);
  CHECK_MPI(MPI_Info_get_nthkey(dup, 1, value));
  CHECK_MSG(strcmp(value, "size") == 0, "%s: second key is size, got %s", when, value);
  CHECK_MPI(MPI_Info_free(&info));
  CHECK_MPI(MPI_Info_free(&dup));
  CHECK(info == MPI_INFO_NULL && dup == MPI_INFO_NULL);
}

static void status_fields(void) {
  MPI_Status st;
  int v = 0;
  CHECK_MPI(MPI_Status_set_source(&st, 3));
  CHECK_MPI(MPI_Status_set_tag(&st, 44));
  CHECK_MPI(MPI_Status_set_error(&st, MPI_ERR_TRUNCATE));
  CHECK_INT(st.MPI_SOURCE, ==, 3);
  CHECK_INT(st.MPI_TAG, ==, 44);
  CHECK_INT(st.MPI_ERROR, ==, MPI_ERR_TRUNCATE);
  CHECK_MPI(MPI_Status_get_source(&st, &v));
  CHECK_INT(v, ==, 3);
  CHECK_MPI(MPI_Status_get_tag(&st, &v));
  CHECK_INT(v, ==, 44);
  CHECK_MPI(MPI_Status_get_error(&st, &v));
  CHECK_INT(v, ==, MPI_ERR_TRUNCATE);

  /* A real receive's status through the accessors. */
  int rank, size, x = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  CHECK_MPI(MPI_Sendrecv(&rank, 1, MPI_INT, (rank + 1) % size, 9, &x, 1, MPI_INT, MPI_ANY_SOURCE,
                         MPI_ANY_TAG, MPI_COMM_WORLD, &st));
  CHECK_MPI(MPI_Status_get_source(&st, &v));
  CHECK_INT(v, ==, (rank + size - 1) % size);
  CHECK_MPI(MPI_Status_get_tag(&st, &v));
  CHECK_INT(v, ==, 9);

  CHECK_ERR_CLASS(MPI_Status_get_tag(MPI_STATUS_IGNORE, &v), MPI_ERR_ARG);
  CHECK_ERR_CLASS(MPI_Status_set_source(NULL, 1), MPI_ERR_ARG);
  CHECK_ERR_CLASS(MPI_Status_get_error(&st, NULL), MPI_ERR_ARG);
}

/* MPI_Request_get_status_all/_any/_some report completion and leave the requests alone; the
 * Fortran 2008 status conversions; MPI_Type_get_value_index. */
static void request_status_arrays(void) {
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const int next = (rank + 1) % size, prev = (rank + size - 1) % size;
  int in[2] = {-1, -1}, out[2] = {rank, rank + 1000}, flag = -1, index = -1, outcount = -1;
  int idx[3];
  MPI_Request q[3];
  MPI_Status st[3];
  /* Nothing active: all and any say done, some says MPI_UNDEFINED. */
  q[0] = q[1] = q[2] = MPI_REQUEST_NULL;
  CHECK_MPI(MPI_Request_get_status_all(3, q, &flag, st));
  CHECK_INT(flag, ==, 1);
  CHECK_INT(st[1].MPI_SOURCE, ==, MPI_ANY_SOURCE);
  CHECK_MPI(MPI_Request_get_status_any(3, q, &index, &flag, MPI_STATUS_IGNORE));
  CHECK(flag == 1 && index == MPI_UNDEFINED);
  CHECK_MPI(MPI_Request_get_status_some(3, q, &outcount, idx, st));
  CHECK_INT(outcount, ==, MPI_UNDEFINED);

  /* A receive that cannot complete yet (tag 21 is sent only after our checks). */
  CHECK_MPI(MPI_Irecv(&in[0], 1, MPI_INT, prev, 21, MPI_COMM_WORLD, &q[0]));
  CHECK_MPI(MPI_Irecv(&in[1], 1, MPI_INT, prev, 22, MPI_COMM_WORLD, &q[1]));
  CHECK_MPI(MPI_Send(&out[1], 1, MPI_INT, next, 22, MPI_COMM_WORLD));
  do {
    CHECK_MPI(MPI_Request_get_status_some(2, q, &outcount, idx, st));
  } while (outcount == 0);
  CHECK_INT(outcount, ==, 1);
  CHECK_INT(idx[0], ==, 1);
  CHECK_INT(st[0].MPI_TAG, ==, 22);
  CHECK(q[1] != MPI_REQUEST_NULL); /* not freed */
  CHECK_MPI(MPI_Request_get_status_all(2, q, &flag, MPI_STATUSES_IGNORE));
  CHECK_INT(flag, ==, 0);
  CHECK_MPI(MPI_Request_get_status_any(1, q, &index, &flag, MPI_STATUS_IGNORE));
  CHECK_INT(flag, ==, 0);
  /* prev sends tag 21 only once we say our checks are done, and we wait for next's word. */
  int go = 1;
  CHECK_MPI(MPI_Send(&go, 1, MPI_INT, prev, 23, MPI_COMM_WORLD));
  CHECK_MPI(MPI_Recv(&go, 1, MPI_INT, next, 23, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
  CHECK_MPI(MPI_Send(&out[0], 1, MPI_INT, next, 21, MPI_COMM_WORLD));
  do {
    CHECK_MPI(MPI_Request_get_status_all(2, q, &flag, st));
  } while (!flag);
  CHECK_INT(st[0].MPI_TAG, ==, 21);
  CHECK_INT(st[1].MPI_SOURCE, ==, prev);
  CHECK_MPI(MPI_Request_get_status_any(2, q, &index, &flag, &st[2]));
  CHECK(flag == 1 && (index == 0 || index == 1));
  CHECK_MPI(MPI_Waitall(2, q, MPI_STATUSES_IGNORE));
  CHECK_INT(in[0], ==, prev);
  CHECK_INT(in[1], ==, prev + 1000);

  MPI_F08_status f08;
  MPI_Status back;
  MPI_Fint f[MPI_F_STATUS_SIZE];
  CHECK_MPI(MPI_Status_c2f08(&st[0], &f08));
  CHECK_INT(f08.MPI_TAG, ==, 21);
  CHECK_MPI(MPI_Status_f082f(&f08, f));
  CHECK_MPI(MPI_Status_f2f08(f, &f08));
  CHECK_MPI(MPI_Status_f082c(&f08, &back));
  int n = -1;
  CHECK_MPI(MPI_Get_count(&back, MPI_INT, &n));
  CHECK_INT(n, ==, 1);
  CHECK_INT(back.MPI_SOURCE, ==, prev);

  MPI_Datatype pair = MPI_DATATYPE_NULL;
  CHECK_MPI(MPI_Type_get_value_index(MPI_DOUBLE, MPI_INT, &pair));
  CHECK(pair == MPI_DOUBLE_INT);
  CHECK_MPI(MPI_Type_get_value_index(MPI_INT, MPI_INT, &pair));
  CHECK(pair == MPI_2INT);
  CHECK_MPI(MPI_Type_get_value_index(MPI_DOUBLE, MPI_LONG, &pair));
  CHECK(pair == MPI_DATATYPE_NULL);
}

static void hw_info(void) {
  MPI_Info hw;
  int flag = 0, len;
  char value[256];
  CHECK_MPI(MPI_Get_hw_resource_info(&hw));
  len = (int)sizeof value;
  CHECK_MPI(MPI_Info_get_string(hw, "mpi_hw_resource_type", &len, value, &flag));
  CHECK_MSG(flag && strcmp(value, "mpi_shared_memory") == 0, "resource type: %s", value);
  /* The value names a level MPI_COMM_TYPE_HW_GUIDED splits at. */
  MPI_Info hint;
  MPI_Comm node;
  CHECK_MPI(MPI_Info_create(&hint));
  CHECK_MPI(MPI_Info_set(hint, "mpi_hw_resource_type", value));
  CHECK_MPI(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_HW_GUIDED, 0, hint, &node));
  CHECK(node != MPI_COMM_NULL);
  CHECK_MPI(MPI_Comm_free(&node));
  CHECK_MPI(MPI_Info_free(&hint));
  len = (int)sizeof value;
  CHECK_MPI(MPI_Info_get_string(hw, "mpr_num_cpus", &len, value, &flag));
  CHECK_MSG(flag && atoi(value) >= 1, "mpr_num_cpus: %s", flag ? value : "(missing)");
  len = (int)sizeof value;
  CHECK_MPI(MPI_Info_get_string(hw, "mpr_cpus", &len, value, &flag));
  CHECK_MSG(flag && value[0] >= '0' && value[0] <= '9', "mpr_cpus: %s", value);
  CHECK_MPI(MPI_Info_free(&hw));
}

static void rma_edges(void) {
  int buf[4] = {0}, x = 1;
  MPI_Win win;
  MPI_Request r;
  CHECK_MPI(MPI_Win_create(buf, sizeof buf, sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &win));
  CHECK_MPI(MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN));
  CHECK_MPI(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, MPI_PROC_NULL, 0, win));
  CHECK_MPI(MPI_Put(&x, 1, MPI_INT, MPI_PROC_NULL, 0, 1, MPI_INT, win));
  CHECK_MPI(MPI_Win_flush(MPI_PROC_NULL, win));
  /* a request-based operation to MPI_PROC_NULL needs no real epoch (the lock above opened
   * none) */
  CHECK_MPI(MPI_Rput(&x, 1, MPI_INT, MPI_PROC_NULL, 0, 1, MPI_INT, win, &r));
  CHECK_MPI(MPI_Wait(&r, MPI_STATUS_IGNORE));
  CHECK_MPI(MPI_Win_unlock(MPI_PROC_NULL, win));
  CHECK_MPI(MPI_Win_lock_all(0, win));
  CHECK_MPI(MPI_Rput(&x, 1, MPI_INT, MPI_PROC_NULL, 0, 1, MPI_INT, win, &r));
  CHECK_MPI(MPI_Wait(&r, MPI_STATUS_IGNORE));
  x = 5;
  CHECK_MPI(MPI_Rget(&x, 1, MPI_INT, MPI_PROC_NULL, 0, 1, MPI_INT, win, &r));
  CHECK_MPI(MPI_Wait(&r, MPI_STATUS_IGNORE));
  CHECK_INT(x, ==, 5);

  /* Zero-size accumulates: nothing moves, so mismatched or mixed types are fine. */
  MPI_Datatype mixed;
  int bl[2] = {1, 1};
  MPI_Aint d[2] = {0, 8};
  MPI_Datatype ts[2] = {MPI_INT, MPI_DOUBLE};
  CHECK_MPI(MPI_Type_create_struct(2, bl, d, ts, &mixed));
  CHECK_MPI(MPI_Type_commit(&mixed));
  CHECK_MPI(MPI_Accumulate(NULL, 0, mixed, 0, 0, 0, mixed, MPI_SUM, win));
  CHECK_MPI(MPI_Accumulate(NULL, 0, MPI_INT, 0, 0, 0, MPI_DOUBLE, MPI_SUM, win));
  CHECK_MPI(MPI_Get_accumulate(NULL, 0, MPI_INT, NULL, 0, MPI_INT, 0, 0, 0, MPI_INT, MPI_PROD,
                               win));
  /* Still invalid: a null handle, and a real one-element mismatch. */
  CHECK_ERR_CLASS(MPI_Accumulate(NULL, 0, MPI_DATATYPE_NULL, 0, 0, 0, MPI_INT, MPI_SUM, win),
                  MPI_ERR_TYPE);
  double dbl = 1;
  CHECK_ERR_CLASS(MPI_Accumulate(&dbl, 1, MPI_DOUBLE, 0, 0, 2, MPI_INT, MPI_SUM, win),
                  MPI_ERR_TYPE);
  CHECK_MPI(MPI_Win_unlock_all(win));
  CHECK_MPI(MPI_Type_free(&mixed));
  CHECK_MPI(MPI_Win_free(&win));
  CHECK_INT(buf[0], ==, 0);
}

int main(int argc, char **argv) {
  int flag = 1;
  CHECK_MPI(MPI_Initialized(&flag));
  CHECK(!flag);
  info_roundtrip("before MPI_Init");
  MPI_Info kept;
  CHECK_MPI(MPI_Info_create(&kept));
  CHECK_MPI(MPI_Info_set(kept, "mpi_assert_no_any_tag", "true"));

  MPI_Init(&argc, &argv);
  CHECK_MPI(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
  CHECK_MPI(MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN));
  MPI_Comm dup;
  CHECK_MPI(MPI_Comm_dup_with_info(MPI_COMM_WORLD, kept, &dup));
  MPI_Info got;
  char value[16];
  int len = (int)sizeof value;
  CHECK_MPI(MPI_Comm_get_info(dup, &got));
  CHECK_MPI(MPI_Info_get_string(got, "mpi_assert_no_any_tag", &len, value, &flag));
  CHECK_MSG(flag && strcmp(value, "true") == 0, "a hint from an info made before MPI_Init");
  CHECK_MPI(MPI_Info_free(&got));
  CHECK_MPI(MPI_Comm_free(&dup));
  status_fields();
  request_status_arrays();
  hw_info();
  rma_edges();
  jobs_done("job_api_anytime");
  MPI_Finalize();

  info_roundtrip("after MPI_Finalize");
  int nkeys = 0;
  CHECK_MPI(MPI_Info_get_nkeys(kept, &nkeys));
  CHECK_INT(nkeys, ==, 1);
  CHECK_MPI(MPI_Info_free(&kept));
  return 0;
}
