// "Backend not built" factory for verbs, so the pml links on machines without rdma-core.
//
// verbs is optional at configure time: without rdma-core MPR_HAVE_VERBS is undefined and this
// is the only definition; with it, this one is not compiled at all. A configure conditional
// rather than a weak symbol, because in a static archive a weak definition can win over the
// real one in another member (the linker stops looking once the symbol is defined).
// shm and self are always built, so they need no stand-in.
#include "btl-rdma/btl.h"
#include "common/log.h"
#include "mpr_config.h"

namespace mpr::btl {

#ifndef MPR_HAVE_VERBS
std::unique_ptr<Btl> make_verbs_btl(common::Bootstrap&) {
  common::log_verbose("btl: verbs backend not built (configured without rdma-core)");
  return nullptr;
}
#endif

}  // namespace mpr::btl
