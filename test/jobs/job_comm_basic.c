/* Communicators: isolation (the same tag on several communicators never crosses, even for
 * wildcard receives), split (parity colors, reversed keys, MPI_UNDEFINED), split_type shared,
 * create (even ranks, and disjoint groups in one call), create_group, groups of communicators,
 * compare, names, error-handler inheritance, and context ids recycled over thousands of
 * dup/free cycles. */
#include "jobs_util.h"

static int rank_, size_;

/* Post wildcard receives on WORLD first, then send on the other communicators with the same
 * tag: every message must land on its own communicator. */
static void check_isolation(void) {
  MPI_Comm dup, split;
  CHECK_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &dup));
  CHECK_MPI(MPI_Comm_split(MPI_COMM_WORLD, 0, size_ - rank_, &split)); /* reversed order */
  int srank = -1;
  CHECK_MPI(MPI_Comm_rank(split, &srank));
  CHECK_INT(srank, ==, size_ - 1 - rank_);
  const int tag = 42;
  int next = (rank_ + 1) % size_, prev = (rank_ + size_ - 1) % size_;
  int snext = (srank + 1) % size_, sprev = (srank + size_ - 1) % size_;
  int got_world = -1, got_dup = -1, got_split = -1;
  MPI_Request r[6];
  CHECK_MPI(MPI_Irecv(&got_world, 1, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &r[0]));
  CHECK_MPI(MPI_Irecv(&got_dup, 1, MPI_INT, MPI_ANY_SOURCE, tag, dup, &r[1]));
  CHECK_MPI(MPI_Irecv(&got_split, 1, MPI_INT, sprev, tag, split, &r[2]));
  int v_split = 3000 + srank, v_dup = 2000 + rank_, v_world = 1000 + rank_;
  /* Sent in the "wrong" order: split and dup before world. */
  CHECK_MPI(MPI_Isend(&v_split, 1, MPI_INT, snext, tag, split, &r[3]));
  CHECK_MPI(MPI_Isend(&v_dup, 1, MPI_INT, next, tag, dup, &r[4]));
  CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
  int flag = 0;
  MPI_Status st;
  CHECK_MPI(MPI_Test(&r[0], &flag, &st));
  CHECK_MSG(!flag, "a wildcard receive on MPI_COMM_WORLD matched a message of another "
                   "communicator");
  CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD)); /* nobody sends on MPI_COMM_WORLD before the test */
  CHECK_MPI(MPI_Isend(&v_world, 1, MPI_INT, next, tag, MPI_COMM_WORLD, &r[5]));
  CHECK_MPI(MPI_Waitall(6, r, MPI_STATUSES_IGNORE));
  CHECK_INT(got_world, ==, 1000 + prev);
  CHECK_INT(got_dup, ==, 2000 + prev);
  CHECK_INT(got_split, ==, 3000 + sprev);
  /* Probe on one communicator never sees another's message. */
  CHECK_MPI(MPI_Send(&v_dup, 1, MPI_INT, rank_, tag, dup));
  CHECK_MPI(MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &flag, &st));
  CHECK_MSG(!flag, "MPI_Iprobe on MPI_COMM_WORLD saw a message sent on a duplicate");
  CHECK_MPI(MPI_Recv(&got_dup, 1, MPI_INT, rank_, tag, dup, &st));
  int result = -1;
  CHECK_MPI(MPI_Comm_compare(MPI_COMM_WORLD, dup, &result));
  CHECK_INT(result, ==, MPI_CONGRUENT);
  CHECK_MPI(MPI_Comm_compare(MPI_COMM_WORLD, split, &result));
  CHECK_INT(result, ==, size_ == 1 ? MPI_CONGRUENT : MPI_SIMILAR);
  CHECK_MPI(MPI_Comm_compare(dup, dup, &result));
  CHECK_INT(result, ==, MPI_IDENT);
  CHECK_MPI(MPI_Comm_free(&dup));
  CHECK_MPI(MPI_Comm_free(&split));
  CHECK(dup == MPI_COMM_NULL && split == MPI_COMM_NULL);
}

