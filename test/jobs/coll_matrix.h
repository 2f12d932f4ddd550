/* Shared by the job_coll_* matrix tests: the communicators every collective is checked on, and
 * switching MPR's algorithm overrides between calls. Plain MPI: under another MPI the overrides
 * are just unused environment variables. */
#ifndef MPR_TEST_JOBS_COLL_MATRIX_H
#define MPR_TEST_JOBS_COLL_MATRIX_H

#include "jobs_util.h"

enum { kMaxTestComms = 24 };

typedef struct {
  MPI_Comm comm;
  char name[64];
  int full; /* run the whole matrix (world); other communicators get a lighter pass */
} TestComm;

/* World; a dup; world with reversed rank order (split, keys size-rank); and for every k the two
 * halves of a split into sizes k and n-k, also with reversed keys: every size from 1 to n. */
static inline int coll_make_comms(TestComm *out) {
  int rank, size, n = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  out[n].comm = MPI_COMM_WORLD;
  snprintf(out[n].name, sizeof out[n].name, "world(%d)", size);
  out[n++].full = 1;
  CHECK_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &out[n].comm));
  snprintf(out[n].name, sizeof out[n].name, "dup(%d)", size);
  out[n++].full = 0;
  CHECK_MPI(MPI_Comm_split(MPI_COMM_WORLD, 0, size - rank, &out[n].comm));
  snprintf(out[n].name, sizeof out[n].name, "reversed(%d)", size);
  out[n++].full = 0;
  for (int k = 1; k < size && n < kMaxTestComms; ++k) {
    int low = rank < k;
    CHECK_MPI(MPI_Comm_split(MPI_COMM_WORLD, low, -rank, &out[n].comm));
    int sub;
    MPI_Comm_size(out[n].comm, &sub);
    snprintf(out[n].name, sizeof out[n].name, "split%d-%s(%d)", k, low ? "low" : "high", sub);
    out[n++].full = 0;
  }
  for (int i = 0; i < n; ++i) CHECK_MPI(MPI_Comm_set_errhandler(out[i].comm, MPI_ERRORS_RETURN));
  return n;
}

static inline void coll_free_comms(TestComm *c, int n) {
  for (int i = 1; i < n; ++i) CHECK_MPI(MPI_Comm_free(&c[i].comm));
}

/* Call before MPI_Init: MPR reads MPR_COLL_*_ALG at every call only when this is set. */
static inline void coll_allow_switching(void) { setenv("MPR_COLL_ALG_DYNAMIC", "1", 1); }

static inline void coll_force(const char *var, const char *alg) {
  if (alg)
    setenv(var, alg, 1);
  else
    unsetenv(var);
}

/* Deterministic small integers: every sum over 8 ranks stays exact in a float. */
static inline long coll_val(int rank, size_t i, int salt) {
  return (long)((i * 7u + (size_t)rank * 13u + (size_t)salt * 31u) % 1001u) - 500;
}

#endif
