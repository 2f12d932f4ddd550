/* A message longer than the receive buffer: with MPI_ERRORS_RETURN the receive reports an error
 * of class MPI_ERR_TRUNCATE, memory past the receive size is left alone, the sender completes
 * normally and the next message on the same pair still arrives intact. Eager and rendezvous
 * sizes; blocking, nonblocking and multi-completion receives. */
#include "jobs_util.h"

enum { kGuard = 4096, kGuardByte = 0xA5 };

struct Case {
  long send_bytes, recv_bytes;
};
static const struct Case kCases[] = {
    {16, 8}, {100, 0}, {4000, 100}, {4097, 4096}, {8193, 8192}, {65537, 65536},
    {300000, 1000}, {1L << 20, (1L << 20) - 1}, {16L << 20, 1L << 20},
};
enum { kNumCases = sizeof kCases / sizeof kCases[0] };
enum How { kBlocking, kWait, kWaitall, kAnySource, kHows };
static const char *const kHowNames[] = {"Recv", "Irecv+Wait", "Irecv+Waitall", "Recv(ANY_SOURCE)"};

static int rank_, size_, next_, prev_;

/* Open MPI 4.1.4, our reference, writes the whole message past a truncated receive buffer on its
 * rendezvous and self paths (e.g. 297832 bytes past a 1000-byte receive of 300000). With
 * JOBS_REFERENCE_OPENMPI set, the buffer is made large enough to survive that and an overrun is
 * only reported; for MPR the check is strict. */
static int reference_quirks_;

static uint64_t seed_of(int src, int how, int c) { return (uint64_t)src * 1000 + how * 50 + c; }

static void check_truncated(int rc, int how, int c) {
  int cls = -1;
  CHECK_MSG(rc != MPI_SUCCESS, "%s of %ld bytes into a %ld-byte buffer (case %d) succeeded; "
            "expected MPI_ERR_TRUNCATE", kHowNames[how], kCases[c].send_bytes,
            kCases[c].recv_bytes, c);
  MPI_Error_class(rc, &cls);
  CHECK_MSG(cls == MPI_ERR_TRUNCATE, "%s of %ld bytes into %ld (case %d): error class %d (%s), "
            "expected MPI_ERR_TRUNCATE", kHowNames[how], kCases[c].send_bytes,
            kCases[c].recv_bytes, c, cls, jobs_error_text(rc));
  CHECK_MSG(jobs_error_text(rc)[0] != '\0', "MPI_Error_string(%d) is empty", rc);
}

