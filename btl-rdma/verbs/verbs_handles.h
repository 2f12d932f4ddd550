// Owning handles for the verbs backend's verbs objects and its page-aligned host memory.
//
// A handle destroys its object once: when it is reset, assigned over or goes out of scope.
// A failed destroy is logged (the call, errno, which object) and never thrown: it happens at
// teardown, in destructors, where nothing better can be done about it. adopt() counts an
// object into the process's live counters (verbs_util.h) and the deleter counts it out again,
// so the leak checks of the tests and of verbose mode see every handle.
//
// Order is the owner's business: verbs refuses (EBUSY) to destroy a CQ or an SRQ that a QP still
// uses, a PD that still has QPs, AHs or MRs, or a context that still has a PD. An owner declares
// its handles so that members are destroyed in that order (C++ destroys them in the reverse
// of their declaration); see VerbsBtl::Resources.
#pragma once

#include <infiniband/verbs.h>

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <utility>

#include "btl-rdma/verbs/verbs_util.h"

namespace mpr::btl::verbs {

/// Destroys one verbs object (verbs_handles.cc) and counts it out of live_counts().
struct VerbsDeleter {
  void operator()(ibv_context* ctx) const noexcept;
  void operator()(ibv_pd* pd) const noexcept;
  void operator()(ibv_cq* cq) const noexcept;
  void operator()(ibv_srq* srq) const noexcept;
  void operator()(ibv_qp* qp) const noexcept;
  void operator()(ibv_ah* ah) const noexcept;
  void operator()(ibv_mr* mr) const noexcept;
};

template <class T>
using Handle = std::unique_ptr<T, VerbsDeleter>;
using Context = Handle<ibv_context>;
using Pd = Handle<ibv_pd>;
using Cq = Handle<ibv_cq>;
using Srq = Handle<ibv_srq>;
using Qp = Handle<ibv_qp>;  ///< RC and UD alike
using Ah = Handle<ibv_ah>;
using Mr = Handle<ibv_mr>;

/// Which live counter an object of this type belongs to.
inline int LiveCounts::*live_kind(const ibv_context*) { return &LiveCounts::contexts; }
inline int LiveCounts::*live_kind(const ibv_pd*) { return &LiveCounts::pds; }
inline int LiveCounts::*live_kind(const ibv_cq*) { return &LiveCounts::cqs; }
inline int LiveCounts::*live_kind(const ibv_srq*) { return &LiveCounts::srqs; }
inline int LiveCounts::*live_kind(const ibv_qp*) { return &LiveCounts::qps; }
inline int LiveCounts::*live_kind(const ibv_ah*) { return &LiveCounts::ahs; }
inline int LiveCounts::*live_kind(const ibv_mr*) { return &LiveCounts::mrs; }

/// Takes ownership of an object a verbs call just created and counts it as live. A null
/// pointer (the call failed; errno says why) gives an empty handle and counts nothing.
template <class T>
Handle<T> adopt(T* obj) {
  if (obj) count_live(live_kind(obj), 1);
  return Handle<T>(obj);
}

/// Memory from posix_memalign, released with free().
struct FreeDeleter {
  void operator()(void* p) const noexcept { std::free(p); }
};
/// Page-aligned host memory holding an array of T.
template <class T>
using PageMem = std::unique_ptr<T[], FreeDeleter>;

/// `bytes` of page-aligned memory, zero-filled if `zero`; empty when out of memory.
template <class T>
PageMem<T> alloc_pages(size_t bytes, bool zero) {
  void* p = nullptr;
  if (posix_memalign(&p, 4096, bytes) != 0) return nullptr;
  if (zero) std::memset(p, 0, bytes);
  return PageMem<T>(static_cast<T*>(p));
}

/// Host memory and its registration. `mr` is declared after `mem`, so the memory is
/// deregistered before it is freed.
template <class T>
struct RegisteredMem {
  PageMem<T> mem;
  Mr mr;

  RegisteredMem() = default;
  RegisteredMem(RegisteredMem&&) noexcept = default;
  /// Member-wise assignment would free the old memory before deregistering it.
  RegisteredMem& operator=(RegisteredMem&& o) noexcept {
    mr.reset();
    mem = std::move(o.mem);
    mr = std::move(o.mr);
    return *this;
  }
};

}  // namespace mpr::btl::verbs
