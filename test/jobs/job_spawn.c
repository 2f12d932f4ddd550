/* MPI_Comm_spawn and MPI_Comm_spawn_multiple, from every rank count the manifest gives: the
 * program spawns copies of itself (argv[1] = "child"). The children see their parents through
 * MPI_Comm_get_parent (MPI_COMM_NULL in the parents), with the right sizes; a broadcast from the
 * parents' root and point-to-point both ways carry the right bytes; the merged communicator of
 * parents and children runs an allreduce; the children's MPI_COMM_WORLD is their own. Spawning
 * from MPI_COMM_SELF on every rank at once gives each rank children of its own. Spawn_multiple
 * starts two programs (the second gets other arguments) whose MPI_APPNUM says which.
 * MPI_Comm_disconnect ends each link; afterwards MPI_Comm_get_parent is MPI_COMM_NULL. Spawning
 * a program that does not exist fails with MPI_ERR_SPAWN and leaves the job running. */
#include <stdlib.h>
#include <string.h>

#include "jobs_util.h"

static int rank_, size_;

/* What every child does: check its world and parent, take part in the parents' exchange, then
 * disconnect. `expect_world` is its MPI_COMM_WORLD's size; the tag says which test spawned it. */
static int child(int argc, char** argv) {
  MPI_Comm parent;
  int wsize, wrank, psize, lsize, is_inter;
  CHECK_MPI(MPI_Comm_get_parent(&parent));
  CHECK(parent != MPI_COMM_NULL);
  CHECK_MPI(MPI_Comm_size(MPI_COMM_WORLD, &wsize));
  CHECK_MPI(MPI_Comm_rank(MPI_COMM_WORLD, &wrank));
  CHECK_MPI(MPI_Comm_test_inter(parent, &is_inter));
  CHECK(is_inter);
  CHECK_MPI(MPI_Comm_remote_size(parent, &psize));
  CHECK_MPI(MPI_Comm_size(parent, &lsize));
  CHECK_INT(lsize, ==, wsize);
  const int expect_world = argc > 2 ? atoi(argv[2]) : -1;
  const int expect_parents = argc > 3 ? atoi(argv[3]) : -1;
  CHECK_INT(wsize, ==, expect_world);
  CHECK_INT(psize, ==, expect_parents);
  /* Spawned by the parents' mprun (namespace "<parents' namespace>.<n>", not a singleton's own
   * mprun): the universe holds the parents as well, so a child that compares MPI_UNIVERSE_SIZE
   * with its world size sees it is not alone. */
  const char* ns = getenv("PMIX_NAMESPACE");
  const char* dot = ns ? strchr(ns, '.') : NULL;
  if (dot && strchr(dot + 1, '.')) {
    int* universe = NULL;
    int uflag = 0;
    CHECK_MPI(MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_UNIVERSE_SIZE, &universe, &uflag));
    CHECK(uflag);
    if (uflag) CHECK_INT(*universe, >=, wsize + psize);
  }
  if (argc > 4) { /* spawn_multiple: which program this is */
    int *appnum = NULL, flag = 0;
    CHECK_MPI(MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_APPNUM, &appnum, &flag));
    CHECK(flag);
    CHECK_INT(*appnum, ==, atoi(argv[4]));
  }
  /* The parents' root broadcasts; each child answers its rank to parent 0 and gets it back
   * doubled. */
  long word = 0;
  CHECK_MPI(MPI_Bcast(&word, 1, MPI_LONG, 0, parent));
  CHECK_INT(word, ==, 0x5eed5eedL);
  int v = wrank;
  CHECK_MPI(MPI_Send(&v, 1, MPI_INT, 0, 3, parent));
  CHECK_MPI(MPI_Recv(&v, 1, MPI_INT, 0, 4, parent, MPI_STATUS_IGNORE));
  CHECK_INT(v, ==, 2 * wrank);
  /* Everyone, parents first. */
  MPI_Comm all;
  int arank, asize, sum = 0;
  CHECK_MPI(MPI_Intercomm_merge(parent, 1, &all));
  CHECK_MPI(MPI_Comm_size(all, &asize));
  CHECK_MPI(MPI_Comm_rank(all, &arank));
  CHECK_INT(asize, ==, wsize + psize);
  CHECK_INT(arank, ==, psize + wrank);
  CHECK_MPI(MPI_Allreduce(&arank, &sum, 1, MPI_INT, MPI_SUM, all));
  CHECK_INT(sum, ==, asize * (asize - 1) / 2);
  CHECK_MPI(MPI_Comm_free(&all));
  CHECK_MPI(MPI_Comm_disconnect(&parent));
  CHECK_MPI(MPI_Comm_get_parent(&parent));
  CHECK(parent == MPI_COMM_NULL);
  CHECK_MPI(MPI_Finalize());
  return 0;
}

