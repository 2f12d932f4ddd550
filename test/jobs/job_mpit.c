/* The tool information interface (MPI_T), used as a tool would, before, during and after MPI:
 * - before MPI_Init: every control variable described (name round trip through get_index,
 *   datatype one of MPI_INT/MPI_UNSIGNED_LONG_LONG/MPI_CHAR, the on/off enumeration of the
 *   boolean ones), read, and two written (MPR_PML_GET_INFLIGHT, MPR_COLL_ALG_DYNAMIC), which
 *   the library then runs with;
 * - while running: a protocol limit cannot be written (MPI_T_ERR_CVAR_SET_NOT_NOW; its scope is
 *   read-only now), a forced collective algorithm can (dynamic selection is on) and a bcast
 *   runs with it;
 * - performance variables: a started eager-message counter sees exactly the messages sent
 *   while it runs (count and bytes), a stopped one sees nothing, reset/write/readreset act on
 *   the handle only, a 1 MiB send is counted as rendezvous, the high-water mark is continuous
 *   and read-only, MPI_T_PVAR_ALL_HANDLES starts and stops the counters;
 * - categories cover every variable exactly once; one clock source, no events;
 * - after MPI_Finalize: counters keep their final values, writes fail with
 *   MPI_T_ERR_CVAR_SET_NEVER, nested MPI_T_init_thread/MPI_T_finalize are counted. */
#include "jobs_util.h"

static int cvar_index(const char *name) {
  int i = -1;
  CHECK_MPI(MPI_T_cvar_get_index(name, &i));
  return i;
}

static int cvar_scope_of(const char *name) {
  int idx = -1, scope = -1;
  CHECK_MPI(MPI_T_cvar_get_index(name, &idx));
  CHECK_MPI(MPI_T_cvar_get_info(idx, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, &scope));
  return scope;
}

static MPI_T_cvar_handle cvar_handle(const char *name, int *count) {
  MPI_T_cvar_handle h;
  CHECK_MPI(MPI_T_cvar_handle_alloc(cvar_index(name), NULL, &h, count));
  return h;
}

static void check_cvars(void) {
  int n = 0, bools = 0, numbers = 0, texts = 0;
  CHECK_MPI(MPI_T_cvar_get_num(&n));
  CHECK_INT(n, >=, 40);
  for (int i = 0; i < n; ++i) {
    char name[128], desc[1024];
    int name_len = 0, desc_len = sizeof desc, verbosity, bind, scope, idx = -1;
    MPI_Datatype dt;
    MPI_T_enum e;
    /* length query first, then the real call */
    CHECK_MPI(MPI_T_cvar_get_info(i, NULL, &name_len, NULL, NULL, NULL, NULL, NULL, NULL, NULL));
    CHECK_INT(name_len, >, 4);
    CHECK_INT(name_len, <=, (int)sizeof name);
    int want = name_len;
    name_len = sizeof name;
    CHECK_MPI(MPI_T_cvar_get_info(i, name, &name_len, &verbosity, &dt, &e, desc, &desc_len, &bind,
                                  &scope));
    CHECK_INT(name_len, ==, want);
    CHECK_INT((int)strlen(name) + 1, ==, name_len);
    CHECK_MSG(strncmp(name, "MPR_", 4) == 0, "cvar %d is named %s", i, name);
    CHECK_INT(desc_len, >, 10);
    CHECK_INT(bind, ==, MPI_T_BIND_NO_OBJECT);
    CHECK(scope == MPI_T_SCOPE_LOCAL || scope == MPI_T_SCOPE_ALL_EQ);
    CHECK_INT(verbosity, >=, MPI_T_VERBOSITY_USER_BASIC);
    CHECK_INT(verbosity, <=, MPI_T_VERBOSITY_MPIDEV_ALL);
    CHECK_MPI(MPI_T_cvar_get_index(name, &idx));
    CHECK_INT(idx, ==, i);
    int count = 0;
    MPI_T_cvar_handle h;
    CHECK_MPI(MPI_T_cvar_handle_alloc(i, NULL, &h, &count));
    if (dt == MPI_INT) {
      int num = 0, v = -1, value = -1;
      char item[16];
      int item_len = sizeof item;
      CHECK(e != MPI_T_ENUM_NULL);
      CHECK_MPI(MPI_T_enum_get_info(e, &num, NULL, NULL));
      CHECK_INT(num, ==, 2);
      CHECK_MPI(MPI_T_enum_get_item(e, 1, &value, item, &item_len));
      CHECK_INT(value, ==, 1);
      CHECK(strcmp(item, "on") == 0);
      CHECK_INT(MPI_T_enum_get_item(e, 2, &value, item, &item_len), ==, MPI_T_ERR_INVALID_ITEM);
      CHECK_INT(count, ==, 1);
      CHECK_MPI(MPI_T_cvar_read(h, &v));
      CHECK(v == 0 || v == 1);
      ++bools;
    } else if (dt == MPI_UNSIGNED_LONG_LONG) {
      unsigned long long v = ~0ull;
      CHECK(e == MPI_T_ENUM_NULL);
      CHECK_INT(count, ==, 1);
      CHECK_MPI(MPI_T_cvar_read(h, &v));
      CHECK_MSG(v != ~0ull, "%s read nothing", name);
      ++numbers;
    } else {
      CHECK_MSG(dt == MPI_CHAR, "%s has an unexpected datatype", name);
      CHECK_INT(count, >=, 256);
      char *text = malloc(count);
      text[0] = 'x';
      CHECK_MPI(MPI_T_cvar_read(h, text));
      CHECK_INT((int)strlen(text), <, count);
      free(text);
      ++texts;
    }
    CHECK_MPI(MPI_T_cvar_handle_free(&h));
    CHECK(h == MPI_T_CVAR_HANDLE_NULL);
  }
  CHECK_INT(bools, >=, 5);
  CHECK_INT(numbers, >=, 20);
  CHECK_INT(texts, >=, 5);
  CHECK_INT(MPI_T_cvar_get_info(n, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL), ==,
            MPI_T_ERR_INVALID_INDEX);
  int idx;
  CHECK_INT(MPI_T_cvar_get_index("MPR_NO_SUCH_KNOB", &idx), ==, MPI_T_ERR_INVALID_NAME);
  /* the description says what the default is */
  char desc[1024];
  int desc_len = sizeof desc;
  CHECK_MPI(MPI_T_cvar_get_info(cvar_index("MPR_SHM_EAGER_LIMIT"), NULL, NULL, NULL, NULL, NULL,
                                desc, &desc_len, NULL, NULL));
  CHECK_MSG(strstr(desc, "default: 8192") != NULL, "description: %s", desc);
}

