// "Backend not built" factory for verbs, so the registry links on machines without rdma-core.
//
// verbs is optional at configure time: this file is compiled only without rdma-core
// (btl-rdma/verbs/Makefile.include), and the real factory only with it. A configure
// conditional rather than a weak symbol, because in a static archive a weak definition can win
// over the real one in another member (the linker stops looking once the symbol is defined).
#include "btl-rdma/btl.h"

namespace mpr::btl {

std::unique_ptr<Btl> make_verbs_btl(common::Bootstrap&) {
  throw Unavailable("not built (configured without rdma-core)");
}

}  // namespace mpr::btl
