/* Large counts (the MPI-4 _c forms) in point-to-point, collectives and one-sided calls:
 * - a message of 2^31 + 16 bytes (a count no int can hold) sent with MPI_Send_c, received with
 *   MPI_Recv_c, then broadcast with MPI_Bcast_c, checked at every MiB and at its tail;
 *   MPI_Get_count_c reports the count while MPI_Get_count says MPI_UNDEFINED;
 * - every _c point-to-point form (nonblocking, synchronous, ready, buffered, persistent,
 *   sendrecv, matched receives), the _c collectives (blocking, nonblocking, persistent; v and
 *   w forms with MPI_Count counts and MPI_Aint displacements; neighborhood ones on a ring) and
 *   a user op from MPI_Op_create_c carry small messages correctly;
 * - the _c one-sided calls (windows with an MPI_Aint disp_unit, put/get/accumulates and their
 *   request forms, shared windows);
 * - bad arguments fail with the right class, naming the _c call. */
#include <limits.h>
#include <stdint.h>
#include <string.h>

#include "jobs_util.h"

static int rank_, size_;

/* ---- one message above INT_MAX elements (ranks 0 and 1) ------------------------------------ */

static const MPI_Count kBig = ((MPI_Count)1 << 31) + 16;
static const size_t kMiB = (size_t)1 << 20;

static void mark(unsigned char *buf, uint64_t seed) {
  for (size_t off = 0; off + 8 <= (size_t)kBig - 16; off += kMiB) {
    uint64_t v = seed * 1000003u + off / kMiB;
    memcpy(buf + off, &v, 8);
  }
  jobs_fill(buf + kBig - 16, 16, seed);
}

static void check_marks(const unsigned char *buf, uint64_t seed, const char *what) {
  for (size_t off = 0; off + 8 <= (size_t)kBig - 16; off += kMiB) {
    uint64_t v;
    memcpy(&v, buf + off, 8);
    CHECK_MSG(v == seed * 1000003u + off / kMiB, "%s: wrong data at offset %zu", what, off);
  }
  CHECK_PATTERN(buf + kBig - 16, 16, seed, what);
}

static void big_message(void) {
  MPI_Comm pair;
  CHECK_MPI(MPI_Comm_split(MPI_COMM_WORLD, rank_ < 2 ? 0 : MPI_UNDEFINED, rank_, &pair));
  if (pair == MPI_COMM_NULL) return;
  int r, n;
  MPI_Comm_rank(pair, &r);
  MPI_Comm_size(pair, &n);
  if (n < 2) {
    CHECK_MPI(MPI_Comm_free(&pair));
    return;
  }
  unsigned char *buf = jobs_malloc((size_t)kBig);
  if (r == 0) {
    mark(buf, 7);
    CHECK_MPI(MPI_Send_c(buf, kBig, MPI_BYTE, 1, 5, pair));
  } else {
    MPI_Status st;
    MPI_Count n = -1;
    int small = 0;
    CHECK_MPI(MPI_Recv_c(buf, kBig, MPI_BYTE, 0, 5, pair, &st));
    CHECK_MPI(MPI_Get_count_c(&st, MPI_BYTE, &n));
    CHECK_INT(n, ==, kBig);
    CHECK_MPI(MPI_Get_count(&st, MPI_BYTE, &small));
    CHECK_INT(small, ==, MPI_UNDEFINED);
    check_marks(buf, 7, "MPI_Recv_c of 2^31+16 bytes");
  }
  /* Back the other way through a collective. */
  if (r == 1) mark(buf, 9);
  CHECK_MPI(MPI_Bcast_c(buf, kBig, MPI_BYTE, 1, pair));
  check_marks(buf, 9, "MPI_Bcast_c of 2^31+16 bytes");
  free(buf);
  CHECK_MPI(MPI_Comm_free(&pair));
}

/* ---- point-to-point forms ------------------------------------------------------------------ */

