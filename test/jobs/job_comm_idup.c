/* MPI_Comm_idup and MPI_Comm_idup_with_info: several duplications of MPI_COMM_WORLD
 * outstanding at once (with a nonblocking collective on WORLD between them) completed in
 * reverse order, each a working communicator isolated from the others and from WORLD; an
 * intercommunicator's idup (2 ranks or more); idup_with_info's hint read back with
 * MPI_Comm_get_info; attributes copied by their callbacks; MPI_Comm_split_type with
 * MPI_COMM_TYPE_HW_GUIDED (mpi_shared_memory: the node, an unknown type: MPI_COMM_NULL) and
 * MPI_COMM_TYPE_HW_UNGUIDED (strictly smaller than its input, or MPI_COMM_NULL); duplications
 * of different communicators started in different orders by different ranks; an idup that
 * some ranks start before and others after a blocking communicator creation. */
#include "jobs_util.h"

enum { kDups = 4 };

static int rank_, size_;

/* Each communicator gets a ring exchange and an allreduce of its own, tagged by `which`. */
static void use(MPI_Comm c, int which) {
  int r, n;
  CHECK_MPI(MPI_Comm_rank(c, &r));
  CHECK_MPI(MPI_Comm_size(c, &n));
  int out = which * 1000 + r, in = -1;
  CHECK_MPI(MPI_Sendrecv(&out, 1, MPI_INT, (r + 1) % n, which, &in, 1, MPI_INT, (r + n - 1) % n,
                         which, c, MPI_STATUS_IGNORE));
  CHECK_INT(in, ==, which * 1000 + (r + n - 1) % n);
  int sum = 0;
  CHECK_MPI(MPI_Allreduce(&which, &sum, 1, MPI_INT, MPI_SUM, c));
  CHECK_INT(sum, ==, which * n);
}

static int copies_;
static int copy_fn(MPI_Comm c, int key, void *extra, void *in, void *out, int *flag) {
  (void)c, (void)key, (void)extra;
  ++copies_;
  *(void **)out = in;
  *flag = 1;
  return MPI_SUCCESS;
}

static void idup_world(void) {
  int key;
  static int value = 17;
  CHECK_MPI(MPI_Comm_create_keyval(copy_fn, MPI_COMM_NULL_DELETE_FN, &key, NULL));
  CHECK_MPI(MPI_Comm_set_attr(MPI_COMM_WORLD, key, &value));
  MPI_Comm dups[kDups];
  MPI_Request reqs[kDups + 1];
  int x = rank_ + 1, sum = 0;
  for (int k = 0; k < kDups; ++k) {
    dups[k] = MPI_COMM_NULL;
    CHECK_MPI(MPI_Comm_idup(MPI_COMM_WORLD, &dups[k], &reqs[k]));
    if (k == 1)
      CHECK_MPI(MPI_Iallreduce(&x, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &reqs[kDups]));
  }
  /* Reverse order, the allreduce in the middle. */
  CHECK_MPI(MPI_Wait(&reqs[kDups - 1], MPI_STATUS_IGNORE));
  CHECK_MPI(MPI_Wait(&reqs[kDups], MPI_STATUS_IGNORE));
  for (int k = kDups - 2; k >= 0; --k) CHECK_MPI(MPI_Wait(&reqs[k], MPI_STATUS_IGNORE));
  CHECK_INT(sum, ==, size_ * (size_ + 1) / 2);
  for (int k = 0; k < kDups; ++k) {
    CHECK_MSG(dups[k] != MPI_COMM_NULL, "idup %d left MPI_COMM_NULL", k);
    int cmp;
    CHECK_MPI(MPI_Comm_compare(dups[k], MPI_COMM_WORLD, &cmp));
    CHECK_INT(cmp, ==, MPI_CONGRUENT);
    for (int j = 0; j < k; ++j) {
      CHECK_MPI(MPI_Comm_compare(dups[k], dups[j], &cmp));
      CHECK_INT(cmp, ==, MPI_CONGRUENT);
    }
    void *v = NULL;
    int flag = 0;
    CHECK_MPI(MPI_Comm_get_attr(dups[k], key, &v, &flag));
    CHECK_MSG(flag && v == &value, "idup %d: attribute not copied", k);
  }
  CHECK_INT(copies_, ==, kDups);
  /* Messages on different duplicates never mix: post receives on all, send in reverse. */
  int in[kDups], out[kDups];
  MPI_Request rr[kDups], sr[kDups];
  const int right = (rank_ + 1) % size_, left = (rank_ + size_ - 1) % size_;
  for (int k = 0; k < kDups; ++k)
    CHECK_MPI(MPI_Irecv(&in[k], 1, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, dups[k], &rr[k]));
  for (int k = kDups - 1; k >= 0; --k) {
    out[k] = 100 * k + rank_;
    CHECK_MPI(MPI_Isend(&out[k], 1, MPI_INT, right, 0, dups[k], &sr[k]));
  }
  CHECK_MPI(MPI_Waitall(kDups, sr, MPI_STATUSES_IGNORE));
  CHECK_MPI(MPI_Waitall(kDups, rr, MPI_STATUSES_IGNORE));
  for (int k = 0; k < kDups; ++k) CHECK_INT(in[k], ==, 100 * k + left);
  for (int k = 0; k < kDups; ++k) use(dups[k], k + 1);
  for (int k = 0; k < kDups; ++k) CHECK_MPI(MPI_Comm_free(&dups[k]));
  CHECK_MPI(MPI_Comm_delete_attr(MPI_COMM_WORLD, key));
  CHECK_MPI(MPI_Comm_free_keyval(&key));
}

