/* LD_PRELOAD shim for the launcher's security check: the process claims to be uid/gid
 * $SHIM_FAKE_UID, as a PMIx client that lies in its handshake would. */
#include <stdlib.h>
#include <sys/types.h>

static unsigned fake(void) {
  const char *v = getenv("SHIM_FAKE_UID");
  return v ? (unsigned)atoi(v) : 0;
}
uid_t getuid(void) { return (uid_t)fake(); }
uid_t geteuid(void) { return (uid_t)fake(); }
gid_t getgid(void) { return (gid_t)fake(); }
gid_t getegid(void) { return (gid_t)fake(); }
