/* Nonblocking collectives: many outstanding on one communicator, completed in another order than
 * started (and in a different order on every rank); overlapped with user point-to-point traffic
 * on the same communicator, including wildcard receives that must never see collective
 * messages; progress while a rank is blocked in an unrelated receive; blocking collectives
 * between outstanding nonblocking ones; completion by Wait, Waitany, Waitall and Test loops. */
#include "coll_matrix.h"

static int rank_, size_;

static int ev(int from, int to, size_t i, int salt) {
  return (int)((size_t)from * 1000003u + (size_t)to * 7919u + i * 3u + (size_t)salt) & 0x3fffffff;
}
static long sum_over_ranks(size_t i, int salt, int n) {
  long s = 0;
  for (int r = 0; r < n; ++r) s += coll_val(r, i, salt);
  return s;
}

enum { kOps = 9, kSmall = 1000, kLarge = 1 << 20 };

typedef struct {
  int *bcast, *bcast_big, *ar_in, *ar_out, *ar_big_in, *ar_big_out, *g_in, *g_out, *s_in, *s_out,
      *ag_out, *a2a_in, *a2a_out, *red_out;
} Bufs;

/* Starts kOps + 1 operations (reqs[0..kOps]); check_all verifies them after completion. */
static void start_all(MPI_Comm comm, Bufs *b, int salt, MPI_Request *reqs) {
  int rank, size;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  const size_t sz = (size_t)size;
  for (size_t i = 0; i < kSmall; ++i) {
    b->bcast[i] = rank == 0 ? ev(0, 0, i, salt) : -1;
    b->ar_in[i] = (int)coll_val(rank, i, salt);
    b->g_in[i] = ev(rank, size - 1, i, salt);
  }
  for (size_t i = 0; i < kLarge; ++i) {
    b->bcast_big[i] = rank == size - 1 ? ev(size - 1, 1, i, salt) : -1;
    b->ar_big_in[i] = (int)coll_val(rank, i, salt + 1);
  }
  for (size_t i = 0; i < kSmall * sz; ++i) {
    b->s_in[i] = ev(0, (int)(i / kSmall), i % kSmall, salt);
    b->a2a_in[i] = ev(rank, (int)(i / kSmall), i % kSmall, salt);
  }
  CHECK_MPI(MPI_Ibarrier(comm, &reqs[0]));
  CHECK_MPI(MPI_Ibcast(b->bcast, kSmall, MPI_INT, 0, comm, &reqs[1]));
  CHECK_MPI(MPI_Iallreduce(b->ar_in, b->ar_out, kSmall, MPI_INT, MPI_SUM, comm, &reqs[2]));
  CHECK_MPI(
      MPI_Igather(b->g_in, kSmall, MPI_INT, b->g_out, kSmall, MPI_INT, size - 1, comm, &reqs[3]));
  CHECK_MPI(MPI_Iscatter(b->s_in, kSmall, MPI_INT, b->s_out, kSmall, MPI_INT, 0, comm, &reqs[4]));
  CHECK_MPI(MPI_Iallgather(b->g_in, kSmall, MPI_INT, b->ag_out, kSmall, MPI_INT, comm, &reqs[5]));
  CHECK_MPI(MPI_Ialltoall(b->a2a_in, kSmall, MPI_INT, b->a2a_out, kSmall, MPI_INT, comm, &reqs[6]));
  CHECK_MPI(MPI_Ireduce(b->ar_in, b->red_out, kSmall, MPI_INT, MPI_MAX, 1 % size, comm, &reqs[7]));
  CHECK_MPI(MPI_Ibcast(b->bcast_big, kLarge, MPI_INT, size - 1, comm, &reqs[8]));
  CHECK_MPI(MPI_Iallreduce(b->ar_big_in, b->ar_big_out, kLarge, MPI_INT, MPI_SUM, comm, &reqs[9]));
}

