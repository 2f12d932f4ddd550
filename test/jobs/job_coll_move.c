/* Data-movement collectives on every communicator size (world, dup, reversed, splits): Bcast,
 * Gather(v), Scatter(v), Allgather(v), Alltoall(v/w); every root, in place and not, counts from
 * 0 to 4 Mi elements, ints, doubles and the padded pair type MPI_DOUBLE_INT; each algorithm
 * forced in turn through its MPR_COLL_*_ALG override. Every element says who sent it to whom,
 * so a block delivered to the wrong place or rank fails the check. */
#include "coll_matrix.h"

static int salt_;

/* Element i of the block rank `from` sends to rank `to`. */
static int ev(int from, int to, size_t i, int salt) {
  return (int)((size_t)from * 1000003u + (size_t)to * 7919u + i * 3u + (size_t)salt) & 0x3fffffff;
}

typedef struct {
  double v;
  int i;
} DI;

static const char *kBcastAlgs[] = {NULL, "binomial", "scatter_allgather"};
static const char *kGatherAlgs[] = {NULL, "binomial", "linear"};
static const char *kAllgatherAlgs[] = {NULL, "recursive_doubling", "bruck", "ring"};
static const char *kAlltoallAlgs[] = {NULL, "bruck", "linear", "pairwise"};
#define NALGS(a) ((int)(sizeof(a) / sizeof((a)[0])))
#define ALG(a) ((a) ? (a) : "auto")

static void check_bcast(const TestComm *tc) {
  int rank, size;
  MPI_Comm_rank(tc->comm, &rank);
  MPI_Comm_size(tc->comm, &size);
  static const size_t kCounts[] = {0, 1, 3, 64, 1031, 65539, 300007};
  const int ncounts = tc->full ? 7 : 4;
  for (int a = 0; a < NALGS(kBcastAlgs); ++a) {
    coll_force("MPR_COLL_BCAST_ALG", kBcastAlgs[a]);
    for (int root = 0; root < size; ++root)
      for (int c = 0; c < ncounts; ++c) {
        const size_t n = kCounts[c];
        const int salt = ++salt_;
        int *b = jobs_malloc(n * sizeof(int));
        DI *p = jobs_malloc(n * sizeof(DI));
        for (size_t i = 0; i < n; ++i) {
          b[i] = rank == root ? ev(root, 0, i, salt) : -1;
          p[i].v = rank == root ? (double)ev(root, 1, i, salt) : -1.0;
          p[i].i = rank == root ? (int)i : -1;
        }
        CHECK_MPI(MPI_Bcast(b, (int)n, MPI_INT, root, tc->comm));
        if (c % 2) CHECK_MPI(MPI_Bcast(p, (int)n, MPI_DOUBLE_INT, root, tc->comm));
        for (size_t i = 0; i < n; ++i) {
          CHECK_MSG(b[i] == ev(root, 0, i, salt),
                    "Bcast on %s alg %s root %d count %zu: [%zu] = "
                    "%d, expected %d",
                    tc->name, ALG(kBcastAlgs[a]), root, n, i, b[i], ev(root, 0, i, salt));
          if (c % 2)
            CHECK_MSG(p[i].v == (double)ev(root, 1, i, salt) && p[i].i == (int)i,
                      "Bcast(MPI_DOUBLE_INT) on %s root %d count %zu: [%zu] wrong", tc->name, root,
                      n, i);
        }
        free(b), free(p);
      }
    if (tc->full) {
      const size_t n = (size_t)4 << 20;
      const int salt = ++salt_, root = size - 1 - a % size;
      int *b = jobs_malloc(n * sizeof(int));
      for (size_t i = 0; i < n; ++i) b[i] = rank == root ? ev(root, 0, i, salt) : 0;
      CHECK_MPI(MPI_Bcast(b, (int)n, MPI_INT, root, tc->comm));
      for (size_t i = 0; i < n; ++i)
        CHECK_MSG(b[i] == ev(root, 0, i, salt),
                  "Bcast on %s alg %s root %d, 4 Mi ints: [%zu] "
                  "wrong",
                  tc->name, ALG(kBcastAlgs[a]), root, i);
      free(b);
    }
  }
  coll_force("MPR_COLL_BCAST_ALG", NULL);
}

