/* Synchronous sends complete only once the receiver has matched them, even when the message is
 * small enough to go eagerly. Ranks pair up (0,1), (2,3), ...; the receiver sleeps 300 ms
 * before posting its receive, so the sender's MPI_Ssend must take at least ~250 ms and an
 * MPI_Issend must keep testing false meanwhile. An odd last rank only joins the barriers. */
#include "jobs_util.h"

static const long kSizes[] = {0, 8, 4096, 4097, 70000, 1L << 20};
enum { kCount = sizeof kSizes / sizeof kSizes[0] };
enum { kSleepMs = 300, kMinBlockedMs = 250, kTestWindowMs = 150 };

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
    MPI_Status st;
    /* Blocking MPI_Ssend. */
    CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
    if (sender) {
      jobs_fill(buf, (size_t)n, (uint64_t)k);
      double t0 = MPI_Wtime();
      CHECK_MPI(MPI_Ssend(buf, (int)n, MPI_BYTE, peer, k, MPI_COMM_WORLD));
      double ms = (MPI_Wtime() - t0) * 1e3;
      CHECK_MSG(ms >= kMinBlockedMs, "MPI_Ssend of %ld bytes returned after %.1f ms, but the "
                "receiver only posted its receive after %d ms", n, ms, kSleepMs);
    } else if (receiver) {
      jobs_sleep_ms(kSleepMs);
      CHECK_MPI(MPI_Recv(buf, (int)n, MPI_BYTE, peer, k, MPI_COMM_WORLD, &st));
      CHECK_PATTERN(buf, n, (uint64_t)k, "Ssend payload");
    }

    /* MPI_Issend + MPI_Test: false while the receiver sleeps, then Wait completes it. */
    CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
    if (sender) {
      jobs_fill(buf, (size_t)n, (uint64_t)k + 100);
      double t0 = MPI_Wtime();
      MPI_Request req;
      int flag = 0, tests = 0;
      CHECK_MPI(MPI_Issend(buf, (int)n, MPI_BYTE, peer, 100 + k, MPI_COMM_WORLD, &req));
      while ((MPI_Wtime() - t0) * 1e3 < kTestWindowMs) {
        CHECK_MPI(MPI_Test(&req, &flag, &st));
        ++tests;
        CHECK_MSG(!flag, "MPI_Issend of %ld bytes tested complete after %.1f ms (test %d), before "
                  "the receiver posted its receive", n, (MPI_Wtime() - t0) * 1e3, tests);
        jobs_sleep_ms(5);
      }
      CHECK_MPI(MPI_Wait(&req, &st));
      double ms = (MPI_Wtime() - t0) * 1e3;
      CHECK_MSG(ms >= kMinBlockedMs, "MPI_Issend + Wait of %ld bytes done after %.1f ms, but the "
                "receive was posted after %d ms", n, ms, kSleepMs);
    } else if (receiver) {
      jobs_sleep_ms(kSleepMs);
      CHECK_MPI(MPI_Recv(buf, (int)n, MPI_BYTE, peer, 100 + k, MPI_COMM_WORLD, &st));
      CHECK_PATTERN(buf, n, (uint64_t)k + 100, "Issend payload");
    }
  }
  free(buf);
  jobs_done("job_ssend");
  CHECK_MPI(MPI_Finalize());
  return 0;
}