static void check_all(MPI_Comm comm, const Bufs *b, int salt, const char *how) {
  int rank, size;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  for (size_t i = 0; i < kSmall; ++i) {
    CHECK_MSG(b->bcast[i] == ev(0, 0, i, salt), "%s: Ibcast [%zu] = %d", how, i, b->bcast[i]);
    CHECK_MSG(b->ar_out[i] == sum_over_ranks(i, salt, size), "%s: Iallreduce [%zu] = %d", how, i,
              b->ar_out[i]);
    CHECK_MSG(b->s_out[i] == ev(0, rank, i, salt), "%s: Iscatter [%zu] = %d", how, i, b->s_out[i]);
    if (rank == 1 % size) {
      long m = coll_val(0, i, salt);
      for (int r = 1; r < size; ++r) m = coll_val(r, i, salt) > m ? coll_val(r, i, salt) : m;
      CHECK_MSG(b->red_out[i] == m, "%s: Ireduce(MAX) [%zu] = %d, expected %ld", how, i,
                b->red_out[i], m);
    }
  }
  for (size_t i = 0; i < kSmall * (size_t)size; ++i) {
    const int from = (int)(i / kSmall);
    if (rank == size - 1)
      CHECK_MSG(b->g_out[i] == ev(from, size - 1, i % kSmall, salt), "%s: Igather [%zu]", how, i);
    CHECK_MSG(b->ag_out[i] == ev(from, size - 1, i % kSmall, salt), "%s: Iallgather [%zu]", how, i);
    CHECK_MSG(b->a2a_out[i] == ev(from, rank, i % kSmall, salt), "%s: Ialltoall [%zu] = %d", how, i,
              b->a2a_out[i]);
  }
  for (size_t i = 0; i < kLarge; i += 997) {
    CHECK_MSG(b->bcast_big[i] == ev(size - 1, 1, i, salt), "%s: large Ibcast [%zu]", how, i);
    CHECK_MSG(b->ar_big_out[i] == sum_over_ranks(i, salt + 1, size), "%s: large Iallreduce [%zu]",
              how, i);
  }
}

static void alloc_bufs(Bufs *b) {
  const size_t sz = (size_t)size_;
  b->bcast = jobs_malloc(kSmall * sizeof(int));
  b->ar_in = jobs_malloc(kSmall * sizeof(int));
  b->ar_out = jobs_malloc(kSmall * sizeof(int));
  b->g_in = jobs_malloc(kSmall * sizeof(int));
  b->s_out = jobs_malloc(kSmall * sizeof(int));
  b->red_out = jobs_malloc(kSmall * sizeof(int));
  b->g_out = jobs_malloc(kSmall * sz * sizeof(int));
  b->s_in = jobs_malloc(kSmall * sz * sizeof(int));
  b->ag_out = jobs_malloc(kSmall * sz * sizeof(int));
  b->a2a_in = jobs_malloc(kSmall * sz * sizeof(int));
  b->a2a_out = jobs_malloc(kSmall * sz * sizeof(int));
  b->bcast_big = jobs_malloc(kLarge * sizeof(int));
  b->ar_big_in = jobs_malloc(kLarge * sizeof(int));
  b->ar_big_out = jobs_malloc(kLarge * sizeof(int));
}

static void free_bufs(Bufs *b) {
  int **all[] = {&b->bcast,      &b->bcast_big, &b->ar_in,   &b->ar_out, &b->ar_big_in,
                 &b->ar_big_out, &b->g_in,      &b->g_out,   &b->s_in,   &b->s_out,
                 &b->ag_out,     &b->a2a_in,    &b->a2a_out, &b->red_out};
  for (size_t i = 0; i < sizeof all / sizeof all[0]; ++i) free(*all[i]);
}