static void idup_info(void) {
  MPI_Info info;
  CHECK_MPI(MPI_Info_create(&info));
  CHECK_MPI(MPI_Info_set(info, "mpi_assert_no_any_tag", "true"));
  MPI_Comm c = MPI_COMM_NULL;
  MPI_Request req;
  CHECK_MPI(MPI_Comm_idup_with_info(MPI_COMM_WORLD, info, &c, &req));
  CHECK_MPI(MPI_Info_free(&info)); /* the hints were taken at the call */
  int flag = 0;
  while (!flag) CHECK_MPI(MPI_Test(&req, &flag, MPI_STATUS_IGNORE));
  MPI_Info used;
  char value[MPI_MAX_INFO_VAL + 1] = "";
  CHECK_MPI(MPI_Comm_get_info(c, &used));
  CHECK_MPI(MPI_Info_get(used, "mpi_assert_no_any_tag", MPI_MAX_INFO_VAL, value, &flag));
  CHECK_MSG(flag && strcmp(value, "true") == 0, "hint read back: flag %d value '%s'", flag, value);
  CHECK_MPI(MPI_Info_free(&used));
  use(c, 7);
  CHECK_MPI(MPI_Comm_free(&c));
}

static void idup_inter(void) {
  const int a = (size_ + 1) / 3 > 0 ? (size_ + 1) / 3 : 1, g = rank_ >= a;
  MPI_Comm local, ic, d[2];
  MPI_Request reqs[2];
  CHECK_MPI(MPI_Comm_split(MPI_COMM_WORLD, g, rank_, &local));
  CHECK_MPI(MPI_Intercomm_create(local, 0, MPI_COMM_WORLD, g ? 0 : a, 5, &ic));
  CHECK_MPI(MPI_Comm_idup(ic, &d[0], &reqs[0]));
  CHECK_MPI(MPI_Comm_idup(ic, &d[1], &reqs[1]));
  CHECK_MPI(MPI_Wait(&reqs[1], MPI_STATUS_IGNORE));
  CHECK_MPI(MPI_Wait(&reqs[0], MPI_STATUS_IGNORE));
  int lr, n, m;
  CHECK_MPI(MPI_Comm_rank(ic, &lr));
  CHECK_MPI(MPI_Comm_size(ic, &n));
  CHECK_MPI(MPI_Comm_remote_size(ic, &m));
  for (int k = 0; k < 2; ++k) {
    int flag = 0, rs = -1, cmp;
    CHECK_MPI(MPI_Comm_test_inter(d[k], &flag));
    CHECK_INT(flag, ==, 1);
    CHECK_MPI(MPI_Comm_remote_size(d[k], &rs));
    CHECK_INT(rs, ==, m);
    CHECK_MPI(MPI_Comm_compare(d[k], ic, &cmp));
    CHECK_INT(cmp, ==, MPI_CONGRUENT);
    /* Point-to-point with the remote rank of the same index, and an intercommunicator
     * allreduce. */
    if (lr < n && lr < m) {
      int out = 10 * k + lr, in = -1;
      CHECK_MPI(MPI_Sendrecv(&out, 1, MPI_INT, lr, 3, &in, 1, MPI_INT, lr, 3, d[k],
                             MPI_STATUS_IGNORE));
      CHECK_INT(in, ==, 10 * k + lr);
    }
    int x = 1, sum = 0;
    CHECK_MPI(MPI_Allreduce(&x, &sum, 1, MPI_INT, MPI_SUM, d[k]));
    CHECK_INT(sum, ==, m);
  }
  CHECK_MPI(MPI_Comm_free(&d[0]));
  CHECK_MPI(MPI_Comm_free(&d[1]));
  CHECK_MPI(MPI_Comm_free(&ic));
  CHECK_MPI(MPI_Comm_free(&local));
}

