/* Every send mode, blocking and nonblocking, at eager and rendezvous sizes; persistent
 * requests (all four send modes and receives, restarted many times, MPI_Startall, inactive
 * requests in the wait/test families, freeing); matched probes (MPI_Mprobe/Improbe/Mrecv/
 * Imrecv, MPI_MESSAGE_NO_PROC); cancellation (receives, persistent receives, sends that
 * cannot be recalled); MPI_Isendrecv(_replace); generalized requests. Ring: rank -> rank+1. */
#include "jobs_util.h"

static int rank_, size_, next_, prev_;
static const int kSizes[] = {0, 1, 1000, 70000, 1 << 20};
#define NSIZES 5

static void check_modes(void) {
  int bufsize = (1 << 21) + 8 * MPI_BSEND_OVERHEAD;
  void *attached = jobs_malloc((size_t)bufsize);
  CHECK_MPI(MPI_Buffer_attach(attached, bufsize));
  for (int s = 0; s < NSIZES; ++s) {
    int n = kSizes[s];
    unsigned char *out = jobs_malloc((size_t)n), *in = jobs_malloc((size_t)n);
    for (int mode = 0; mode < 8; ++mode) {
      uint64_t seed = (uint64_t)(rank_ * 1000 + s * 10 + mode);
      jobs_fill(out, (size_t)n, seed);
      MPI_Request rreq, sreq = MPI_REQUEST_NULL;
      const int tag = 100 + mode;
      CHECK_MPI(MPI_Irecv(in, n, MPI_BYTE, prev_, tag, MPI_COMM_WORLD, &rreq));
      /* Ready sends need the receive posted everywhere first. */
      CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
      switch (mode) {
        case 0: CHECK_MPI(MPI_Send(out, n, MPI_BYTE, next_, tag, MPI_COMM_WORLD)); break;
        case 1: CHECK_MPI(MPI_Ssend(out, n, MPI_BYTE, next_, tag, MPI_COMM_WORLD)); break;
        case 2: CHECK_MPI(MPI_Rsend(out, n, MPI_BYTE, next_, tag, MPI_COMM_WORLD)); break;
        case 3: CHECK_MPI(MPI_Bsend(out, n, MPI_BYTE, next_, tag, MPI_COMM_WORLD)); break;
        case 4: CHECK_MPI(MPI_Isend(out, n, MPI_BYTE, next_, tag, MPI_COMM_WORLD, &sreq)); break;
        case 5: CHECK_MPI(MPI_Issend(out, n, MPI_BYTE, next_, tag, MPI_COMM_WORLD, &sreq)); break;
        case 6: CHECK_MPI(MPI_Irsend(out, n, MPI_BYTE, next_, tag, MPI_COMM_WORLD, &sreq)); break;
        case 7: CHECK_MPI(MPI_Ibsend(out, n, MPI_BYTE, next_, tag, MPI_COMM_WORLD, &sreq)); break;
      }
      MPI_Status st;
      CHECK_MPI(MPI_Wait(&rreq, &st));
      CHECK_MPI(MPI_Wait(&sreq, MPI_STATUS_IGNORE));
      int count = -1;
      CHECK_MPI(MPI_Get_count(&st, MPI_BYTE, &count));
      CHECK_INT(count, ==, n);
      CHECK_INT(st.MPI_SOURCE, ==, prev_);
      CHECK_PATTERN(in, n, (uint64_t)(prev_ * 1000 + s * 10 + mode), "send mode");
    }
    free(out);
    free(in);
  }
  void *back = NULL;
  int backsize = 0;
  CHECK_MPI(MPI_Buffer_detach(&back, &backsize));
  CHECK(back == attached && backsize == bufsize);
  free(attached);
}

