/* Attributes and the environment: keyvals with copy/delete callbacks on MPI_Comm_dup and
 * MPI_Comm_free, MPI_COMM_DUP_FN / MPI_COMM_NULL_COPY_FN, replacing and deleting values,
 * freeing a keyval while attributes use it, the deprecated MPI-1 names, predefined attributes,
 * the delete callback of an attribute on MPI_COMM_SELF at MPI_Finalize (checked at exit), Info
 * objects, user error classes/codes/strings, MPI_Alloc_mem, handle conversions, and an
 * unsupported call failing with MPI_ERR_UNSUPPORTED_OPERATION. */
#include "jobs_util.h"

#include <unistd.h>

static int rank_, size_;
static int copies_, deletes_, last_deleted_;
static int self_deleted_;

static int copy_cb(MPI_Comm comm, int keyval, void* extra, void* in, void* out, int* flag) {
  (void)comm;
  (void)keyval;
  CHECK(extra == &copies_);
  ++copies_;
  /* The copy gets value + 1, so each generation is distinguishable. */
  *(void**)out = (void*)((intptr_t)in + 1);
  *flag = 1;
  return MPI_SUCCESS;
}

static int delete_cb(MPI_Comm comm, int keyval, void* value, void* extra) {
  (void)comm;
  (void)keyval;
  CHECK(extra == &deletes_);
  ++deletes_;
  last_deleted_ = (int)(intptr_t)value;
  return MPI_SUCCESS;
}

static int failing_copy(MPI_Comm comm, int keyval, void* extra, void* in, void* out, int* flag) {
  (void)comm;
  (void)keyval;
  (void)extra;
  (void)in;
  (void)out;
  *flag = 0;
  return MPI_ERR_OTHER;
}

static int self_delete(MPI_Comm comm, int keyval, void* value, void* extra) {
  (void)keyval;
  (void)extra;
  /* MPI is still usable here: this runs at the very start of MPI_Finalize. */
  int flag = 0, size = 0;
  MPI_Initialized(&flag);
  if (flag && MPI_Comm_size(comm, &size) == MPI_SUCCESS && size == 1 && value == &self_deleted_)
    self_deleted_ = 1;
  return MPI_SUCCESS;
}

static void check_at_exit(void) {
  if (!self_deleted_) {
    fprintf(stderr,
            "[rank %d] FAIL: the delete callback of the MPI_COMM_SELF attribute did not "
            "run at MPI_Finalize\n",
            rank_);
    fflush(stderr);
    _exit(1);
  }
}

