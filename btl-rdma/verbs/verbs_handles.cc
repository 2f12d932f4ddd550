#include "btl-rdma/verbs/verbs_handles.h"

#include <cerrno>
#include <cstdio>
#include <cstring>

#include "common/log.h"

namespace mpr::btl::verbs {

namespace {

// `rc` is what a destroy call returned: an errno value (0: done), or -1 with errno set
// (ibv_close_device). The object counts as gone either way: its handle has let go of it.
// Callers format `what` only when the call failed (the cache deregisters on every eviction).
void destroyed(int LiveCounts::*kind, int rc, const char* call, const char* what) noexcept {
  const int err = rc < 0 ? errno : rc;
  count_live(kind, -1);
  if (rc != 0) common::log_error("verbs: %s (%s) failed: %s", call, what, std::strerror(err));
}

}  // namespace

void VerbsDeleter::operator()(ibv_context* ctx) const noexcept {
  char name[IBV_SYSFS_NAME_MAX] = "";  // copied first: the device may go with the context
  std::memcpy(name, ctx->device->name, sizeof name);
  name[sizeof name - 1] = 0;
  destroyed(&LiveCounts::contexts, ibv_close_device(ctx), "ibv_close_device", name);
}

void VerbsDeleter::operator()(ibv_pd* pd) const noexcept {
  destroyed(&LiveCounts::pds, ibv_dealloc_pd(pd), "ibv_dealloc_pd", "protection domain");
}

void VerbsDeleter::operator()(ibv_cq* cq) const noexcept {
  destroyed(&LiveCounts::cqs, ibv_destroy_cq(cq), "ibv_destroy_cq", "completion queue");
}

void VerbsDeleter::operator()(ibv_srq* srq) const noexcept {
  destroyed(&LiveCounts::srqs, ibv_destroy_srq(srq), "ibv_destroy_srq", "shared receive queue");
}

void VerbsDeleter::operator()(ibv_qp* qp) const noexcept {
  const uint32_t qpn = qp->qp_num;
  const bool ud = qp->qp_type == IBV_QPT_UD;
  const int rc = ibv_destroy_qp(qp);
  char what[32] = "";
  if (rc) std::snprintf(what, sizeof what, "%s QP %u", ud ? "UD" : "RC", qpn);
  destroyed(&LiveCounts::qps, rc, "ibv_destroy_qp", what);
}

void VerbsDeleter::operator()(ibv_ah* ah) const noexcept {
  destroyed(&LiveCounts::ahs, ibv_destroy_ah(ah), "ibv_destroy_ah", "address handle");
}

void VerbsDeleter::operator()(ibv_mr* mr) const noexcept {
  const size_t len = mr->length;
  const int rc = ibv_dereg_mr(mr);
  char what[40] = "";
  if (rc) std::snprintf(what, sizeof what, "%zu-byte MR", len);
  destroyed(&LiveCounts::mrs, rc, "ibv_dereg_mr", what);
}

}  // namespace mpr::btl::verbs
