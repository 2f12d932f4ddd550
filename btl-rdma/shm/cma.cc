#include "btl-rdma/shm/cma.h"

#include <sys/uio.h>

#include <algorithm>
#include <cerrno>

namespace mpr::btl::shm {

namespace {
// Not const: a const object could be merged or placed where the address we publish is not
// the one peers read; the value never changes.
alignas(8) uint64_t g_probe_word = kCmaProbeValue;
}  // namespace

uint64_t cma_probe_address() { return reinterpret_cast<uintptr_t>(&g_probe_word); }

int cma_copy(pid_t pid, void* local, uint64_t remote, size_t len, CmaDir dir, size_t max_per_call) {
  auto* l = static_cast<uint8_t*>(local);
  while (len > 0) {
    size_t n = std::min(len, max_per_call);
    struct iovec liov = {l, n};
    struct iovec riov = {reinterpret_cast<void*>(remote), n};
    ssize_t done = dir == CmaDir::kRead ? process_vm_readv(pid, &liov, 1, &riov, 1, 0)
                                        : process_vm_writev(pid, &liov, 1, &riov, 1, 0);
    if (done < 0) {
      if (errno == EINTR) continue;
      return errno;
    }
    // Zero progress on a non-empty request would loop forever; the kernel only does that when
    // the very first byte faults without reporting it, so call it what it is.
    if (done == 0) return EFAULT;
    l += done;
    remote += uint64_t(done);
    len -= size_t(done);
  }
  return 0;
}

}  // namespace mpr::btl::shm