static void check_categories(int num_cvars, int num_pvars) {
  int n = 0, total_c = 0, total_p = 0;
  CHECK_MPI(MPI_T_category_get_num(&n));
  CHECK_INT(n, >=, 5);
  int *seen = calloc(num_cvars, sizeof(int));
  for (int c = 0; c < n; ++c) {
    char name[64];
    int name_len = sizeof name, nc = -1, np = -1, ncat = -1, ne = -1, idx = -1;
    CHECK_MPI(MPI_T_category_get_info(c, name, &name_len, NULL, NULL, &nc, &np, &ncat));
    CHECK_MPI(MPI_T_category_get_index(name, &idx));
    CHECK_INT(idx, ==, c);
    CHECK_MPI(MPI_T_category_get_num_events(c, &ne));
    CHECK_INT(ne, ==, 0);
    CHECK_INT(ncat, ==, 0);
    int *ix = malloc(sizeof(int) * (nc + 1));
    CHECK_MPI(MPI_T_category_get_cvars(c, nc, ix));
    for (int k = 0; k < nc; ++k) {
      CHECK_INT(ix[k], <, num_cvars);
      ++seen[ix[k]];
    }
    free(ix);
    total_c += nc;
    total_p += np;
  }
  CHECK_INT(total_c, ==, num_cvars);
  CHECK_INT(total_p, ==, num_pvars);
  for (int i = 0; i < num_cvars; ++i) CHECK_INT(seen[i], ==, 1);
  free(seen);
  int pml = -1, np = 0;
  CHECK_MPI(MPI_T_category_get_index("mpr_pml", &pml));
  CHECK_MPI(MPI_T_category_get_info(pml, NULL, NULL, NULL, NULL, NULL, &np, NULL));
  CHECK_INT(np, ==, num_pvars);
  CHECK_INT(MPI_T_category_get_info(n, NULL, NULL, NULL, NULL, NULL, NULL, NULL), ==,
            MPI_T_ERR_INVALID_INDEX);
  int changed = -1;
  CHECK_MPI(MPI_T_category_changed(&changed));
  CHECK_INT(changed, >=, 0);
}

