/* Hundreds of outstanding nonblocking operations (kMsgs receives + kMsgs sends per rank) completed
 * through Waitany, Testany, Testall, Waitsome and Testsome: each request completes exactly once,
 * its slot becomes MPI_REQUEST_NULL, and each receive got its own message. */
#include "jobs_util.h"

enum { kMsgs = 256, kReqs = 2 * kMsgs };
enum Mode { kWaitany, kTestany, kTestall, kWaitsome, kTestsome, kModes };
static const char *const kModeNames[] = {"Waitany", "Testany", "Testall", "Waitsome", "Testsome"};

static int rank_, size_, next_, prev_;
static unsigned char *sbuf_[kMsgs], *rbuf_[kMsgs];
static MPI_Request req_[kReqs]; /* receives in [0, kMsgs), sends in [kMsgs, kReqs) */
static int done_[kReqs];

static long size_of(int k) {
  if (k % 64 == 63) return 1L << 20;
  if (k % 16 == 15) return 65537;
  return (k * 13) % 200;
}
static uint64_t seed_of(int src, int mode, int k) { return (uint64_t)src * 5000 + mode * 600 + k; }

static void start_all(int mode) {
  for (int k = 0; k < kMsgs; ++k)
    CHECK_MPI(MPI_Irecv(rbuf_[k], (int)size_of(k), MPI_BYTE, prev_, k, MPI_COMM_WORLD, &req_[k]));
  for (int k = 0; k < kMsgs; ++k) {
    jobs_fill(sbuf_[k], (size_t)size_of(k), seed_of(rank_, mode, k));
    CHECK_MPI(MPI_Isend(sbuf_[k], (int)size_of(k), MPI_BYTE, next_, k, MPI_COMM_WORLD,
                        &req_[kMsgs + k]));
  }
  memset(done_, 0, sizeof done_);
}

/* Records that request `index` completed with `st`, checking it had not completed before. */
static void completed(int mode, int index, const MPI_Status *st) {
  const char *how = kModeNames[mode];
  CHECK_MSG(index >= 0 && index < kReqs, "%s returned index %d (out of range)", how, index);
  CHECK_MSG(!done_[index], "%s returned request %d a second time", how, index);
  CHECK_MSG(req_[index] == MPI_REQUEST_NULL, "%s: completed request %d not set to "
            "MPI_REQUEST_NULL", how, index);
  done_[index] = 1;
  if (index < kMsgs && st) {
    char what[64];
    int count = -1;
    CHECK_MPI(MPI_Get_count(st, MPI_BYTE, &count));
    CHECK_MSG(st->MPI_TAG == index && st->MPI_SOURCE == prev_, "%s: receive %d has status "
              "source %d tag %d", how, index, st->MPI_SOURCE, st->MPI_TAG);
    CHECK_INT(count, ==, size_of(index));
    snprintf(what, sizeof what, "%s receive %d", how, index);
    CHECK_PATTERN(rbuf_[index], count, seed_of(prev_, mode, index), what);
  }
}

static void finish_all(int mode) {
  static MPI_Status statuses[kReqs];
  static int indices[kReqs];
  int remaining = kReqs, index = -1, flag = 0, outcount = 0;
  MPI_Status st;
  switch (mode) {
    case kWaitany:
      while (remaining--) {
        CHECK_MPI(MPI_Waitany(kReqs, req_, &index, &st));
        completed(mode, index, &st);
      }
      CHECK_MPI(MPI_Waitany(kReqs, req_, &index, &st));
      CHECK_MSG(index == MPI_UNDEFINED, "Waitany over only null requests returned index %d", index);
      break;
    case kTestany:
      while (remaining) {
        CHECK_MPI(MPI_Testany(kReqs, req_, &index, &flag, &st));
        if (flag) {
          completed(mode, index, &st);
          --remaining;
        }
      }
      CHECK_MPI(MPI_Testany(kReqs, req_, &index, &flag, &st));
      CHECK_MSG(flag && index == MPI_UNDEFINED, "Testany over only null requests: flag %d "
                "index %d", flag, index);
      break;
    case kTestall:
      do CHECK_MPI(MPI_Testall(kReqs, req_, &flag, statuses)); while (!flag);
      for (int i = 0; i < kReqs; ++i) completed(mode, i, &statuses[i]);
      break;
    case kWaitsome:
    case kTestsome:
      while (remaining > 0) {
        if (mode == kWaitsome) {
          CHECK_MPI(MPI_Waitsome(kReqs, req_, &outcount, indices, statuses));
          CHECK_MSG(outcount >= 1 && outcount <= remaining, "Waitsome returned outcount %d "
                    "with %d requests pending", outcount, remaining);
        } else {
          CHECK_MPI(MPI_Testsome(kReqs, req_, &outcount, indices, statuses));
          CHECK_MSG(outcount >= 0 && outcount <= remaining, "Testsome returned outcount %d "
                    "with %d requests pending", outcount, remaining);
        }
        for (int i = 0; i < outcount; ++i) completed(mode, indices[i], &statuses[i]);
        remaining -= outcount;
      }
      if (mode == kWaitsome)
        CHECK_MPI(MPI_Waitsome(kReqs, req_, &outcount, indices, statuses));
      else
        CHECK_MPI(MPI_Testsome(kReqs, req_, &outcount, indices, statuses));
      CHECK_MSG(outcount == MPI_UNDEFINED, "%s over only null requests returned outcount %d",
                kModeNames[mode], outcount);
      break;
  }
  for (int i = 0; i < kReqs; ++i)
    CHECK_MSG(done_[i], "%s: request %d never completed", kModeNames[mode], i);
}

int main(int argc, char **argv) {
  CHECK_MPI(MPI_Init(&argc, &argv));
  CHECK_MPI(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
  MPI_Comm_rank(MPI_COMM_WORLD, &rank_);
  MPI_Comm_size(MPI_COMM_WORLD, &size_);
  next_ = (rank_ + 1) % size_;
  prev_ = (rank_ + size_ - 1) % size_;
  for (int k = 0; k < kMsgs; ++k) {
    sbuf_[k] = jobs_malloc((size_t)size_of(k));
    rbuf_[k] = jobs_malloc((size_t)size_of(k));
  }
  for (int mode = 0; mode < kModes; ++mode) {
    start_all(mode);
    finish_all(mode);
    CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
  }
  for (int k = 0; k < kMsgs; ++k) {
    free(sbuf_[k]);
    free(rbuf_[k]);
  }
  jobs_done("job_many_requests");
  CHECK_MPI(MPI_Finalize());
  return 0;
}
