/* Helpers of the MPI-IO jobs: a temporary directory per job (removed at the end, which also
 * checks that no shared-file-pointer counter was left behind), and the POSIX side of the byte
 * for byte comparisons. */
#ifndef MPR_TEST_JOBS_IO_UTIL_H
#define MPR_TEST_JOBS_IO_UTIL_H

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "jobs_util.h"

static char io_dir[4096];

/* Rank 0 makes $MPR_TEST_IO_DIR (or $TMPDIR, or /tmp)/mpr-io-<name>-XXXXXX; everybody learns
 * its name. */
static inline const char *io_setup(const char *name) {
  int rank;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  if (rank == 0) {
    const char *base = getenv("MPR_TEST_IO_DIR");
    if (!base || !*base) base = getenv("TMPDIR");
    if (!base || !*base) base = "/tmp";
    snprintf(io_dir, sizeof io_dir, "%s/mpr-io-%s-XXXXXX", base, name);
    if (!mkdtemp(io_dir)) jobs_fail(__FILE__, __LINE__, "mkdtemp(%s): %s", io_dir, strerror(errno));
  }
  CHECK_MPI(MPI_Bcast(io_dir, sizeof io_dir, MPI_CHAR, 0, MPI_COMM_WORLD));
  return io_dir;
}

/* dir/name in a static buffer per call site's slot (4 slots, reused round robin). */
static inline const char *io_path(const char *name) {
  static char paths[4][4200];
  static int next = 0;
  char *p = paths[next++ % 4];
  snprintf(p, sizeof paths[0], "%s/%s", io_dir, name);
  return p;
}

/* Everything the job made goes; a hidden counter file of a shared file pointer left behind
 * after its file was closed is a failure. */
static inline void io_teardown(void) {
  int rank;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
  if (rank == 0) {
    DIR *d = opendir(io_dir);
    if (!d) jobs_fail(__FILE__, __LINE__, "opendir(%s): %s", io_dir, strerror(errno));
    struct dirent *e;
    char leftover[512] = "";
    while ((e = readdir(d))) {
      if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, "..")) continue;
      if (strstr(e->d_name, ".mpr-shfp.")) snprintf(leftover, sizeof leftover, "%s", e->d_name);
      char p[4400];
      snprintf(p, sizeof p, "%s/%s", io_dir, e->d_name);
      chmod(p, 0600);
      unlink(p);
    }
    closedir(d);
    if (rmdir(io_dir) != 0) jobs_fail(__FILE__, __LINE__, "rmdir(%s): %s", io_dir, strerror(errno));
    if (leftover[0])
      jobs_fail(__FILE__, __LINE__, "shared file pointer counter %s left behind", leftover);
  }
  CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
}

/* The whole file as POSIX sees it (malloc'd); *size gets its length. */
static inline unsigned char *io_slurp(const char *path, size_t *size) {
  int fd = open(path, O_RDONLY);
  if (fd < 0) jobs_fail(__FILE__, __LINE__, "open(%s): %s", path, strerror(errno));
  struct stat st;
  if (fstat(fd, &st) != 0) jobs_fail(__FILE__, __LINE__, "fstat(%s): %s", path, strerror(errno));
  unsigned char *buf = (unsigned char *)jobs_malloc((size_t)st.st_size);
  size_t done = 0;
  while (done < (size_t)st.st_size) {
    ssize_t n = pread(fd, buf + done, (size_t)st.st_size - done, (off_t)done);
    if (n <= 0) jobs_fail(__FILE__, __LINE__, "pread(%s): %s", path, strerror(errno));
    done += (size_t)n;
  }
  close(fd);
  *size = (size_t)st.st_size;
  return buf;
}

/* Write `n` bytes at `off` with POSIX (the reference files). */
static inline void io_pwrite(const char *path, const void *buf, size_t n, off_t off) {
  int fd = open(path, O_WRONLY | O_CREAT, 0644);
  if (fd < 0) jobs_fail(__FILE__, __LINE__, "open(%s): %s", path, strerror(errno));
  if (pwrite(fd, buf, n, off) != (ssize_t)n)
    jobs_fail(__FILE__, __LINE__, "pwrite(%s): %s", path, strerror(errno));
  close(fd);
}

/* The file must be exactly `n` bytes equal to `expect`. */
#define CHECK_FILE(path, expect, n)                                                        \
  do {                                                                                     \
    size_t got_n_ = 0;                                                                     \
    unsigned char *got_ = io_slurp((path), &got_n_);                                       \
    if (got_n_ != (size_t)(n))                                                             \
      jobs_fail(__FILE__, __LINE__, "%s: %zu bytes, expected %zu", (path), got_n_,        \
                (size_t)(n));                                                              \
    for (size_t i_ = 0; i_ < got_n_; ++i_)                                                 \
      if (got_[i_] != ((const unsigned char *)(expect))[i_])                               \
        jobs_fail(__FILE__, __LINE__, "%s: byte %zu is 0x%02x, expected 0x%02x", (path),  \
                  i_, got_[i_], ((const unsigned char *)(expect))[i_]);                    \
    free(got_);                                                                            \
  } while (0)

#endif