static void check_gather_scatter(const TestComm *tc) {
  int rank, size;
  MPI_Comm_rank(tc->comm, &rank);
  MPI_Comm_size(tc->comm, &size);
  static const size_t kCounts[] = {0, 1, 5, 1031, 40000};
  const int ncounts = tc->full ? 5 : 4;
  for (int a = 0; a < NALGS(kGatherAlgs); ++a) {
    coll_force("MPR_COLL_GATHER_ALG", kGatherAlgs[a]);
    coll_force("MPR_COLL_SCATTER_ALG", kGatherAlgs[a]);
    for (int root = 0; root < size; ++root)
      for (int c = 0; c < ncounts; ++c)
        for (int ip = 0; ip < 2; ++ip) {
          const size_t n = kCounts[c], all = n * (size_t)size;
          const int salt = ++salt_, is_root = rank == root;
          int *mine = jobs_malloc(n * sizeof(int)), *big = jobs_malloc(all * sizeof(int));
          /* Gather: rank r's block is ev(r, root, i). */
          for (size_t i = 0; i < n; ++i) mine[i] = ev(rank, root, i, salt);
          for (size_t i = 0; i < all; ++i) big[i] = -1;
          if (ip && is_root)
            for (size_t i = 0; i < n; ++i) big[(size_t)rank * n + i] = mine[i];
          CHECK_MPI(MPI_Gather(ip && is_root ? MPI_IN_PLACE : mine, (int)n, MPI_INT, big, (int)n,
                               MPI_INT, root, tc->comm));
          for (size_t i = 0; is_root && i < all; ++i)
            CHECK_MSG(big[i] == ev((int)(i / n), root, i % n, salt),
                      "Gather on %s alg %s root %d count %zu%s: [%zu] = %d, expected %d", tc->name,
                      ALG(kGatherAlgs[a]), root, n, ip ? " in place" : "", i, big[i],
                      ev((int)(i / n), root, i % n, salt));
          /* Scatter: the root's block for rank r is ev(root, r, i). */
          for (size_t i = 0; i < all; ++i)
            big[i] = is_root ? ev(root, (int)(i / n), i % n, salt) : -1;
          for (size_t i = 0; i < n; ++i) mine[i] = -1;
          CHECK_MPI(MPI_Scatter(big, (int)n, MPI_INT, ip && is_root ? MPI_IN_PLACE : mine, (int)n,
                                MPI_INT, root, tc->comm));
          const int *got = ip && is_root ? big + (size_t)rank * n : mine;
          for (size_t i = 0; i < n; ++i)
            CHECK_MSG(got[i] == ev(root, rank, i, salt),
                      "Scatter on %s alg %s root %d count %zu%s: [%zu] = %d at rank %d", tc->name,
                      ALG(kGatherAlgs[a]), root, n, ip ? " in place" : "", i, got[i], rank);
          free(mine), free(big);
        }
  }
  coll_force("MPR_COLL_GATHER_ALG", NULL);
  coll_force("MPR_COLL_SCATTER_ALG", NULL);
  /* The padded pair type goes through the packing path. */
  DI mine[3], all[3 * 64];
  for (int i = 0; i < 3; ++i) mine[i].v = rank + 0.5 * i, mine[i].i = rank * 10 + i;
  CHECK_MPI(MPI_Gather(mine, 3, MPI_DOUBLE_INT, all, 3, MPI_DOUBLE_INT, 0, tc->comm));
  for (int r = 0; rank == 0 && r < size; ++r)
    for (int i = 0; i < 3; ++i)
      CHECK_MSG(all[r * 3 + i].v == r + 0.5 * i && all[r * 3 + i].i == r * 10 + i,
                "Gather(MPI_DOUBLE_INT) on %s: [%d][%d] wrong", tc->name, r, i);
}