static void check_callbacks(void) {
  int key = MPI_KEYVAL_INVALID, flag = 0;
  void* val = NULL;
  CHECK_MPI(MPI_Comm_create_keyval(copy_cb, delete_cb, &key, &copies_));
  CHECK(key != MPI_KEYVAL_INVALID);
  /* Keyval extra state pointer checks use separate objects for copy and delete: re-create. */
  CHECK_MPI(MPI_Comm_free_keyval(&key));
  CHECK(key == MPI_KEYVAL_INVALID);
  int ckey, dkey;
  CHECK_MPI(MPI_Comm_create_keyval(copy_cb, MPI_COMM_NULL_DELETE_FN, &ckey, &copies_));
  CHECK_MPI(MPI_Comm_create_keyval(MPI_COMM_DUP_FN, delete_cb, &dkey, &deletes_));
  MPI_Comm a, b, c;
  CHECK_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &a));
  CHECK_MPI(MPI_Comm_set_attr(a, ckey, (void*)(intptr_t)10));
  CHECK_MPI(MPI_Comm_set_attr(a, dkey, (void*)(intptr_t)20));
  CHECK_MPI(MPI_Comm_get_attr(a, ckey, &val, &flag));
  CHECK(flag && (intptr_t)val == 10);
  CHECK_MPI(MPI_Comm_dup(a, &b));
  CHECK_INT(copies_, ==, 1);
  CHECK_MPI(MPI_Comm_get_attr(b, ckey, &val, &flag));
  CHECK(flag && (intptr_t)val == 11);
  CHECK_MPI(MPI_Comm_get_attr(b, dkey, &val, &flag)); /* MPI_COMM_DUP_FN: same value */
  CHECK(flag && (intptr_t)val == 20);
  CHECK_MPI(MPI_Comm_dup(b, &c));
  CHECK_INT(copies_, ==, 2);
  CHECK_MPI(MPI_Comm_get_attr(c, ckey, &val, &flag));
  CHECK(flag && (intptr_t)val == 12);
  /* Replacing a value runs the delete callback on the old one. */
  CHECK_MPI(MPI_Comm_set_attr(c, dkey, (void*)(intptr_t)30));
  CHECK_INT(deletes_, ==, 1);
  CHECK_INT(last_deleted_, ==, 20);
  CHECK_MPI(MPI_Comm_delete_attr(c, dkey));
  CHECK_INT(deletes_, ==, 2);
  CHECK_INT(last_deleted_, ==, 30);
  CHECK_MPI(MPI_Comm_get_attr(c, dkey, &val, &flag));
  CHECK_INT(flag, ==, 0);
  /* Free runs the delete callbacks of what is left. */
  CHECK_MPI(MPI_Comm_free(&c));
  CHECK_INT(deletes_, ==, 2);
  CHECK_MPI(MPI_Comm_free(&b));
  CHECK_INT(deletes_, ==, 3);
  CHECK_INT(last_deleted_, ==, 20);
  /* A freed keyval stays alive for the attributes that use it. */
  CHECK_MPI(MPI_Comm_free_keyval(&dkey));
  CHECK_MPI(MPI_Comm_free(&a));
  CHECK_INT(deletes_, ==, 4);
  /* MPI_COMM_NULL_COPY_FN: not copied. */
  int nkey;
  CHECK_MPI(MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, MPI_COMM_NULL_DELETE_FN, &nkey, NULL));
  CHECK_MPI(MPI_Comm_set_attr(MPI_COMM_WORLD, nkey, &nkey));
  CHECK_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &a));
  CHECK_MPI(MPI_Comm_get_attr(a, nkey, &val, &flag));
  CHECK_INT(flag, ==, 0);
  CHECK_MPI(MPI_Comm_get_attr(MPI_COMM_WORLD, nkey, &val, &flag));
  CHECK(flag && val == &nkey);
  CHECK_MPI(MPI_Comm_delete_attr(MPI_COMM_WORLD, nkey));
  CHECK_MPI(MPI_Comm_free(&a));
  CHECK_MPI(MPI_Comm_free_keyval(&nkey));
  CHECK_MPI(MPI_Comm_free_keyval(&ckey));
  /* A failing copy callback makes MPI_Comm_dup fail. */
  int fkey;
  CHECK_MPI(MPI_Comm_create_keyval(failing_copy, MPI_COMM_NULL_DELETE_FN, &fkey, NULL));
  CHECK_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &a));
  CHECK_MPI(MPI_Comm_set_attr(a, fkey, NULL));
  CHECK_MPI(MPI_Comm_set_errhandler(a, MPI_ERRORS_RETURN));
  b = MPI_COMM_NULL;
  CHECK(MPI_Comm_dup(a, &b) != MPI_SUCCESS);
  CHECK(b == MPI_COMM_NULL);
  CHECK_MPI(MPI_Comm_free(&a));
  CHECK_MPI(MPI_Comm_free_keyval(&fkey));
  /* Deprecated MPI-1 spellings (still what older programs call). */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
  int okey;
  CHECK_MPI(MPI_Keyval_create(MPI_DUP_FN, MPI_NULL_DELETE_FN, &okey, NULL));
  CHECK_MPI(MPI_Attr_put(MPI_COMM_WORLD, okey, (void*)(intptr_t)7));
  CHECK_MPI(MPI_Attr_get(MPI_COMM_WORLD, okey, &val, &flag));
  CHECK(flag && (intptr_t)val == 7);
  CHECK_MPI(MPI_Attr_delete(MPI_COMM_WORLD, okey));
  CHECK_MPI(MPI_Keyval_free(&okey));
#pragma GCC diagnostic pop
  /* MPI_COMM_SELF's attribute: deleted at MPI_Finalize. */
  int skey;
  CHECK_MPI(MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, self_delete, &skey, NULL));
  CHECK_MPI(MPI_Comm_set_attr(MPI_COMM_SELF, skey, &self_deleted_));
  atexit(check_at_exit);
}

static void check_predefined(void) {
  int *v = NULL, flag = 0;
  CHECK_MPI(MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_TAG_UB, &v, &flag));
  CHECK(flag && *v >= 32767);
  CHECK_MPI(MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_HOST, &v, &flag));
  CHECK(flag && (*v == MPI_PROC_NULL || (*v >= 0 && *v < size_)));
  CHECK_MPI(MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_IO, &v, &flag));
  CHECK(flag);
  CHECK_MPI(MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_WTIME_IS_GLOBAL, &v, &flag));
  CHECK(!flag || *v == 0 || *v == 1);
  CHECK_MPI(MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_UNIVERSE_SIZE, &v, &flag));
  CHECK(!flag || *v >= 1); /* Open MPI counts slots, which an oversubscribed job exceeds */
