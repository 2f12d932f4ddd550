// An in-process "job" for protocol tests: N Pml instances in one process, each over the real
// self backend plus a FakeBtl, joined by a FakeWire. The wire can delay messages (keeping
// per-peer FIFO, so deliveries from different peers interleave differently), refuse sends
// with kRetry, complete get()s late or with an error, and refuse registration.
#pragma once

#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <random>
#include <string>
#include <vector>

#include "btl-rdma/btl.h"
#include "pml/pml.h"
#include "pml/pml_testing.h"
#include "test/fixtures/fake_bootstrap.h"

namespace mpr::test {

struct FakeOptions {
  size_t max_am_size = 4096;
  size_t eager_limit = 1024;
  bool native_get = true;
  bool needs_registration = false;
  size_t rndv_get_min = 0;         ///< Caps::rndv_get_min
  size_t rndv_get_duplex_min = 0;  ///< Caps::rndv_get_duplex_min
  size_t rndv_get_duplex_max = 0;  ///< Caps::rndv_get_duplex_max
  bool reg_throws = false;      ///< reg() throws std::system_error (forces the pipeline)
  bool get_fails = false;       ///< every posted get completes with EIO
  int retry_percent = 0;        ///< chance that send_am returns kRetry
  size_t channel_capacity = 0;  ///< undelivered messages per (src,dst) before kRetry; 0 = inf
  int max_delay = 0;            ///< deliveries wait 0..max_delay progress calls of the receiver
  int get_delay = 0;            ///< posted gets complete after 0..get_delay progress calls
  bool use_self_btl = true;     ///< include the real self backend for the own rank
  unsigned seed = 1;
  pml::PmlConfig pml;  ///< protocol tunables for every rank
};

struct WireCounters {
  uint64_t am_sent[btl::kMaxAmIds] = {};
  uint64_t retries = 0;
  uint64_t gets = 0;
  uint64_t regs = 0;
  uint64_t deregs = 0;
  uint64_t get_bytes = 0;
  size_t max_get_len = 0;
};

class FakeWire;

/// Builds a world of `n` ranks; rank r's Pml is pml(r).
class FakeWorld {
 public:
  FakeWorld(int n, const FakeOptions& opt = {});
  ~FakeWorld();
  pml::Pml& pml(int r) { return *pmls_.at(r); }
  FakeBootstrap& bootstrap(int r) { return *boots_.at(r); }
  const WireCounters& wire() const;
  int size() const { return static_cast<int>(pmls_.size()); }

  /// Progress every rank in turn until `done()` holds. False if it never did within `rounds`.
  bool drive(const std::function<bool()>& done, int rounds = 200000);
  /// drive() until every request in `reqs` (owned by any rank) is complete.
  bool drive_all(const std::vector<pml::Request*>& reqs, int rounds = 200000);

 private:
  std::unique_ptr<FakeWire> wire_;
  std::vector<std::unique_ptr<FakeBootstrap>> boots_;
  std::vector<std::unique_ptr<pml::Pml>> pmls_;
};

/// Deterministic byte pattern for message `id` at offset `i`.
inline uint8_t pattern(uint32_t id, size_t i) {
  return static_cast<uint8_t>((i * 131u + id * 7u + (i >> 8)) & 0xff);
}
std::vector<uint8_t> make_payload(uint32_t id, size_t len);
/// True if the first `len` bytes of buf hold pattern(id, ...).
bool check_payload(const uint8_t* buf, uint32_t id, size_t len);

}  // namespace mpr::test