static void check_sources_events(void) {
  int n = 0;
  CHECK_MPI(MPI_T_source_get_num(&n));
  CHECK_INT(n, ==, 1);
  MPI_T_source_order order;
  MPI_Count tps = 0, max = 0, t0 = 0, t1 = 0;
  MPI_Info info = MPI_INFO_NULL;
  CHECK_MPI(MPI_T_source_get_info(0, NULL, NULL, NULL, NULL, &order, &tps, &max, &info));
  CHECK_INT(order, ==, MPI_T_SOURCE_ORDERED);
  CHECK_INT(tps, ==, 1000000000);
  CHECK(info != MPI_INFO_NULL);
  CHECK_MPI(MPI_Info_free(&info));
  CHECK_MPI(MPI_T_source_get_timestamp(0, &t0));
  CHECK_MPI(MPI_T_source_get_timestamp(0, &t1));
  CHECK_INT(t1, >=, t0);
  CHECK_INT(MPI_T_source_get_timestamp(1, &t1), ==, MPI_T_ERR_INVALID_INDEX);
  CHECK_MPI(MPI_T_event_get_num(&n));
  CHECK_INT(n, ==, 0);
  int idx;
  CHECK_INT(MPI_T_event_get_index("anything", &idx), ==, MPI_T_ERR_INVALID_NAME);
  MPI_T_event_registration reg;
  CHECK_INT(MPI_T_event_handle_alloc(0, NULL, MPI_INFO_NULL, &reg), ==, MPI_T_ERR_INVALID_INDEX);
}

static int pvar(const char *name, int var_class) {
  int i = -1;
  CHECK_MPI(MPI_T_pvar_get_index(name, var_class, &i));
  return i;
}

static unsigned long long read_pvar(MPI_T_pvar_session s, MPI_T_pvar_handle h) {
  unsigned long long v = ~0ull;
  CHECK_MPI(MPI_T_pvar_read(s, h, &v));
  return v;
}