static void check_split(void) {
  MPI_Comm half;
  int color = rank_ % 3 == 2 ? MPI_UNDEFINED : rank_ % 2;
  CHECK_MPI(MPI_Comm_split(MPI_COMM_WORLD, color, -rank_, &half));
  if (color == MPI_UNDEFINED) {
    CHECK(half == MPI_COMM_NULL);
    return;
  }
  /* Members: ranks with the same color, ordered by key -rank (so descending world rank). */
  int expect_size = 0, expect_rank = 0;
  for (int r = 0; r < size_; ++r) {
    int c = r % 3 == 2 ? MPI_UNDEFINED : r % 2;
    if (c != color) continue;
    ++expect_size;
    if (r > rank_) ++expect_rank;
  }
  int hs = -1, hr = -1;
  CHECK_MPI(MPI_Comm_size(half, &hs));
  CHECK_MPI(MPI_Comm_rank(half, &hr));
  CHECK_INT(hs, ==, expect_size);
  CHECK_INT(hr, ==, expect_rank);
  /* A collective and a ring on the new communicator. */
  int sum = 0, one = rank_;
  CHECK_MPI(MPI_Allreduce(&one, &sum, 1, MPI_INT, MPI_SUM, half));
  int expect_sum = 0;
  for (int r = 0; r < size_; ++r)
    if ((r % 3 == 2 ? MPI_UNDEFINED : r % 2) == color) expect_sum += r;
  CHECK_INT(sum, ==, expect_sum);
  int from = -1;
  MPI_Status st;
  CHECK_MPI(MPI_Sendrecv(&rank_, 1, MPI_INT, (hr + 1) % hs, 7, &from, 1, MPI_INT,
                         (hr + hs - 1) % hs, 7, half, &st));
  MPI_Group hg, wg;
  int trans = -1, prev_h = (hr + hs - 1) % hs;
  CHECK_MPI(MPI_Comm_group(half, &hg));
  CHECK_MPI(MPI_Comm_group(MPI_COMM_WORLD, &wg));
  CHECK_MPI(MPI_Group_translate_ranks(hg, 1, &prev_h, wg, &trans));
  CHECK_INT(from, ==, trans);
  CHECK_MPI(MPI_Group_free(&hg));
  CHECK_MPI(MPI_Group_free(&wg));
  CHECK_MPI(MPI_Comm_free(&half));
}

static void check_split_type(void) {
  MPI_Comm node;
  CHECK_MPI(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, rank_, MPI_INFO_NULL,
                                &node));
  int ns = -1, nr = -1;
  CHECK_MPI(MPI_Comm_size(node, &ns));
  CHECK_MPI(MPI_Comm_rank(node, &nr));
  /* The ranks on this node are those with this processor name (the jobs run on one node, or
   * across the two of the test cluster), ordered by world rank (the key). */
  char name[MPI_MAX_PROCESSOR_NAME] = {0};
  int len = 0;
  CHECK_MPI(MPI_Get_processor_name(name, &len));
  char *names = jobs_malloc((size_t)size_ * MPI_MAX_PROCESSOR_NAME);
  CHECK_MPI(MPI_Allgather(name, MPI_MAX_PROCESSOR_NAME, MPI_CHAR, names, MPI_MAX_PROCESSOR_NAME,
                          MPI_CHAR, MPI_COMM_WORLD));
  int expect_size = 0, expect_rank = 0;
  for (int r = 0; r < size_; ++r) {
    if (strcmp(names + (size_t)r * MPI_MAX_PROCESSOR_NAME, name) != 0) continue;
    ++expect_size;
    if (r < rank_) ++expect_rank;
  }
  free(names);
  CHECK_INT(ns, ==, expect_size);
  CHECK_INT(nr, ==, expect_rank);
  CHECK_MPI(MPI_Barrier(node));
  CHECK_MPI(MPI_Comm_free(&node));
  CHECK_MPI(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_UNDEFINED, 0, MPI_INFO_NULL, &node));
  CHECK(node == MPI_COMM_NULL);
}