/* Ten different operations outstanding at once, completed four ways. */
static void check_outstanding(MPI_Comm comm, const char *name) {
  Bufs b;
  alloc_bufs(&b);
  MPI_Request reqs[kOps + 1];
  char how[128];
  for (int mode = 0; mode < 4; ++mode) {
    const int salt = 100 + mode;
    start_all(comm, &b, salt, reqs);
    switch (mode) {
      case 0: /* reverse order */
        for (int i = kOps; i >= 0; --i) CHECK_MPI(MPI_Wait(&reqs[i], MPI_STATUS_IGNORE));
        break;
      case 1: { /* whatever finishes first */
        for (int left = kOps + 1; left > 0; --left) {
          int idx = -1;
          CHECK_MPI(MPI_Waitany(kOps + 1, reqs, &idx, MPI_STATUS_IGNORE));
          CHECK(idx >= 0 && idx <= kOps);
        }
        break;
      }
      case 2: /* a Test loop, never blocking */
        for (int flag = 0; !flag;)
          CHECK_MPI(MPI_Testall(kOps + 1, reqs, &flag, MPI_STATUSES_IGNORE));
        break;
      default: /* a rank-dependent order */
        for (int k = 0; k <= kOps; ++k) {
          int i = (k * 3 + rank_) % (kOps + 1);
          CHECK_MPI(MPI_Wait(&reqs[i], MPI_STATUS_IGNORE));
        }
        for (int i = 0; i <= kOps; ++i) CHECK(reqs[i] == MPI_REQUEST_NULL);
        break;
    }
    snprintf(how, sizeof how, "%s, completion mode %d", name, mode);
    check_all(comm, &b, salt, how);
  }
  free_bufs(&b);
}

/* Forty allreduces of one communicator in flight; every rank waits for them in its own order. */
static void check_many(MPI_Comm comm) {
  enum { kN = 40, kCount = 300 };
  int rank, size;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  int *in = jobs_malloc(kN * kCount * sizeof(int)), *out = jobs_malloc(kN * kCount * sizeof(int));
  MPI_Request reqs[kN];
  for (int k = 0; k < kN; ++k) {
    for (int i = 0; i < kCount; ++i) in[k * kCount + i] = (int)coll_val(rank, (size_t)i, k);
    CHECK_MPI(MPI_Iallreduce(in + k * kCount, out + k * kCount, kCount, MPI_INT, MPI_SUM, comm,
                             &reqs[k]));
  }
  for (int j = 0; j < kN; ++j) {
    int k = (j * 7 + rank * 13) % kN; /* 7 and 40 are coprime: a permutation */
    CHECK_MPI(MPI_Wait(&reqs[(k + kN) % kN], MPI_STATUS_IGNORE));
  }
  for (int k = 0; k < kN; ++k)
    for (int i = 0; i < kCount; ++i)
      CHECK_MSG(out[k * kCount + i] == sum_over_ranks((size_t)i, k, size),
                "operation %d of %d outstanding Iallreduces: [%d] = %d", k, kN, i,
                out[k * kCount + i]);
  free(in), free(out);
}

/* User traffic on the same communicator while collectives are in flight: a wildcard receive
 * (MPI_ANY_SOURCE, MPI_ANY_TAG) posted before they start must not see their messages, and a
 * ring of point-to-point messages runs between their start and their end. */
static void check_overlap_p2p(MPI_Comm comm) {
  int rank, size;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  enum { kCount = 5000 };
  int wild[4] = {0}, *in = jobs_malloc(kCount * sizeof(int)),
      *out = jobs_malloc(kCount * sizeof(int));
  MPI_Request wild_req, coll[2], p2p[2];
  MPI_Status st;
  const int right = (rank + 1) % size, left = (rank - 1 + size) % size;
  CHECK_MPI(MPI_Irecv(wild, 4, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, comm, &wild_req));
  for (int round = 0; round < 2; ++round) {
    for (int i = 0; i < kCount; ++i) in[i] = (int)coll_val(rank, (size_t)i, 5 + round);
    CHECK_MPI(MPI_Iallreduce(in, out, kCount, MPI_INT, MPI_SUM, comm, &coll[0]));
    CHECK_MPI(MPI_Ibarrier(comm, &coll[1]));
    if (round == 1) {
      /* Tags a collective might use internally, while both are in flight. */
      int token = rank * 11, got = -1;
      for (int tag = 0; tag < 3; ++tag) {
        CHECK_MPI(MPI_Irecv(&got, 1, MPI_INT, left, tag, comm, &p2p[0]));
        CHECK_MPI(MPI_Isend(&token, 1, MPI_INT, right, tag, comm, &p2p[1]));
        CHECK_MPI(MPI_Waitall(2, p2p, MPI_STATUSES_IGNORE));
        CHECK_INT(got, ==, left * 11);
      }
    }
    CHECK_MPI(MPI_Waitall(2, coll, MPI_STATUSES_IGNORE));
    for (int i = 0; i < kCount; ++i)
      CHECK_MSG(out[i] == sum_over_ranks((size_t)i, 5 + round, size),
                "Iallreduce overlapped with p2p, round %d: [%d]", round, i);
    if (round == 0) {
      int flag = 1;
      CHECK_MPI(MPI_Test(&wild_req, &flag, MPI_STATUS_IGNORE));
      CHECK_MSG(!flag, "a wildcard receive matched a collective's message");
      /* Once everyone has looked, satisfy it with a real message from the left. */
      CHECK_MPI(MPI_Barrier(comm));
      int msg[4] = {rank, 1, 2, 3};
      CHECK_MPI(MPI_Send(msg, 4, MPI_INT, right, 77, comm));
      CHECK_MPI(MPI_Wait(&wild_req, &st));
      CHECK_INT(st.MPI_SOURCE, ==, left);
      CHECK_INT(st.MPI_TAG, ==, 77);
      CHECK_INT(wild[0], ==, left);
    }
  }
  free(in), free(out);
}

