/* LD_PRELOAD shim for the launcher checks: wraps PMIx_Fence, which MPI_Init calls for its
 * endpoint exchange. The rank named by SHIM_FENCE_VICTIM kills itself with SIGKILL as it
 * enters the fence; the rank named by SHIM_FENCE_STALL sleeps SHIM_FENCE_STALL_S seconds
 * first; every other rank waits SHIM_FENCE_DELAY_MS milliseconds (default 0) before fencing.
 * The types are left opaque: pmix_status_t is an int, the rest is passed through. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <signal.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

typedef int (*fence_fn)(const void *, size_t, const void *, size_t);

static int is_rank(const char *var) {
  const char *want = getenv(var), *me = getenv("PMIX_RANK");
  return want && me && strcmp(want, me) == 0;
}

int PMIx_Fence(const void *procs, size_t nprocs, const void *info, size_t ninfo) {
  fence_fn real = (fence_fn)dlsym(RTLD_NEXT, "PMIx_Fence");
  const char *delay = getenv("SHIM_FENCE_DELAY_MS"), *stall = getenv("SHIM_FENCE_STALL_S");
  if (is_rank("SHIM_FENCE_VICTIM")) raise(SIGKILL);
  if (is_rank("SHIM_FENCE_STALL")) sleep(stall ? (unsigned)atoi(stall) : 10);
  else if (delay) usleep((useconds_t)atoi(delay) * 1000);
  return real(procs, nprocs, info, ninfo);
}