/* The parents' side of what child() does, over `inter` (local group `comm`). */
static void talk_to_children(MPI_Comm comm, MPI_Comm inter, int nchildren) {
  int lsize, rsize, lrank;
  CHECK_MPI(MPI_Comm_size(inter, &lsize));
  CHECK_MPI(MPI_Comm_remote_size(inter, &rsize));
  CHECK_MPI(MPI_Comm_rank(inter, &lrank));
  int csize;
  CHECK_MPI(MPI_Comm_size(comm, &csize));
  CHECK_INT(lsize, ==, csize);
  CHECK_INT(rsize, ==, nchildren);
  long word = 0x5eed5eedL;
  CHECK_MPI(MPI_Bcast(&word, 1, MPI_LONG, lrank == 0 ? MPI_ROOT : MPI_PROC_NULL, inter));
  if (lrank == 0) {
    for (int i = 0; i < rsize; ++i) {
      int v = -1;
      MPI_Status st;
      CHECK_MPI(MPI_Recv(&v, 1, MPI_INT, MPI_ANY_SOURCE, 3, inter, &st));
      CHECK_INT(v, ==, st.MPI_SOURCE);
      v *= 2;
      CHECK_MPI(MPI_Send(&v, 1, MPI_INT, st.MPI_SOURCE, 4, inter));
    }
  }
  MPI_Comm all;
  int arank, asize, sum = 0;
  CHECK_MPI(MPI_Intercomm_merge(inter, 0, &all));
  CHECK_MPI(MPI_Comm_size(all, &asize));
  CHECK_MPI(MPI_Comm_rank(all, &arank));
  CHECK_INT(asize, ==, csize + rsize);
  CHECK_INT(arank, ==, lrank);
  CHECK_MPI(MPI_Allreduce(&arank, &sum, 1, MPI_INT, MPI_SUM, all));
  CHECK_INT(sum, ==, asize * (asize - 1) / 2);
  CHECK_MPI(MPI_Comm_free(&all));
  CHECK_MPI(MPI_Comm_disconnect(&inter));
  CHECK(inter == MPI_COMM_NULL);
}

static void check_spawn(const char* self, MPI_Comm comm, int nchildren) {
  int csize;
  CHECK_MPI(MPI_Comm_size(comm, &csize));
  char world[16], parents[16];
  snprintf(world, sizeof world, "%d", nchildren);
  snprintf(parents, sizeof parents, "%d", csize);
  char* args[] = {"child", world, parents, NULL};
  int* errcodes = jobs_malloc(sizeof(int) * (size_t)nchildren);
  for (int i = 0; i < nchildren; ++i) errcodes[i] = -1;
  MPI_Comm inter;
  CHECK_MPI(MPI_Comm_spawn(self, args, nchildren, MPI_INFO_NULL, 0, comm, &inter, errcodes));
  for (int i = 0; i < nchildren; ++i) CHECK_INT(errcodes[i], ==, MPI_SUCCESS);
  free(errcodes);
  talk_to_children(comm, inter, nchildren);
}

static void check_spawn_multiple(const char* self) {
  char world[16], parents[16];
  snprintf(world, sizeof world, "%d", 3);
  snprintf(parents, sizeof parents, "%d", size_);
  char* args0[] = {"child", world, parents, "0", NULL};
  char* args1[] = {"child", world, parents, "1", NULL};
  char* cmds[] = {(char*)self, (char*)self};
  char** argvs[] = {args0, args1};
  int maxprocs[] = {1, 2};
  MPI_Info infos[] = {MPI_INFO_NULL, MPI_INFO_NULL};
  int errcodes[3] = {-1, -1, -1};
  MPI_Comm inter;
  CHECK_MPI(MPI_Comm_spawn_multiple(2, cmds, argvs, maxprocs, infos, 0, MPI_COMM_WORLD, &inter,
                                    errcodes));
  for (int i = 0; i < 3; ++i) CHECK_INT(errcodes[i], ==, MPI_SUCCESS);
  talk_to_children(MPI_COMM_WORLD, inter, 3);
}

static void check_bad_command(void) {
  MPI_Comm inter = MPI_COMM_WORLD;
  int errcode = -1;
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  CHECK_ERR_CLASS(MPI_Comm_spawn("./no-such-program-here", MPI_ARGV_NULL, 1, MPI_INFO_NULL, 0,
                                 MPI_COMM_WORLD, &inter, &errcode),
                  MPI_ERR_SPAWN);
  CHECK(inter == MPI_COMM_NULL);
  if (rank_ == 0) {
    int cls = -1;
    CHECK_MPI(MPI_Error_class(errcode, &cls));
    CHECK_INT(cls, ==, MPI_ERR_SPAWN);
  }
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
}

int main(int argc, char** argv) {
  CHECK_MPI(MPI_Init(&argc, &argv));
  if (argc > 1 && strcmp(argv[1], "child") == 0) return child(argc, argv);
  CHECK_MPI(MPI_Comm_rank(MPI_COMM_WORLD, &rank_));
  CHECK_MPI(MPI_Comm_size(MPI_COMM_WORLD, &size_));
  MPI_Comm parent;
  CHECK_MPI(MPI_Comm_get_parent(&parent));
  CHECK(parent == MPI_COMM_NULL);
  check_spawn(argv[0], MPI_COMM_WORLD, 2);
  check_spawn(argv[0], MPI_COMM_SELF, 1); /* every rank at once */
  check_spawn_multiple(argv[0]);
  check_bad_command();
  CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
  jobs_done("job_spawn");
  CHECK_MPI(MPI_Finalize());
  return 0;
}