static void check_persistent(void) {
  int bufsize = 4 * (70000 + MPI_BSEND_OVERHEAD);
  void *attached = jobs_malloc((size_t)bufsize);
  CHECK_MPI(MPI_Buffer_attach(attached, bufsize));
  const int n = 70000; /* rendezvous on every backend */
  unsigned char *out[4], *in[4];
  MPI_Request reqs[8];
  for (int m = 0; m < 4; ++m) {
    out[m] = jobs_malloc(n);
    in[m] = jobs_malloc(n);
    CHECK_MPI(MPI_Recv_init(in[m], m == 3 ? 10 : n, MPI_BYTE, prev_, 200 + m, MPI_COMM_WORLD,
                            &reqs[m]));
  }
  CHECK_MPI(MPI_Send_init(out[0], n, MPI_BYTE, next_, 200, MPI_COMM_WORLD, &reqs[4]));
  CHECK_MPI(MPI_Ssend_init(out[1], n, MPI_BYTE, next_, 201, MPI_COMM_WORLD, &reqs[5]));
  CHECK_MPI(MPI_Rsend_init(out[2], n, MPI_BYTE, next_, 202, MPI_COMM_WORLD, &reqs[6]));
  CHECK_MPI(MPI_Bsend_init(out[3], 10, MPI_BYTE, next_, 203, MPI_COMM_WORLD, &reqs[7]));
  /* Inactive persistent requests: wait returns at once with an empty status, and the "any"
   * family treats them like null requests. */
  MPI_Status st;
  int idx = -2, flag = 0;
  CHECK_MPI(MPI_Wait(&reqs[0], &st));
  CHECK(reqs[0] != MPI_REQUEST_NULL);
  CHECK_INT(st.MPI_SOURCE, ==, MPI_ANY_SOURCE);
  CHECK_MPI(MPI_Waitany(8, reqs, &idx, &st));
  CHECK_INT(idx, ==, MPI_UNDEFINED);
  CHECK_MPI(MPI_Testany(8, reqs, &idx, &flag, &st));
  CHECK(flag && idx == MPI_UNDEFINED);
  for (int round = 0; round < 20; ++round) {
    for (int m = 0; m < 4; ++m) jobs_fill(out[m], n, (uint64_t)(rank_ * 100 + round * 4 + m));
    CHECK_MPI(MPI_Startall(4, reqs));
    CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD)); /* receives posted before the ready send */
    CHECK_MPI(MPI_Start(&reqs[4]));
    CHECK_MPI(MPI_Startall(3, &reqs[5]));
    if (round % 2) {
      CHECK_MPI(MPI_Waitall(8, reqs, MPI_STATUSES_IGNORE));
    } else {
      int done = 0, outcount = 0, indices[8];
      while (done < 8) {
        CHECK_MPI(MPI_Waitsome(8, reqs, &outcount, indices, MPI_STATUSES_IGNORE));
        CHECK(outcount != MPI_UNDEFINED);
        done += outcount;
      }
      CHECK_MPI(MPI_Waitsome(8, reqs, &outcount, indices, MPI_STATUSES_IGNORE));
      CHECK_INT(outcount, ==, MPI_UNDEFINED);
    }
    for (int m = 0; m < 4; ++m) {
      CHECK(reqs[m] != MPI_REQUEST_NULL);
      CHECK_PATTERN(in[m], m == 3 ? 10 : n, (uint64_t)(prev_ * 100 + round * 4 + m),
                    "persistent");
    }
  }
  /* Starting an active request is an error; status of a completed one is readable. */
  CHECK_MPI(MPI_Start(&reqs[0]));
  CHECK_MPI(MPI_Start(&reqs[4]));
  CHECK_MPI(MPI_Wait(&reqs[4], MPI_STATUS_IGNORE));
  do {
    CHECK_MPI(MPI_Request_get_status(reqs[0], &flag, &st));
  } while (!flag);
  CHECK_INT(st.MPI_SOURCE, ==, prev_);
  CHECK_MPI(MPI_Wait(&reqs[0], &st));
  CHECK_INT(st.MPI_TAG, ==, 200);
  /* A persistent receive cancelled before anything matches it. */
  CHECK_MPI(MPI_Start(&reqs[1]));
  CHECK_MPI(MPI_Cancel(&reqs[1]));
  CHECK_MPI(MPI_Wait(&reqs[1], &st));
  CHECK_MPI(MPI_Test_cancelled(&st, &flag));
  CHECK_MSG(flag, "a started persistent receive nobody matched was not cancelled");
  for (int m = 0; m < 8; ++m) {
    CHECK_MPI(MPI_Request_free(&reqs[m]));
    CHECK(reqs[m] == MPI_REQUEST_NULL);
  }
  for (int m = 0; m < 4; ++m) {
    free(out[m]);
    free(in[m]);
  }
  void *back;
  CHECK_MPI(MPI_Buffer_detach(&back, &bufsize));
  free(attached);
  CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
}

