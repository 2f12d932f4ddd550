/* RMA error handling with MPI_ERRORS_RETURN (on the window via MPI_Win_set_errhandler, and on
 * MPI_COMM_WORLD for the window-creating calls and MPI_WIN_NULL): error classes and a
 * non-empty MPI_Error_string for
 * - a put past the end of the target window: MPI_ERR_RMA_RANGE (from the put or from the call
 *   that ends its epoch; see check_range);
 * - a put, a get and an accumulate outside any epoch; MPI_Win_unlock without MPI_Win_lock;
 *   MPI_Win_complete without MPI_Win_start: MPI_ERR_RMA_SYNC;
 * - a lock type that is neither MPI_LOCK_SHARED nor MPI_LOCK_EXCLUSIVE: MPI_ERR_LOCKTYPE;
 * - a target rank outside the window's group: MPI_ERR_RANK;
 * - MPI_Win_create with a negative size: MPI_ERR_SIZE; with disp_unit 0: MPI_ERR_DISP;
 * - MPI_WIN_NULL: MPI_ERR_WIN;
 * and that the window still works after each of them. Window attributes with a user keyval:
 * the copy callback never runs, the delete callback runs on overwrite, on MPI_Win_delete_attr
 * and on MPI_Win_free (also after MPI_Win_free_keyval), with the right value and extra state.
 * A user error handler (MPI_Win_create_errhandler) is called by MPI_Win_call_errhandler and by
 * a real error, with the window and the code.
 *
 * Where a reference library deviates from MPI-3.1 the check is strict unless
 * JOBS_REFERENCE_OPENMPI / JOBS_REFERENCE_MPICH is set (or the job gets the argument --relaxed,
 * which means both); then only that one check is relaxed:
 * - Open MPI 4.1.4 (osc rdma and sm) returns MPI_SUCCESS from MPI_Win_complete without
 *   MPI_Win_start: not checked with JOBS_REFERENCE_OPENMPI.
 * - MPICH 4.0.2 returns MPI_ERR_ARG for an invalid lock type (MPI-3.1 8.4: MPI_ERR_LOCKTYPE):
 *   any error class accepted with JOBS_REFERENCE_MPICH (also in the user handler check).
 * - MPICH 4.0.2 does not check the target range at all: a put of ints 12..19 into a 16-int
 *   window succeeds, unlock too, and the ints past the window are overwritten. With
 *   JOBS_REFERENCE_MPICH that put is not issued (the negative displacement still is).
 * Open MPI returns MPI_ERR_DISP and MPICH MPI_ERR_DISP for target_disp -1; the job accepts any
 * error there (MPI-3.1 names no class for it). */
#include "jobs_util.h"

static int rank_, size_;
static int relax_openmpi_, relax_mpich_;

