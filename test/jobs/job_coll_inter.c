/* Collectives on intercommunicators: every one, blocking and nonblocking, between the two
 * groups of MPI_COMM_WORLD split into unequal parts (about a third and the rest), on the
 * intercommunicator, a duplicate of it and one half of an MPI_Comm_split of it. Each group
 * must receive the other group's data: rooted calls with MPI_ROOT / MPI_PROC_NULL / a remote
 * root (PROC_NULL buffers untouched), allgather/allreduce/alltoall/reduce_scatter crossing
 * over. Collective traffic never matches a user's wildcard receive on the intercommunicator.
 * Bad roots give MPI_ERR_ROOT, Scan/Exscan MPI_ERR_COMM, MPI_IN_PLACE MPI_ERR_BUFFER.
 * At 1 rank only the OK line is printed. */
#include "jobs_util.h"

typedef struct {
  MPI_Comm ic;
  int g;  /* 0: the lower group, 1: the upper one */
  int lr, n, m;
  const char *name;
} Ctx;

static int nb_; /* use the I-forms (and MPI_Wait) */

/* What local rank `lr` of group `g` contributes at index i (tag = which call). */
static int val(int tag, int g, int lr, int i) { return tag * 100000 + g * 10000 + lr * 100 + i; }

static void wait_or_not(MPI_Request *req) {
  if (nb_) CHECK_MPI(MPI_Wait(req, MPI_STATUS_IGNORE));
}
#define RUN(blocking, nonblocking) \
  do {                             \
    MPI_Request req_;              \
    if (nb_)                       \
      CHECK_MPI(nonblocking);      \
    else                           \
      CHECK_MPI(blocking);         \
    wait_or_not(&req_);            \
  } while (0)

static int *ints(int n) { return jobs_malloc(sizeof(int) * (size_t)(n > 0 ? n : 1)); }

#define EXPECT(cond, ...) CHECK_MSG(cond, __VA_ARGS__)

static void t_barrier(const Ctx *c) { RUN(MPI_Barrier(c->ic), MPI_Ibarrier(c->ic, &req_)); }

/* root: group `rg`, local rank `rl` there. */
static int root_arg(const Ctx *c, int rg, int rl) {
  if (c->g != rg) return rl;
  return c->lr == rl ? MPI_ROOT : MPI_PROC_NULL;
}

static void t_bcast(const Ctx *c, int rg, int rl, int count) {
  int root = root_arg(c, rg, rl);
  int *b = ints(count);
  for (int i = 0; i < count; ++i) b[i] = root == MPI_ROOT ? val(1, rg, rl, i) : -1;
  RUN(MPI_Bcast(b, count, MPI_INT, root, c->ic), MPI_Ibcast(b, count, MPI_INT, root, c->ic, &req_));
  for (int i = 0; i < count; ++i) {
    int want = root == MPI_PROC_NULL ? -1 : val(1, rg, rl, i);
    EXPECT(b[i] == want, "%s bcast root %d:%d count %d: b[%d] = %d, expected %d", c->name, rg, rl,
           count, i, b[i], want);
  }
  free(b);
}

static void t_reduce(const Ctx *c, int rg, int rl, int count) {
  int root = root_arg(c, rg, rl);
  int *s = ints(count), *r = ints(count);
  for (int i = 0; i < count; ++i) {
    s[i] = val(2, c->g, c->lr, i);
    r[i] = -7;
  }
  RUN(MPI_Reduce(s, r, count, MPI_INT, MPI_SUM, root, c->ic),
      MPI_Ireduce(s, r, count, MPI_INT, MPI_SUM, root, c->ic, &req_));
  for (int i = 0; i < count; ++i) {
    int want = -7;
    if (root == MPI_ROOT) {
      want = 0;
      for (int j = 0; j < c->m; ++j) want += val(2, !c->g, j, i);
    }
    EXPECT(r[i] == want, "%s reduce root %d:%d: r[%d] = %d, expected %d", c->name, rg, rl, i, r[i],
           want);
  }
  free(s);
  free(r);
}

