/* Corners of the API that real programs and test suites hit: error codes that survive being
 * passed to MPI_Abort or exit, user error classes above MPI_ERR_LASTCODE (and their removal),
 * MPI_Comm_create_group from outside the group, buffered sends sized exactly as MPI says,
 * MPI_BOTTOM in MPI_Neighbor_alltoallw, statuses' MPI_ERROR left alone by single completions,
 * MPI_Dims_create's choice among equally balanced grids, MPI_Cart_sub to no dimension,
 * MPI_Dist_graph_create's "weighted" agreed by all, mismatched MPI_Bcast lengths reported (and
 * mismatched allreduce and alltoall counts on two ranks),
 * window info defaults and zero-size shared segments, and cancelling sends (standard, to
 * oneself, buffered, persistent). */
#include "jobs_util.h"

static int rank_, size_;

static void check_error_codes(void) {
  int v = 0, cls = -1;
  /* A specific code's low byte is its class, so exit(code) or MPI_Abort(comm, code) never
   * reads as "killed by a signal" (exit statuses 128 and above). */
  int rc = MPI_Send(&v, 1, MPI_INT, size_ + 5, 0, MPI_COMM_WORLD);
  CHECK(rc != MPI_SUCCESS);
  CHECK_MPI(MPI_Error_class(rc, &cls));
  CHECK_INT(cls, ==, MPI_ERR_RANK);
  CHECK_INT(rc & 0xff, ==, MPI_ERR_RANK);
  rc = MPI_Allreduce(&v, &cls, 1, MPI_INT, MPI_REPLACE, MPI_COMM_WORLD);
  CHECK(rc != MPI_SUCCESS);
  CHECK_INT(rc & 0xff, <, 128);
  CHECK_MPI(MPI_Error_class(rc, &cls));
  CHECK_INT(cls, ==, MPI_ERR_OP);
  CHECK(rc <= MPI_ERR_LASTCODE);
}

static int lastused(void) {
  int *value = NULL, flag = 0;
  CHECK_MPI(MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_LASTUSEDCODE, &value, &flag));
  CHECK(flag && value);
  return *value;
}

static void check_user_errors(void) {
  int ucls = 0, ucode = 0, cls = -1, len = -1;
  char text[MPI_MAX_ERROR_STRING];
  CHECK_MPI(MPI_Add_error_class(&ucls));
  CHECK_MSG(ucls > MPI_ERR_LASTCODE, "user class %d is not above MPI_ERR_LASTCODE", ucls);
  CHECK_INT(lastused(), >=, ucls);
  /* A new class has no text until MPI_Add_error_string. */
  CHECK_MPI(MPI_Error_string(ucls, text, &len));
  CHECK_INT(len, ==, 0);
  CHECK_MPI(MPI_Add_error_code(ucls, &ucode));
  CHECK(ucode > MPI_ERR_LASTCODE && ucode != ucls);
  CHECK_INT(lastused(), >=, ucode);
  CHECK_MPI(MPI_Error_class(ucode, &cls));
  CHECK_INT(cls, ==, ucls);
  CHECK_MPI(MPI_Add_error_string(ucode, "the widget is out of order"));
  CHECK_MPI(MPI_Error_string(ucode, text, &len));
  CHECK(strcmp(text, "the widget is out of order") == 0 && len == (int)strlen(text));
  /* A code of a predefined class. */
  int pcode = 0;
  CHECK_MPI(MPI_Add_error_code(MPI_ERR_ARG, &pcode));
  CHECK_MPI(MPI_Error_class(pcode, &cls));
  CHECK_INT(cls, ==, MPI_ERR_ARG);
  /* Removal goes string, code, class; each step refused while the next-inner one remains. */
  CHECK_ERR_CLASS(MPI_Remove_error_class(ucls), MPI_ERR_ARG);
  CHECK_ERR_CLASS(MPI_Remove_error_code(ucode), MPI_ERR_ARG);
  CHECK_MPI(MPI_Remove_error_string(ucode));
  CHECK_ERR_CLASS(MPI_Remove_error_string(ucode), MPI_ERR_ARG);
  CHECK_MPI(MPI_Remove_error_code(ucode));
  CHECK_MPI(MPI_Remove_error_code(pcode));
  CHECK_MPI(MPI_Remove_error_class(ucls));
  CHECK_ERR_CLASS(MPI_Error_class(ucode, &cls), MPI_ERR_ARG);
  CHECK_ERR_CLASS(MPI_Remove_error_class(MPI_ERR_ARG), MPI_ERR_ARG);
  /* Numbers are never handed out twice. */
  int again = 0;
  CHECK_MPI(MPI_Add_error_class(&again));
  CHECK(again != ucls && again != ucode);
  CHECK_MPI(MPI_Remove_error_class(again));
}

