/* Intercommunicators: MPI_Intercomm_create between the lower and upper halves of the job
 * (leaders talk through MPI_COMM_WORLD), point-to-point both ways (specific and wildcard
 * sources, eager and rendezvous sizes), remote size and group, duplication, MPI_Comm_split
 * and MPI_Comm_create of an intercommunicator, and MPI_Intercomm_merge in both orders.
 * Needs 2 ranks or more. */
#include "jobs_util.h"

static int rank_, size_;

static void check_p2p(MPI_Comm inter, int lower, int lsize, int rsize, int lrank, int seed) {
  /* Every local rank sends to remote rank lrank % rsize; receivers take one message per sender
   * addressed to them, from any source. */
  const int big = 300000;
  unsigned char *out = jobs_malloc(big), *in = jobs_malloc(big);
  int dest = lrank % rsize;
  jobs_fill(out, big, (uint64_t)(seed + 100 * lower + lrank));
  MPI_Request sreq[2];
  CHECK_MPI(MPI_Isend(&lrank, 1, MPI_INT, dest, 10, inter, &sreq[0]));
  CHECK_MPI(MPI_Isend(out, big, MPI_BYTE, dest, 11, inter, &sreq[1]));
  int expected = 0;
  for (int r = 0; r < rsize; ++r)
    if (r % lsize == lrank) ++expected;
  for (int k = 0; k < expected; ++k) {
    int who = -1;
    MPI_Status st;
    CHECK_MPI(MPI_Recv(&who, 1, MPI_INT, MPI_ANY_SOURCE, 10, inter, &st));
    CHECK_INT(st.MPI_SOURCE, ==, who);
    CHECK_INT(who % lsize, ==, lrank);
    CHECK_MPI(MPI_Recv(in, big, MPI_BYTE, who, 11, inter, &st));
    CHECK_PATTERN(in, big, (uint64_t)(seed + 100 * !lower + who), "intercommunicator message");
  }
  CHECK_MPI(MPI_Waitall(2, sreq, MPI_STATUSES_IGNORE));
  free(out);
  free(in);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank_);
  MPI_Comm_size(MPI_COMM_WORLD, &size_);
  if (size_ < 2) {
    jobs_done("job_comm_inter (skipped: needs 2 ranks)");
    MPI_Finalize();
    return 0;
  }
  const int half = size_ / 2;
  const int lower = rank_ < half;
  MPI_Comm local, inter;
  CHECK_MPI(MPI_Comm_split(MPI_COMM_WORLD, lower, rank_, &local));
  int lrank = -1, lsize = -1;
  CHECK_MPI(MPI_Comm_rank(local, &lrank));
  CHECK_MPI(MPI_Comm_size(local, &lsize));
  /* Leaders: world rank 0 for the lower half, world rank `half` for the upper half. */
  CHECK_MPI(MPI_Intercomm_create(local, 0, MPI_COMM_WORLD, lower ? half : 0, 1234, &inter));
  int flag = 0, rsize = -1, isize = -1, irank = -1;
  CHECK_MPI(MPI_Comm_test_inter(inter, &flag));
  CHECK_INT(flag, ==, 1);
  CHECK_MPI(MPI_Comm_remote_size(inter, &rsize));
  CHECK_MPI(MPI_Comm_size(inter, &isize));
  CHECK_MPI(MPI_Comm_rank(inter, &irank));
  CHECK_INT(isize, ==, lsize);
  CHECK_INT(irank, ==, lrank);
  CHECK_INT(rsize, ==, size_ - lsize);
  MPI_Group rg, wg;
  CHECK_MPI(MPI_Comm_remote_group(inter, &rg));
  CHECK_MPI(MPI_Comm_group(MPI_COMM_WORLD, &wg));
  int zero = 0, w0 = -1;
  CHECK_MPI(MPI_Group_translate_ranks(rg, 1, &zero, wg, &w0));
  CHECK_INT(w0, ==, lower ? half : 0);
  CHECK_MPI(MPI_Group_free(&rg));
  CHECK_MPI(MPI_Group_free(&wg));

  check_p2p(inter, lower, lsize, rsize, lrank, 1);
  /* A duplicate carries its own traffic. */
  MPI_Comm dup;
  CHECK_MPI(MPI_Comm_dup(inter, &dup));
  CHECK_MPI(MPI_Comm_test_inter(dup, &flag));
  CHECK_INT(flag, ==, 1);
  int cmp = -1;
  CHECK_MPI(MPI_Comm_compare(inter, dup, &cmp));
  CHECK_INT(cmp, ==, MPI_CONGRUENT);
  check_p2p(dup, lower, lsize, rsize, lrank, 2);

  /* Merge: the group passing high = 0 comes first. Lower half says high, so it goes last. */
  MPI_Comm merged;
  CHECK_MPI(MPI_Intercomm_merge(inter, lower, &merged));
  int mrank = -1, msize = -1;
  CHECK_MPI(MPI_Comm_rank(merged, &mrank));
  CHECK_MPI(MPI_Comm_size(merged, &msize));
  CHECK_INT(msize, ==, size_);
  CHECK_INT(mrank, ==, lower ? (size_ - half) + lrank : lrank);
  int sum = 0;
  CHECK_MPI(MPI_Allreduce(&mrank, &sum, 1, MPI_INT, MPI_SUM, merged));
  CHECK_INT(sum, ==, size_ * (size_ - 1) / 2);
  CHECK_MPI(MPI_Comm_free(&merged));
  CHECK_MPI(MPI_Intercomm_merge(dup, !lower, &merged));
  CHECK_MPI(MPI_Comm_rank(merged, &mrank));
  CHECK_INT(mrank, ==, rank_);
  CHECK_MPI(MPI_Comm_free(&merged));

  /* Split of an intercommunicator: color = local rank parity; a color present on one side
   * only gives MPI_COMM_NULL. */
  MPI_Comm sub;
  CHECK_MPI(MPI_Comm_split(inter, lrank % 2, lrank, &sub));
  int remote_has_color = (lrank % 2) < rsize;
  if (!remote_has_color) {
    CHECK(sub == MPI_COMM_NULL);
  } else {
    CHECK(sub != MPI_COMM_NULL);
    int ssize = -1, srsize = -1, srank = -1;
    CHECK_MPI(MPI_Comm_size(sub, &ssize));
    CHECK_MPI(MPI_Comm_remote_size(sub, &srsize));
    CHECK_MPI(MPI_Comm_rank(sub, &srank));
    CHECK_INT(ssize, ==, (lsize + 1 - lrank % 2) / 2);
    CHECK_INT(srsize, ==, (rsize + 1 - lrank % 2) / 2);
    CHECK_INT(srank, ==, lrank / 2);
    /* Each rank exchanges with the remote rank of the same index, if there is one. */
    if (srank < srsize) {
      int got = -1, mine = 1000 * lower + srank;
      CHECK_MPI(MPI_Sendrecv(&mine, 1, MPI_INT, srank, 3, &got, 1, MPI_INT, srank, 3, sub,
                             MPI_STATUS_IGNORE));
      CHECK_INT(got, ==, 1000 * !lower + srank);
    }
    CHECK_MPI(MPI_Comm_free(&sub));
  }

  /* MPI_Comm_create on an intercommunicator: each side keeps its local rank 0 only. */
  MPI_Group lg, first;
  CHECK_MPI(MPI_Comm_group(inter, &lg));
  CHECK_MPI(MPI_Group_incl(lg, 1, &zero, &first));
  CHECK_MPI(MPI_Comm_create(inter, first, &sub));
  if (lrank == 0) {
    CHECK(sub != MPI_COMM_NULL);
    int got = -1;
    CHECK_MPI(MPI_Sendrecv(&rank_, 1, MPI_INT, 0, 4, &got, 1, MPI_INT, 0, 4, sub,
                           MPI_STATUS_IGNORE));
    CHECK_INT(got, ==, lower ? half : 0);
    CHECK_MPI(MPI_Comm_free(&sub));
  } else {
    CHECK(sub == MPI_COMM_NULL);
  }
  CHECK_MPI(MPI_Group_free(&first));
  CHECK_MPI(MPI_Group_free(&lg));

  /* An invalid remote rank is an error, not a crash. */
  CHECK_MPI(MPI_Comm_set_errhandler(inter, MPI_ERRORS_RETURN));
  CHECK_ERR_CLASS(MPI_Send(&rank_, 1, MPI_INT, rsize, 0, inter), MPI_ERR_RANK);

  CHECK_MPI(MPI_Comm_free(&dup));
  CHECK_MPI(MPI_Comm_free(&inter));
  CHECK_MPI(MPI_Comm_free(&local));
  jobs_done("job_comm_inter");
  MPI_Finalize();
  return 0;
}