static void check_matched_probe(void) {
  for (int s = 0; s < NSIZES; ++s) {
    int n = kSizes[s];
    unsigned char *out = jobs_malloc((size_t)n), *in = jobs_malloc((size_t)n);
    jobs_fill(out, (size_t)n, (uint64_t)(rank_ + 77 * s));
    MPI_Request sreq;
    CHECK_MPI(MPI_Isend(out, n, MPI_BYTE, next_, 300 + s, MPI_COMM_WORLD, &sreq));
    MPI_Message msg;
    MPI_Status st;
    int count = -1;
    if (s % 2) {
      CHECK_MPI(MPI_Mprobe(MPI_ANY_SOURCE, 300 + s, MPI_COMM_WORLD, &msg, &st));
    } else {
      int flag = 0;
      while (!flag) CHECK_MPI(MPI_Improbe(prev_, MPI_ANY_TAG, MPI_COMM_WORLD, &flag, &msg, &st));
    }
    CHECK_INT(st.MPI_SOURCE, ==, prev_);
    CHECK_MPI(MPI_Get_count(&st, MPI_BYTE, &count));
    CHECK_INT(count, ==, n);
    if (s < 3) {
      CHECK_MPI(MPI_Mrecv(in, n, MPI_BYTE, &msg, &st));
    } else {
      MPI_Request r;
      CHECK_MPI(MPI_Imrecv(in, n, MPI_BYTE, &msg, &r));
      CHECK_MPI(MPI_Wait(&r, &st));
    }
    CHECK(msg == MPI_MESSAGE_NULL);
    CHECK_PATTERN(in, n, (uint64_t)(prev_ + 77 * s), "matched receive");
    CHECK_MPI(MPI_Wait(&sreq, MPI_STATUS_IGNORE));
    free(out);
    free(in);
  }
  /* MPI_PROC_NULL: the message handle is MPI_MESSAGE_NO_PROC and receiving it is a no-op. */
  MPI_Message msg = MPI_MESSAGE_NULL;
  MPI_Status st;
  int flag = 0, v = 5;
  CHECK_MPI(MPI_Improbe(MPI_PROC_NULL, 0, MPI_COMM_WORLD, &flag, &msg, &st));
  CHECK(flag && msg == MPI_MESSAGE_NO_PROC);
  CHECK_INT(st.MPI_SOURCE, ==, MPI_PROC_NULL);
  CHECK_MPI(MPI_Mrecv(&v, 1, MPI_INT, &msg, &st));
  CHECK(msg == MPI_MESSAGE_NULL && v == 5);
  CHECK_INT(st.MPI_SOURCE, ==, MPI_PROC_NULL);
  CHECK_MPI(MPI_Mprobe(MPI_PROC_NULL, 0, MPI_COMM_WORLD, &msg, &st));
  CHECK(msg == MPI_MESSAGE_NO_PROC);
  MPI_Request r;
  CHECK_MPI(MPI_Imrecv(&v, 1, MPI_INT, &msg, &r));
  CHECK_MPI(MPI_Wait(&r, &st));
  CHECK_INT(st.MPI_SOURCE, ==, MPI_PROC_NULL);
}