static void t_allreduce(const Ctx *c, int count) {
  const size_t bytes = sizeof(double) * (size_t)count;
  double *s = jobs_malloc(bytes), *r = jobs_malloc(bytes);
  for (int i = 0; i < count; ++i) s[i] = val(3, c->g, c->lr, i);
  RUN(MPI_Allreduce(s, r, count, MPI_DOUBLE, MPI_MAX, c->ic),
      MPI_Iallreduce(s, r, count, MPI_DOUBLE, MPI_MAX, c->ic, &req_));
  for (int i = 0; i < count; ++i) {
    double want = val(3, !c->g, c->m - 1, i);
    EXPECT(r[i] == want, "%s allreduce count %d: r[%d] = %g, expected %g", c->name, count, i, r[i],
           want);
  }
  int x = c->lr + 1, sum = 0;
  RUN(MPI_Allreduce(&x, &sum, 1, MPI_INT, MPI_SUM, c->ic),
      MPI_Iallreduce(&x, &sum, 1, MPI_INT, MPI_SUM, c->ic, &req_));
  CHECK_INT(sum, ==, c->m * (c->m + 1) / 2);
  free(s);
  free(r);
}

static void t_gather(const Ctx *c, int rg, int rl, int cnt) {
  int root = root_arg(c, rg, rl);
  int *s = ints(cnt), *r = ints(cnt * c->m);
  for (int i = 0; i < cnt; ++i) s[i] = val(4, c->g, c->lr, i);
  for (int i = 0; i < cnt * c->m; ++i) r[i] = -1;
  RUN(MPI_Gather(s, cnt, MPI_INT, r, cnt, MPI_INT, root, c->ic),
      MPI_Igather(s, cnt, MPI_INT, r, cnt, MPI_INT, root, c->ic, &req_));
  for (int j = 0; j < c->m; ++j)
    for (int i = 0; i < cnt; ++i) {
      int want = root == MPI_ROOT ? val(4, !c->g, j, i) : -1;
      EXPECT(r[j * cnt + i] == want, "%s gather: block %d [%d] = %d, expected %d", c->name, j, i,
             r[j * cnt + i], want);
    }
  /* Gatherv: remote rank j sends j + 1 elements, placed with a gap of 2 between blocks. */
  int *counts = ints(c->m), *displs = ints(c->m), total = 0;
  for (int j = 0; j < c->m; ++j) {
    counts[j] = j + 1;
    displs[j] = total;
    total += j + 3;
  }
  int *rv = ints(total);
  for (int i = 0; i < total; ++i) rv[i] = -1;
  int sc = c->lr + 1;
  int *sv = ints(sc);
  for (int i = 0; i < sc; ++i) sv[i] = val(5, c->g, c->lr, i);
  RUN(MPI_Gatherv(sv, sc, MPI_INT, rv, counts, displs, MPI_INT, root, c->ic),
      MPI_Igatherv(sv, sc, MPI_INT, rv, counts, displs, MPI_INT, root, c->ic, &req_));
  for (int j = 0; j < c->m; ++j)
    for (int i = 0; i < j + 3; ++i) {
      int want = root == MPI_ROOT && i <= j ? val(5, !c->g, j, i) : -1;
      EXPECT(rv[displs[j] + i] == want, "%s gatherv: block %d [%d] = %d, expected %d", c->name, j,
             i, rv[displs[j] + i], want);
    }
  free(s), free(r), free(counts), free(displs), free(rv), free(sv);
}

static void t_scatter(const Ctx *c, int rg, int rl, int cnt) {
  int root = root_arg(c, rg, rl);
  int *s = ints(cnt * c->m), *r = ints(cnt);
  for (int j = 0; j < c->m; ++j)
    for (int i = 0; i < cnt; ++i) s[j * cnt + i] = val(6, c->g, j, i);
  for (int i = 0; i < cnt; ++i) r[i] = -1;
  RUN(MPI_Scatter(s, cnt, MPI_INT, r, cnt, MPI_INT, root, c->ic),
      MPI_Iscatter(s, cnt, MPI_INT, r, cnt, MPI_INT, root, c->ic, &req_));
  for (int i = 0; i < cnt; ++i) {
    int want = root == MPI_ROOT || root == MPI_PROC_NULL ? -1 : val(6, rg, c->lr, i);
    EXPECT(r[i] == want, "%s scatter: r[%d] = %d, expected %d", c->name, i, r[i], want);
  }
  /* Scatterv: remote rank j gets j + 2 elements from offset 3 * j * j. */
  int *counts = ints(c->m), *displs = ints(c->m);
  int span = 0;
  for (int j = 0; j < c->m; ++j) {
    counts[j] = j + 2;
    displs[j] = 3 * j * j;
    if (displs[j] + counts[j] > span) span = displs[j] + counts[j];
  }
  int *sv = ints(span), rc = c->lr + 2, *rv = ints(rc);
  for (int i = 0; i < span; ++i) sv[i] = val(7, c->g, 0, i);
  for (int i = 0; i < rc; ++i) rv[i] = -1;
  RUN(MPI_Scatterv(sv, counts, displs, MPI_INT, rv, rc, MPI_INT, root, c->ic),
      MPI_Iscatterv(sv, counts, displs, MPI_INT, rv, rc, MPI_INT, root, c->ic, &req_));
  for (int i = 0; i < rc; ++i) {
    int want = c->g == rg ? -1 : val(7, rg, 0, 3 * c->lr * c->lr + i);
    EXPECT(rv[i] == want, "%s scatterv: r[%d] = %d, expected %d", c->name, i, rv[i], want);
  }
  free(s), free(r), free(counts), free(displs), free(sv), free(rv);
}