static void split_hw(void) {
  MPI_Comm shared, guided, unknown, unguided;
  CHECK_MPI(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, rank_, MPI_INFO_NULL,
                                &shared));
  MPI_Info info;
  CHECK_MPI(MPI_Info_create(&info));
  CHECK_MPI(MPI_Info_set(info, "mpi_hw_resource_type", "mpi_shared_memory"));
  CHECK_MPI(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_HW_GUIDED, rank_, info, &guided));
  CHECK_MSG(guided != MPI_COMM_NULL, "HW_GUIDED with mpi_shared_memory gave MPI_COMM_NULL");
  int cmp;
  CHECK_MPI(MPI_Comm_compare(guided, shared, &cmp));
  CHECK_INT(cmp, ==, MPI_CONGRUENT);
  CHECK_MPI(MPI_Info_set(info, "mpi_hw_resource_type", "no_such_resource"));
  CHECK_MPI(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_HW_GUIDED, rank_, info, &unknown));
  CHECK_MSG(unknown == MPI_COMM_NULL, "HW_GUIDED with an unknown resource type gave a comm");
  CHECK_MPI(MPI_Info_free(&info));
  CHECK_MPI(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_HW_UNGUIDED, rank_, MPI_INFO_NULL,
                                &unguided));
  int shared_size;
  CHECK_MPI(MPI_Comm_size(shared, &shared_size));
  if (unguided != MPI_COMM_NULL) {
    int n;
    CHECK_MPI(MPI_Comm_size(unguided, &n));
    CHECK_MSG(n < size_, "HW_UNGUIDED gave %d ranks of %d (must be strictly smaller)", n, size_);
    CHECK_MPI(MPI_Comm_compare(unguided, shared, &cmp));
    CHECK_INT(cmp, ==, MPI_CONGRUENT);
    MPI_Info used;
    char value[MPI_MAX_INFO_VAL + 1] = "";
    int flag = 0;
    CHECK_MPI(MPI_Comm_get_info(unguided, &used));
    CHECK_MPI(MPI_Info_get(used, "mpi_hw_resource_type", MPI_MAX_INFO_VAL, value, &flag));
    CHECK_MSG(flag && strcmp(value, "mpi_shared_memory") == 0, "resource type '%s'", value);
    CHECK_MPI(MPI_Info_free(&used));
    CHECK_MPI(MPI_Comm_free(&unguided));
  } else {
    /* All of the job on one node: no smaller hardware domain. */
    CHECK_INT(shared_size, ==, size_);
  }
  CHECK_MPI(MPI_Comm_free(&guided));
  CHECK_MPI(MPI_Comm_free(&shared));
}