static void check_create(void) {
  MPI_Group world, evens, odds, mine;
  CHECK_MPI(MPI_Comm_group(MPI_COMM_WORLD, &world));
  int ranges_even[1][3] = {{0, size_ - 1, 2}};
  CHECK_MPI(MPI_Group_range_incl(world, 1, ranges_even, &evens));
  CHECK_MPI(MPI_Group_difference(world, evens, &odds));
  int gs = -1;
  CHECK_MPI(MPI_Group_size(evens, &gs));
  CHECK_INT(gs, ==, (size_ + 1) / 2);
  /* Everybody passes the even group: only even ranks get a communicator. */
  MPI_Comm c;
  CHECK_MPI(MPI_Comm_create(MPI_COMM_WORLD, evens, &c));
  if (rank_ % 2 == 0) {
    int r = -1;
    CHECK(c != MPI_COMM_NULL);
    CHECK_MPI(MPI_Comm_rank(c, &r));
    CHECK_INT(r, ==, rank_ / 2);
    CHECK_MPI(MPI_Barrier(c));
    CHECK_MPI(MPI_Comm_free(&c));
  } else {
    CHECK(c == MPI_COMM_NULL);
  }
  /* Disjoint groups in one call: each process passes its own parity's group. */
  mine = rank_ % 2 == 0 ? evens : odds;
  CHECK_MPI(MPI_Comm_create(MPI_COMM_WORLD, mine, &c));
  CHECK(c != MPI_COMM_NULL);
  int cs = -1, mysize = -1;
  CHECK_MPI(MPI_Comm_size(c, &cs));
  CHECK_MPI(MPI_Group_size(mine, &mysize));
  CHECK_INT(cs, ==, mysize);
  int total = 0, one = 1;
  CHECK_MPI(MPI_Allreduce(&one, &total, 1, MPI_INT, MPI_SUM, c));
  CHECK_INT(total, ==, mysize);
  CHECK_MPI(MPI_Comm_free(&c));
  /* create_group: only the members call; the odd ones do something else meanwhile. */
  if (rank_ % 2 == 0) {
    CHECK_MPI(MPI_Comm_create_group(MPI_COMM_WORLD, evens, 99, &c));
    int r = -1, sum = 0;
    CHECK_MPI(MPI_Comm_rank(c, &r));
    CHECK_INT(r, ==, rank_ / 2);
    CHECK_MPI(MPI_Allreduce(&rank_, &sum, 1, MPI_INT, MPI_SUM, c));
    int expect = 0;
    for (int i = 0; i < size_; i += 2) expect += i;
    CHECK_INT(sum, ==, expect);
    CHECK_MPI(MPI_Comm_free(&c));
  } else {
    /* Reversed order of the odd group via incl. */
    int n = size_ / 2, ranks[8];
    for (int i = 0; i < n; ++i) ranks[i] = n - 1 - i;
    MPI_Group rev;
    CHECK_MPI(MPI_Group_incl(odds, n, ranks, &rev));
    CHECK_MPI(MPI_Comm_create_group(MPI_COMM_WORLD, rev, 5, &c));
    int r = -1;
    CHECK_MPI(MPI_Comm_rank(c, &r));
    CHECK_INT(r, ==, n - 1 - rank_ / 2);
    CHECK_MPI(MPI_Barrier(c));
    CHECK_MPI(MPI_Comm_free(&c));
    CHECK_MPI(MPI_Group_free(&rev));
  }
  int cmp = -1;
  CHECK_MPI(MPI_Group_compare(world, world, &cmp));
  CHECK_INT(cmp, ==, MPI_IDENT);
  MPI_Group u;
  CHECK_MPI(MPI_Group_union(odds, evens, &u));
  CHECK_MPI(MPI_Group_compare(u, world, &cmp));
  CHECK_INT(cmp, ==, size_ == 1 ? MPI_IDENT : MPI_SIMILAR);
  CHECK_MPI(MPI_Group_free(&u));
  CHECK_MPI(MPI_Group_free(&evens));
  CHECK_MPI(MPI_Group_free(&odds));
  CHECK_MPI(MPI_Group_free(&world));
}