static void t_allgather(const Ctx *c, int cnt) {
  int *s = ints(cnt), *r = ints(cnt * c->m);
  for (int i = 0; i < cnt; ++i) s[i] = val(8, c->g, c->lr, i);
  RUN(MPI_Allgather(s, cnt, MPI_INT, r, cnt, MPI_INT, c->ic),
      MPI_Iallgather(s, cnt, MPI_INT, r, cnt, MPI_INT, c->ic, &req_));
  for (int j = 0; j < c->m; ++j)
    for (int i = 0; i < cnt; ++i)
      EXPECT(r[j * cnt + i] == val(8, !c->g, j, i), "%s allgather: block %d [%d] = %d", c->name,
             j, i, r[j * cnt + i]);
  /* Allgatherv: rank j of either group gives j + 1 elements; blocks stored in reverse order. */
  int sc = c->lr + 1, *sv = ints(sc), *counts = ints(c->m), *displs = ints(c->m), total = 0;
  for (int i = 0; i < sc; ++i) sv[i] = val(9, c->g, c->lr, i);
  for (int j = c->m - 1; j >= 0; --j) {
    counts[j] = j + 1;
    displs[j] = total;
    total += j + 1;
  }
  int *rv = ints(total);
  RUN(MPI_Allgatherv(sv, sc, MPI_INT, rv, counts, displs, MPI_INT, c->ic),
      MPI_Iallgatherv(sv, sc, MPI_INT, rv, counts, displs, MPI_INT, c->ic, &req_));
  for (int j = 0; j < c->m; ++j)
    for (int i = 0; i <= j; ++i)
      EXPECT(rv[displs[j] + i] == val(9, !c->g, j, i), "%s allgatherv: block %d [%d] = %d",
             c->name, j, i, rv[displs[j] + i]);
  free(s), free(r), free(sv), free(counts), free(displs), free(rv);
}

/* What (g, from) sends to remote rank `to`, element i. */
static int a2a(int g, int from, int to, int i) { return g * 10000 + from * 1000 + to * 10 + i; }
static int a2a_count(int from, int to) { return (from + to) % 3 + 1; }

