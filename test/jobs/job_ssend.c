/* Synchronous sends complete only once the receiver has matched them, even when the message is
 * small enough to go eagerly. Ranks pair up (0,1), (2,3), ...; the receiver waits 300 ms before
 * posting its receive, probing all the while. The sender sends it a notice the moment its
 * MPI_Ssend returns (or its MPI_Issend completes, by MPI_Test or MPI_Wait): a notice that arrives
 * before the receive is posted means the send completed early. The check is causal, not timed,
 * so a rank that is descheduled for a while (4 ranks on 2 cores, an emulated VM) cannot fail it.
 * An odd last rank only joins the barriers. */
#include "jobs_util.h"

static const long kSizes[] = {0, 8, 4096, 4097, 70000, 1L << 20};
enum { kCount = sizeof kSizes / sizeof kSizes[0] };
enum { kWaitMs = 300, kTestWindowMs = 100, kIssendTag = 100, kNoticeTag = 1000 };

/* Receiver side: wait, watching for the sender's notice, then receive the message and the notice. */
static void receive_after_wait(unsigned char *buf, long n, int peer, int tag, uint64_t seed,
                               const char *call) {
  int rank;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  int early = jobs_sleep_watching(kWaitMs, MPI_COMM_WORLD, peer, kNoticeTag + tag);
  CHECK_MSG(early < 0, "rank %d's %s of %ld bytes to rank %d completed before rank %d posted the "
            "matching receive (its notice arrived while the receiver waited)", peer, call, n, rank,
            rank);
  MPI_Status st;
  CHECK_MPI(MPI_Recv(buf, (int)n, MPI_BYTE, peer, tag, MPI_COMM_WORLD, &st));
  CHECK_PATTERN(buf, n, seed, call);
  int count = -1;
  CHECK_MPI(MPI_Get_count(&st, MPI_BYTE, &count));
  CHECK_INT(count, ==, n);
  int notice = -1;
  CHECK_MPI(MPI_Recv(&notice, 1, MPI_INT, peer, kNoticeTag + tag, MPI_COMM_WORLD,
                     MPI_STATUS_IGNORE));
  CHECK_INT(notice, ==, tag);
}

int main(int argc, char **argv) {
  CHECK_MPI(MPI_Init(&argc, &argv));
  CHECK_MPI(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (size < 2) {
    printf("SKIP job_ssend needs at least 2 ranks\n");
    CHECK_MPI(MPI_Finalize());
    return 0;
  }
  int sender = rank % 2 == 0 && rank + 1 < size, receiver = rank % 2 == 1;
  int peer = sender ? rank + 1 : rank - 1;
  unsigned char *buf = jobs_malloc((size_t)(1L << 20));

  for (int k = 0; k < kCount; ++k) {
    long n = kSizes[k];
    /* Blocking MPI_Ssend. */
    CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
    if (sender) {
      jobs_fill(buf, (size_t)n, (uint64_t)k);
      CHECK_MPI(MPI_Ssend(buf, (int)n, MPI_BYTE, peer, k, MPI_COMM_WORLD));
      CHECK_MPI(MPI_Send(&k, 1, MPI_INT, peer, kNoticeTag + k, MPI_COMM_WORLD));
    } else if (receiver) {
      receive_after_wait(buf, n, peer, k, (uint64_t)k, "MPI_Ssend");
    }

    /* MPI_Issend, then MPI_Test for a while, then MPI_Wait if it is still pending. */
    CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
    if (sender) {
      int tag = kIssendTag + k;
      jobs_fill(buf, (size_t)n, (uint64_t)tag);
      MPI_Request req;
      int flag = 0;
      CHECK_MPI(MPI_Issend(buf, (int)n, MPI_BYTE, peer, tag, MPI_COMM_WORLD, &req));
      double t0 = MPI_Wtime();
      while (!flag && (MPI_Wtime() - t0) * 1e3 < kTestWindowMs) {
        CHECK_MPI(MPI_Test(&req, &flag, MPI_STATUS_IGNORE));
        if (!flag) jobs_sleep_ms(2);
      }
      if (!flag) CHECK_MPI(MPI_Wait(&req, MPI_STATUS_IGNORE));
      CHECK_MSG(req == MPI_REQUEST_NULL, "a completed MPI_Issend request was not freed");
      CHECK_MPI(MPI_Send(&tag, 1, MPI_INT, peer, kNoticeTag + tag, MPI_COMM_WORLD));
    } else if (receiver) {
      receive_after_wait(buf, n, peer, kIssendTag + k, (uint64_t)(kIssendTag + k),
                         "MPI_Issend");
    }
  }
  free(buf);
  jobs_done("job_ssend");
  CHECK_MPI(MPI_Finalize());
  return 0;
}