/* A chain of blocking receives: rank r waits in MPI_Recv for rank r+1, which sends only once its
 * Ibcast is complete. Every rank that relays the broadcast must do so while blocked in MPI_Recv,
 * so this finishes only if nonblocking collectives progress inside unrelated calls. */
static void check_progress(MPI_Comm comm) {
  int rank, size;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  for (int round = 0; round < 2; ++round) {
    const int count = round ? 300000 : 100; /* eager, then rendezvous */
    int *buf = jobs_malloc((size_t)count * sizeof(int));
    for (int i = 0; i < count; ++i) buf[i] = rank == 0 ? ev(0, 0, (size_t)i, round) : -1;
    MPI_Request req;
    CHECK_MPI(MPI_Ibcast(buf, count, MPI_INT, 0, comm, &req));
    int token = 0;
    if (rank + 1 < size)
      CHECK_MPI(MPI_Recv(&token, 1, MPI_INT, rank + 1, 9, comm, MPI_STATUS_IGNORE));
    CHECK_MPI(MPI_Wait(&req, MPI_STATUS_IGNORE));
    if (rank > 0) CHECK_MPI(MPI_Send(&token, 1, MPI_INT, rank - 1, 9, comm));
    for (int i = 0; i < count; ++i)
      CHECK_MSG(buf[i] == ev(0, 0, (size_t)i, round), "Ibcast relayed during MPI_Recv: [%d]", i);
    free(buf);
  }
}

/* Blocking collectives between the start and the end of nonblocking ones. */
static void check_mixed(MPI_Comm comm) {
  int rank, size;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  int a = rank + 1, sum = 0, b = rank == 0 ? 42 : 0, c = rank, max = -1;
  MPI_Request reqs[2];
  CHECK_MPI(MPI_Iallreduce(&a, &sum, 1, MPI_INT, MPI_SUM, comm, &reqs[0]));
  CHECK_MPI(MPI_Bcast(&b, 1, MPI_INT, 0, comm));
  CHECK_MPI(MPI_Iallreduce(&c, &max, 1, MPI_INT, MPI_MAX, comm, &reqs[1]));
  CHECK_MPI(MPI_Barrier(comm));
  CHECK_MPI(MPI_Wait(&reqs[1], MPI_STATUS_IGNORE));
  CHECK_MPI(MPI_Wait(&reqs[0], MPI_STATUS_IGNORE));
  CHECK_INT(b, ==, 42);
  CHECK_INT(sum, ==, size * (size + 1) / 2);
  CHECK_INT(max, ==, size - 1);
}

enum { kBlocks = 500 };
/* A sum over MPI_Type_vector(kBlocks, 1, 2, MPI_INT) elements (extent 2 * kBlocks - 1 ints). */
static void vector_sum_op(void *in, void *inout, int *len, MPI_Datatype *type) {
  (void)type;
  const int *a = in;
  int *b = inout;
  for (int e = 0; e < *len; ++e)
    for (int j = 0; j < kBlocks; ++j)
      b[e * (2 * kBlocks - 1) + 2 * j] += a[e * (2 * kBlocks - 1) + 2 * j];
}