/* Uneven counts (some zero) and displacements with gaps between the blocks. */
static void check_v(const TestComm *tc) {
  int rank, size;
  MPI_Comm_rank(tc->comm, &rank);
  MPI_Comm_size(tc->comm, &size);
  int *counts = jobs_malloc((size_t)size * sizeof(int)),
      *displs = jobs_malloc((size_t)size * sizeof(int));
  for (int scale = 1; scale <= (tc->full ? 5000 : 10); scale *= 10)
    for (int root = 0; root < size; ++root)
      for (int ip = 0; ip < 2; ++ip) {
        const int salt = ++salt_, is_root = rank == root;
        int total = 0;
        for (int r = 0; r < size; ++r) {
          counts[r] = ((r + salt) % 3) * scale;
          displs[r] = total + 2;
          total += counts[r] + 2;
        }
        int *buf = jobs_malloc((size_t)total * sizeof(int) + 4);
        int *mine = jobs_malloc((size_t)counts[rank] * sizeof(int) + 4);
        for (int i = 0; i < counts[rank]; ++i) mine[i] = ev(rank, root, (size_t)i, salt);
        for (int i = 0; i < total; ++i) buf[i] = -5;
        if (ip && is_root)
          for (int i = 0; i < counts[rank]; ++i) buf[displs[rank] + i] = mine[i];
        CHECK_MPI(MPI_Gatherv(ip && is_root ? MPI_IN_PLACE : mine, counts[rank], MPI_INT, buf,
                              counts, displs, MPI_INT, root, tc->comm));
        for (int r = 0; is_root && r < size; ++r) {
          for (int i = 0; i < counts[r]; ++i)
            CHECK_MSG(buf[displs[r] + i] == ev(r, root, (size_t)i, salt),
                      "Gatherv on %s root %d%s: block %d [%d] wrong", tc->name, root,
                      ip ? " in place" : "", r, i);
          CHECK_MSG(buf[displs[r] - 1] == -5, "Gatherv on %s wrote into a gap", tc->name);
        }
        for (int r = 0; r < size; ++r)
          for (int i = 0; i < counts[r]; ++i)
            buf[displs[r] + i] = is_root ? ev(root, r, (size_t)i, salt) : -1;
        for (int i = 0; i < counts[rank]; ++i) mine[i] = -1;
        CHECK_MPI(MPI_Scatterv(buf, counts, displs, MPI_INT, ip && is_root ? MPI_IN_PLACE : mine,
                               counts[rank], MPI_INT, root, tc->comm));
        const int *got = ip && is_root ? buf + displs[rank] : mine;
        for (int i = 0; i < counts[rank]; ++i)
          CHECK_MSG(got[i] == ev(root, rank, (size_t)i, salt),
                    "Scatterv on %s root %d%s: [%d] "
                    "wrong at rank %d",
                    tc->name, root, ip ? " in place" : "", i, rank);
        /* Allgatherv (once per root value, so the loop also varies the counts). */
        for (int i = 0; i < total; ++i) buf[i] = -5;
        for (int i = 0; i < counts[rank]; ++i) mine[i] = ev(rank, 0, (size_t)i, salt);
        if (ip)
          for (int i = 0; i < counts[rank]; ++i) buf[displs[rank] + i] = mine[i];
        CHECK_MPI(MPI_Allgatherv(ip ? MPI_IN_PLACE : mine, counts[rank], MPI_INT, buf, counts,
                                 displs, MPI_INT, tc->comm));
        for (int r = 0; r < size; ++r)
          for (int i = 0; i < counts[r]; ++i)
            CHECK_MSG(buf[displs[r] + i] == ev(r, 0, (size_t)i, salt),
                      "Allgatherv on %s%s: block %d [%d] wrong at rank %d", tc->name,
                      ip ? " in place" : "", r, i, rank);
        free(buf), free(mine);
      }
  free(counts), free(displs);
}

static void check_allgather(const TestComm *tc) {
  int rank, size;
  MPI_Comm_rank(tc->comm, &rank);
  MPI_Comm_size(tc->comm, &size);
  static const size_t kCounts[] = {0, 1, 3, 250, 1031, 70001};
  const int ncounts = tc->full ? 6 : 4;
  for (int a = 0; a < NALGS(kAllgatherAlgs); ++a) {
    coll_force("MPR_COLL_ALLGATHER_ALG", kAllgatherAlgs[a]);
    for (int c = 0; c < ncounts + (tc->full ? 1 : 0); ++c)
      for (int ip = 0; ip < 2; ++ip) {
        /* The extra row: 4 Mi ints gathered in total. */
        const size_t n = c < ncounts ? kCounts[c] : ((size_t)4 << 20) / (size_t)size;
        if (c == ncounts && ip) continue;
        const size_t all = n * (size_t)size;
        const int salt = ++salt_;
        int *mine = jobs_malloc(n * sizeof(int)), *big = jobs_malloc(all * sizeof(int));
        for (size_t i = 0; i < n; ++i) mine[i] = ev(rank, 0, i, salt);
        for (size_t i = 0; i < all; ++i) big[i] = -1;
        if (ip)
          for (size_t i = 0; i < n; ++i) big[(size_t)rank * n + i] = mine[i];
        CHECK_MPI(MPI_Allgather(ip ? MPI_IN_PLACE : mine, (int)n, MPI_INT, big, (int)n, MPI_INT,
                                tc->comm));
        for (size_t i = 0; i < all; ++i)
          CHECK_MSG(big[i] == ev((int)(i / n), 0, i % n, salt),
                    "Allgather on %s alg %s count %zu%s: [%zu] = %d at rank %d", tc->name,
                    ALG(kAllgatherAlgs[a]), n, ip ? " in place" : "", i, big[i], rank);
        free(mine), free(big);
      }
  }
  coll_force("MPR_COLL_ALLGATHER_ALG", NULL);
}

