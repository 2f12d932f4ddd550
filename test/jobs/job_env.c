/* Environment queries: Init_thread's provided level, Initialized/Finalized around the library's
 * lifetime, Wtime/Wtick, Get_processor_name, the MPI_TAG_UB attribute, Get_version and
 * Get_library_version, MPI_COMM_SELF. Usage: job_env [-n expected_size] [-t single|funneled|
 * serialized|multiple] (requested thread level, default funneled). */
#include "jobs_util.h"

#include <unistd.h>

static int parse_level(const char *s) {
  if (strcmp(s, "single") == 0) return MPI_THREAD_SINGLE;
  if (strcmp(s, "funneled") == 0) return MPI_THREAD_FUNNELED;
  if (strcmp(s, "serialized") == 0) return MPI_THREAD_SERIALIZED;
  if (strcmp(s, "multiple") == 0) return MPI_THREAD_MULTIPLE;
  fprintf(stderr, "job_env: unknown thread level %s\n", s);
  exit(2);
}

int main(int argc, char **argv) {
  int expected_size = -1, requested = MPI_THREAD_FUNNELED;
  for (int a = 1; a + 1 < argc; a += 2) {
    if (strcmp(argv[a], "-n") == 0) expected_size = atoi(argv[a + 1]);
    else if (strcmp(argv[a], "-t") == 0) requested = parse_level(argv[a + 1]);
  }
  int flag = -1, provided = -1;
  CHECK_MPI(MPI_Initialized(&flag));
  CHECK_MSG(flag == 0, "MPI_Initialized says %d before MPI_Init_thread", flag);
  CHECK_MPI(MPI_Finalized(&flag));
  CHECK_MSG(flag == 0, "MPI_Finalized says %d before MPI_Init_thread", flag);
  CHECK_MPI(MPI_Init_thread(&argc, &argv, requested, &provided));
  CHECK_MSG(provided >= MPI_THREAD_SINGLE && provided <= MPI_THREAD_MULTIPLE, "MPI_Init_thread "
            "provided %d, not a thread level", provided);
  CHECK_MSG(provided <= requested, "MPI_Init_thread provided %d although only %d was requested",
            provided, requested);
  CHECK_MPI(MPI_Initialized(&flag));
  CHECK_INT(flag, ==, 1);
  CHECK_MPI(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));

  int rank = -1, size = -1;
  CHECK_MPI(MPI_Comm_rank(MPI_COMM_WORLD, &rank));
  CHECK_MPI(MPI_Comm_size(MPI_COMM_WORLD, &size));
  CHECK_MSG(size >= 1 && rank >= 0 && rank < size, "rank %d of size %d", rank, size);
  if (expected_size > 0)
    CHECK_MSG(size == expected_size, "MPI_COMM_WORLD has %d ranks, the launcher started %d", size,
              expected_size);
  int self_size = -1, self_rank = -1;
  CHECK_MPI(MPI_Comm_size(MPI_COMM_SELF, &self_size));
  CHECK_MPI(MPI_Comm_rank(MPI_COMM_SELF, &self_rank));
  CHECK_INT(self_size, ==, 1);
  CHECK_INT(self_rank, ==, 0);

  /* Wtime never goes backwards and sees a 50 ms sleep as 50 ms (within reason). */
  double tick = MPI_Wtick();
  CHECK_MSG(tick > 0.0 && tick <= 0.01, "MPI_Wtick() = %g", tick);
  double prev = MPI_Wtime();
  for (int i = 0; i < 100000; ++i) {
    double now = MPI_Wtime();
    CHECK_MSG(now >= prev, "MPI_Wtime went backwards: %.9f after %.9f", now, prev);
    prev = now;
  }
  double t0 = MPI_Wtime();
  jobs_sleep_ms(50);
  double slept = MPI_Wtime() - t0;
  CHECK_MSG(slept >= 0.045 && slept < 5.0, "a 50 ms sleep measured %.6f s by MPI_Wtime", slept);

  char name[MPI_MAX_PROCESSOR_NAME];
  int len = -1;
  memset(name, 'x', sizeof name);
  CHECK_MPI(MPI_Get_processor_name(name, &len));
  CHECK_MSG(len > 0 && len < MPI_MAX_PROCESSOR_NAME, "processor name length %d", len);
  CHECK_MSG(name[len] == '\0' && (int)strlen(name) == len, "processor name is not a %d-character "
            "C string", len);

  void *attr = NULL;
  flag = 0;
  CHECK_MPI(MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_TAG_UB, &attr, &flag));
  CHECK_MSG(flag && attr, "MPI_TAG_UB attribute missing");
  int tag_ub = *(int *)attr;
  CHECK_MSG(tag_ub >= 32767, "MPI_TAG_UB is %d, the standard requires at least 32767", tag_ub);
  /* The largest legal tag really works. */
  int out = 99, in = -1;
  MPI_Status st;
  CHECK_MPI(MPI_Sendrecv(&out, 1, MPI_INT, rank, tag_ub, &in, 1, MPI_INT, rank, tag_ub,
                         MPI_COMM_WORLD, &st));
  CHECK_INT(in, ==, 99);
  CHECK_INT(st.MPI_TAG, ==, tag_ub);

  int version = -1, subversion = -1;
  CHECK_MPI(MPI_Get_version(&version, &subversion));
  CHECK_MSG(version >= 3 && subversion >= 0, "MPI_Get_version says %d.%d", version, subversion);
  CHECK_INT(version, ==, MPI_VERSION);
  CHECK_INT(subversion, ==, MPI_SUBVERSION);
  char lib[MPI_MAX_LIBRARY_VERSION_STRING];
  CHECK_MPI(MPI_Get_library_version(lib, &len));
  /* Open MPI counts the terminating NUL in len; either reading is accepted. */
  CHECK_MSG(len > 0 && len <= MPI_MAX_LIBRARY_VERSION_STRING &&
                ((int)strlen(lib) == len || (int)strlen(lib) == len - 1),
            "library version string: len %d, strlen %zu", len, strlen(lib));

  if (rank == 0)
    printf("job_env: %d ranks, thread level %d (requested %d), host %s, tag_ub %d, wtick %g, "
           "MPI %d.%d, %s\n", size, provided, requested, name, tag_ub, tick, version, subversion,
           lib);
  jobs_done("job_env");
  CHECK_MPI(MPI_Finalize());
  flag = 0;
  MPI_Finalized(&flag);
  if (!flag) {
    fprintf(stderr, "[rank %d] FAIL: MPI_Finalized says 0 after MPI_Finalize\n", rank);
    return 1;
  }
  MPI_Initialized(&flag);
  if (!flag) {
    fprintf(stderr, "[rank %d] FAIL: MPI_Initialized says 0 after MPI_Finalize\n", rank);
    return 1;
  }
  return 0;
}