static void p2p_forms(void) {
  const int next = (rank_ + 1) % size_, prev = (rank_ + size_ - 1) % size_;
  enum { N = 300 };
  int out[N], in[N];
  MPI_Status st;
  MPI_Count n;
  for (int form = 0; form < 6; ++form) {
    for (int i = 0; i < N; ++i) out[i] = rank_ * 100000 + form * 1000 + i, in[i] = -1;
    MPI_Request rr, sr = MPI_REQUEST_NULL;
    CHECK_MPI(MPI_Irecv_c(in, N, MPI_INT, prev, form, MPI_COMM_WORLD, &rr));
    CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD)); /* every receive is posted: Rsend is legal */
    switch (form) {
      case 0: CHECK_MPI(MPI_Isend_c(out, N, MPI_INT, next, form, MPI_COMM_WORLD, &sr)); break;
      case 1: CHECK_MPI(MPI_Issend_c(out, N, MPI_INT, next, form, MPI_COMM_WORLD, &sr)); break;
      case 2: CHECK_MPI(MPI_Irsend_c(out, N, MPI_INT, next, form, MPI_COMM_WORLD, &sr)); break;
      case 3: CHECK_MPI(MPI_Rsend_c(out, N, MPI_INT, next, form, MPI_COMM_WORLD)); break;
      case 4:
        if (size_ > 1) {
          CHECK_MPI(MPI_Ssend_c(out, N, MPI_INT, next, form, MPI_COMM_WORLD));
        } else {
          CHECK_MPI(MPI_Send_c(out, N, MPI_INT, next, form, MPI_COMM_WORLD));
        }
        break;
      case 5: {
        MPI_Count need = 0;
        int one = 0;
        CHECK_MPI(MPI_Pack_size(N, MPI_INT, MPI_COMM_WORLD, &one));
        need = one + MPI_BSEND_OVERHEAD;
        void *bb = jobs_malloc((size_t)need * 2);
        CHECK_MPI(MPI_Buffer_attach_c(bb, need * 2));
        CHECK_MPI(MPI_Bsend_c(out, N, MPI_INT, next, form, MPI_COMM_WORLD));
        CHECK_MPI(MPI_Ibsend_c(out, 0, MPI_INT, next, 99, MPI_COMM_WORLD, &sr));
        CHECK_MPI(MPI_Wait(&rr, &st));
        int zero;
        CHECK_MPI(MPI_Recv_c(&zero, 0, MPI_INT, prev, 99, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
        void *got = NULL;
        MPI_Count gotn = 0;
        CHECK_MPI(MPI_Buffer_detach_c(&got, &gotn));
        CHECK(got == bb);
        CHECK_INT(gotn, ==, need * 2);
        free(bb);
        break;
      }
    }
    if (form != 5) CHECK_MPI(MPI_Wait(&rr, &st));
    CHECK_MPI(MPI_Wait(&sr, MPI_STATUS_IGNORE));
    CHECK_MPI(MPI_Get_count_c(&st, MPI_INT, &n));
    CHECK_INT(n, ==, N);
    for (int i = 0; i < N; ++i) CHECK_INT(in[i], ==, prev * 100000 + form * 1000 + i);
  }

  /* Persistent, restarted. */
  MPI_Request pr[2];
  CHECK_MPI(MPI_Recv_init_c(in, N, MPI_INT, prev, 40, MPI_COMM_WORLD, &pr[0]));
  CHECK_MPI(MPI_Send_init_c(out, N, MPI_INT, next, 40, MPI_COMM_WORLD, &pr[1]));
  for (int it = 0; it < 3; ++it) {
    for (int i = 0; i < N; ++i) out[i] = rank_ + it * 7 + i;
    CHECK_MPI(MPI_Startall(2, pr));
    CHECK_MPI(MPI_Waitall(2, pr, MPI_STATUSES_IGNORE));
    for (int i = 0; i < N; ++i) CHECK_INT(in[i], ==, prev + it * 7 + i);
  }
  MPI_Request_free(&pr[0]);
  MPI_Request_free(&pr[1]);
  MPI_Request other[3];
  CHECK_MPI(MPI_Ssend_init_c(out, 1, MPI_INT, next, 41, MPI_COMM_WORLD, &other[0]));
  CHECK_MPI(MPI_Rsend_init_c(out, 1, MPI_INT, next, 41, MPI_COMM_WORLD, &other[1]));
  CHECK_MPI(MPI_Bsend_init_c(out, 1, MPI_INT, next, 41, MPI_COMM_WORLD, &other[2]));
  for (int i = 0; i < 3; ++i) CHECK_MPI(MPI_Request_free(&other[i]));

  /* Sendrecv forms. */
  int v = rank_, w = -1;
  CHECK_MPI(MPI_Sendrecv_c(&v, 1, MPI_INT, next, 50, &w, 1, MPI_INT, prev, 50, MPI_COMM_WORLD,
                           &st));
  CHECK_INT(w, ==, prev);
  w = rank_;
  CHECK_MPI(MPI_Sendrecv_replace_c(&w, 1, MPI_INT, next, 51, prev, 51, MPI_COMM_WORLD, &st));
  CHECK_INT(w, ==, prev);
  MPI_Request q;
  w = -1;
  CHECK_MPI(MPI_Isendrecv_c(&v, 1, MPI_INT, next, 52, &w, 1, MPI_INT, prev, 52, MPI_COMM_WORLD,
                            &q));
  CHECK_MPI(MPI_Wait(&q, MPI_STATUS_IGNORE));
  CHECK_INT(w, ==, prev);
  w = rank_;
  CHECK_MPI(MPI_Isendrecv_replace_c(&w, 1, MPI_INT, next, 53, prev, 53, MPI_COMM_WORLD, &q));
  CHECK_MPI(MPI_Wait(&q, MPI_STATUS_IGNORE));
  CHECK_INT(w, ==, prev);

  /* Matched receives. */
  MPI_Message m;
  CHECK_MPI(MPI_Send_c(&v, 1, MPI_INT, next, 54, MPI_COMM_WORLD));
  CHECK_MPI(MPI_Mprobe(prev, 54, MPI_COMM_WORLD, &m, &st));
  CHECK_MPI(MPI_Mrecv_c(&w, 1, MPI_INT, &m, &st));
  CHECK_INT(w, ==, prev);
  CHECK_MPI(MPI_Send_c(&v, 1, MPI_INT, next, 55, MPI_COMM_WORLD));
  CHECK_MPI(MPI_Mprobe(prev, 55, MPI_COMM_WORLD, &m, &st));
  CHECK_MPI(MPI_Imrecv_c(&w, 1, MPI_INT, &m, &q));
  CHECK_MPI(MPI_Wait(&q, MPI_STATUS_IGNORE));
  CHECK_INT(w, ==, prev);
}