static void t_alltoall(const Ctx *c, int cnt) {
  int *s = ints(cnt * c->m), *r = ints(cnt * c->m);
  for (int j = 0; j < c->m; ++j)
    for (int i = 0; i < cnt; ++i) s[j * cnt + i] = a2a(c->g, c->lr, j, i);
  RUN(MPI_Alltoall(s, cnt, MPI_INT, r, cnt, MPI_INT, c->ic),
      MPI_Ialltoall(s, cnt, MPI_INT, r, cnt, MPI_INT, c->ic, &req_));
  for (int j = 0; j < c->m; ++j)
    for (int i = 0; i < cnt; ++i)
      EXPECT(r[j * cnt + i] == a2a(!c->g, j, c->lr, i), "%s alltoall: from %d [%d] = %d", c->name,
             j, i, r[j * cnt + i]);
  /* Alltoallv and alltoallw: (lr + j) % 3 + 1 elements each way between lr and remote j. */
  int *sc = ints(c->m), *sd = ints(c->m), *rc = ints(c->m), *rd = ints(c->m);
  int *sdb = ints(c->m), *rdb = ints(c->m), st = 0, rt = 0;
  MPI_Datatype *types = jobs_malloc(sizeof(MPI_Datatype) * (size_t)c->m);
  for (int j = 0; j < c->m; ++j) {
    sc[j] = rc[j] = a2a_count(c->lr, j);
    sd[j] = st;
    rd[j] = rt + 1; /* a hole before each received block */
    sdb[j] = sd[j] * (int)sizeof(int);
    rdb[j] = rd[j] * (int)sizeof(int);
    st += sc[j];
    rt += rc[j] + 1;
    types[j] = MPI_INT;
  }
  int *sv = ints(st), *rv = ints(rt);
  for (int j = 0; j < c->m; ++j)
    for (int i = 0; i < sc[j]; ++i) sv[sd[j] + i] = a2a(c->g, c->lr, j, i);
  for (int w = 0; w < 2; ++w) {
    for (int i = 0; i < rt; ++i) rv[i] = -1;
    if (w == 0)
      RUN(MPI_Alltoallv(sv, sc, sd, MPI_INT, rv, rc, rd, MPI_INT, c->ic),
          MPI_Ialltoallv(sv, sc, sd, MPI_INT, rv, rc, rd, MPI_INT, c->ic, &req_));
    else
      RUN(MPI_Alltoallw(sv, sc, sdb, types, rv, rc, rdb, types, c->ic),
          MPI_Ialltoallw(sv, sc, sdb, types, rv, rc, rdb, types, c->ic, &req_));
    for (int j = 0; j < c->m; ++j) {
      EXPECT(rv[rd[j] - 1] == -1, "%s alltoall%c wrote the hole before block %d", c->name,
             w ? 'w' : 'v', j);
      for (int i = 0; i < rc[j]; ++i)
        EXPECT(rv[rd[j] + i] == a2a(!c->g, j, c->lr, i), "%s alltoall%c: from %d [%d] = %d",
               c->name, w ? 'w' : 'v', j, i, rv[rd[j] + i]);
    }
  }
  free(s), free(r), free(sc), free(sd), free(rc), free(rd), free(sdb), free(rdb), free(types);
  free(sv), free(rv);
}

static void t_reduce_scatter(const Ctx *c) {
  /* Both groups reduce vectors of T elements; each local rank gets its share of the remote
   * group's sum. */
  const int T = 13;
  int *counts = ints(c->n), *s = ints(T), off = 0, mine = 0;
  for (int i = 0; i < c->n; ++i) {
    counts[i] = T / c->n + (i < T % c->n);
    if (i < c->lr) off += counts[i];
  }
  mine = counts[c->lr];
  int *r = ints(mine);
  for (int k = 0; k < T; ++k) s[k] = val(1, c->g, c->lr, k);
  RUN(MPI_Reduce_scatter(s, r, counts, MPI_INT, MPI_SUM, c->ic),
      MPI_Ireduce_scatter(s, r, counts, MPI_INT, MPI_SUM, c->ic, &req_));
  for (int k = 0; k < mine; ++k) {
    int want = 0;
    for (int j = 0; j < c->m; ++j) want += val(1, !c->g, j, off + k);
    EXPECT(r[k] == want, "%s reduce_scatter: r[%d] = %d, expected %d", c->name, k, r[k], want);
  }
  /* _block: n * block is n_A * n_B in both groups. */
  const int block = c->m, total = c->n * c->m;
  int *sb = ints(total), *rb = ints(block);
  for (int k = 0; k < total; ++k) sb[k] = val(2, c->g, c->lr, k);
  RUN(MPI_Reduce_scatter_block(sb, rb, block, MPI_INT, MPI_SUM, c->ic),
      MPI_Ireduce_scatter_block(sb, rb, block, MPI_INT, MPI_SUM, c->ic, &req_));
  for (int k = 0; k < block; ++k) {
    int want = 0;
    for (int j = 0; j < c->m; ++j) want += val(2, !c->g, j, c->lr * block + k);
    EXPECT(rb[k] == want, "%s reduce_scatter_block: r[%d] = %d, expected %d", c->name, k, rb[k],
           want);
  }
  free(counts), free(s), free(r), free(sb), free(rb);
}

/* Non-contiguous datatypes: every other int of the buffers (staged through packed copies;
 * the reduction runs on the packed layout). */