static void ring(int rank, int size, int nmsgs, int bytes) {
  char *out = calloc(bytes, 1), *in = calloc(bytes, 1);
  for (int i = 0; i < nmsgs; ++i)
    CHECK_MPI(MPI_Sendrecv(out, bytes, MPI_BYTE, (rank + 1) % size, 7, in, bytes, MPI_BYTE,
                           (rank + size - 1) % size, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
  free(out);
  free(in);
}

int main(int argc, char **argv) {
  int provided = -1;
  CHECK_MPI(MPI_T_init_thread(MPI_THREAD_SINGLE, &provided));
  CHECK_INT(provided, ==, MPI_THREAD_SINGLE);
  check_cvars();
  int num_cvars = 0, num_pvars = 0;
  CHECK_MPI(MPI_T_cvar_get_num(&num_cvars));
  CHECK_MPI(MPI_T_pvar_get_num(&num_pvars));
  CHECK_INT(num_pvars, >=, 8);
  check_categories(num_cvars, num_pvars);
  check_sources_events();

  /* writes before MPI_Init take effect when it comes up */
  int count;
  MPI_T_cvar_handle inflight = cvar_handle("MPR_PML_GET_INFLIGHT", &count);
  MPI_T_cvar_handle dynamic = cvar_handle("MPR_COLL_ALG_DYNAMIC", &count);
  MPI_T_cvar_handle eager = cvar_handle("MPR_SHM_EAGER_LIMIT", &count);
  MPI_T_cvar_handle bcast_alg = cvar_handle("MPR_COLL_BCAST_ALG", &count);
  unsigned long long two = 2, v = 0;
  int on = 1;
  CHECK_MPI(MPI_T_cvar_write(inflight, &two));
  CHECK_MPI(MPI_T_cvar_write(dynamic, &on));
  CHECK(getenv("MPR_PML_GET_INFLIGHT") && strcmp(getenv("MPR_PML_GET_INFLIGHT"), "2") == 0);

  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  CHECK_MPI(MPI_T_cvar_read(inflight, &v));
  CHECK_INT(v, ==, 2);
  unsigned long long limit = 1024;
  CHECK_INT(MPI_T_cvar_write(eager, &limit), ==, MPI_T_ERR_CVAR_SET_NOT_NOW);
  /* and says so: read-only while running, the forced algorithms (dynamic selection) not */
  CHECK_INT(cvar_scope_of("MPR_SHM_EAGER_LIMIT"), ==, MPI_T_SCOPE_READONLY);
  CHECK_INT(cvar_scope_of("MPR_COLL_BCAST_ALG"), ==, MPI_T_SCOPE_ALL_EQ);
  CHECK_MPI(MPI_T_cvar_read(eager, &v));
  const char *eager_env = getenv("MPR_SHM_EAGER_LIMIT"); /* some stages set it */
  CHECK_INT(v, ==, eager_env ? strtoull(eager_env, NULL, 0) : 8192);
  /* a forced algorithm is settable now (dynamic selection), and used */
  char alg[1024] = "binomial", got[1024];
  CHECK_MPI(MPI_T_cvar_write(bcast_alg, alg));
  CHECK_MPI(MPI_T_cvar_read(bcast_alg, got));
  CHECK(strcmp(got, "binomial") == 0);
  int data[64];
  for (int i = 0; i < 64; ++i) data[i] = rank == 0 ? i * 3 : -1;
  CHECK_MPI(MPI_Bcast(data, 64, MPI_INT, 0, MPI_COMM_WORLD));
  for (int i = 0; i < 64; ++i) CHECK_INT(data[i], ==, i * 3);

  /* performance variables */
  MPI_T_pvar_session s;
  MPI_T_pvar_handle msgs, bytes, idle, rndv, fallback, peak;
  CHECK_MPI(MPI_T_pvar_session_create(&s));
  CHECK_MPI(MPI_T_pvar_handle_alloc(s, pvar("mpr_eager_msgs", MPI_T_PVAR_CLASS_COUNTER), NULL,
                                    &msgs, &count));
  CHECK_INT(count, ==, 1);
  CHECK_MPI(MPI_T_pvar_handle_alloc(s, pvar("mpr_eager_bytes", MPI_T_PVAR_CLASS_COUNTER), NULL,
                                    &bytes, &count));
  CHECK_MPI(MPI_T_pvar_handle_alloc(s, pvar("mpr_eager_msgs", MPI_T_PVAR_CLASS_COUNTER), NULL,
                                    &idle, &count));
  CHECK_MPI(MPI_T_pvar_handle_alloc(s, pvar("mpr_rndv_msgs", MPI_T_PVAR_CLASS_COUNTER), NULL,
                                    &rndv, &count));
  CHECK_MPI(MPI_T_pvar_handle_alloc(s, pvar("mpr_rndv_fallback_msgs", MPI_T_PVAR_CLASS_COUNTER),
                                    NULL, &fallback, &count));
  CHECK_MPI(MPI_T_pvar_handle_alloc(
      s, pvar("mpr_unexpected_peak", MPI_T_PVAR_CLASS_HIGHWATERMARK), NULL, &peak, &count));
  int idx;
  CHECK_INT(MPI_T_pvar_get_index("mpr_eager_msgs", MPI_T_PVAR_CLASS_TIMER, &idx), ==,
            MPI_T_ERR_INVALID_NAME);
  int readonly = -1, continuous = -1, atomic = -1, var_class = -1;
  MPI_Datatype dt;
  CHECK_MPI(MPI_T_pvar_get_info(pvar("mpr_eager_msgs", MPI_T_PVAR_CLASS_COUNTER), NULL, NULL,
                                NULL, &var_class, &dt, NULL, NULL, NULL, NULL, &readonly,
                                &continuous, &atomic));
  CHECK_INT(var_class, ==, MPI_T_PVAR_CLASS_COUNTER);
  CHECK(dt == MPI_UNSIGNED_LONG_LONG);
  CHECK_INT(continuous, ==, 0);
  CHECK_INT(readonly, ==, 0);
  CHECK_INT(read_pvar(s, msgs), ==, 0); /* not started: nothing counted yet */
  ring(rank, size, 3, 8);
  CHECK_INT(read_pvar(s, msgs), ==, 0);

  if (size > 1) {
    CHECK_MPI(MPI_T_pvar_start(s, msgs));
    CHECK_MPI(MPI_T_pvar_start(s, bytes));
    ring(rank, size, 10, 8);
    CHECK_MPI(MPI_T_pvar_stop(s, msgs));
    CHECK_MPI(MPI_T_pvar_stop(s, bytes));
    CHECK_INT(read_pvar(s, msgs), ==, 10);
    CHECK_INT(read_pvar(s, bytes), ==, 80);
    ring(rank, size, 4, 8); /* stopped: not counted */
    CHECK_INT(read_pvar(s, msgs), ==, 10);
    CHECK_INT(read_pvar(s, idle), ==, 0);
    /* the handle's own view: write, readreset, reset */
    unsigned long long five = 5, got_v = 0;
    CHECK_MPI(MPI_T_pvar_write(s, msgs, &five));
    CHECK_INT(read_pvar(s, msgs), ==, 5);
    CHECK_MPI(MPI_T_pvar_start(s, msgs));
    ring(rank, size, 2, 8);
    CHECK_MPI(MPI_T_pvar_readreset(s, msgs, &got_v));
    CHECK_INT(got_v, ==, 7);
    CHECK_INT(read_pvar(s, msgs), ==, 0);
    ring(rank, size, 1, 8);
    CHECK_INT(read_pvar(s, msgs), ==, 1); /* still running after the reset */
    CHECK_MPI(MPI_T_pvar_reset(s, msgs));
    CHECK_INT(read_pvar(s, msgs), ==, 0);
    CHECK_MPI(MPI_T_pvar_stop(s, msgs));
    /* a large message goes by rendezvous, not eagerly */
    CHECK_MPI(MPI_T_pvar_start(s, MPI_T_PVAR_ALL_HANDLES));
    CHECK_MPI(MPI_T_pvar_reset(s, MPI_T_PVAR_ALL_HANDLES));
    ring(rank, size, 1, 1 << 20);
    CHECK_MPI(MPI_T_pvar_stop(s, MPI_T_PVAR_ALL_HANDLES));
    CHECK_INT(read_pvar(s, msgs), ==, 0);
    CHECK_INT(read_pvar(s, rndv) + read_pvar(s, fallback), ==, 1);
  }
  /* the high-water mark is the library's own */
  unsigned long long zero = 0;
  CHECK_INT(MPI_T_pvar_start(s, peak), ==, MPI_T_ERR_PVAR_NO_STARTSTOP);
  CHECK_INT(MPI_T_pvar_write(s, peak, &zero), ==, MPI_T_ERR_PVAR_NO_WRITE);
  CHECK_INT(MPI_T_pvar_reset(s, peak), ==, MPI_T_ERR_PVAR_NO_WRITE);
  CHECK_INT(read_pvar(s, peak), <, 1000000);
  /* handles belong to their session */
  MPI_T_pvar_session other;
  CHECK_MPI(MPI_T_pvar_session_create(&other));
  CHECK_INT(MPI_T_pvar_read(other, msgs, &zero), ==, MPI_T_ERR_INVALID_HANDLE);
  CHECK_INT(MPI_T_pvar_read(s, MPI_T_PVAR_ALL_HANDLES, &zero), ==, MPI_T_ERR_INVALID_HANDLE);
  CHECK_MPI(MPI_T_pvar_session_free(&other));
  CHECK(other == MPI_T_PVAR_SESSION_NULL);
  CHECK_MPI(MPI_T_pvar_handle_free(s, &idle));
  CHECK(idle == MPI_T_PVAR_HANDLE_NULL);

  /* the error classes are MPI's, with a text */
  int cls = -1;
  CHECK_MPI(MPI_Error_class(MPI_T_ERR_INVALID_HANDLE, &cls));
  CHECK_INT(cls, ==, MPI_T_ERR_INVALID_HANDLE);
  CHECK(strstr(jobs_error_text(MPI_T_ERR_CVAR_SET_NOT_NOW), "cannot be set") != NULL);

  CHECK_MPI(MPI_T_pvar_start(s, msgs));
  ring(rank, size, 2, 8);
  MPI_Barrier(MPI_COMM_WORLD);
  MPI_Finalize();

  /* after MPI_Finalize: the counters keep their final values; nothing can be written */
  unsigned long long final_msgs = read_pvar(s, msgs);
  CHECK_INT(final_msgs, >=, size > 1 ? 2 : 0);
  CHECK_INT(read_pvar(s, msgs), ==, final_msgs);
  CHECK_INT(MPI_T_cvar_write(inflight, &two), ==, MPI_T_ERR_CVAR_SET_NEVER);
  CHECK_MPI(MPI_T_pvar_session_free(&s));
  /* nested initialization */
  CHECK_MPI(MPI_T_init_thread(MPI_THREAD_MULTIPLE, &provided));
  CHECK_INT(provided, >=, MPI_THREAD_SINGLE);
  CHECK_MPI(MPI_T_cvar_handle_free(&inflight));
  CHECK_MPI(MPI_T_cvar_handle_free(&dynamic));
  CHECK_MPI(MPI_T_cvar_handle_free(&eager));
  CHECK_MPI(MPI_T_finalize());
  CHECK_MPI(MPI_T_cvar_handle_free(&bcast_alg)); /* still one initialization open */
  CHECK_MPI(MPI_T_finalize());
  int n;
  CHECK_INT(MPI_T_cvar_get_num(&n), ==, MPI_T_ERR_NOT_INITIALIZED);
  CHECK_INT(MPI_T_finalize(), ==, MPI_T_ERR_NOT_INITIALIZED);
  if (rank == 0) printf("OK job_mpit (%d control, %d performance variables)\n", num_cvars,
                        num_pvars);
  return 0;
}
