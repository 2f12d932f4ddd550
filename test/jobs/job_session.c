/* Sessions (MPI-4). Without arguments the program never calls MPI_Init:
 * - MPI_Session_init with a thread_level hint and MPI_ERRORS_RETURN; MPI_Initialized stays 0;
 * - the process sets (mpi://WORLD, mpi://SELF) by number and name, with the length query, and
 *   their mpi_size;
 * - communicators from the WORLD and SELF groups (MPI_Comm_create_from_group) that carry an
 *   allreduce and a ring exchange, and an intercommunicator between even and odd ranks
 *   (MPI_Intercomm_create_from_groups);
 * - errors through the session's handler: an unknown process set, a user handler called by
 *   MPI_Session_call_errhandler;
 * - two sessions at once: the library stays up until the second is finalized, after which a
 *   new MPI_Session_init fails with MPI_ERR_SESSION.
 * With "world": MPI_Init first, a session beside it, MPI_Finalize, and the session's
 * communicator still works until MPI_Session_finalize. */
#include <string.h>

#include "jobs_util.h"

static int handler_calls_, handler_code_;

static void count_errors(MPI_Session *s, int *code, ...) {
  (void)s;
  ++handler_calls_;
  handler_code_ = *code;
}

static MPI_Comm world_of(MPI_Session s, const char *tag) {
  MPI_Group g;
  MPI_Comm c;
  CHECK_MPI(MPI_Group_from_session_pset(s, "mpi://WORLD", &g));
  CHECK_MPI(MPI_Comm_create_from_group(g, tag, MPI_INFO_NULL, MPI_ERRORS_RETURN, &c));
  CHECK_MPI(MPI_Group_free(&g));
  return c;
}

static void psets(MPI_Session s, int *world_size) {
  int n = 0, saw_world = 0, saw_self = 0;
  CHECK_MPI(MPI_Session_get_num_psets(s, MPI_INFO_NULL, &n));
  CHECK_INT(n, >=, 2);
  for (int i = 0; i < n; ++i) {
    int len = 0;
    CHECK_MPI(MPI_Session_get_nth_pset(s, MPI_INFO_NULL, i, &len, NULL));
    char name[MPI_MAX_PSET_NAME_LEN];
    CHECK(len > 1 && len <= MPI_MAX_PSET_NAME_LEN);
    CHECK_MPI(MPI_Session_get_nth_pset(s, MPI_INFO_NULL, i, &len, name));
    CHECK_INT((int)strlen(name) + 1, ==, len);
    saw_world += strcmp(name, "mpi://WORLD") == 0;
    saw_self += strcmp(name, "mpi://SELF") == 0;
  }
  CHECK(saw_world == 1 && saw_self == 1);
  /* A short buffer gets a truncated, terminated name. */
  char shortname[5];
  int len = (int)sizeof shortname;
  CHECK_MPI(MPI_Session_get_nth_pset(s, MPI_INFO_NULL, 0, &len, shortname));
  CHECK_INT((int)strlen(shortname), ==, 4);

  MPI_Info info;
  char value[32];
  int flag = 0;
  CHECK_MPI(MPI_Session_get_pset_info(s, "mpi://WORLD", &info));
  len = (int)sizeof value;
  CHECK_MPI(MPI_Info_get_string(info, "mpi_size", &len, value, &flag));
  CHECK(flag);
  *world_size = atoi(value);
  CHECK_MPI(MPI_Info_free(&info));
  CHECK_MPI(MPI_Session_get_pset_info(s, "mpi://SELF", &info));
  len = (int)sizeof value;
  CHECK_MPI(MPI_Info_get_string(info, "mpi_size", &len, value, &flag));
  CHECK(flag && strcmp(value, "1") == 0);
  CHECK_MPI(MPI_Info_free(&info));
}