#ifdef MPR_MPI_H
  { /* MPR: the job's size or the CPUs it may use, whichever is more */
    int wsize;
    MPI_Comm_size(MPI_COMM_WORLD, &wsize);
    CHECK(flag && *v >= wsize);
  }
#endif
  CHECK_MPI(MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_APPNUM, &v, &flag));
  CHECK(!flag || *v == 0);
  CHECK_MPI(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
#ifdef OPEN_MPI /* Open MPI 4.1 fails these with MPI_ERR_OTHER */
  CHECK(MPI_Comm_set_attr(MPI_COMM_WORLD, MPI_TAG_UB, NULL) != MPI_SUCCESS);
  CHECK(MPI_Comm_set_attr(MPI_COMM_WORLD, 987654, NULL) != MPI_SUCCESS);
#else
  CHECK_ERR_CLASS(MPI_Comm_set_attr(MPI_COMM_WORLD, MPI_TAG_UB, NULL), MPI_ERR_KEYVAL);
  CHECK_ERR_CLASS(MPI_Comm_set_attr(MPI_COMM_WORLD, 987654, NULL), MPI_ERR_KEYVAL);
#endif
  CHECK_MPI(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL));
}

static void check_info(void) {
  MPI_Info info, dup;
  char value[64];
  int flag = 0, n = -1, len = -1;
  CHECK_MPI(MPI_Info_create(&info));
  CHECK_MPI(MPI_Info_set(info, "alpha", "1"));
  CHECK_MPI(MPI_Info_set(info, "beta", "two"));
  CHECK_MPI(MPI_Info_set(info, "alpha", "one"));
  CHECK_MPI(MPI_Info_get_nkeys(info, &n));
  CHECK_INT(n, ==, 2);
  char key[MPI_MAX_INFO_KEY + 1];
  CHECK_MPI(MPI_Info_get_nthkey(info, 1, key));
  CHECK_MSG(strcmp(key, "beta") == 0, "second key is '%s'", key);
  CHECK_MPI(MPI_Info_get(info, "alpha", sizeof value - 1, value, &flag));
  CHECK(flag && strcmp(value, "one") == 0);
  CHECK_MPI(MPI_Info_get_valuelen(info, "beta", &len, &flag));
  CHECK(flag && len == 3);
  CHECK_MPI(MPI_Info_get(info, "gamma", sizeof value - 1, value, &flag));
  CHECK_INT(flag, ==, 0);
#if MPI_VERSION >= 4
  int buflen = 2;
  CHECK_MPI(MPI_Info_get_string(info, "beta", &buflen, value, &flag));
  CHECK(flag && buflen == 4 && strcmp(value, "t") == 0);
#endif
  CHECK_MPI(MPI_Info_dup(info, &dup));
  CHECK_MPI(MPI_Info_delete(info, "alpha"));
  CHECK_MPI(MPI_Info_get_nkeys(info, &n));
  CHECK_INT(n, ==, 1);
  CHECK_MPI(MPI_Info_get_nkeys(dup, &n));
  CHECK_INT(n, ==, 2);
  MPI_Comm c;
  CHECK_MPI(MPI_Comm_dup_with_info(MPI_COMM_WORLD, dup, &c));
  CHECK_MPI(MPI_Comm_free(&c));
  CHECK_MPI(MPI_Info_free(&info));
  CHECK_MPI(MPI_Info_free(&dup));
  CHECK(info == MPI_INFO_NULL);
  CHECK_MPI(MPI_Info_get(MPI_INFO_ENV, "command", sizeof value - 1, value, &flag));
  (void)flag; /* MPI_INFO_ENV may hold any subset of its keys */
}