static void check_alltoall(const TestComm *tc) {
  int rank, size;
  MPI_Comm_rank(tc->comm, &rank);
  MPI_Comm_size(tc->comm, &size);
  static const size_t kCounts[] = {0, 1, 2, 33, 1031, 40000};
  const int ncounts = tc->full ? 6 : 4;
  for (int a = 0; a < NALGS(kAlltoallAlgs); ++a) {
    coll_force("MPR_COLL_ALLTOALL_ALG", kAlltoallAlgs[a]);
    for (int c = 0; c < ncounts; ++c)
      for (int ip = 0; ip < 2; ++ip) {
        const size_t n = kCounts[c], all = n * (size_t)size;
        const int salt = ++salt_;
        int *s = jobs_malloc(all * sizeof(int)), *r = jobs_malloc(all * sizeof(int));
        for (size_t i = 0; i < all; ++i) {
          s[i] = ev(rank, (int)(i / n), i % n, salt);
          r[i] = ip ? s[i] : -1;
        }
        CHECK_MPI(
            MPI_Alltoall(ip ? MPI_IN_PLACE : s, (int)n, MPI_INT, r, (int)n, MPI_INT, tc->comm));
        for (size_t i = 0; i < all; ++i)
          CHECK_MSG(r[i] == ev((int)(i / n), rank, i % n, salt),
                    "Alltoall on %s alg %s count %zu%s: [%zu] = %d at rank %d, expected %d",
                    tc->name, ALG(kAlltoallAlgs[a]), n, ip ? " in place" : "", i, r[i], rank,
                    ev((int)(i / n), rank, i % n, salt));
        free(s), free(r);
      }
  }
  coll_force("MPR_COLL_ALLTOALL_ALG", NULL);
}

/* Alltoallv with uneven counts and gaps; Alltoallw sending ints to even ranks and doubles to
 * odd ones. */
static void check_alltoallv_w(const TestComm *tc) {
  int rank, size;
  MPI_Comm_rank(tc->comm, &rank);
  MPI_Comm_size(tc->comm, &size);
  const size_t sz = (size_t)size;
  int *sc = jobs_malloc(sz * sizeof(int)), *sd = jobs_malloc(sz * sizeof(int));
  int *rc = jobs_malloc(sz * sizeof(int)), *rd = jobs_malloc(sz * sizeof(int));
  MPI_Datatype *st = jobs_malloc(sz * sizeof(MPI_Datatype)),
               *rt = jobs_malloc(sz * sizeof(MPI_Datatype));
  for (int scale = 1; scale <= (tc->full ? 3000 : 3); scale *= 30)
    for (int ip = 0; ip < 2; ++ip) {
      const int salt = ++salt_;
      /* count(from, to) = ((from + 2 * to + salt) % 3) * scale; in place needs sc == rc. */
      int stot = 0, rtot = 0;
      for (int p = 0; p < size; ++p) {
        sc[p] = ((rank + 2 * p + salt) % 3) * scale;
        rc[p] = ((p + 2 * rank + salt) % 3) * scale;
        if (ip) sc[p] = rc[p] = ((rank + p + salt) % 3) * scale;
        sd[p] = stot + 1;
        stot += sc[p] + 1;
        rd[p] = rtot + 3;
        rtot += rc[p] + 3;
      }
      int *s = jobs_malloc((size_t)stot * sizeof(int) + 4),
          *r = jobs_malloc((size_t)rtot * sizeof(int) + 4);
      for (int p = 0; p < size; ++p)
        for (int i = 0; i < sc[p]; ++i) s[sd[p] + i] = ev(rank, p, (size_t)i, salt);
      for (int i = 0; i < rtot; ++i) r[i] = -3;
      if (ip)
        for (int p = 0; p < size; ++p)
          for (int i = 0; i < rc[p]; ++i) r[rd[p] + i] = ev(rank, p, (size_t)i, salt);
      CHECK_MPI(
          MPI_Alltoallv(ip ? MPI_IN_PLACE : s, sc, sd, MPI_INT, r, rc, rd, MPI_INT, tc->comm));
      for (int p = 0; p < size; ++p) {
        for (int i = 0; i < rc[p]; ++i)
          CHECK_MSG(r[rd[p] + i] == ev(p, rank, (size_t)i, salt),
                    "Alltoallv on %s%s: block "
                    "from %d [%d] = %d at rank %d",
                    tc->name, ip ? " in place" : "", p, i, r[rd[p] + i], rank);
        CHECK_MSG(r[rd[p] - 1] == -3, "Alltoallv on %s wrote into a gap", tc->name);
      }
      free(s), free(r);
      /* Alltoallw: bytes displacements, the type depends on the receiver (ints only in
       * place, where what a rank sends is laid out as what it receives). */
      size_t sbytes = 0, rbytes = 0;
      for (int p = 0; p < size; ++p) {
        const int sdbl = !ip && p % 2, rdbl = !ip && rank % 2;
        st[p] = sdbl ? MPI_DOUBLE : MPI_INT;
        rt[p] = rdbl ? MPI_DOUBLE : MPI_INT;
        /* Blocks start 8-byte aligned, with a gap after each. */
        sd[p] = (int)sbytes;
        sbytes = (sbytes + (size_t)sc[p] * (sdbl ? sizeof(double) : sizeof(int)) + 15) & ~(size_t)7;
        rd[p] = (int)rbytes;
        rbytes = (rbytes + (size_t)rc[p] * (rdbl ? sizeof(double) : sizeof(int)) + 15) & ~(size_t)7;
      }
      char *sw = jobs_malloc(sbytes), *rw = jobs_malloc(rbytes);
      for (int p = 0; p < size; ++p)
        for (int i = 0; i < sc[p]; ++i) {
          if (st[p] == MPI_DOUBLE)
            ((double *)(sw + sd[p]))[i] = ev(rank, p, (size_t)i, salt);
          else
            ((int *)(sw + sd[p]))[i] = ev(rank, p, (size_t)i, salt);
        }
      if (ip)
        for (int p = 0; p < size; ++p)
          for (int i = 0; i < rc[p]; ++i) ((int *)(rw + rd[p]))[i] = ev(rank, p, (size_t)i, salt);
      CHECK_MPI(MPI_Alltoallw(ip ? MPI_IN_PLACE : sw, sc, sd, st, rw, rc, rd, rt, tc->comm));
      for (int p = 0; p < size; ++p)
        for (int i = 0; i < rc[p]; ++i) {
          long got =
              rt[p] == MPI_DOUBLE ? (long)((double *)(rw + rd[p]))[i] : ((int *)(rw + rd[p]))[i];
          CHECK_MSG(got == ev(p, rank, (size_t)i, salt),
                    "Alltoallw on %s%s: block from %d [%d] "
                    "= %ld at rank %d",
                    tc->name, ip ? " in place" : "", p, i, got, rank);
        }
      free(sw), free(rw);
    }
  free(sc), free(sd), free(rc), free(rd), free(st), free(rt);
}