/* A non-contiguous datatype freed right after the call: the operation still completes with it
 * (MPI_Type_free only marks it for deallocation). */
static void check_freed_type(MPI_Comm comm) {
  int rank, size;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  MPI_Op vsum;
  CHECK_MPI(MPI_Op_create(vector_sum_op, 1, &vsum));
  int *buf = jobs_malloc(2 * kBlocks * sizeof(int)), *sum = jobs_malloc(2 * kBlocks * sizeof(int));
  for (int i = 0; i < 2 * kBlocks; ++i) buf[i] = rank == 0 ? (i % 2 ? -1 : i) : -2, sum[i] = -3;
  MPI_Datatype every_other;
  CHECK_MPI(MPI_Type_vector(kBlocks, 1, 2, MPI_INT, &every_other));
  CHECK_MPI(MPI_Type_commit(&every_other));
  MPI_Request reqs[2];
  CHECK_MPI(MPI_Ibcast(buf, 1, every_other, 0, comm, &reqs[0]));
  int *in = jobs_malloc(2 * kBlocks * sizeof(int));
  for (int i = 0; i < 2 * kBlocks; ++i) in[i] = i % 2 ? 1000 : rank;
  CHECK_MPI(MPI_Iallreduce(in, sum, 1, every_other, vsum, comm, &reqs[1]));
  CHECK_MPI(MPI_Type_free(&every_other));
  CHECK_MPI(MPI_Waitall(2, reqs, MPI_STATUSES_IGNORE));
  for (int i = 0; i < 2 * kBlocks; ++i) {
    const int want = i % 2 ? (rank == 0 ? -1 : -2) : i;
    CHECK_MSG(buf[i] == want, "Ibcast with a freed vector type: [%d] = %d, expected %d", i, buf[i],
              want);
    CHECK_MSG(sum[i] == (i % 2 ? -3 : size * (size - 1) / 2),
              "Iallreduce with a freed vector "
              "type: [%d] = %d (gaps must stay untouched)",
              i, sum[i]);
  }
  CHECK_MPI(MPI_Op_free(&vsum));
  free(buf), free(sum), free(in);
}

int main(int argc, char **argv) {
  CHECK_MPI(MPI_Init(&argc, &argv));
  CHECK_MPI(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
  MPI_Comm_rank(MPI_COMM_WORLD, &rank_);
  MPI_Comm_size(MPI_COMM_WORLD, &size_);
  MPI_Comm reversed, dup;
  CHECK_MPI(MPI_Comm_split(MPI_COMM_WORLD, 0, size_ - rank_, &reversed));
  CHECK_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &dup));
  const MPI_Comm comms[] = {MPI_COMM_WORLD, reversed};
  const char *names[] = {"world", "reversed"};
  for (int i = 0; i < 2; ++i) {
    check_outstanding(comms[i], names[i]);
    check_many(comms[i]);
    check_overlap_p2p(comms[i]);
    check_progress(comms[i]);
    check_mixed(comms[i]);
    check_freed_type(comms[i]);
  }
  /* Operations on two communicators at once, completed crosswise. */
  int x = rank_, y = 2 * rank_, sx = -1, sy = -1;
  MPI_Request r[2];
  CHECK_MPI(MPI_Iallreduce(&x, &sx, 1, MPI_INT, MPI_SUM, dup, &r[0]));
  CHECK_MPI(MPI_Iallreduce(&y, &sy, 1, MPI_INT, MPI_SUM, reversed, &r[1]));
  CHECK_MPI(MPI_Wait(&r[1], MPI_STATUS_IGNORE));
  CHECK_MPI(MPI_Wait(&r[0], MPI_STATUS_IGNORE));
  CHECK_INT(sx, ==, size_ * (size_ - 1) / 2);
  CHECK_INT(sy, ==, size_ * (size_ - 1));
  CHECK_MPI(MPI_Comm_free(&reversed));
  CHECK_MPI(MPI_Comm_free(&dup));
  jobs_done("job_coll_nb");
  CHECK_MPI(MPI_Finalize());
  return 0;
}