static void check_create_group_outside(void) {
  MPI_Comm c = MPI_COMM_WORLD;
  CHECK_MPI(MPI_Comm_create_group(MPI_COMM_WORLD, MPI_GROUP_EMPTY, 5, &c));
  CHECK(c == MPI_COMM_NULL);
  /* Only the even ranks are members; the odd ones call too and get MPI_COMM_NULL. */
  MPI_Group world, evens;
  int n = (size_ + 1) / 2, ranks[64];
  for (int i = 0; i < n; ++i) ranks[i] = 2 * i;
  CHECK_MPI(MPI_Comm_group(MPI_COMM_WORLD, &world));
  CHECK_MPI(MPI_Group_incl(world, n, ranks, &evens));
  CHECK_MPI(MPI_Comm_create_group(MPI_COMM_WORLD, evens, 6, &c));
  if (rank_ % 2) {
    CHECK(c == MPI_COMM_NULL);
  } else {
    int sz = 0, sum = 0, one = 1;
    CHECK(c != MPI_COMM_NULL);
    CHECK_MPI(MPI_Comm_size(c, &sz));
    CHECK_INT(sz, ==, n);
    CHECK_MPI(MPI_Allreduce(&one, &sum, 1, MPI_INT, MPI_SUM, c));
    CHECK_INT(sum, ==, n);
    CHECK_MPI(MPI_Comm_free(&c));
  }
  CHECK_MPI(MPI_Group_free(&evens));
  CHECK_MPI(MPI_Group_free(&world));
}