static void communicate(MPI_Session s, int world_size) {
  MPI_Comm w = world_of(s, "org.mpr.test.world");
  int rank, size;
  CHECK_MPI(MPI_Comm_rank(w, &rank));
  CHECK_MPI(MPI_Comm_size(w, &size));
  CHECK_INT(size, ==, world_size);
  int sum = 0;
  CHECK_MPI(MPI_Allreduce(&rank, &sum, 1, MPI_INT, MPI_SUM, w));
  CHECK_INT(sum, ==, size * (size - 1) / 2);
  int got = -1;
  CHECK_MPI(MPI_Sendrecv(&rank, 1, MPI_INT, (rank + 1) % size, 3, &got, 1, MPI_INT,
                         (rank + size - 1) % size, 3, w, MPI_STATUS_IGNORE));
  CHECK_INT(got, ==, (rank + size - 1) % size);

  /* SELF. */
  MPI_Group g;
  MPI_Comm self;
  CHECK_MPI(MPI_Group_from_session_pset(s, "mpi://SELF", &g));
  CHECK_MPI(MPI_Comm_create_from_group(g, "org.mpr.test.self", MPI_INFO_NULL,
                                       MPI_ERRHANDLER_NULL, &self));
  CHECK_MPI(MPI_Group_free(&g));
  int ssize = 0;
  CHECK_MPI(MPI_Comm_size(self, &ssize));
  CHECK_INT(ssize, ==, 1);
  CHECK_MPI(MPI_Comm_free(&self));

  /* Evens and odds, as an intercommunicator. */
  if (size >= 2) {
    MPI_Group all, evens, odds;
    CHECK_MPI(MPI_Comm_group(w, &all));
    int ne = (size + 1) / 2, no = size / 2, ev[64], od[64];
    for (int i = 0; i < ne; ++i) ev[i] = 2 * i;
    for (int i = 0; i < no; ++i) od[i] = 2 * i + 1;
    CHECK_MPI(MPI_Group_incl(all, ne, ev, &evens));
    CHECK_MPI(MPI_Group_incl(all, no, od, &odds));
    MPI_Comm inter;
    const int even = rank % 2 == 0;
    CHECK_MPI(MPI_Intercomm_create_from_groups(even ? evens : odds, 0, even ? odds : evens, 0,
                                               "org.mpr.test.inter", MPI_INFO_NULL,
                                               MPI_ERRORS_RETURN, &inter));
    int is_inter = 0, rsize = 0;
    CHECK_MPI(MPI_Comm_test_inter(inter, &is_inter));
    CHECK(is_inter);
    CHECK_MPI(MPI_Comm_remote_size(inter, &rsize));
    CHECK_INT(rsize, ==, even ? no : ne);
    /* Local rank 0 of each side swaps its world rank with the other side's rank 0. */
    int lrank;
    CHECK_MPI(MPI_Comm_rank(inter, &lrank));
    if (lrank == 0) {
      int other = -1;
      CHECK_MPI(MPI_Sendrecv(&rank, 1, MPI_INT, 0, 4, &other, 1, MPI_INT, 0, 4, inter,
                             MPI_STATUS_IGNORE));
      CHECK_INT(other, ==, even ? 1 : 0);
    }
    CHECK_MPI(MPI_Comm_free(&inter));
    CHECK_MPI(MPI_Group_free(&evens));
    CHECK_MPI(MPI_Group_free(&odds));
    CHECK_MPI(MPI_Group_free(&all));
  }
  CHECK_MPI(MPI_Comm_free(&w));
}

