/* coll_tune: how MPR's collective algorithms compare with each other, size by size, for
 * choosing the thresholds of the decision table (runtime/coll/tuning.cc). MPR only: it switches
 * algorithms between calls through the MPR_COLL_*_ALG overrides (MPR_COLL_ALG_DYNAMIC=1).
 *
 * Usage: coll_tune -c coll [-a alg,alg,...] [-n min] [-m max] [-r rounds] [-s var=v1,v2,...]
 *   -c  bcast, reduce, allreduce, allgather, alltoall, gather, scatter or reduce_scatter
 *   -a  the algorithms to compare (default: every one of that collective)
 *   -s  instead of algorithms, compare values of another MPR_COLL_* variable
 *       (e.g. -s MPR_COLL_SEGMENT_MAX=0,64K)
 *   -r  rounds (default 15); every round times one batch of each candidate in turn, so load
 *       from other work on the machine hits all of them alike
 * Per size it prints, for each candidate, the best and the median batch (slowest rank's mean
 * time per call, microseconds). On a busy machine the best batch says what the algorithm
 * costs; the median says what it costs under the load at the time. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int rank_, size_;
static char *a_, *b_;
static const char *coll_;

static long parse_size(const char *text) {
  char *end = NULL;
  long v = strtol(text, &end, 0);
  if (end && (*end == 'k' || *end == 'K')) v <<= 10;
  if (end && (*end == 'm' || *end == 'M')) v <<= 20;
  return v;
}

static void run_once(long bytes) {
  const int nf = (int)(bytes / 4 > 0 ? bytes / 4 : 1), nb = (int)bytes;
  MPI_Comm w = MPI_COMM_WORLD;
  if (!strcmp(coll_, "bcast"))
    MPI_Bcast(a_, nb, MPI_CHAR, 0, w);
  else if (!strcmp(coll_, "reduce"))
    MPI_Reduce(a_, b_, nf, MPI_FLOAT, MPI_SUM, 0, w);
  else if (!strcmp(coll_, "allreduce"))
    MPI_Allreduce(a_, b_, nf, MPI_FLOAT, MPI_SUM, w);
  else if (!strcmp(coll_, "allgather"))
    MPI_Allgather(a_, nb, MPI_CHAR, b_, nb, MPI_CHAR, w);
  else if (!strcmp(coll_, "alltoall"))
    MPI_Alltoall(a_, nb, MPI_CHAR, b_, nb, MPI_CHAR, w);
  else if (!strcmp(coll_, "gather"))
    MPI_Gather(a_, nb, MPI_CHAR, b_, nb, MPI_CHAR, 0, w);
  else if (!strcmp(coll_, "scatter"))
    MPI_Scatter(a_, nb, MPI_CHAR, b_, nb, MPI_CHAR, 0, w);
  else {
    const int per = nf / size_ > 0 ? nf / size_ : 1;
    MPI_Reduce_scatter_block(a_, b_, per, MPI_FLOAT, MPI_SUM, w);
  }
}

static double batch(long bytes, int calls) {
  MPI_Barrier(MPI_COMM_WORLD);
  double t0 = MPI_Wtime();
  for (int i = 0; i < calls; ++i) run_once(bytes);
  double mine = (MPI_Wtime() - t0) / calls, worst = 0;
  MPI_Allreduce(&mine, &worst, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  return worst;
}

static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}

static const char *kAlgs[][6] = {
    {"bcast", "binomial", "scatter_allgather", NULL},
    {"reduce", "binomial", "rabenseifner", NULL},
    {"allreduce", "recursive_doubling", "rabenseifner", "ring", NULL},
    {"allgather", "recursive_doubling", "bruck", "ring", NULL},
    {"alltoall", "bruck", "linear", "pairwise", NULL},
    {"gather", "binomial", "linear", NULL},
    {"scatter", "binomial", "linear", NULL},
    {"reduce_scatter", "ring", "reduce_then_scatter", NULL},
};

int main(int argc, char **argv) {
  setenv("MPR_COLL_ALG_DYNAMIC", "1", 1);
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank_);
  MPI_Comm_size(MPI_COMM_WORLD, &size_);
  long min = 8, max = 4 << 20;
  int rounds = 15;
  char *algs = NULL, *sweep = NULL;
  coll_ = "allreduce";
  for (int i = 1; i + 1 < argc; i += 2) {
    if (!strcmp(argv[i], "-c"))
      coll_ = argv[i + 1];
    else if (!strcmp(argv[i], "-a"))
      algs = argv[i + 1];
    else if (!strcmp(argv[i], "-s"))
      sweep = argv[i + 1];
    else if (!strcmp(argv[i], "-n"))
      min = parse_size(argv[i + 1]);
    else if (!strcmp(argv[i], "-m"))
      max = parse_size(argv[i + 1]);
    else if (!strcmp(argv[i], "-r"))
      rounds = atoi(argv[i + 1]);
  }
  if (rounds < 1 || rounds > 200) rounds = 15;
  /* Candidates: values of one variable. */
  char var[64], *vals[16];
  int nc = 0;
  if (sweep) {
    char *eq = strchr(sweep, '=');
    if (!eq) MPI_Abort(MPI_COMM_WORLD, 2);
    snprintf(var, sizeof var, "%.*s", (int)(eq - sweep), sweep);
    for (char *t = strtok(eq + 1, ","); t && nc < 16; t = strtok(NULL, ",")) vals[nc++] = t;
  } else {
    char up[32];
    int k = 0;
    for (; coll_[k] && k < 31; ++k)
      up[k] = (char)(coll_[k] >= 'a' && coll_[k] <= 'z' ? coll_[k] - 32 : coll_[k]);
    up[k] = '\0';
    snprintf(var, sizeof var, "MPR_COLL_%s_ALG", up);
    if (algs) {
      for (char *t = strtok(algs, ","); t && nc < 16; t = strtok(NULL, ",")) vals[nc++] = t;
    } else {
      for (size_t c = 0; c < sizeof kAlgs / sizeof kAlgs[0]; ++c)
        if (!strcmp(kAlgs[c][0], coll_))
          for (int j = 1; kAlgs[c][j]; ++j) vals[nc++] = (char *)kAlgs[c][j];
    }
  }
  if (nc == 0) {
    if (rank_ == 0) fprintf(stderr, "coll_tune: nothing to compare for %s\n", coll_);
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  const size_t cap = (size_t)max * (size_t)size_ + 64;
  a_ = calloc(cap, 1);
  b_ = calloc(cap, 1);
  if (rank_ == 0) {
    printf("# coll_tune %s, %d ranks, %s, %d rounds: best/median us per candidate\n# %9s", coll_,
           size_, var, rounds, "bytes");
    for (int c = 0; c < nc; ++c) printf(" %23s", vals[c]);
    printf("\n");
  }
  double(*t)[200] = malloc(sizeof(double[200]) * (size_t)nc);
  for (long bytes = min; bytes <= max; bytes *= 2) {
    /* Calibrate on the first candidate: batches of about 3 ms. */
    setenv(var, vals[0], 1);
    int calls = 1;
    batch(bytes, 2);
    while (calls < 4096 && batch(bytes, calls) * calls < 3e-3) calls *= 2;
    for (int r = 0; r < rounds; ++r)
      for (int c = 0; c < nc; ++c) {
        setenv(var, vals[c], 1);
        t[c][r] = batch(bytes, calls);
      }
    if (rank_ == 0) {
      printf("  %9ld", bytes);
      for (int c = 0; c < nc; ++c) {
        qsort(t[c], (size_t)rounds, sizeof(double), cmp_double);
        printf("      %8.2f / %8.2f", t[c][0] * 1e6, t[c][rounds / 2] * 1e6);
      }
      printf("\n");
      fflush(stdout);
    }
  }
  free(t);
  free(a_);
  free(b_);
  MPI_Finalize();
  return 0;
}