static void check_cancel(void) {
  /* A receive nothing can match is cancelled; the next message still finds its receive. */
  int v = -1, flag = 0;
  MPI_Request r;
  MPI_Status st;
  CHECK_MPI(MPI_Irecv(&v, 1, MPI_INT, MPI_ANY_SOURCE, 400, MPI_COMM_WORLD, &r));
  CHECK_MPI(MPI_Cancel(&r));
  CHECK_MPI(MPI_Wait(&r, &st));
  CHECK_MPI(MPI_Test_cancelled(&st, &flag));
  CHECK(flag);
  /* Cancelling a send that was started: it either really is cancelled (then the receiver must
   * not get it) or it completes normally (then it must be delivered). MPR never recalls a
   * started send; other libraries may. The receiver learns which through a second message. */
  int payload = 4000 + rank_, got = -1;
  CHECK_MPI(MPI_Isend(&payload, 1, MPI_INT, next_, 401, MPI_COMM_WORLD, &r));
  CHECK_MPI(MPI_Cancel(&r));
  CHECK_MPI(MPI_Wait(&r, &st));
  CHECK_MPI(MPI_Test_cancelled(&st, &flag));
  int cancelled = flag, theirs = -1;
  CHECK_MPI(MPI_Sendrecv(&cancelled, 1, MPI_INT, next_, 402, &theirs, 1, MPI_INT, prev_, 402,
                         MPI_COMM_WORLD, MPI_STATUS_IGNORE));
  if (!theirs) {
    CHECK_MPI(MPI_Recv(&got, 1, MPI_INT, prev_, 401, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    CHECK_INT(got, ==, 4000 + prev_);
  } else {
    CHECK_MPI(MPI_Iprobe(prev_, 401, MPI_COMM_WORLD, &flag, MPI_STATUS_IGNORE));
    CHECK_MSG(!flag, "a send reported as cancelled was delivered");
  }
  CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
}

static void check_isendrecv(void) {
#if MPI_VERSION >= 4
  for (int s = 0; s < NSIZES; ++s) {
    int n = kSizes[s];
    unsigned char *a = jobs_malloc((size_t)n), *b = jobs_malloc((size_t)n);
    jobs_fill(a, (size_t)n, (uint64_t)(rank_ + 31 * s));
    MPI_Request r;
    MPI_Status st;
    CHECK_MPI(MPI_Isendrecv(a, n, MPI_BYTE, next_, 500, b, n, MPI_BYTE, prev_, 500,
                            MPI_COMM_WORLD, &r));
    CHECK_MPI(MPI_Wait(&r, &st));
    CHECK_INT(st.MPI_SOURCE, ==, prev_);
    CHECK_INT(st.MPI_TAG, ==, 500);
    CHECK_PATTERN(b, n, (uint64_t)(prev_ + 31 * s), "MPI_Isendrecv");
    CHECK_MPI(MPI_Isendrecv_replace(a, n, MPI_BYTE, next_, 501, prev_, 501, MPI_COMM_WORLD, &r));
    int flag = 0;
    while (!flag) CHECK_MPI(MPI_Test(&r, &flag, &st));
    CHECK_PATTERN(a, n, (uint64_t)(prev_ + 31 * s), "MPI_Isendrecv_replace");
    free(a);
    free(b);
  }
#endif
}

struct greq_state {
  int queried, freed, cancelled;
};

static int greq_query(void *extra, MPI_Status *st) {
  struct greq_state *g = extra;
  ++g->queried;
  MPI_Status_set_elements(st, MPI_INT, 3);
  MPI_Status_set_cancelled(st, 0);
  st->MPI_SOURCE = 12;
  st->MPI_TAG = 34;
  return MPI_SUCCESS;
}

static int greq_free(void *extra) {
  ((struct greq_state *)extra)->freed++;
  return MPI_SUCCESS;
}

static int greq_cancel(void *extra, int complete) {
  (void)complete;
  ((struct greq_state *)extra)->cancelled++;
  return MPI_SUCCESS;
}

static void check_grequest(void) {
  struct greq_state g = {0, 0, 0};
  MPI_Request r;
  MPI_Status st;
  int flag = 1, count = -1;
  CHECK_MPI(MPI_Grequest_start(greq_query, greq_free, greq_cancel, &g, &r));
  CHECK_MPI(MPI_Test(&r, &flag, &st));
  CHECK_INT(flag, ==, 0);
  CHECK_MPI(MPI_Cancel(&r));
  CHECK_INT(g.cancelled, ==, 1);
  CHECK_MPI(MPI_Grequest_complete(r));
  CHECK_MPI(MPI_Wait(&r, &st));
  CHECK(r == MPI_REQUEST_NULL);
  CHECK_INT(g.queried, ==, 1);
  CHECK_INT(g.freed, ==, 1);
  CHECK_INT(st.MPI_SOURCE, ==, 12);
  CHECK_INT(st.MPI_TAG, ==, 34);
  CHECK_MPI(MPI_Get_count(&st, MPI_INT, &count));
  CHECK_INT(count, ==, 3);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank_);
  MPI_Comm_size(MPI_COMM_WORLD, &size_);
  next_ = (rank_ + 1) % size_;
  prev_ = (rank_ + size_ - 1) % size_;
  check_modes();
  check_persistent();
  check_matched_probe();
  check_cancel();
  check_isendrecv();
  check_grequest();
  jobs_done("job_p2p_modes");
  MPI_Finalize();
  return 0;
}
