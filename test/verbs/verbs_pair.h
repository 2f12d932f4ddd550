// Test fixture: N real verbs backends in one process (ranks 0..N-1), wired up through a fake
// bootstrap, plus helpers to drive their progress with a time limit.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "btl-rdma/verbs/verbs_btl.h"
#include "test/fixtures/fake_bootstrap.h"

namespace mpr::verbs_test {

using mpr::test::FakeBootstrap;
using mpr::test::FakeStore;

/// True if a usable RDMA device exists; otherwise *why says what is missing.
bool device_available(std::string* why);

/// Configuration from the MPR_* environment, for tests to adjust before creating a World.
btl::verbs::Config default_config();

struct Received {
  int src = -1;
  std::vector<uint8_t> hdr;
  std::vector<uint8_t> payload;
};

struct Endpoint {
  std::unique_ptr<FakeBootstrap> bs;
  std::unique_ptr<btl::Btl> btl;
  btl::verbs::VerbsBtl* v = nullptr;
  std::vector<Received> inbox;
  /// When set, messages go here instead of the inbox.
  std::function<void(int src, const uint8_t* hdr, size_t hdr_len, const uint8_t* payload,
                     size_t payload_len)>
      on_msg;
};

class World {
 public:
  explicit World(const btl::verbs::Config& cfg, int n = 2);
  ~World();
  Endpoint& operator[](int r) { return *eps_[static_cast<size_t>(r)]; }
  int size() const { return static_cast<int>(eps_.size()); }

  /// Progress every endpoint until done() or the time limit; false on timeout.
  bool spin(const std::function<bool()>& done, double seconds = 120);
  void progress_all();
  /// send_am, retrying (with progress of everybody) on kRetry. False on timeout.
  bool send(int from, int to, int am_id, const void* hdr, size_t hdr_len, const void* payload,
            size_t payload_len, double seconds = 120);
  /// Finalizes every backend (as MPI_Finalize would).
  void finalize_all();

 private:
  std::vector<std::unique_ptr<Endpoint>> eps_;
};

/// Deterministic test bytes.
inline uint8_t pattern(uint64_t seed, size_t i) {
  return static_cast<uint8_t>(seed * 131 + i * 7 + (i >> 8) + 1);
}
void fill(void* buf, size_t len, uint64_t seed);
/// Index of the first byte that differs from the pattern, or SIZE_MAX.
size_t first_mismatch(const void* buf, size_t len, uint64_t seed);

/// Waits for a get/put completion; records the status.
struct WaitCompletion {
  btl::Completion c;
  bool done = false;
  int status = -1;
  WaitCompletion();
};

}  // namespace mpr::verbs_test