static void t_dtype(const Ctx *c) {
  enum { K = 6 };
  MPI_Datatype vec;
  CHECK_MPI(MPI_Type_vector(K, 1, 2, MPI_INT, &vec));
  CHECK_MPI(MPI_Type_commit(&vec));
  int s[2 * K], r[2 * K];
  for (int i = 0; i < 2 * K; ++i) {
    s[i] = val(3, c->g, c->lr, i);
    r[i] = -1;
  }
  RUN(MPI_Allreduce(s, r, 1, vec, MPI_SUM, c->ic),
      MPI_Iallreduce(s, r, 1, vec, MPI_SUM, c->ic, &req_));
  for (int i = 0; i < 2 * K; ++i) {
    int want = -1;
    if (i % 2 == 0) {
      want = 0;
      for (int j = 0; j < c->m; ++j) want += val(3, !c->g, j, i);
    }
    EXPECT(r[i] == want, "%s vector allreduce: r[%d] = %d, expected %d", c->name, i, r[i], want);
  }
  int root = root_arg(c, 1, 0);
  for (int i = 0; i < 2 * K; ++i) r[i] = root == MPI_ROOT ? val(4, 1, 0, i) : -1;
  RUN(MPI_Bcast(r, 1, vec, root, c->ic), MPI_Ibcast(r, 1, vec, root, c->ic, &req_));
  for (int i = 0; i < 2 * K; ++i) {
    /* The root keeps all of its buffer; receivers get every other int. */
    int want = root == MPI_ROOT || (root != MPI_PROC_NULL && i % 2 == 0) ? val(4, 1, 0, i) : -1;
    EXPECT(r[i] == want, "%s vector bcast: r[%d] = %d, expected %d", c->name, i, r[i], want);
  }
  CHECK_MPI(MPI_Type_free(&vec));
}

/* Several different nonblocking collectives outstanding at once, completed in reverse. */
static void t_many_outstanding(const Ctx *c) {
  int b = c->g == 0 && c->lr == 0 ? 4242 : -1, rootb = root_arg(c, 0, 0);
  if (c->g == 0 && c->lr != 0) b = 5;
  int x = c->lr, sum = -1, *ag = ints(c->m);
  MPI_Request reqs[4];
  CHECK_MPI(MPI_Ibcast(&b, 1, MPI_INT, rootb, c->ic, &reqs[0]));
  CHECK_MPI(MPI_Iallreduce(&x, &sum, 1, MPI_INT, MPI_SUM, c->ic, &reqs[1]));
  CHECK_MPI(MPI_Iallgather(&x, 1, MPI_INT, ag, 1, MPI_INT, c->ic, &reqs[2]));
  CHECK_MPI(MPI_Ibarrier(c->ic, &reqs[3]));
  for (int k = 3; k >= 0; --k) CHECK_MPI(MPI_Wait(&reqs[k], MPI_STATUS_IGNORE));
  CHECK_INT(b, ==, c->g == 0 && c->lr != 0 ? 5 : 4242);
  CHECK_INT(sum, ==, c->m * (c->m - 1) / 2);
  for (int j = 0; j < c->m; ++j) CHECK_INT(ag[j], ==, j);
  free(ag);
}

static void t_errors(const Ctx *c) {
  int x = 0, y = 0;
  CHECK_MPI(MPI_Comm_set_errhandler(c->ic, MPI_ERRORS_RETURN));
  CHECK_ERR_CLASS(MPI_Bcast(&x, 1, MPI_INT, c->m, c->ic), MPI_ERR_ROOT);
  CHECK_ERR_CLASS(MPI_Reduce(&x, &y, 1, MPI_INT, MPI_SUM, -5, c->ic), MPI_ERR_ROOT);
  MPI_Request req;
  CHECK_ERR_CLASS(MPI_Igather(&x, 1, MPI_INT, &y, 1, MPI_INT, c->m + 3, c->ic, &req),
                  MPI_ERR_ROOT);
  CHECK_ERR_CLASS(MPI_Scan(&x, &y, 1, MPI_INT, MPI_SUM, c->ic), MPI_ERR_COMM);
  CHECK_ERR_CLASS(MPI_Exscan(&x, &y, 1, MPI_INT, MPI_SUM, c->ic), MPI_ERR_COMM);
  CHECK_ERR_CLASS(MPI_Iscan(&x, &y, 1, MPI_INT, MPI_SUM, c->ic, &req), MPI_ERR_COMM);
  CHECK_ERR_CLASS(MPI_Allreduce(MPI_IN_PLACE, &y, 1, MPI_INT, MPI_SUM, c->ic), MPI_ERR_BUFFER);
  CHECK_ERR_CLASS(MPI_Allgather(MPI_IN_PLACE, 0, MPI_INT, &y, 1, MPI_INT, c->ic), MPI_ERR_BUFFER);
  char msg[MPI_MAX_ERROR_STRING];
  int len = 0, rc = MPI_Scan(&x, &y, 1, MPI_INT, MPI_SUM, c->ic);
  MPI_Error_string(rc, msg, &len);
  CHECK_MSG(strstr(msg, "MPI_Scan") != NULL, "Scan's message does not name it: %s", msg);
  rc = MPI_Bcast(&x, 1, MPI_INT, 99, c->ic);
  MPI_Error_string(rc, msg, &len);
  CHECK_MSG(strstr(msg, "MPI_Bcast") && strstr(msg, "99"), "bad root message: %s", msg);
  CHECK_MPI(MPI_Comm_set_errhandler(c->ic, MPI_ERRORS_ARE_FATAL));
}