/* Duplications of different communicators started in different orders (allowed: they are
 * collectives on different communicators): even ranks duplicate WORLD, then a copy of it, then
 * the halves of a split; odd ranks the other way round; then a blocking MPI_Comm_dup while
 * they are outstanding. Each agreement must still reach a context id no member uses, and the
 * copies work and are isolated. */
static void idup_crossed(void) {
  MPI_Comm copy, half, d[3];
  MPI_Request reqs[3];
  CHECK_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &copy));
  CHECK_MPI(MPI_Comm_split(MPI_COMM_WORLD, rank_ < size_ / 2, rank_, &half));
  MPI_Comm parents[3] = {MPI_COMM_WORLD, copy, half};
  for (int round = 0; round < 3; ++round) {
    for (int k = 0; k < 3; ++k) {
      int which = rank_ % 2 ? 2 - k : k;
      CHECK_MPI(MPI_Comm_idup(parents[which], &d[which], &reqs[which]));
    }
    /* A blocking duplication while they are outstanding must wait for them, not fail. */
    MPI_Comm blocking;
    CHECK_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &blocking));
    CHECK_MPI(MPI_Waitall(3, reqs, MPI_STATUSES_IGNORE));
    use(blocking, 30 + round);
    CHECK_MPI(MPI_Comm_free(&blocking));
    for (int k = 0; k < 3; ++k) {
      int cmp;
      CHECK_MPI(MPI_Comm_compare(d[k], parents[k], &cmp));
      CHECK_INT(cmp, ==, MPI_CONGRUENT);
    }
    for (int k = 0; k < 3; ++k) use(d[k], 10 + round * 3 + k);
    for (int k = 0; k < 3; ++k) CHECK_MPI(MPI_Comm_free(&d[k]));
  }
  CHECK_MPI(MPI_Comm_free(&half));
  CHECK_MPI(MPI_Comm_free(&copy));
}

/* An idup outstanding while its parent's members are in a blocking creation that the idup
 * cannot finish before: even ranks create a communicator (MPI_Comm_create_group, then
 * MPI_Comm_dup) and only then start the idup, odd ranks start the idup first. The blocking
 * calls must complete although the odd ranks' idup is waiting for the even ranks. Also after
 * many communicators exist, so the context ids idups could offer are not the only ones left. */
static void idup_before_blocking(void) {
  MPI_Group world;
  CHECK_MPI(MPI_Comm_group(MPI_COMM_WORLD, &world));
  enum { kLive = 80 };
  MPI_Comm live[kLive];
  for (int round = 0; round < 2; ++round) {
    if (round == 1)
      for (int i = 0; i < kLive; ++i) CHECK_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &live[i]));
    MPI_Comm grp, dup, idup;
    MPI_Request req;
    if (rank_ % 2 == 0) {
      CHECK_MPI(MPI_Comm_create_group(MPI_COMM_WORLD, world, 7, &grp));
      CHECK_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &dup));
      CHECK_MPI(MPI_Comm_idup(MPI_COMM_WORLD, &idup, &req));
    } else {
      CHECK_MPI(MPI_Comm_idup(MPI_COMM_WORLD, &idup, &req));
      CHECK_MPI(MPI_Comm_create_group(MPI_COMM_WORLD, world, 7, &grp));
      CHECK_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &dup));
    }
    CHECK_MPI(MPI_Wait(&req, MPI_STATUS_IGNORE));
    use(grp, 40 + round);
    use(dup, 42 + round);
    use(idup, 44 + round);
    CHECK_MPI(MPI_Comm_free(&grp));
    CHECK_MPI(MPI_Comm_free(&dup));
    CHECK_MPI(MPI_Comm_free(&idup));
    if (round == 1)
      for (int i = 0; i < kLive; ++i) CHECK_MPI(MPI_Comm_free(&live[i]));
  }
  CHECK_MPI(MPI_Group_free(&world));
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank_);
  MPI_Comm_size(MPI_COMM_WORLD, &size_);
  idup_world();
  idup_info();
  if (size_ >= 2) idup_inter();
  idup_crossed();
  idup_before_blocking();
  split_hw();
  jobs_done("job_comm_idup");
  MPI_Finalize();
  return 0;
}