/* More communicators over time than there are context ids at once: ids must be recycled. */
static void check_recycling(void) {
  MPI_Comm keep[4];
  for (int i = 0; i < 4; ++i) CHECK_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &keep[i]));
  for (int i = 0; i < 5000; ++i) {
    MPI_Comm c;
    CHECK_MPI(MPI_Comm_dup(i % 2 ? MPI_COMM_WORLD : keep[i % 4], &c));
    if (i % 500 == 0) {
      /* Still isolated from the long-lived ones that share no id with it. */
      int v = i, got = -1;
      MPI_Request rr;
      CHECK_MPI(MPI_Irecv(&got, 1, MPI_INT, MPI_ANY_SOURCE, 1, keep[0], &rr));
      CHECK_MPI(MPI_Send(&v, 1, MPI_INT, rank_, 1, c));
      CHECK_MPI(MPI_Recv(&got, 1, MPI_INT, rank_, 1, c, MPI_STATUS_IGNORE));
      CHECK_INT(got, ==, i);
      CHECK_MPI(MPI_Send(&v, 1, MPI_INT, rank_, 1, keep[0]));
      CHECK_MPI(MPI_Wait(&rr, MPI_STATUS_IGNORE));
    }
    CHECK_MPI(MPI_Comm_free(&c));
  }
  for (int i = 0; i < 4; ++i) CHECK_MPI(MPI_Comm_free(&keep[i]));
}

static void check_names_and_errhandlers(void) {
  MPI_Comm dup;
  char name[MPI_MAX_OBJECT_NAME];
  int len = 0, flag = -1;
  CHECK_MPI(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
  /* Errors without a valid communicator (freeing MPI_COMM_NULL) go to MPI_COMM_SELF's. */
  CHECK_MPI(MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN));
  CHECK_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &dup));
  CHECK_MPI(MPI_Comm_set_name(dup, "my dup"));
  CHECK_MPI(MPI_Comm_get_name(dup, name, &len));
  CHECK_MSG(strcmp(name, "my dup") == 0, "name is '%s'", name);
  MPI_Errhandler eh;
  CHECK_MPI(MPI_Comm_get_errhandler(dup, &eh));
  CHECK_MSG(eh == MPI_ERRORS_RETURN, "MPI_Comm_dup did not inherit the error handler");
  CHECK_MPI(MPI_Errhandler_free(&eh));
  CHECK_ERR_CLASS(MPI_Send(&len, 1, MPI_INT, size_, 0, dup), MPI_ERR_RANK);
  CHECK_MPI(MPI_Comm_test_inter(dup, &flag));
  CHECK_INT(flag, ==, 0);
#ifndef OPEN_MPI /* Open MPI 4.1 answers the local size */
  CHECK_ERR_CLASS(MPI_Comm_remote_size(dup, &len), MPI_ERR_COMM);
#endif
  MPI_Group g = MPI_GROUP_NULL;
  CHECK_ERR_CLASS(MPI_Group_size(g, &len), MPI_ERR_GROUP);
  CHECK_ERR_CLASS(MPI_Comm_split(dup, -5, 0, &dup), MPI_ERR_ARG);
  CHECK_MPI(MPI_Comm_free(&dup));
  CHECK_ERR_CLASS(MPI_Comm_free(&dup), MPI_ERR_COMM);
  MPI_Comm self = MPI_COMM_SELF;
  CHECK_ERR_CLASS(MPI_Comm_free(&self), MPI_ERR_COMM);
  CHECK_MPI(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL));
  CHECK_MPI(MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_ARE_FATAL));
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank_);
  MPI_Comm_size(MPI_COMM_WORLD, &size_);
  CHECK_MSG(size_ <= 8, "this job is written for at most 8 ranks");
  check_isolation();
  check_split();
  check_split_type();
  check_create();
  check_recycling();
  check_names_and_errhandlers();
  jobs_done("job_comm_basic");
  MPI_Finalize();
  return 0;
}