/* Like CHECK_ERR_CLASS, but when `relaxed` is true any error class is accepted. */
#define CHECK_ERR_CLASS_RELAXED(call, expected, relaxed)                             \
  do {                                                                               \
    if (relaxed) {                                                                   \
      int rc2_ = (call);                                                             \
      if (rc2_ == MPI_SUCCESS)                                                       \
        jobs_fail(__FILE__, __LINE__, "%s succeeded, expected an error", #call);     \
      if (jobs_error_text(rc2_)[0] == '\0')                                          \
        jobs_fail(__FILE__, __LINE__, "%s: MPI_Error_string(%d) is empty", #call, rc2_); \
    } else {                                                                         \
      CHECK_ERR_CLASS(call, expected);                                               \
    }                                                                                \
  } while (0)

static int err_class(int rc) {
  int c = -1;
  MPI_Error_class(rc, &c);
  return c;
}

/* The window still works: every rank puts its rank into slot [rank] of the next rank. */
static void check_usable(MPI_Win win, int *mem, const char *after) {
  const int next = (rank_ + 1) % size_, prev = (rank_ + size_ - 1) % size_;
  CHECK_MPI(MPI_Win_fence(0, win));
  mem[0] = -1;
  CHECK_MPI(MPI_Win_fence(0, win));
  CHECK_MPI(MPI_Put(&rank_, 1, MPI_INT, next, 0, 1, MPI_INT, win));
  CHECK_MPI(MPI_Win_fence(0, win));
  CHECK_MSG(mem[0] == prev, "after %s: the window no longer works (slot holds %d, expected %d)",
            after, mem[0], prev);
}

/* A put whose end lies past the target's window. MPI-3.1 11.8.2 defines MPI_ERR_RMA_RANGE for
 * it; the origin may know the target's size and fail the put, or learn it later: the error is
 * accepted from MPI_Put or from the MPI_Win_unlock ending the epoch. Every rank targets the
 * next rank, whose window is 16 ints. */
static void check_range(MPI_Win win, int *mem) {
  const int next = (rank_ + 1) % size_;
  int buf[8] = {0}, rc, rc_unlock;
  CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
  if (!relax_mpich_) {
    CHECK_MPI(MPI_Win_lock(MPI_LOCK_SHARED, next, 0, win));
    rc = MPI_Put(buf, 8, MPI_INT, next, 12, 8, MPI_INT, win); /* ints 12..19 of 16 */
    rc_unlock = MPI_Win_unlock(next, win);
    if (rc == MPI_SUCCESS) {
      CHECK_MSG(rc_unlock != MPI_SUCCESS, "a put of ints 12..19 into a 16-int window succeeded "
                "and so did the MPI_Win_unlock ending its epoch; expected MPI_ERR_RMA_RANGE");
      rc = rc_unlock;
    } else {
      CHECK_MSG(rc_unlock == MPI_SUCCESS, "MPI_Win_unlock after a failed put returned %d (%s)",
                rc_unlock, jobs_error_text(rc_unlock));
    }
    CHECK_MSG(err_class(rc) == MPI_ERR_RMA_RANGE, "put past the end of the target window: error "
              "class %d (%s), expected MPI_ERR_RMA_RANGE (%d)", err_class(rc),
              jobs_error_text(rc), MPI_ERR_RMA_RANGE);
    CHECK_MSG(jobs_error_text(rc)[0] != '\0', "MPI_Error_string(%d) is empty", rc);
    CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
  }
  /* a displacement that is negative */
  CHECK_MPI(MPI_Win_lock(MPI_LOCK_SHARED, next, 0, win));
  rc = MPI_Put(buf, 1, MPI_INT, next, -1, 1, MPI_INT, win);
  rc_unlock = MPI_Win_unlock(next, win);
  if (rc == MPI_SUCCESS) rc = rc_unlock;
  CHECK_MSG(rc != MPI_SUCCESS, "a put at displacement -1 succeeded, and so did the unlock");
  CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
  check_usable(win, mem, "a put out of range");
}

static void check_sync_errors(MPI_Win win, int *mem) {
  const int next = (rank_ + 1) % size_;
  int v = 1, got = 0;
  /* MPI_Win_create leaves no epoch open; nobody has fenced yet on this window. */
  CHECK_ERR_CLASS(MPI_Put(&v, 1, MPI_INT, next, 1, 1, MPI_INT, win), MPI_ERR_RMA_SYNC);
  CHECK_ERR_CLASS(MPI_Get(&got, 1, MPI_INT, next, 1, 1, MPI_INT, win), MPI_ERR_RMA_SYNC);
  CHECK_ERR_CLASS(MPI_Accumulate(&v, 1, MPI_INT, next, 1, 1, MPI_INT, MPI_SUM, win),
                  MPI_ERR_RMA_SYNC);
  CHECK_ERR_CLASS(MPI_Win_unlock(next, win), MPI_ERR_RMA_SYNC);
  CHECK_ERR_CLASS(MPI_Win_unlock_all(win), MPI_ERR_RMA_SYNC);
  if (!relax_openmpi_) CHECK_ERR_CLASS(MPI_Win_complete(win), MPI_ERR_RMA_SYNC);
  CHECK_ERR_CLASS(MPI_Win_flush(next, win), MPI_ERR_RMA_SYNC);
  /* after a lock/unlock pair the epoch is closed again */
  CHECK_MPI(MPI_Win_lock(MPI_LOCK_SHARED, next, 0, win));
  CHECK_MPI(MPI_Win_unlock(next, win));
  CHECK_ERR_CLASS(MPI_Win_unlock(next, win), MPI_ERR_RMA_SYNC);
  CHECK_ERR_CLASS(MPI_Put(&v, 1, MPI_INT, next, 1, 1, MPI_INT, win), MPI_ERR_RMA_SYNC);
  CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
  check_usable(win, mem, "RMA_SYNC errors");
}

static void check_arg_errors(MPI_Win win, int *mem) {
  const int next = (rank_ + 1) % size_;
  int v = 1;
  CHECK_ERR_CLASS_RELAXED(MPI_Win_lock(12345, next, 0, win), MPI_ERR_LOCKTYPE, relax_mpich_);
  CHECK_ERR_CLASS_RELAXED(MPI_Win_lock(MPI_LOCK_SHARED + MPI_LOCK_EXCLUSIVE + 7, next, 0, win),
                          MPI_ERR_LOCKTYPE, relax_mpich_);
  /* no lock was taken by the failed calls: unlocking must fail */
  CHECK_ERR_CLASS(MPI_Win_unlock(next, win), MPI_ERR_RMA_SYNC);
  CHECK_ERR_CLASS(MPI_Win_lock(MPI_LOCK_SHARED, size_, 0, win), MPI_ERR_RANK);
  CHECK_MPI(MPI_Win_lock_all(0, win));
  CHECK_ERR_CLASS(MPI_Put(&v, 1, MPI_INT, size_, 0, 1, MPI_INT, win), MPI_ERR_RANK);
  CHECK_ERR_CLASS(MPI_Put(&v, 1, MPI_INT, -5, 0, 1, MPI_INT, win), MPI_ERR_RANK);
  CHECK_MPI(MPI_Win_unlock_all(win));
  CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
  check_usable(win, mem, "argument errors");
}

static void check_create_errors(void) {
  static int buf[16];
  MPI_Win win = MPI_WIN_NULL;
  /* collective, and every rank passes the same bad argument */
  CHECK_ERR_CLASS(MPI_Win_create(buf, -8, sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &win),
                  MPI_ERR_SIZE);
  CHECK_ERR_CLASS(MPI_Win_create(buf, sizeof buf, 0, MPI_INFO_NULL, MPI_COMM_WORLD, &win),
                  MPI_ERR_DISP);
  /* MPI_WIN_NULL is not a window (errors on it go to MPI_COMM_WORLD's handler) */
  CHECK_ERR_CLASS(MPI_Win_fence(0, MPI_WIN_NULL), MPI_ERR_WIN);
  CHECK_ERR_CLASS(MPI_Win_lock_all(0, MPI_WIN_NULL), MPI_ERR_WIN);
  CHECK_ERR_CLASS(MPI_Put(buf, 1, MPI_INT, 0, 0, 1, MPI_INT, MPI_WIN_NULL), MPI_ERR_WIN);
  MPI_Win null = MPI_WIN_NULL;
  CHECK_ERR_CLASS(MPI_Win_free(&null), MPI_ERR_WIN);
  /* a working window can still be made on the communicator */
  CHECK_MPI(MPI_Win_create(buf, sizeof buf, sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &win));
  CHECK_MPI(MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN));
  check_usable(win, buf, "MPI_Win_create errors");
  CHECK_MPI(MPI_Win_free(&win));
}

/* ---- attributes ---- */
typedef struct {
  int deletes, copies;
  void *last_deleted;
  MPI_Win last_win;
  int keyval_seen;
} AttrLog;
static AttrLog log_;
static int extra_marker_;

static int copy_fn(MPI_Win oldwin, int keyval, void *extra, void *in, void *out, int *flag) {
  (void)oldwin, (void)keyval, (void)extra, (void)in, (void)out;
  ++log_.copies; /* windows are never duplicated: this must never run */
  *flag = 0;
  return MPI_SUCCESS;
}

static int delete_fn(MPI_Win win, int keyval, void *value, void *extra) {
  ++log_.deletes;
  log_.last_deleted = value;
  log_.last_win = win;
  log_.keyval_seen = keyval;
  if (extra != &extra_marker_) {
    fprintf(stderr, "[rank %d] FAIL %s:%d: delete callback got extra state %p, expected %p\n",
            rank_, __FILE__, __LINE__, extra, (void *)&extra_marker_);
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
  return MPI_SUCCESS;
}

static void check_attributes(void) {
  static int buf[4];
  static int a = 1, b = 2, c = 3, d = 4;
  MPI_Win win;
  int key = MPI_KEYVAL_INVALID, key2 = MPI_KEYVAL_INVALID, flag = -1;
  void *value = NULL;
  CHECK_MPI(MPI_Win_create(buf, sizeof buf, sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &win));
  CHECK_MPI(MPI_Win_create_keyval(copy_fn, delete_fn, &key, &extra_marker_));
  CHECK(key != MPI_KEYVAL_INVALID);
  CHECK_MPI(MPI_Win_create_keyval(MPI_WIN_NULL_COPY_FN, MPI_WIN_NULL_DELETE_FN, &key2, NULL));
  CHECK(key2 != key);

  CHECK_MPI(MPI_Win_get_attr(win, key, &value, &flag));
  CHECK_MSG(flag == 0, "a new keyval has a value on the window (flag %d)", flag);
  CHECK_MPI(MPI_Win_set_attr(win, key, &a));
  CHECK_MPI(MPI_Win_set_attr(win, key2, &d));
  CHECK_MPI(MPI_Win_get_attr(win, key, &value, &flag));
  CHECK_MSG(flag && value == &a, "MPI_Win_get_attr: flag %d, value %p, expected %p", flag, value,
            (void *)&a);
  CHECK_INT(log_.deletes, ==, 0);
  /* overwriting calls delete on the old value */
  CHECK_MPI(MPI_Win_set_attr(win, key, &b));
  CHECK_MSG(log_.deletes == 1 && log_.last_deleted == &a && log_.last_win == win &&
                log_.keyval_seen == key,
            "overwriting an attribute: delete callback ran %d times, last value %p (expected "
            "%p), keyval %d (expected %d)", log_.deletes, log_.last_deleted, (void *)&a,
            log_.keyval_seen, key);
  CHECK_MPI(MPI_Win_get_attr(win, key, &value, &flag));
  CHECK_MSG(flag && value == &b, "after overwriting: value %p, expected %p", value, (void *)&b);
  /* delete_attr calls it and removes the value */
  CHECK_MPI(MPI_Win_delete_attr(win, key));
  CHECK_MSG(log_.deletes == 2 && log_.last_deleted == &b, "MPI_Win_delete_attr: delete callback "
            "ran %d times (expected 2), last value %p (expected %p)", log_.deletes,
            log_.last_deleted, (void *)&b);
  CHECK_MPI(MPI_Win_get_attr(win, key, &value, &flag));
  CHECK_MSG(flag == 0, "deleted attribute still found");
  /* set again, free the keyval while attached: MPI_Win_free must still call delete */
  CHECK_MPI(MPI_Win_set_attr(win, key, &c));
  const int freed_key = key;
  CHECK_MPI(MPI_Win_free_keyval(&key));
  CHECK_MSG(key == MPI_KEYVAL_INVALID, "MPI_Win_free_keyval left the keyval at %d", key);
  CHECK_INT(log_.deletes, ==, 2);
  CHECK_MPI(MPI_Win_free(&win));
  CHECK_MSG(log_.deletes == 3 && log_.last_deleted == &c && log_.keyval_seen == freed_key,
            "MPI_Win_free: delete callback ran %d times (expected 3), last value %p (expected "
            "%p)", log_.deletes, log_.last_deleted, (void *)&c);
  CHECK_MSG(log_.copies == 0, "the copy callback of a window keyval ran %d times", log_.copies);
  CHECK_MPI(MPI_Win_free_keyval(&key2));
  CHECK(key2 == MPI_KEYVAL_INVALID);
}

/* ---- user error handler ---- */
static int handler_calls_, handler_code_;
static MPI_Win handler_win_;

/* A window keyval freed again while its attributes live (from the delete callback and
 * through a saved copy of the handle) is accepted; the attributes' deletion still runs. */
static int refree_deletes_;
static int refree_delete(MPI_Win win, int keyval, void *attr, void *extra) {
  (void)win, (void)attr, (void)extra;
  ++refree_deletes_;
  CHECK_MPI(MPI_Win_free_keyval(&keyval));
  return MPI_SUCCESS;
}

static void check_win_keyval_refree(void) {
  int mem[2][1], key = MPI_KEYVAL_INVALID, copy;
  MPI_Win w[2];
  for (int i = 0; i < 2; ++i)
    CHECK_MPI(MPI_Win_create(mem[i], sizeof mem[i], 1, MPI_INFO_NULL, MPI_COMM_WORLD, &w[i]));
  CHECK_MPI(MPI_Win_create_keyval(MPI_WIN_NULL_COPY_FN, refree_delete, &key, NULL));
  copy = key;
  CHECK_MPI(MPI_Win_set_attr(w[0], key, NULL));
  CHECK_MPI(MPI_Win_set_attr(w[1], key, NULL));
  CHECK_MPI(MPI_Win_free(&w[0])); /* the callback frees the keyval */
  CHECK_MPI(MPI_Win_free_keyval(&key));
  CHECK_INT(key, ==, MPI_KEYVAL_INVALID);
  CHECK_MPI(MPI_Win_free_keyval(&copy));
  CHECK_MPI(MPI_Win_free(&w[1])); /* and again */
  CHECK_INT(refree_deletes_, ==, 2);
}

static void win_handler(MPI_Win *win, int *code, ...) {
  ++handler_calls_;
  handler_code_ = *code;
  handler_win_ = *win;
}

static void check_user_errhandler(void) {
  static int buf[4];
  MPI_Win win;
  MPI_Errhandler eh, got;
  CHECK_MPI(MPI_Win_create(buf, sizeof buf, sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &win));
  CHECK_MPI(MPI_Win_create_errhandler(win_handler, &eh));
  CHECK_MPI(MPI_Win_set_errhandler(win, eh));
  CHECK_MPI(MPI_Win_get_errhandler(win, &got));
  CHECK_MSG(got == eh, "MPI_Win_get_errhandler returned another handler");
  CHECK_MPI(MPI_Errhandler_free(&got));
  CHECK_MPI(MPI_Errhandler_free(&eh)); /* the window keeps its reference */

  CHECK_MPI(MPI_Win_call_errhandler(win, MPI_ERR_RMA_CONFLICT));
  CHECK_MSG(handler_calls_ == 1 && handler_code_ == MPI_ERR_RMA_CONFLICT && handler_win_ == win,
            "MPI_Win_call_errhandler: handler called %d times with code %d (expected 1 call, "
            "%d) %s window", handler_calls_, handler_code_, MPI_ERR_RMA_CONFLICT,
            handler_win_ == win ? "on the" : "NOT on the");
  /* a real error reaches it too, and the call then returns the code */
  int rc = MPI_Win_lock(4242, 0, 0, win);
  CHECK_MSG(handler_calls_ == 2, "an invalid lock type did not call the window's handler "
            "(calls: %d)", handler_calls_);
  CHECK_MSG(err_class(handler_code_) == MPI_ERR_LOCKTYPE || (relax_mpich_ && handler_code_ != 0),
            "handler got code %d (class %d), expected class MPI_ERR_LOCKTYPE", handler_code_,
            err_class(handler_code_));
  CHECK_MSG(rc == handler_code_, "MPI_Win_lock returned %d after the handler returned; the "
            "handler got %d", rc, handler_code_);
  CHECK_MPI(MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN));
  CHECK_MPI(MPI_Win_free(&win));
}

int main(int argc, char **argv) {
  CHECK_MPI(MPI_Init(&argc, &argv));
  CHECK_MPI(MPI_Comm_rank(MPI_COMM_WORLD, &rank_));
  CHECK_MPI(MPI_Comm_size(MPI_COMM_WORLD, &size_));
  const int relaxed_arg = argc > 1 && strcmp(argv[1], "--relaxed") == 0;
  relax_openmpi_ = relaxed_arg || getenv("JOBS_REFERENCE_OPENMPI") != NULL;
  relax_mpich_ = relaxed_arg || getenv("JOBS_REFERENCE_MPICH") != NULL;
  CHECK_MPI(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));

  /* the same on a window of MPI's memory and on one of user memory */
  static int user_mem[16];
  for (int allocate = 1; allocate >= 0; --allocate) {
    int *mem = user_mem;
    MPI_Win win;
    if (allocate)
      CHECK_MPI(MPI_Win_allocate(16 * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD,
                                 &mem, &win));
    else
      CHECK_MPI(MPI_Win_create(mem, 16 * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD,
                               &win));
    MPI_Errhandler eh;
    CHECK_MPI(MPI_Win_get_errhandler(win, &eh));
    CHECK_MSG(eh == MPI_ERRORS_ARE_FATAL, "a new window's error handler is not "
              "MPI_ERRORS_ARE_FATAL (MPI_COMM_WORLD's is MPI_ERRORS_RETURN)");
    CHECK_MPI(MPI_Errhandler_free(&eh));
    CHECK_MPI(MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN));
    check_sync_errors(win, mem);
    check_arg_errors(win, mem);
    check_range(win, mem);
    CHECK_MPI(MPI_Win_free(&win));
  }

  check_create_errors();
  check_attributes();
  check_win_keyval_refree();
  check_user_errhandler();
  jobs_done("job_rma_errors");
  CHECK_MPI(MPI_Finalize());
  return 0;
}