/* k messages of 13 bytes in a buffer of exactly k * (MPI_Pack_size + MPI_BSEND_OVERHEAD). */
static void check_bsend_sizing(void) {
  enum { k = 5, len = 13 };
  int psize = 0;
  CHECK_MPI(MPI_Pack_size(len, MPI_CHAR, MPI_COMM_WORLD, &psize));
  int bytes = k * (psize + MPI_BSEND_OVERHEAD);
  char *buf = jobs_malloc((size_t)bytes + 1) + 1; /* unaligned on purpose */
  CHECK_MPI(MPI_Buffer_attach(buf, bytes));
  const int to = (rank_ + 1) % size_, from = (rank_ + size_ - 1) % size_;
  char msg[k][len], got[len];
  MPI_Request reqs[2];
  for (int i = 0; i < k; ++i) jobs_fill(msg[i], len, 100 + i);
  CHECK_MPI(MPI_Bsend(msg[0], len, MPI_CHAR, to, 40, MPI_COMM_WORLD));
  CHECK_MPI(MPI_Bsend(msg[1], len, MPI_CHAR, to, 40, MPI_COMM_WORLD));
  CHECK_MPI(MPI_Ibsend(msg[2], len, MPI_CHAR, to, 40, MPI_COMM_WORLD, &reqs[0]));
  CHECK_MPI(MPI_Bsend_init(msg[3], len, MPI_CHAR, to, 40, MPI_COMM_WORLD, &reqs[1]));
  CHECK_MPI(MPI_Start(&reqs[1]));
  CHECK_MPI(MPI_Bsend(msg[4], len, MPI_CHAR, to, 40, MPI_COMM_WORLD));
  for (int i = 0; i < k; ++i) {
    CHECK_MPI(MPI_Recv(got, len, MPI_CHAR, from, 40, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    CHECK_PATTERN(got, len, 100 + i, "buffered message");
  }
  CHECK_MPI(MPI_Waitall(2, reqs, MPI_STATUSES_IGNORE));
  CHECK_MPI(MPI_Request_free(&reqs[1]));
  void *back;
  int back_size;
  CHECK_MPI(MPI_Buffer_detach(&back, &back_size));
  CHECK(back == buf && back_size == bytes);
  free(buf - 1);
}

static void check_neighbor_bottom(void) {
  MPI_Comm ring;
  int dims[1] = {size_}, periods[1] = {1};
  CHECK_MPI(MPI_Cart_create(MPI_COMM_WORLD, 1, dims, periods, 0, &ring));
  int out[2] = {rank_ * 10 + 1, rank_ * 10 + 2}, in[2] = {-1, -1}, counts[2] = {1, 1};
  MPI_Aint sd[2], rd[2];
  MPI_Datatype types[2] = {MPI_INT, MPI_INT};
  for (int i = 0; i < 2; ++i) {
    CHECK_MPI(MPI_Get_address(&out[i], &sd[i]));
    CHECK_MPI(MPI_Get_address(&in[i], &rd[i]));
  }
  CHECK_MPI(MPI_Neighbor_alltoallw(MPI_BOTTOM, counts, sd, types, MPI_BOTTOM, counts, rd, types,
                                   ring));
  /* Neighbor 0 is rank-1 (it sent us its "+1" slot's partner: its message to its neighbor 1),
   * neighbor 1 is rank+1 (its message to its neighbor 0). */
  const int left = (rank_ + size_ - 1) % size_, right = (rank_ + 1) % size_;
  CHECK_INT(in[0], ==, left * 10 + 2);
  CHECK_INT(in[1], ==, right * 10 + 1);
  CHECK_MPI(MPI_Comm_free(&ring));
}

static void check_status_error_kept(void) {
  const int to = (rank_ + 1) % size_, from = (rank_ + size_ - 1) % size_;
  int v = rank_, got = -1, flag = 0;
  MPI_Status st;
  MPI_Request req;
  MPI_Message msg;
  st.MPI_ERROR = 4242;
  CHECK_MPI(MPI_Sendrecv(&v, 1, MPI_INT, to, 41, &got, 1, MPI_INT, from, 41, MPI_COMM_WORLD, &st));
  CHECK_INT(st.MPI_ERROR, ==, 4242);
  CHECK_INT(st.MPI_SOURCE, ==, from);
  CHECK_MPI(MPI_Isend(&v, 1, MPI_INT, to, 42, MPI_COMM_WORLD, &req));
  CHECK_MPI(MPI_Mprobe(from, 42, MPI_COMM_WORLD, &msg, &st));
  CHECK_INT(st.MPI_ERROR, ==, 4242);
  CHECK_MPI(MPI_Mrecv(&got, 1, MPI_INT, &msg, &st));
  CHECK_INT(st.MPI_ERROR, ==, 4242);
  CHECK_INT(got, ==, from);
  CHECK_MPI(MPI_Wait(&req, &st));
  CHECK_INT(st.MPI_ERROR, ==, 4242);
  CHECK_MPI(MPI_Irecv(&got, 1, MPI_INT, from, 43, MPI_COMM_WORLD, &req));
  CHECK_MPI(MPI_Send(&v, 1, MPI_INT, to, 43, MPI_COMM_WORLD));
  do CHECK_MPI(MPI_Test(&req, &flag, &st));
  while (!flag);
  CHECK_INT(st.MPI_ERROR, ==, 4242);
  /* The calls completing several requests do set it. */
  MPI_Status sts[2];
  MPI_Request reqs[2];
  sts[0].MPI_ERROR = sts[1].MPI_ERROR = 4242;
  CHECK_MPI(MPI_Irecv(&got, 1, MPI_INT, from, 44, MPI_COMM_WORLD, &reqs[0]));
  CHECK_MPI(MPI_Isend(&v, 1, MPI_INT, to, 44, MPI_COMM_WORLD, &reqs[1]));
  CHECK_MPI(MPI_Waitall(2, reqs, sts));
  CHECK_INT(sts[0].MPI_ERROR, ==, MPI_SUCCESS);
  CHECK_INT(sts[1].MPI_ERROR, ==, MPI_SUCCESS);
}

static void check_dims(void) {
  int d3[3] = {0, 0, 0};
  /* 5040 = 21*16*15 = 20*18*14: both spread 6; the larger smallest factor wins. */
  CHECK_MPI(MPI_Dims_create(5040, 3, d3));
  CHECK(d3[0] == 21 && d3[1] == 16 && d3[2] == 15);
  int d4[4] = {0, 0, 0, 0};
  /* 5616: 13x9x8x6 and 13x12x6x6 both spread 7; 13x9x8x6 has the larger second smallest. */
  CHECK_MPI(MPI_Dims_create(5616, 4, d4));
  CHECK(d4[0] == 13 && d4[1] == 9 && d4[2] == 8 && d4[3] == 6);
  int d2[2] = {0, 0};
  CHECK_MPI(MPI_Dims_create(72, 2, d2));
  CHECK(d2[0] == 9 && d2[1] == 8);
  int big[3] = {0, 0, 0};
  CHECK_MPI(MPI_Dims_create(1000 * 1000 * 1000, 3, big));
  CHECK(big[0] == 1000 && big[1] == 1000 && big[2] == 1000);
}

static void check_cart_sub_zero(void) {
  MPI_Comm cart, sub;
  int dims[2] = {0, 0}, periods[2] = {0, 0}, keep[2] = {0, 0};
  CHECK_MPI(MPI_Dims_create(size_, 2, dims));
  CHECK_MPI(MPI_Cart_create(MPI_COMM_WORLD, 2, dims, periods, 0, &cart));
  CHECK_MPI(MPI_Cart_sub(cart, keep, &sub));
  if (rank_ == 0) {
    int sz = 0, nd = -1, result = -1;
    CHECK(sub != MPI_COMM_NULL);
    CHECK_MPI(MPI_Comm_size(sub, &sz));
    CHECK_INT(sz, ==, 1);
    CHECK_MPI(MPI_Cartdim_get(sub, &nd));
    CHECK_INT(nd, ==, 0);
    CHECK_MPI(MPI_Comm_compare(MPI_COMM_SELF, sub, &result));
    CHECK_INT(result, ==, MPI_CONGRUENT);
    CHECK_MPI(MPI_Comm_free(&sub));
  } else {
    CHECK(sub == MPI_COMM_NULL);
  }
  CHECK_MPI(MPI_Comm_free(&cart));
}

static void check_dist_graph_weighted(void) {
  /* Rank 0 describes a ring with weights; the others describe no edges and pass NULL (an empty
   * weights array; MPI_UNWEIGHTED is not NULL): the graph is weighted. */
  CHECK(MPI_UNWEIGHTED != NULL && MPI_WEIGHTS_EMPTY != NULL && MPI_UNWEIGHTED != MPI_WEIGHTS_EMPTY);
  int n = rank_ == 0 ? size_ : 0, srcs[64], degs[64], dsts[64], wts[64];
  for (int i = 0; i < n; ++i) {
    srcs[i] = i;
    degs[i] = 1;
    dsts[i] = (i + 1) % size_;
    wts[i] = 7 + i;
  }
  MPI_Comm g;
  CHECK_MPI(MPI_Dist_graph_create(MPI_COMM_WORLD, n, srcs, degs, dsts, rank_ == 0 ? wts : NULL,
                                  MPI_INFO_NULL, 0, &g));
  int indeg = -1, outdeg = -1, weighted = -1;
  CHECK_MPI(MPI_Dist_graph_neighbors_count(g, &indeg, &outdeg, &weighted));
  CHECK_INT(indeg, ==, 1);
  CHECK_INT(outdeg, ==, 1);
  CHECK_MSG(weighted, "rank %d sees the graph as unweighted", rank_);
  int s = -1, sw = -1, d = -1, dw = -1;
  CHECK_MPI(MPI_Dist_graph_neighbors(g, 1, &s, &sw, 1, &d, &dw));
  const int left = (rank_ + size_ - 1) % size_;
  CHECK_INT(s, ==, left);
  CHECK_INT(sw, ==, 7 + left);
  CHECK_INT(dw, ==, 7 + rank_);
  CHECK_MPI(MPI_Comm_free(&g));
}

/* On two ranks allreduce and alltoall make one exchange without a schedule
 * (runtime/coll/pair.cc): counts that differ between the two must still be reported, on both
 * sides, and leave the communicator usable. Pairs of world ranks, so split communicators too. */
static void check_pair_mismatch(void) {
  MPI_Comm pair;
  int n, me;
  CHECK_MPI(MPI_Comm_split(MPI_COMM_WORLD, rank_ / 2, rank_, &pair));
  CHECK_MPI(MPI_Comm_set_errhandler(pair, MPI_ERRORS_RETURN));
  CHECK_MPI(MPI_Comm_size(pair, &n));
  CHECK_MPI(MPI_Comm_rank(pair, &me));
  if (n == 2) {
    int in[4] = {1, 2, 3, 4}, out[4] = {0, 0, 0, 0};
    int rc = MPI_Allreduce(in, out, me == 0 ? 1 : 4, MPI_INT, MPI_SUM, pair);
    CHECK_MSG(rc != MPI_SUCCESS, "allreduce of 1 and 4 ints went unnoticed at rank %d", me);
    rc = MPI_Alltoall(in, me == 0 ? 1 : 2, MPI_INT, out, me == 0 ? 1 : 2, MPI_INT, pair);
    CHECK_MSG(rc != MPI_SUCCESS, "alltoall of 1- and 2-int blocks went unnoticed at rank %d", me);
    int v = me + 1, sum = 0;
    CHECK_MPI(MPI_Allreduce(&v, &sum, 1, MPI_INT, MPI_SUM, pair));
    CHECK_INT(sum, ==, 3);
    int a[2] = {10 * me, 10 * me + 1}, b[2] = {-1, -1};
    CHECK_MPI(MPI_Alltoall(a, 1, MPI_INT, b, 1, MPI_INT, pair));
    CHECK_INT(b[0], ==, me);      /* rank 0's block for us */
    CHECK_INT(b[1], ==, 10 + me); /* rank 1's */
  }
  CHECK_MPI(MPI_Comm_free(&pair));
}

static void check_bcast_mismatch(void) {
  if (size_ < 2) return;
  int buf[10] = {0};
  /* The root sends one int, the others expect ten: they must be told. */
  int rc = MPI_Bcast(buf, rank_ == 0 ? 1 : 10, MPI_INT, 0, MPI_COMM_WORLD);
  if (rank_ != 0) CHECK_MSG(rc != MPI_SUCCESS, "a short broadcast went unnoticed");
  /* The root sends ten, the others expect one. */
  rc = MPI_Bcast(buf, rank_ == 0 ? 10 : 1, MPI_INT, 0, MPI_COMM_WORLD);
  if (rank_ != 0) CHECK_MSG(rc != MPI_SUCCESS, "a long broadcast went unnoticed");
  /* The communicator is still usable. */
  CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
  int v = rank_ == 0 ? 99 : 0;
  CHECK_MPI(MPI_Bcast(&v, 1, MPI_INT, 0, MPI_COMM_WORLD));
  CHECK_INT(v, ==, 99);
}

static void info_is(MPI_Win win, const char *key, const char *want) {
  MPI_Info info;
  char val[MPI_MAX_INFO_VAL + 1];
  int flag = 0;
  CHECK_MPI(MPI_Win_get_info(win, &info));
  CHECK_MPI(MPI_Info_get(info, key, MPI_MAX_INFO_VAL, val, &flag));
  CHECK_MSG(flag && strcmp(val, want) == 0, "window info %s: got %s, expected %s", key,
            flag ? val : "(unset)", want);
  CHECK_MPI(MPI_Info_free(&info));
}

static void check_windows(void) {
  MPI_Win win;
  int *base = NULL;
  CHECK_MPI(MPI_Win_allocate(sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &base, &win));
  info_is(win, "no_locks", "false");
  info_is(win, "accumulate_ordering", "rar,raw,war,waw");
  info_is(win, "accumulate_ops", "same_op_no_op");
  info_is(win, "same_size", "false");
  MPI_Info in;
  CHECK_MPI(MPI_Info_create(&in));
  CHECK_MPI(MPI_Info_set(in, "accumulate_ordering", "none"));
  CHECK_MPI(MPI_Info_set(in, "no_such_window_hint", "1"));
  CHECK_MPI(MPI_Win_set_info(win, in));
  CHECK_MPI(MPI_Info_free(&in));
  info_is(win, "accumulate_ordering", "none");
  MPI_Info got;
  int flag = 1;
  char val[MPI_MAX_INFO_VAL + 1];
  CHECK_MPI(MPI_Win_get_info(win, &got));
  CHECK_MPI(MPI_Info_get(got, "no_such_window_hint", MPI_MAX_INFO_VAL, val, &flag));
  CHECK_MSG(!flag, "an unknown window hint was kept");
  CHECK_MPI(MPI_Info_free(&got));
  CHECK_MPI(MPI_Win_free(&win));

  /* Shared windows whose odd ranks have no memory. */
  MPI_Comm node;
  CHECK_MPI(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node));
  int nrank = 0, nsize = 0;
  CHECK_MPI(MPI_Comm_rank(node, &nrank));
  CHECK_MPI(MPI_Comm_size(node, &nsize));
  MPI_Aint mine = nrank % 2 ? 0 : 4 * sizeof(int);
  CHECK_MPI(MPI_Win_allocate_shared(mine, sizeof(int), MPI_INFO_NULL, node, &base, &win));
  for (int r = 0; r < nsize; ++r) {
    MPI_Aint sz = -1;
    int du = 0;
    int *p = (int *)1;
    CHECK_MPI(MPI_Win_shared_query(win, r, &sz, &du, &p));
    if (r % 2) {
      CHECK_INT(sz, ==, 0);
      CHECK_MSG(p == NULL, "rank %d's zero-size segment has base %p", r, (void *)p);
    } else {
      CHECK_INT(sz, ==, 4 * sizeof(int));
      CHECK(p != NULL);
    }
  }
  CHECK_MPI(MPI_Win_free(&win));
  CHECK_MPI(MPI_Comm_free(&node));
}

/* MPI_Cancel of sends nobody has received: eager (already complete at the sender) and
 * rendezvous messages are withdrawn; a send that was received is not. */
static void check_send_cancel(void) {
  const int to = (rank_ + 1) % size_, from = (rank_ + size_ - 1) % size_;
  const size_t big = 1 << 20;
  char *large = jobs_malloc(big), *large_in = jobs_malloc(big);
  int small = 1000 + rank_, got = -1, flag = 0;
  MPI_Request reqs[2];
  MPI_Status st;
  jobs_fill(large, big, 60 + rank_);
  CHECK_MPI(MPI_Isend(&small, 1, MPI_INT, to, 50, MPI_COMM_WORLD, &reqs[0]));
  CHECK_MPI(MPI_Isend(large, (int)big, MPI_CHAR, to, 51, MPI_COMM_WORLD, &reqs[1]));
  CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD)); /* both messages are on their way or there */
  for (int i = 0; i < 2; ++i) {
    CHECK_MPI(MPI_Cancel(&reqs[i]));
    CHECK_MPI(MPI_Wait(&reqs[i], &st));
    CHECK_MPI(MPI_Test_cancelled(&st, &flag));
    CHECK_MSG(flag, "rank %d: the unmatched %s send to rank %d was not cancelled", rank_,
              i ? "rendezvous" : "eager", to);
  }
  /* Nothing of them is left for a receive to find. */
  CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
  CHECK_MPI(MPI_Iprobe(from, 50, MPI_COMM_WORLD, &flag, MPI_STATUS_IGNORE));
  CHECK_MSG(!flag, "a cancelled eager message can still be probed");
  CHECK_MPI(MPI_Iprobe(from, 51, MPI_COMM_WORLD, &flag, MPI_STATUS_IGNORE));
  CHECK_MSG(!flag, "a cancelled rendezvous message can still be probed");
  CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD)); /* nobody sends the next ones before all probed */
  /* A received send is not cancelled, and the data arrived whole. */
  small = 2000 + rank_;
  CHECK_MPI(MPI_Isend(&small, 1, MPI_INT, to, 50, MPI_COMM_WORLD, &reqs[0]));
  CHECK_MPI(MPI_Isend(large, (int)big, MPI_CHAR, to, 51, MPI_COMM_WORLD, &reqs[1]));
  CHECK_MPI(MPI_Recv(&got, 1, MPI_INT, from, 50, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
  CHECK_MPI(MPI_Recv(large_in, (int)big, MPI_CHAR, from, 51, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
  CHECK_INT(got, ==, 2000 + from);
  CHECK_PATTERN(large_in, big, 60 + from, "rendezvous message after a cancelled one");
  CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
  for (int i = 0; i < 2; ++i) {
    CHECK_MPI(MPI_Cancel(&reqs[i]));
    CHECK_MPI(MPI_Wait(&reqs[i], &st));
    CHECK_MPI(MPI_Test_cancelled(&st, &flag));
    CHECK_MSG(!flag, "rank %d: a received send reports being cancelled", rank_);
  }
  free(large);
  free(large_in);
}

/* A synchronous send to oneself, probed but not received, then cancelled: the outcome is
 * known at once (MPI_Request_get_status right after MPI_Cancel reports it), and the message
 * is gone for receives. Then the same on a zero-byte message, received after all. */
static void check_self_send_cancel(void) {
  int data = 5, flag = 0, cancelled = 0;
  MPI_Request req;
  MPI_Status st;
  CHECK_MPI(MPI_Issend(&data, 1, MPI_INT, 0, 123, MPI_COMM_SELF, &req));
  CHECK_MPI(MPI_Probe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_SELF, &st));
  CHECK_INT(st.MPI_TAG, ==, 123);
  CHECK_MPI(MPI_Cancel(&req));
  CHECK_MPI(MPI_Request_get_status(req, &flag, &st));
  CHECK_MSG(flag, "a cancelled send to oneself is still pending after MPI_Cancel returned");
  CHECK_MPI(MPI_Test_cancelled(&st, &cancelled));
  CHECK_MSG(cancelled, "an unreceived synchronous send to oneself was not cancelled");
  CHECK_MPI(MPI_Wait(&req, MPI_STATUS_IGNORE));
  CHECK_MPI(MPI_Iprobe(MPI_ANY_SOURCE, 123, MPI_COMM_SELF, &flag, MPI_STATUS_IGNORE));
  CHECK_MSG(!flag, "a cancelled send to oneself can still be probed");
  /* Received first: the cancellation finds nothing, the send completes normally. */
  CHECK_MPI(MPI_Issend(NULL, 0, MPI_BYTE, 0, 124, MPI_COMM_SELF, &req));
  CHECK_MPI(MPI_Recv(NULL, 0, MPI_BYTE, 0, 124, MPI_COMM_SELF, MPI_STATUS_IGNORE));
  CHECK_MPI(MPI_Cancel(&req));
  CHECK_MPI(MPI_Wait(&req, &st));
  CHECK_MPI(MPI_Test_cancelled(&st, &cancelled));
  CHECK_MSG(!cancelled, "a received send to oneself reports being cancelled");
}

/* Cancelling buffered and persistent sends nobody received: MPI_Ibsend (its request is
 * complete at once, the message being in the buffer), a round of MPI_Send_init and one of
 * MPI_Bsend_init, eager and rendezvous sizes; the message is withdrawn, the buffer space is
 * free again (the same buffer then holds the next message), and a received one is not
 * cancelled. */
static void check_buffered_cancel(void) {
  const int to = (rank_ + 1) % size_, from = (rank_ + size_ - 1) % size_;
  const int sizes[2] = {100, 1 << 20};
  for (int k = 0; k < 2; ++k) {
    const int n = sizes[k];
    char *out = jobs_malloc((size_t)n), *in = jobs_malloc((size_t)n);
    int bsize = n + MPI_BSEND_OVERHEAD, flag = 0;
    char *bbuf = jobs_malloc((size_t)bsize);
    void *gone;
    int gone_size;
    MPI_Request req;
    MPI_Status st;
    jobs_fill(out, (size_t)n, 70 + rank_);
    CHECK_MPI(MPI_Buffer_attach(bbuf, bsize));
    for (int kind = 0; kind < 3; ++kind) {
      const char *what = kind == 0 ? "MPI_Ibsend" : kind == 1 ? "MPI_Send_init" : "MPI_Bsend_init";
      if (kind == 0)
        CHECK_MPI(MPI_Ibsend(out, n, MPI_CHAR, to, 60 + kind, MPI_COMM_WORLD, &req));
      else if (kind == 1)
        CHECK_MPI(MPI_Send_init(out, n, MPI_CHAR, to, 60 + kind, MPI_COMM_WORLD, &req));
      else
        CHECK_MPI(MPI_Bsend_init(out, n, MPI_CHAR, to, 60 + kind, MPI_COMM_WORLD, &req));
      if (kind > 0) CHECK_MPI(MPI_Start(&req));
      CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD)); /* the message is at its receiver or on its way */
      CHECK_MPI(MPI_Cancel(&req));
      CHECK_MPI(MPI_Wait(&req, &st));
      CHECK_MPI(MPI_Test_cancelled(&st, &flag));
      CHECK_MSG(flag, "rank %d: %s of %d bytes to rank %d, never received, was not cancelled",
                rank_, what, n, to);
      if (kind > 0) CHECK_MPI(MPI_Request_free(&req));
      CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
      CHECK_MPI(MPI_Iprobe(from, 60 + kind, MPI_COMM_WORLD, &flag, MPI_STATUS_IGNORE));
      CHECK_MSG(!flag, "a cancelled %s message can still be probed", what);
    }
    /* The withdrawn messages gave their space back: the exact-size buffer holds another, which
     * is received and so not cancelled. */
    CHECK_MPI(MPI_Ibsend(out, n, MPI_CHAR, to, 63, MPI_COMM_WORLD, &req));
    CHECK_MPI(MPI_Recv(in, n, MPI_CHAR, from, 63, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    CHECK_PATTERN(in, (size_t)n, 70 + from, "buffered message after cancelled ones");
    CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
    CHECK_MPI(MPI_Cancel(&req));
    CHECK_MPI(MPI_Wait(&req, &st));
    CHECK_MPI(MPI_Test_cancelled(&st, &flag));
    CHECK_MSG(!flag, "rank %d: a received MPI_Ibsend reports being cancelled", rank_);
    CHECK_MPI(MPI_Buffer_detach(&gone, &gone_size));
    CHECK_INT(gone_size, ==, bsize);
    free(bbuf);
    free(out);
    free(in);
  }
}

int main(int argc, char **argv) {
  CHECK_MPI(MPI_Init(&argc, &argv));
  CHECK_MPI(MPI_Comm_rank(MPI_COMM_WORLD, &rank_));
  CHECK_MPI(MPI_Comm_size(MPI_COMM_WORLD, &size_));
  CHECK_MPI(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
  CHECK_MPI(MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN));
  check_error_codes();
  check_user_errors();
  check_create_group_outside();
  check_bsend_sizing();
  check_neighbor_bottom();
  check_status_error_kept();
  check_dims();
  check_cart_sub_zero();
  check_dist_graph_weighted();
  check_bcast_mismatch();
  check_pair_mismatch();
  check_windows();
  check_send_cancel();
  check_self_send_cancel();
  check_buffered_cancel();
  CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
  if (rank_ == 0) printf("OK api fixes on %d ranks\n", size_);
  CHECK_MPI(MPI_Finalize());
  return 0;
}