static void errors(MPI_Session s) {
  MPI_Group g = MPI_GROUP_NULL;
  CHECK_ERR_CLASS(MPI_Group_from_session_pset(s, "mpi://NOWHERE", &g), MPI_ERR_ARG);
  int len = 0;
  CHECK_ERR_CLASS(MPI_Session_get_nth_pset(s, MPI_INFO_NULL, 99, &len, NULL), MPI_ERR_ARG);
  MPI_Errhandler eh, got;
  CHECK_MPI(MPI_Session_create_errhandler(count_errors, &eh));
  CHECK_MPI(MPI_Session_set_errhandler(s, eh));
  CHECK_MPI(MPI_Session_get_errhandler(s, &got));
  CHECK(got == eh);
  CHECK_MPI(MPI_Errhandler_free(&got));
  CHECK_MPI(MPI_Session_call_errhandler(s, MPI_ERR_OTHER));
  CHECK_INT(handler_calls_, ==, 1);
  CHECK_INT(handler_code_, ==, MPI_ERR_OTHER);
  MPI_Group_from_session_pset(s, "mpi://NOWHERE", &g);
  CHECK_INT(handler_calls_, ==, 2);
  int cls = -1;
  MPI_Error_class(handler_code_, &cls);
  CHECK_INT(cls, ==, MPI_ERR_ARG);
  CHECK_MPI(MPI_Session_set_errhandler(s, MPI_ERRORS_RETURN));
  CHECK_MPI(MPI_Errhandler_free(&eh));
  /* A communicator handler is not a session handler. */
  MPI_Errhandler comm_eh;
  CHECK_MPI(MPI_Comm_create_errhandler((MPI_Comm_errhandler_function *)count_errors, &comm_eh));
  CHECK_ERR_CLASS(MPI_Session_set_errhandler(s, comm_eh), MPI_ERR_ARG);
  CHECK_MPI(MPI_Errhandler_free(&comm_eh));

  MPI_Info used;
  char value[64];
  int flag = 0;
  len = (int)sizeof value;
  CHECK_MPI(MPI_Session_get_info(s, &used));
  CHECK_MPI(MPI_Info_get_string(used, "thread_level", &len, value, &flag));
  CHECK(flag && strncmp(value, "MPI_THREAD_", 11) == 0);
  CHECK_MPI(MPI_Info_free(&used));
}

static void done(MPI_Session s, const char *mode) {
  MPI_Comm w = world_of(s, "org.mpr.test.done");
  int rank, size;
  MPI_Comm_rank(w, &rank);
  MPI_Comm_size(w, &size);
  CHECK_MPI(MPI_Barrier(w));
  if (rank == 0) printf("OK job_session (%s) on %d rank%s\n", mode, size, size == 1 ? "" : "s");
  fflush(stdout);
  CHECK_MPI(MPI_Comm_free(&w));
}

static MPI_Session open_session(void) {
  MPI_Info info;
  MPI_Session s;
  CHECK_MPI(MPI_Info_create(&info));
  CHECK_MPI(MPI_Info_set(info, "thread_level", "MPI_THREAD_FUNNELED"));
  CHECK_MPI(MPI_Session_init(info, MPI_ERRORS_RETURN, &s));
  CHECK_MPI(MPI_Info_free(&info));
  return s;
}

int main(int argc, char **argv) {
  const int world_mode = argc > 1 && strcmp(argv[1], "world") == 0;
  int flag = -1, size = 0;
  if (world_mode) CHECK_MPI(MPI_Init(&argc, &argv));
  MPI_Session s = open_session();
  CHECK_MPI(MPI_Initialized(&flag));
  CHECK_INT(flag, ==, world_mode);
  psets(s, &size);
  communicate(s, size);
  errors(s);
  if (world_mode) {
    CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
    CHECK_MPI(MPI_Finalize());
    CHECK_MPI(MPI_Finalized(&flag));
    CHECK(flag);
    communicate(s, size); /* the session outlives the world model */
    done(s, "world");
    CHECK_MPI(MPI_Session_finalize(&s));
    return 0;
  }
  MPI_Session s2 = open_session();
  CHECK_MPI(MPI_Session_finalize(&s));
  CHECK(s == MPI_SESSION_NULL);
  communicate(s2, size); /* still up: s2 holds it */
  done(s2, "sessions");
  CHECK_MPI(MPI_Session_finalize(&s2));
  /* The library has ended in this process. */
  MPI_Session again;
  CHECK_ERR_CLASS(MPI_Session_init(MPI_INFO_NULL, MPI_ERRORS_RETURN, &again), MPI_ERR_SESSION);
  CHECK_MPI(MPI_Initialized(&flag));
  CHECK(!flag);
  return 0;
}