static void run_all(const Ctx *c) {
  for (nb_ = 0; nb_ < 2; ++nb_) {
    t_barrier(c);
    for (int rg = 0; rg < 2; ++rg) {
      int rsz = c->g == rg ? c->n : c->m, rl = rsz - 1;
      t_bcast(c, rg, rl, 7);
      t_bcast(c, rg, 0, 20000);
      t_reduce(c, rg, rl, 5);
      t_gather(c, rg, rl, 3);
      t_scatter(c, rg, 0, 4);
    }
    t_reduce(c, 1, 0, 3000);
    t_allreduce(c, 3);
    t_allreduce(c, 5000);
    t_allgather(c, 2);
    t_alltoall(c, 3);
    t_reduce_scatter(c);
    t_dtype(c);
    t_barrier(c);
  }
  t_many_outstanding(c);
}

static Ctx ctx_of(MPI_Comm ic, int g, const char *name) {
  Ctx c = {ic, g, 0, 0, 0, name};
  CHECK_MPI(MPI_Comm_rank(ic, &c.lr));
  CHECK_MPI(MPI_Comm_size(ic, &c.n));
  CHECK_MPI(MPI_Comm_remote_size(ic, &c.m));
  return c;
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (size < 2) {
    jobs_done("job_coll_inter (skipped: needs 2 ranks)");
    MPI_Finalize();
    return 0;
  }
  const int a = (size + 1) / 3 > 0 ? (size + 1) / 3 : 1; /* lower group: ranks [0, a) */
  const int g = rank >= a;
  MPI_Comm local, ic;
  CHECK_MPI(MPI_Comm_split(MPI_COMM_WORLD, g, rank, &local));
  CHECK_MPI(MPI_Intercomm_create(local, 0, MPI_COMM_WORLD, g ? 0 : a, 77, &ic));
  Ctx c = ctx_of(ic, g, "intercomm");

  /* A wildcard receive posted before any collective must only ever get the user's message. */
  int lr = c.lr, got = -1, token = 1000 + g;
  MPI_Request user;
  if (lr == 0) CHECK_MPI(MPI_Irecv(&got, 1, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, ic, &user));

  run_all(&c);
  t_errors(&c);

  MPI_Comm dup;
  CHECK_MPI(MPI_Comm_dup(ic, &dup));
  Ctx d = ctx_of(dup, g, "dup");
  run_all(&d);

  /* Split: even and odd local ranks; a color missing on one side gives MPI_COMM_NULL. */
  MPI_Comm half;
  CHECK_MPI(MPI_Comm_split(ic, lr % 2, lr, &half));
  if (half != MPI_COMM_NULL) {
    Ctx h = ctx_of(half, g, "split");
    run_all(&h);
    CHECK_MPI(MPI_Comm_free(&half));
  } else {
    CHECK_MSG(lr % 2 == 1, "split color %d came back MPI_COMM_NULL", lr % 2);
  }

  if (lr == 0) {
    int flag = 0;
    MPI_Status st;
    /* Done already only if the remote leader's message came: collectives never match it. */
    CHECK_MPI(MPI_Test(&user, &flag, &st));
    CHECK_MPI(MPI_Send(&token, 1, MPI_INT, 0, 5, ic));
    if (!flag) CHECK_MPI(MPI_Wait(&user, &st));
    CHECK_INT(st.MPI_TAG, ==, 5);
    CHECK_INT(st.MPI_SOURCE, ==, 0);
    CHECK_INT(got, ==, 1000 + !g);
  }
  CHECK_MPI(MPI_Comm_free(&dup));
  CHECK_MPI(MPI_Comm_free(&ic));
  CHECK_MPI(MPI_Comm_free(&local));
  jobs_done("job_coll_inter");
  MPI_Finalize();
  return 0;
}