/* A user reduction with an MPI_Count length: a sum that records the length it was given. */
static MPI_Count last_len_;
static void sum_c(void *in, void *inout, MPI_Count *len, MPI_Datatype *type) {
  CHECK(*type == MPI_INT);
  last_len_ = *len;
  for (MPI_Count i = 0; i < *len; ++i) ((int *)inout)[i] += ((int *)in)[i];
}

/* ---- collectives --------------------------------------------------------------------------- */

static void coll_forms(void) {
  enum { K = 5 };
  int a[K], b[K], s[K * 64], r[K * 64];
  for (int i = 0; i < K; ++i) a[i] = rank_ + i;
  const int tri = size_ * (size_ - 1) / 2;

  for (int i = 0; i < K; ++i) b[i] = rank_ == 0 ? 40 + i : -1;
  CHECK_MPI(MPI_Bcast_c(b, K, MPI_INT, 0, MPI_COMM_WORLD));
  for (int i = 0; i < K; ++i) CHECK_INT(b[i], ==, 40 + i);

  CHECK_MPI(MPI_Allreduce_c(a, b, K, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
  for (int i = 0; i < K; ++i) CHECK_INT(b[i], ==, tri + size_ * i);
  memset(b, 0, sizeof b);
  CHECK_MPI(MPI_Reduce_c(a, b, K, MPI_INT, MPI_MAX, size_ - 1, MPI_COMM_WORLD));
  if (rank_ == size_ - 1)
    for (int i = 0; i < K; ++i) CHECK_INT(b[i], ==, size_ - 1 + i);
  CHECK_MPI(MPI_Scan_c(a, b, K, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
  for (int i = 0; i < K; ++i) CHECK_INT(b[i], ==, rank_ * (rank_ + 1) / 2 + (rank_ + 1) * i);
  CHECK_MPI(MPI_Exscan_c(a, b, K, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
  if (rank_ > 0)
    for (int i = 0; i < K; ++i) CHECK_INT(b[i], ==, (rank_ - 1) * rank_ / 2 + rank_ * i);

  for (int i = 0; i < K * size_; ++i) s[i] = i;
  CHECK_MPI(MPI_Reduce_scatter_block_c(s, b, K, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
  for (int i = 0; i < K; ++i) CHECK_INT(b[i], ==, size_ * (rank_ * K + i));

  CHECK_MPI(MPI_Gather_c(a, K, MPI_INT, r, K, MPI_INT, 0, MPI_COMM_WORLD));
  if (rank_ == 0)
    for (int p = 0; p < size_; ++p)
      for (int i = 0; i < K; ++i) CHECK_INT(r[p * K + i], ==, p + i);
  for (int i = 0; i < K * size_; ++i) s[i] = 1000 + i;
  CHECK_MPI(MPI_Scatter_c(s, K, MPI_INT, b, K, MPI_INT, 0, MPI_COMM_WORLD));
  for (int i = 0; i < K; ++i) CHECK_INT(b[i], ==, 1000 + rank_ * K + i);
  CHECK_MPI(MPI_Allgather_c(a, K, MPI_INT, r, K, MPI_INT, MPI_COMM_WORLD));
  for (int p = 0; p < size_; ++p)
    for (int i = 0; i < K; ++i) CHECK_INT(r[p * K + i], ==, p + i);
  for (int i = 0; i < K * size_; ++i) s[i] = rank_ * 1000 + i;
  CHECK_MPI(MPI_Alltoall_c(s, K, MPI_INT, r, K, MPI_INT, MPI_COMM_WORLD));
  for (int p = 0; p < size_; ++p)
    for (int i = 0; i < K; ++i) CHECK_INT(r[p * K + i], ==, p * 1000 + rank_ * K + i);

  /* Nonblocking and persistent forms: all started, then completed together. */
  int nb[K], nr[K], na[K * 64], pa[K];
  MPI_Request q[12];
  int nq = 0;
  for (int i = 0; i < K; ++i) nb[i] = rank_ == 0 ? 7 * i : -1;
  CHECK_MPI(MPI_Ibcast_c(nb, K, MPI_INT, 0, MPI_COMM_WORLD, &q[nq++]));
  CHECK_MPI(MPI_Iallreduce_c(a, nr, K, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &q[nq++]));
  CHECK_MPI(MPI_Iallgather_c(a, K, MPI_INT, na, K, MPI_INT, MPI_COMM_WORLD, &q[nq++]));
  CHECK_MPI(MPI_Allreduce_init_c(a, pa, K, MPI_INT, MPI_MAX, MPI_COMM_WORLD, MPI_INFO_NULL,
                                 &q[nq]));
  CHECK_MPI(MPI_Start(&q[nq++]));
  CHECK_MPI(MPI_Waitall(nq, q, MPI_STATUSES_IGNORE));
  for (int i = 0; i < K; ++i) {
    CHECK_INT(nb[i], ==, 7 * i);
    CHECK_INT(nr[i], ==, tri + size_ * i);
    CHECK_INT(pa[i], ==, size_ - 1 + i);
  }
  for (int p = 0; p < size_; ++p)
    for (int i = 0; i < K; ++i) CHECK_INT(na[p * K + i], ==, p + i);
  CHECK_MPI(MPI_Request_free(&q[3]));

  /* The rest of the nonblocking and persistent _c forms, each once. */
  MPI_Request x[14];
  int nx = 0;
  int g1[K * 64], g2[K * 64], g3[K], g4[K], g5[K], g6[K], g7[K];
  CHECK_MPI(MPI_Ireduce_c(a, g3, K, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD, &x[nx++]));
  CHECK_MPI(MPI_Iscan_c(a, g4, K, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &x[nx++]));
  CHECK_MPI(MPI_Iexscan_c(a, g5, K, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &x[nx++]));
  CHECK_MPI(MPI_Igather_c(a, K, MPI_INT, g1, K, MPI_INT, 0, MPI_COMM_WORLD, &x[nx++]));
  CHECK_MPI(MPI_Iscatter_c(s, K, MPI_INT, g6, K, MPI_INT, 0, MPI_COMM_WORLD, &x[nx++]));
  CHECK_MPI(MPI_Ialltoall_c(s, K, MPI_INT, g2, K, MPI_INT, MPI_COMM_WORLD, &x[nx++]));
  CHECK_MPI(MPI_Ireduce_scatter_block_c(s, g7, K, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &x[nx++]));
  CHECK_MPI(MPI_Waitall(nx, x, MPI_STATUSES_IGNORE));
  for (int i = 0; i < K; ++i) {
    if (rank_ == 0) CHECK_INT(g3[i], ==, tri + size_ * i);
    CHECK_INT(g4[i], ==, rank_ * (rank_ + 1) / 2 + (rank_ + 1) * i);
    CHECK_INT(g6[i], ==, rank_ * K + i); /* rank 0's s: 0*1000 + index */
  }
  for (int p = 0; p < size_; ++p)
    for (int i = 0; i < K; ++i) CHECK_INT(g2[p * K + i], ==, p * 1000 + rank_ * K + i);
  nx = 0;
  CHECK_MPI(MPI_Bcast_init_c(g3, K, MPI_INT, 0, MPI_COMM_WORLD, MPI_INFO_NULL, &x[nx++]));
  CHECK_MPI(MPI_Reduce_init_c(a, g4, K, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD, MPI_INFO_NULL,
                              &x[nx++]));
  CHECK_MPI(MPI_Scan_init_c(a, g5, K, MPI_INT, MPI_SUM, MPI_COMM_WORLD, MPI_INFO_NULL, &x[nx++]));
  CHECK_MPI(MPI_Exscan_init_c(a, g6, K, MPI_INT, MPI_SUM, MPI_COMM_WORLD, MPI_INFO_NULL,
                              &x[nx++]));
  CHECK_MPI(MPI_Gather_init_c(a, K, MPI_INT, g1, K, MPI_INT, 0, MPI_COMM_WORLD, MPI_INFO_NULL,
                              &x[nx++]));
  CHECK_MPI(MPI_Scatter_init_c(s, K, MPI_INT, g7, K, MPI_INT, 0, MPI_COMM_WORLD, MPI_INFO_NULL,
                               &x[nx++]));
  CHECK_MPI(MPI_Allgather_init_c(a, K, MPI_INT, g2, K, MPI_INT, MPI_COMM_WORLD, MPI_INFO_NULL,
                                 &x[nx++]));
  int g8[K * 64], g9[K];
  CHECK_MPI(MPI_Alltoall_init_c(s, K, MPI_INT, g8, K, MPI_INT, MPI_COMM_WORLD, MPI_INFO_NULL,
                                &x[nx++]));
  CHECK_MPI(MPI_Reduce_scatter_block_init_c(s, g9, K, MPI_INT, MPI_SUM, MPI_COMM_WORLD,
                                            MPI_INFO_NULL, &x[nx++]));
  for (int i = 0; i < K; ++i) g3[i] = rank_ == 0 ? 3 * i : 0;
  CHECK_MPI(MPI_Startall(nx, x));
  CHECK_MPI(MPI_Waitall(nx, x, MPI_STATUSES_IGNORE));
  for (int i = 0; i < K; ++i) {
    CHECK_INT(g3[i], ==, 3 * i);
    if (rank_ == 0) CHECK_INT(g4[i], ==, tri + size_ * i);
    CHECK_INT(g5[i], ==, rank_ * (rank_ + 1) / 2 + (rank_ + 1) * i);
    CHECK_INT(g7[i], ==, rank_ * K + i);
  }
  for (int p = 0; p < size_; ++p)
    for (int i = 0; i < K; ++i) {
      CHECK_INT(g2[p * K + i], ==, p + i);
      CHECK_INT(g8[p * K + i], ==, p * 1000 + rank_ * K + i);
    }
  for (int i = 0; i < nx; ++i) CHECK_MPI(MPI_Request_free(&x[i]));

  /* A user op made by MPI_Op_create_c: Reduce_local_c calls it once with the whole length. */
  MPI_Op usum;
  CHECK_MPI(MPI_Op_create_c(sum_c, 1, &usum));
  int one[3] = {1, 2, 3}, res[3] = {10, 20, 30};
  CHECK_MPI(MPI_Reduce_local_c(one, res, 3, MPI_INT, usum));
  CHECK_INT(last_len_, ==, 3);
  for (int i = 0; i < 3; ++i) CHECK_INT(res[i], ==, 11 * (i + 1));
  CHECK_MPI(MPI_Allreduce_c(one, res, 3, MPI_INT, usum, MPI_COMM_WORLD));
  for (int i = 0; i < 3; ++i) CHECK_INT(res[i], ==, size_ * (i + 1));
  CHECK_MPI(MPI_Op_free(&usum));

  /* Reduce_local_c. */
  int in[K], io[K];
  for (int i = 0; i < K; ++i) in[i] = i, io[i] = 10 * i;
  CHECK_MPI(MPI_Reduce_local_c(in, io, K, MPI_INT, MPI_SUM));
  for (int i = 0; i < K; ++i) CHECK_INT(io[i], ==, 11 * i);
}

/* ---- v/w and neighborhood collectives (MPI_Count counts, MPI_Aint displacements) ---------- */

static void v_forms(void) {
  enum { M = 64 };
  MPI_Count cnt[M], cnt2[M];
  MPI_Aint dsp[M], bdsp[M];
  MPI_Datatype types[M];
  int snd[M * 4], rcv[M * 4], mine[4];
  /* Rank p contributes p % 3 + 1 ints; blocks laid out back to back with a gap of one. */
  MPI_Aint off = 0;
  for (int p = 0; p < size_; ++p) {
    cnt[p] = p % 3 + 1;
    dsp[p] = off;
    bdsp[p] = off * (MPI_Aint)sizeof(int);
    types[p] = MPI_INT;
    off += cnt[p] + 1;
  }
  for (int i = 0; i < 4; ++i) mine[i] = rank_ * 10 + i;
  const MPI_Count me = rank_ % 3 + 1;

  memset(rcv, -1, sizeof rcv);
  CHECK_MPI(MPI_Gatherv_c(mine, me, MPI_INT, rcv, cnt, dsp, MPI_INT, 0, MPI_COMM_WORLD));
  if (rank_ == 0)
    for (int p = 0; p < size_; ++p)
      for (int i = 0; i < cnt[p]; ++i) CHECK_INT(rcv[dsp[p] + i], ==, p * 10 + i);
  memset(rcv, -1, sizeof rcv);
  CHECK_MPI(MPI_Allgatherv_c(mine, me, MPI_INT, rcv, cnt, dsp, MPI_INT, MPI_COMM_WORLD));
  for (int p = 0; p < size_; ++p)
    for (int i = 0; i < cnt[p]; ++i) CHECK_INT(rcv[dsp[p] + i], ==, p * 10 + i);
  for (int i = 0; i < off; ++i) snd[i] = 500 + i;
  int got[4] = {-1, -1, -1, -1};
  CHECK_MPI(MPI_Scatterv_c(snd, cnt, dsp, MPI_INT, got, me, MPI_INT, 0, MPI_COMM_WORLD));
  for (int i = 0; i < me; ++i) CHECK_INT(got[i], ==, 500 + dsp[rank_] + i);

  /* Alltoallv_c / Alltoallw_c: rank r sends me ints to everyone, receives cnt[p] from p. */
  MPI_Aint sd[M], sbd[M];
  for (int p = 0; p < size_; ++p) {
    cnt2[p] = me;
    sd[p] = p * 4;
    sbd[p] = sd[p] * (MPI_Aint)sizeof(int);
    for (int i = 0; i < 4; ++i) snd[p * 4 + i] = rank_ * 1000 + p * 10 + i;
  }
  for (int w = 0; w < 3; ++w) {
    memset(rcv, -1, sizeof rcv);
    MPI_Request q;
    if (w == 0) {
      CHECK_MPI(MPI_Alltoallv_c(snd, cnt2, sd, MPI_INT, rcv, cnt, dsp, MPI_INT, MPI_COMM_WORLD));
    } else if (w == 1) {
      CHECK_MPI(MPI_Alltoallw_c(snd, cnt2, sbd, types, rcv, cnt, bdsp, types, MPI_COMM_WORLD));
    } else {
      CHECK_MPI(
          MPI_Ialltoallv_c(snd, cnt2, sd, MPI_INT, rcv, cnt, dsp, MPI_INT, MPI_COMM_WORLD, &q));
      CHECK_MPI(MPI_Wait(&q, MPI_STATUS_IGNORE));
    }
    for (int p = 0; p < size_; ++p)
      for (int i = 0; i < cnt[p]; ++i)
        CHECK_INT(rcv[dsp[p] + i], ==, p * 1000 + rank_ * 10 + i);
  }

  /* Reduce_scatter_c: rank p gets cnt[p] sums. */
  MPI_Count total = 0;
  for (int p = 0; p < size_; ++p) total += cnt[p];
  for (int i = 0; i < total; ++i) snd[i] = i + rank_;
  memset(rcv, -1, sizeof rcv);
  CHECK_MPI(MPI_Reduce_scatter_c(snd, rcv, cnt, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
  MPI_Count first = 0;
  for (int p = 0; p < rank_; ++p) first += cnt[p];
  for (int i = 0; i < me; ++i)
    CHECK_INT(rcv[i], ==, size_ * (first + i) + size_ * (size_ - 1) / 2);

  /* Persistent allgatherv_c, started twice. */
  MPI_Request pq;
  CHECK_MPI(MPI_Allgatherv_init_c(mine, me, MPI_INT, rcv, cnt, dsp, MPI_INT, MPI_COMM_WORLD,
                                  MPI_INFO_NULL, &pq));
  for (int it = 0; it < 2; ++it) {
    for (int i = 0; i < 4; ++i) mine[i] = rank_ * 10 + i + it * 100;
    CHECK_MPI(MPI_Start(&pq));
    CHECK_MPI(MPI_Wait(&pq, MPI_STATUS_IGNORE));
    for (int p = 0; p < size_; ++p)
      for (int i = 0; i < cnt[p]; ++i) CHECK_INT(rcv[dsp[p] + i], ==, p * 10 + i + it * 100);
  }
  CHECK_MPI(MPI_Request_free(&pq));

  /* Neighborhood _c forms on a periodic ring: left and right neighbours. */
  MPI_Comm ring;
  int dims = size_, periods = 1;
  CHECK_MPI(MPI_Cart_create(MPI_COMM_WORLD, 1, &dims, &periods, 0, &ring));
  int left, right;
  CHECK_MPI(MPI_Cart_shift(ring, 0, 1, &left, &right));
  int two[2] = {rank_, rank_ + 100}, nb[4];
  CHECK_MPI(MPI_Neighbor_allgather_c(two, 2, MPI_INT, nb, 2, MPI_INT, ring));
  CHECK_INT(nb[0], ==, left);
  CHECK_INT(nb[2], ==, right);
  MPI_Count nc[2] = {2, 2};
  MPI_Aint nd[2] = {2, 0}; /* the left neighbour's pair goes second */
  memset(nb, -1, sizeof nb);
  CHECK_MPI(MPI_Neighbor_allgatherv_c(two, 2, MPI_INT, nb, nc, nd, MPI_INT, ring));
  CHECK_INT(nb[2], ==, left);
  CHECK_INT(nb[3], ==, left + 100);
  CHECK_INT(nb[0], ==, right);
  CHECK_INT(nb[1], ==, right + 100);
  int to[4] = {rank_ * 10, rank_ * 10 + 1, rank_ * 10 + 2, rank_ * 10 + 3};
  CHECK_MPI(MPI_Neighbor_alltoall_c(to, 2, MPI_INT, nb, 2, MPI_INT, ring));
  /* The left neighbour's block for its right side is its second pair. */
  CHECK_INT(nb[0], ==, left * 10 + 2);
  CHECK_INT(nb[2], ==, right * 10);
  MPI_Count ac[2] = {1, 1};
  MPI_Aint ad[2] = {0, 2}, abd[2] = {0, 2 * sizeof(int)};
  MPI_Datatype at2[2] = {MPI_INT, MPI_INT};
  memset(nb, -1, sizeof nb);
  CHECK_MPI(MPI_Neighbor_alltoallv_c(to, ac, ad, MPI_INT, nb, ac, ad, MPI_INT, ring));
  CHECK_INT(nb[0], ==, left * 10 + 2);
  CHECK_INT(nb[2], ==, right * 10);
  memset(nb, -1, sizeof nb);
  MPI_Request nq;
  CHECK_MPI(MPI_Ineighbor_alltoallw_c(to, ac, abd, at2, nb, ac, abd, at2, ring, &nq));
  CHECK_MPI(MPI_Wait(&nq, MPI_STATUS_IGNORE));
  CHECK_INT(nb[0], ==, left * 10 + 2);
  CHECK_INT(nb[2], ==, right * 10);
  CHECK_MPI(MPI_Comm_free(&ring));

  /* A negative per-rank count names the _c call and the rank. */
  CHECK_MPI(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
  cnt[size_ - 1] = -4;
  int rc = MPI_Allgatherv_c(mine, me, MPI_INT, rcv, cnt, dsp, MPI_INT, MPI_COMM_WORLD);
  CHECK_ERR_CLASS(rc, MPI_ERR_COUNT);
  CHECK_MSG(strstr(jobs_error_text(rc), "MPI_Allgatherv_c") && strstr(jobs_error_text(rc), "-4"),
            "names the call and the count: %s", jobs_error_text(rc));
  CHECK_MPI(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL));
}

/* ---- one-sided ----------------------------------------------------------------------------- */

static void rma_forms(void) {
  const int next = (rank_ + 1) % size_;
  int *mem = NULL;
  MPI_Win win;
  CHECK_MPI(MPI_Win_allocate_c(16 * sizeof(int), (MPI_Aint)sizeof(int), MPI_INFO_NULL,
                               MPI_COMM_WORLD, &mem, &win));
  for (int i = 0; i < 16; ++i) mem[i] = 0;
  CHECK_MPI(MPI_Win_fence(0, win));
  int v[4] = {rank_, rank_ + 1, rank_ + 2, rank_ + 3}, got[4] = {0}, old[4] = {0};
  CHECK_MPI(MPI_Put_c(v, 4, MPI_INT, next, 0, 4, MPI_INT, win));
  CHECK_MPI(MPI_Accumulate_c(v, 4, MPI_INT, next, 4, 4, MPI_INT, MPI_SUM, win));
  CHECK_MPI(MPI_Win_fence(0, win));
  const int prev = (rank_ + size_ - 1) % size_;
  for (int i = 0; i < 4; ++i) {
    CHECK_INT(mem[i], ==, prev + i);
    CHECK_INT(mem[4 + i], ==, prev + i);
  }
  CHECK_MPI(MPI_Get_c(got, 4, MPI_INT, next, 0, 4, MPI_INT, win));
  CHECK_MPI(MPI_Win_fence(0, win));
  for (int i = 0; i < 4; ++i) CHECK_INT(got[i], ==, rank_ + i);
  CHECK_MPI(MPI_Get_accumulate_c(v, 4, MPI_INT, old, 4, MPI_INT, next, 4, 4, MPI_INT, MPI_SUM,
                                 win));
  CHECK_MPI(MPI_Win_fence(0, win));
  for (int i = 0; i < 4; ++i) CHECK_INT(old[i], ==, rank_ + i);
  for (int i = 0; i < 4; ++i) CHECK_INT(mem[4 + i], ==, 2 * (prev + i));

  MPI_Request q[4];
  CHECK_MPI(MPI_Win_lock_all(0, win));
  CHECK_MPI(MPI_Rput_c(v, 2, MPI_INT, next, 8, 2, MPI_INT, win, &q[0]));
  CHECK_MPI(MPI_Wait(&q[0], MPI_STATUS_IGNORE));
  CHECK_MPI(MPI_Win_flush(next, win));
  CHECK_MPI(MPI_Rget_c(got, 2, MPI_INT, next, 8, 2, MPI_INT, win, &q[1]));
  CHECK_MPI(MPI_Raccumulate_c(v, 2, MPI_INT, next, 10, 2, MPI_INT, MPI_REPLACE, win, &q[2]));
  CHECK_MPI(MPI_Rget_accumulate_c(NULL, 0, MPI_INT, old, 2, MPI_INT, next, 0, 2, MPI_INT,
                                  MPI_NO_OP, win, &q[3]));
  CHECK_MPI(MPI_Waitall(3, &q[1], MPI_STATUSES_IGNORE));
  CHECK_MPI(MPI_Win_unlock_all(win));
  for (int i = 0; i < 2; ++i) {
    CHECK_INT(got[i], ==, rank_ + i);
    CHECK_INT(old[i], ==, rank_ + i);
  }
  CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
  for (int i = 0; i < 2; ++i) CHECK_INT(mem[10 + i], ==, prev + i);
  CHECK_MPI(MPI_Win_free(&win));

  int local[4];
  CHECK_MPI(MPI_Win_create_c(local, sizeof local, 2, MPI_INFO_NULL, MPI_COMM_WORLD, &win));
  int *du = NULL, flag = 0;
  CHECK_MPI(MPI_Win_get_attr(win, MPI_WIN_DISP_UNIT, &du, &flag));
  CHECK(flag);
  CHECK_INT(*du, ==, 2);
  CHECK_MPI(MPI_Win_free(&win));

  MPI_Comm node;
  CHECK_MPI(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node));
  int *sh = NULL;
  CHECK_MPI(MPI_Win_allocate_shared_c(8, 8, MPI_INFO_NULL, node, &sh, &win));
  MPI_Aint qsize = -1, qunit = -1;
  int *qbase = NULL;
  CHECK_MPI(MPI_Win_shared_query_c(win, 0, &qsize, &qunit, &qbase));
  CHECK_INT(qsize, ==, 8);
  CHECK_INT(qunit, ==, 8);
  CHECK(qbase != NULL);
  CHECK_MPI(MPI_Win_free(&win));
  CHECK_MPI(MPI_Comm_free(&node));
}

/* ---- errors -------------------------------------------------------------------------------- */

static void errors(void) {
  CHECK_MPI(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
  int x = 0;
  CHECK_ERR_CLASS(MPI_Send_c(&x, -1, MPI_INT, 0, 0, MPI_COMM_WORLD), MPI_ERR_COUNT);
  int rc = MPI_Send_c(&x, -3, MPI_INT, 0, 0, MPI_COMM_WORLD);
  CHECK_MSG(strstr(jobs_error_text(rc), "MPI_Send_c") && strstr(jobs_error_text(rc), "-3"),
            "the message names the call and the count: %s", jobs_error_text(rc));
  CHECK_ERR_CLASS(MPI_Recv_c(&x, -1, MPI_INT, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE),
                  MPI_ERR_COUNT);
  CHECK_ERR_CLASS(MPI_Bcast_c(&x, -1, MPI_INT, 0, MPI_COMM_WORLD), MPI_ERR_COUNT);
  MPI_Request q;
  CHECK_ERR_CLASS(MPI_Allreduce_init_c(&x, &x, -2, MPI_INT, MPI_SUM, MPI_COMM_WORLD,
                                       MPI_INFO_NULL, &q),
                  MPI_ERR_COUNT);
  CHECK_ERR_CLASS(MPI_Reduce_scatter_block_c(&x, &x, -1, MPI_INT, MPI_SUM, MPI_COMM_WORLD),
                  MPI_ERR_COUNT);
  CHECK_ERR_CLASS(MPI_Buffer_attach_c(&x, -5), MPI_ERR_ARG);
  MPI_Win win;
  CHECK_ERR_CLASS(MPI_Win_create_c(&x, sizeof x, 0, MPI_INFO_NULL, MPI_COMM_WORLD, &win),
                  MPI_ERR_DISP);
  CHECK_ERR_CLASS(MPI_Win_create_c(&x, sizeof x, (MPI_Aint)1 << 40, MPI_INFO_NULL,
                                   MPI_COMM_WORLD, &win),
                  MPI_ERR_DISP);
  CHECK_MPI(MPI_Win_create_c(&x, sizeof x, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &win));
  CHECK_MPI(MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN));
  CHECK_MPI(MPI_Win_fence(0, win));
  CHECK_ERR_CLASS(MPI_Put_c(&x, -1, MPI_INT, 0, 0, 1, MPI_INT, win), MPI_ERR_COUNT);
  CHECK_ERR_CLASS(MPI_Rget_c(&x, 1, MPI_INT, 0, 0, -7, MPI_INT, win, &q), MPI_ERR_COUNT);
  rc = MPI_Rget_c(&x, 1, MPI_INT, 0, 0, -7, MPI_INT, win, &q);
  CHECK_MSG(strstr(jobs_error_text(rc), "MPI_Rget_c"), "names the request form: %s",
            jobs_error_text(rc));
  CHECK_MPI(MPI_Win_fence(0, win));
  CHECK_MPI(MPI_Win_free(&win));
  CHECK_MPI(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL));
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank_);
  MPI_Comm_size(MPI_COMM_WORLD, &size_);
  p2p_forms();
  coll_forms();
  v_forms();
  rma_forms();
  errors();
  big_message();
  jobs_done("job_large_count");
  MPI_Finalize();
  return 0;
}