static void check_barrier(const TestComm *tc) {
  int rank, size;
  MPI_Comm_rank(tc->comm, &rank);
  MPI_Comm_size(tc->comm, &size);
  /* The last rank arrives 100 ms late, probing meanwhile; the others tell it when they have left.
   * A notice before it has entered means someone left early (causal, not timed). */
  enum { kLeftTag = 77 };
  int late = size - 1;
  CHECK_MPI(MPI_Barrier(tc->comm));
  if (rank == late) {
    int early = jobs_sleep_watching(100, tc->comm, MPI_ANY_SOURCE, kLeftTag);
    CHECK_MSG(early < 0, "rank %d of %s left MPI_Barrier before rank %d entered it", early,
              tc->name, late);
  }
  CHECK_MPI(MPI_Barrier(tc->comm));
  if (rank != late) {
    CHECK_MPI(MPI_Send(&rank, 1, MPI_INT, late, kLeftTag, tc->comm));
  } else {
    for (int i = 0; i < size - 1; ++i) {
      int from = -1;
      MPI_Status st;
      CHECK_MPI(MPI_Recv(&from, 1, MPI_INT, MPI_ANY_SOURCE, kLeftTag, tc->comm, &st));
      CHECK_INT(from, ==, st.MPI_SOURCE);
    }
  }
}

int main(int argc, char **argv) {
  coll_allow_switching();
  CHECK_MPI(MPI_Init(&argc, &argv));
  CHECK_MPI(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
  TestComm comms[kMaxTestComms];
  const int ncomms = coll_make_comms(comms);
  for (int i = 0; i < ncomms; ++i) {
    salt_ = i * 100000; /* members of one communicator make the same calls */
    check_barrier(&comms[i]);
    check_bcast(&comms[i]);
    check_gather_scatter(&comms[i]);
    check_v(&comms[i]);
    check_allgather(&comms[i]);
    check_alltoall(&comms[i]);
    check_alltoallv_w(&comms[i]);
  }
  coll_free_comms(comms, ncomms);
  jobs_done("job_coll_move");
  CHECK_MPI(MPI_Finalize());
  return 0;
}
