// Construction of a Pml over backends the caller built, and a window into its internals.
// Pml::create() uses make_pml_over() after building the backends MPR_BTL allows; tests use it
// directly with fake backends and an in-process Bootstrap. Not part of the runtime's interface.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

#include "btl-rdma/btl.h"
#include "common/bootstrap.h"
#include "pml/pml.h"

namespace mpr::pml {

/// Protocol tunables, read once from MPR_* parameters by from_params().
struct PmlConfig {
  size_t get_chunk = size_t{8} << 20;   ///< bytes per rendezvous get()
  int get_inflight = 4;                 ///< get()s outstanding per receive
  int frag_budget = 16;                 ///< copy-pipeline fragments per request per progress()
  size_t pack_chunk = size_t{1} << 20;  ///< bounce buffer per get() of a non-contiguous receive
  int spin_count = 2000;                ///< empty polls before wait() starts yielding
  static PmlConfig from_params();
};

/// Phase 2 of setup over backends already created (phase 1 put their addresses): fences once
/// through `bs`, wires up every backend, registers the pml's handlers and chooses one backend
/// per peer (see README.md). Throws std::runtime_error naming the peer nobody reaches.
std::unique_ptr<Pml> make_pml_over(common::Bootstrap& bs,
                                   std::vector<std::unique_ptr<btl::Btl>> btls,
                                   const PmlConfig& cfg);

/// Internal counters for tests and debugging.
struct PmlDebug {
  uint64_t out_of_sequence = 0;  ///< kAmMatch arrivals ahead of or behind their sequence
  uint64_t protocol_errors = 0;  ///< malformed or misaddressed messages dropped
  size_t live_requests = 0;      ///< requests created and not yet freed
  size_t incomplete = 0;         ///< requests not yet complete
  size_t unexpected = 0;         ///< messages in the unexpected queues
  size_t posted = 0;             ///< receives in the posted queues
  size_t pending_ams = 0;        ///< active messages waiting behind kRetry
};
PmlDebug debug_counters(const Pml& pml);

/// Name (caps().name) of the backend serving job rank `peer`.
const char* backend_for(const Pml& pml, int peer);

}  // namespace mpr::pml