static void run_case(int how, int c) {
  long sbytes = kCases[c].send_bytes, rbytes = kCases[c].recv_bytes;
  int tag = 2 * (how * kNumCases + c);
  unsigned char *sbuf = jobs_malloc((size_t)sbytes);
  long alloc = reference_quirks_ && sbytes > rbytes ? sbytes + kGuard : rbytes + kGuard;
  unsigned char *rbuf = jobs_malloc((size_t)alloc);
  long follow_send = (long)rank_ * 1000 + tag, follow_recv = -1;
  jobs_fill(sbuf, (size_t)sbytes, seed_of(rank_, how, c));
  memset(rbuf, kGuardByte, (size_t)alloc);

  MPI_Request sreq[2];
  CHECK_MPI(MPI_Isend(sbuf, (int)sbytes, MPI_BYTE, next_, tag, MPI_COMM_WORLD, &sreq[0]));
  CHECK_MPI(MPI_Isend(&follow_send, 1, MPI_LONG, next_, tag + 1, MPI_COMM_WORLD, &sreq[1]));

  MPI_Status st;
  int rc = MPI_SUCCESS;
  if (how == kBlocking) {
    rc = MPI_Recv(rbuf, (int)rbytes, MPI_BYTE, prev_, tag, MPI_COMM_WORLD, &st);
  } else if (how == kAnySource) {
    rc = MPI_Recv(rbuf, (int)rbytes, MPI_BYTE, MPI_ANY_SOURCE, tag, MPI_COMM_WORLD, &st);
  } else if (how == kWait) {
    MPI_Request r;
    CHECK_MPI(MPI_Irecv(rbuf, (int)rbytes, MPI_BYTE, prev_, tag, MPI_COMM_WORLD, &r));
    rc = MPI_Wait(&r, &st);
  } else {
    /* The follow-up is received by the same Waitall: that one must succeed, only the truncated
     * receive carries the error in its status. */
    MPI_Request r[2];
    MPI_Status sts[2];
    CHECK_MPI(MPI_Irecv(&follow_recv, 1, MPI_LONG, prev_, tag + 1, MPI_COMM_WORLD, &r[0]));
    CHECK_MPI(MPI_Irecv(rbuf, (int)rbytes, MPI_BYTE, prev_, tag, MPI_COMM_WORLD, &r[1]));
    rc = MPI_Waitall(2, r, sts);
    int cls = -1;
    MPI_Error_class(rc, &cls);
    CHECK_MSG(cls == MPI_ERR_IN_STATUS, "Waitall with a truncated receive: class %d (%s), "
              "expected MPI_ERR_IN_STATUS", cls, jobs_error_text(rc));
    CHECK_MSG(sts[0].MPI_ERROR == MPI_SUCCESS, "Waitall: the intact receive has MPI_ERROR %d (%s)",
              sts[0].MPI_ERROR, jobs_error_text(sts[0].MPI_ERROR));
    rc = sts[1].MPI_ERROR;
    st = sts[1];
  }
  check_truncated(rc, how, c);
  CHECK_MSG(st.MPI_SOURCE == prev_ && st.MPI_TAG == tag, "%s case %d: truncated receive's status "
            "says source %d tag %d, expected %d and %d", kHowNames[how], c, st.MPI_SOURCE,
            st.MPI_TAG, prev_, tag);

  for (long i = rbytes; i < rbytes + kGuard; ++i) {
    if (rbuf[i] == kGuardByte) continue;
    if (reference_quirks_) {
      if (reference_quirks_++ == 1)
        printf("[rank %d] NOTE reference quirk: %s case %d wrote past the %ld-byte receive "
               "buffer (further ones not reported)\n", rank_, kHowNames[how], c, rbytes);
      break;
    }
    CHECK_MSG(0, "%s case %d: byte %ld past the %ld-byte receive buffer was overwritten (0x%02x)",
              kHowNames[how], c, i, rbytes, rbuf[i]);
  }

  if (how != kWaitall)
    CHECK_MPI(MPI_Recv(&follow_recv, 1, MPI_LONG, prev_, tag + 1, MPI_COMM_WORLD, &st));
  CHECK_MSG(follow_recv == (long)prev_ * 1000 + tag, "%s case %d: message after the truncated "
            "one carried %ld, expected %ld", kHowNames[how], c, follow_recv,
            (long)prev_ * 1000 + tag);
  MPI_Status sst[2];
  int src = MPI_Waitall(2, sreq, sst);
  CHECK_MSG(src == MPI_SUCCESS, "%s case %d: the sender of a truncated message failed: %s",
            kHowNames[how], c, jobs_error_text(src));
  free(sbuf);
  free(rbuf);
  /* ANY_SOURCE receives must not pick up the next case's message from another rank. */
  CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
}

int main(int argc, char **argv) {
  CHECK_MPI(MPI_Init(&argc, &argv));
  CHECK_MPI(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
  MPI_Comm_rank(MPI_COMM_WORLD, &rank_);
  reference_quirks_ = getenv("JOBS_REFERENCE_OPENMPI") != NULL;
  MPI_Comm_size(MPI_COMM_WORLD, &size_);
  next_ = (rank_ + 1) % size_;
  prev_ = (rank_ + size_ - 1) % size_;
  for (int how = 0; how < kHows; ++how)
    for (int c = 0; c < kNumCases; ++c) run_case(how, c);
  jobs_done("job_truncate");
  CHECK_MPI(MPI_Finalize());
  return 0;
}
