// Cross-memory attach: the kernel copies between two address spaces directly
// (process_vm_readv/process_vm_writev), one copy, no bounce buffer. Permission follows ptrace
// rules, so it can be refused (EPERM) under Yama ptrace_scope >= 1 or container policies.
#pragma once

#include <sys/types.h>

#include <cstddef>
#include <cstdint>

namespace mpr::btl::shm {

/// The kernel caps one process_vm_* call at MAX_RW_COUNT (just under 2 GiB) and may also stop
/// early at a fault, so bigger copies are issued in pieces of at most this size.
constexpr size_t kCmaMaxPerCall = size_t{1} << 30;

enum class CmaDir { kRead, kWrite };

/// Copies `len` bytes between `local` and `remote` in process `pid` (kRead: remote -> local).
/// Returns 0, or the errno of the call that failed (EPERM, ESRCH, EFAULT, ...). Partial
/// transfers continue where the kernel stopped; each call moves at most `max_per_call` bytes
/// through one iovec per side, far from IOV_MAX.
int cma_copy(pid_t pid, void* local, uint64_t remote, size_t len, CmaDir dir,
             size_t max_per_call = kCmaMaxPerCall);

/// Address and expected value of a word every process publishes so peers can check at wire-up
/// that CMA towards it works (and that the address they were given is right).
uint64_t cma_probe_address();
constexpr uint64_t kCmaProbeValue = 0x4d50522d434d4121ULL;  // "MPR-CMA!"

}  // namespace mpr::btl::shm
