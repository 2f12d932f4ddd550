/* Shared helpers for the mprun integration jobs: checks that name the rank, file:line and the
 * values involved, then abort the whole job, so a failure is never mistaken for a hang. */
#ifndef MPR_TEST_JOBS_UTIL_H
#define MPR_TEST_JOBS_UTIL_H

#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif

#include <mpi.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static inline int jobs_rank(void) {
  int initialized = 0, finalized = 0, rank = -1;
  MPI_Initialized(&initialized);
  MPI_Finalized(&finalized);
  if (initialized && !finalized) MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  return rank;
}

static inline void jobs_fail(const char *file, int line, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  fprintf(stderr, "[rank %d] FAIL %s:%d: ", jobs_rank(), file, line);
  vfprintf(stderr, fmt, ap);
  fputc('\n', stderr);
  va_end(ap);
  fflush(stderr);
  fflush(stdout);
  int initialized = 0, finalized = 0;
  MPI_Initialized(&initialized);
  MPI_Finalized(&finalized);
  if (initialized && !finalized) MPI_Abort(MPI_COMM_WORLD, 1);
  exit(1);
}

static inline const char *jobs_error_text(int code) {
  static char text[MPI_MAX_ERROR_STRING + 1];
  int len = 0;
  text[0] = '\0';
  if (MPI_Error_string(code, text, &len) != MPI_SUCCESS) snprintf(text, sizeof text, "?");
  return text;
}

#define CHECK(cond)                                                                  \
  do {                                                                               \
    if (!(cond)) jobs_fail(__FILE__, __LINE__, "check failed: %s", #cond);           \
  } while (0)

/* CHECK_MSG(cond, "printf format", args...): the message explains what was expected. */
#define CHECK_MSG(cond, ...)                                                         \
  do {                                                                               \
    if (!(cond)) jobs_fail(__FILE__, __LINE__, __VA_ARGS__);                         \
  } while (0)

/* CHECK_INT(a, ==, b): integer comparison printing both values. */
#define CHECK_INT(a, op, b)                                                          \
  do {                                                                               \
    long long a_ = (long long)(a), b_ = (long long)(b);                              \
    if (!(a_ op b_))                                                                 \
      jobs_fail(__FILE__, __LINE__, "expected %s %s %s, got %lld vs %lld", #a, #op,  \
                #b, a_, b_);                                                         \
  } while (0)

/* CHECK_MPI(call): the call must return MPI_SUCCESS. */
#define CHECK_MPI(call)                                                              \
  do {                                                                               \
    int rc_ = (call);                                                                \
    if (rc_ != MPI_SUCCESS)                                                          \
      jobs_fail(__FILE__, __LINE__, "%s returned %d (%s)", #call, rc_,              \
                jobs_error_text(rc_));                                               \
  } while (0)

/* CHECK_ERR_CLASS(call, MPI_ERR_x): needs MPI_ERRORS_RETURN; the call must fail with that
 * class, and its error string must say something. */
#define CHECK_ERR_CLASS(call, expected)                                              \
  do {                                                                               \
    int rc_ = (call), class_ = -1;                                                   \
    if (rc_ == MPI_SUCCESS)                                                          \
      jobs_fail(__FILE__, __LINE__, "%s succeeded, expected %s", #call, #expected);  \
    MPI_Error_class(rc_, &class_);                                                   \
    if (class_ != (expected))                                                        \
      jobs_fail(__FILE__, __LINE__, "%s: error class %d (%s), expected %s = %d",     \
                #call, class_, jobs_error_text(rc_), #expected, (int)(expected));    \
    if (jobs_error_text(rc_)[0] == '\0')                                             \
      jobs_fail(__FILE__, __LINE__, "%s: MPI_Error_string(%d) is empty", #call, rc_); \
  } while (0)

/* Deterministic bytes: a message's content depends on its seed, so a message delivered to the
 * wrong receive (misordered, mismatched) fails the check even when the sizes agree. */
static inline unsigned char jobs_byte(uint64_t seed, size_t i) {
  uint32_t x = (uint32_t)i * 2654435761u + (uint32_t)seed * 40503u + (uint32_t)(i >> 20) + 17u;
  return (unsigned char)(x >> 24);
}

static inline void jobs_fill(void *buf, size_t n, uint64_t seed) {
  unsigned char *p = (unsigned char *)buf;
  for (size_t i = 0; i < n; ++i) p[i] = jobs_byte(seed, i);
}

/* Offset of the first byte that differs from the pattern, or (size_t)-1 if all match. */
static inline size_t jobs_mismatch(const void *buf, size_t n, uint64_t seed) {
  const unsigned char *p = (const unsigned char *)buf;
  for (size_t i = 0; i < n; ++i)
    if (p[i] != jobs_byte(seed, i)) return i;
  return (size_t)-1;
}

#define CHECK_PATTERN(buf, n, seed, what)                                            \
  do {                                                                               \
    size_t off_ = jobs_mismatch((buf), (size_t)(n), (uint64_t)(seed));              \
    if (off_ != (size_t)-1)                                                          \
      jobs_fail(__FILE__, __LINE__,                                                  \
                "%s: %zu-byte message (seed %llu) wrong at offset %zu: got 0x%02x, "  \
                "expected 0x%02x",                                                   \
                (what), (size_t)(n), (unsigned long long)(seed), off_,               \
                ((const unsigned char *)(buf))[off_], jobs_byte((uint64_t)(seed), off_)); \
  } while (0)

static inline void *jobs_malloc(size_t n) {
  void *p = malloc(n ? n : 1);
  if (!p) jobs_fail(__FILE__, __LINE__, "cannot allocate %zu bytes", n);
  return p;
}

static inline void jobs_sleep_ms(long ms) {
  struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};
  while (nanosleep(&ts, &ts) != 0) {
  }
}

/* Sleeps about ms milliseconds in 1 ms steps, probing for a message from source with tag on
 * comm after each. Returns the rank a message came from as soon as one has arrived (it stays
 * queued), -1 if none did. Tests use it for causal checks: "the peer's notice must not arrive
 * before I act" holds however late a descheduled rank runs; "the peer must wait at least N ms"
 * does not. */
static inline int jobs_sleep_watching(long ms, MPI_Comm comm, int source, int tag) {
  double end = MPI_Wtime() + (double)ms / 1e3;
  do {
    int flag = 0;
    MPI_Status st;
    CHECK_MPI(MPI_Iprobe(source, tag, comm, &flag, &st));
    if (flag) return st.MPI_SOURCE;
    jobs_sleep_ms(1);
  } while (MPI_Wtime() < end);
  return -1;
}

/* Rank 0 prints one line once every rank got here, so the log shows the job really ended. */
static inline void jobs_done(const char *name) {
  int rank = 0, size = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
  if (rank == 0) printf("OK %s on %d rank%s\n", name, size, size == 1 ? "" : "s");
  fflush(stdout);
}

#endif