static void check_env(void) {
  int cls = -1, code = -1, got = -1, len = 0;
  char text[MPI_MAX_ERROR_STRING];
  CHECK_MPI(MPI_Add_error_class(&cls));
  CHECK_MPI(MPI_Add_error_code(cls, &code));
  CHECK_MPI(MPI_Add_error_string(code, "my own failure"));
  CHECK_MPI(MPI_Error_class(code, &got));
  CHECK_INT(got, ==, cls);
  CHECK_MPI(MPI_Error_string(code, text, &len));
  CHECK_MSG(strcmp(text, "my own failure") == 0, "error string is '%s'", text);
  int *last = NULL, flag = 0;
  CHECK_MPI(MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_LASTUSEDCODE, &last, &flag));
  CHECK(flag && *last >= code);
  /* MPI_Comm_call_errhandler with a user code under MPI_ERRORS_RETURN returns. */
  MPI_Comm c;
  CHECK_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &c));
  CHECK_MPI(MPI_Comm_set_errhandler(c, MPI_ERRORS_RETURN));
  CHECK_MPI(MPI_Comm_call_errhandler(c, code));

  void* mem = NULL;
  CHECK_MPI(MPI_Alloc_mem(1 << 20, MPI_INFO_NULL, &mem));
  CHECK(mem != NULL);
  memset(mem, 0x5a, 1 << 20);
  /* Memory from MPI_Alloc_mem works as a message buffer in both directions. */
  int peer = (rank_ + 1) % size_, from = (rank_ + size_ - 1) % size_;
  unsigned char* half2 = (unsigned char*)mem + (1 << 19);
  jobs_fill(mem, 1 << 19, (uint64_t)rank_);
  CHECK_MPI(MPI_Sendrecv(mem, 1 << 19, MPI_BYTE, peer, 5, half2, 1 << 19, MPI_BYTE, from, 5, c,
                         MPI_STATUS_IGNORE));
  CHECK_PATTERN(half2, 1 << 19, (uint64_t)from, "message into MPI_Alloc_mem memory");
  CHECK_MPI(MPI_Free_mem(mem));

  MPI_Fint f = MPI_Comm_c2f(c);
  CHECK(MPI_Comm_f2c(f) == c);
  CHECK(MPI_Comm_f2c(MPI_Comm_c2f(MPI_COMM_WORLD)) == MPI_COMM_WORLD);
  MPI_Group g;
  CHECK_MPI(MPI_Comm_group(c, &g));
  CHECK(MPI_Group_f2c(MPI_Group_c2f(g)) == g);
  CHECK_MPI(MPI_Group_free(&g));
  CHECK(MPI_Type_f2c(MPI_Type_c2f(MPI_DOUBLE)) == MPI_DOUBLE);
  CHECK(MPI_Op_f2c(MPI_Op_c2f(MPI_SUM)) == MPI_SUM);
  CHECK_MPI(MPI_Pcontrol(1));
  CHECK_MPI(MPI_Comm_free(&c));

  MPI_Comm parent = MPI_COMM_WORLD;
  CHECK_MPI(MPI_Comm_get_parent(&parent));
  CHECK(parent == MPI_COMM_NULL);
#ifndef OPEN_MPI
  /* MPI_Comm_join needs a connected socket: a pipe is a bad argument, said at once. */
  int fds[2];
  CHECK(pipe(fds) == 0);
  MPI_Comm joined = MPI_COMM_NULL;
  CHECK_MPI(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
  CHECK_ERR_CLASS(MPI_Comm_join(fds[0], &joined), MPI_ERR_ARG);
  CHECK(joined == MPI_COMM_NULL);
  CHECK_MPI(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL));
  close(fds[0]);
  close(fds[1]);
#endif
}

/* A keyval freed again while its attributes live (from a delete callback and through a saved
 * copy of the handle) is accepted; once the last attribute is gone its number is invalid. */
static int refree_deletes_;
static int refree_delete(MPI_Comm comm, int keyval, void* attr, void* extra) {
  (void)comm;
  (void)attr;
  (void)extra;
  ++refree_deletes_;
  CHECK_MPI(MPI_Comm_free_keyval(&keyval));
  return MPI_SUCCESS;
}

static void check_keyval_refree(void) {
  MPI_Comm a, b;
  int key, copy, saved;
  CHECK_MPI(MPI_Comm_dup(MPI_COMM_SELF, &a));
  CHECK_MPI(MPI_Comm_dup(MPI_COMM_SELF, &b));
  CHECK_MPI(MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, refree_delete, &key, NULL));
  copy = saved = key;
  CHECK_MPI(MPI_Comm_set_attr(a, key, NULL));
  CHECK_MPI(MPI_Comm_set_attr(b, key, NULL));
  CHECK_MPI(MPI_Comm_free(&a)); /* the callback frees the keyval */
  CHECK_MPI(MPI_Comm_free_keyval(&key));
  CHECK_INT(key, ==, MPI_KEYVAL_INVALID);
  CHECK_MPI(MPI_Comm_free_keyval(&copy));
  CHECK_MPI(MPI_Comm_free(&b)); /* still deleted: the last attribute goes, and the keyval */
  CHECK_INT(refree_deletes_, ==, 2);
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);
  CHECK_ERR_CLASS(MPI_Comm_free_keyval(&saved), MPI_ERR_KEYVAL);
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
  MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_ARE_FATAL);
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank_);
  MPI_Comm_size(MPI_COMM_WORLD, &size_);
  check_callbacks();
  check_predefined();
  check_info();
  check_env();
  check_keyval_refree();
  jobs_done("job_comm_attr");
  MPI_Finalize();
  return 0;
}
