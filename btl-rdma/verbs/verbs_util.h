// Small helpers shared by the verbs backend's files: error reporting for failed verbs calls,
// counters of live verbs objects (leak checks), and the work-request id encoding.
#pragma once

#include <infiniband/verbs.h>

#include <atomic>
#include <cstdint>
#include <string>

namespace mpr::btl::verbs {

/// Throws std::runtime_error "rank R: verbs: <call> (<what>) failed: <strerror(err)>".
[[noreturn]] void throw_verbs_error(int rank, const char* call, const std::string& what, int err);

/// Throws std::runtime_error "rank R: verbs: out of memory[ for <what>]".
[[noreturn]] void throw_out_of_memory(int rank, const std::string& what);

/// Verbs objects alive in this process, over every backend instance. Teardown must bring them
/// all back to zero; tests assert it and finalize reports leftovers in verbose mode.
struct LiveCounts {
  int contexts = 0;
  int pds = 0;
  int cqs = 0;
  int srqs = 0;
  int qps = 0;
  int ahs = 0;
  int mrs = 0;
  bool all_zero() const { return !(contexts | pds | cqs | srqs | qps | ahs | mrs); }
};
LiveCounts live_counts();
std::string to_string(const LiveCounts& c);

/// Adjusts one counter; `kind` is a member pointer into LiveCounts.
void count_live(int LiveCounts::*kind, int delta);

/// Work-request ids: [63..60] kind, [59..32] peer (or 0), [31..0] sequence or buffer index.
enum class WrKind : uint8_t { kRcSend = 1, kUdSend = 2, kSrqRecv = 3, kUdRecv = 4 };
inline uint64_t make_wr_id(WrKind kind, uint32_t peer, uint32_t low) {
  return (uint64_t{static_cast<uint8_t>(kind)} << 60) | (uint64_t{peer & 0x0fffffffu} << 32) | low;
}
inline WrKind wr_kind(uint64_t id) { return static_cast<WrKind>(id >> 60); }
inline uint32_t wr_peer(uint64_t id) { return static_cast<uint32_t>(id >> 32) & 0x0fffffffu; }
inline uint32_t wr_low(uint64_t id) { return static_cast<uint32_t>(id); }

/// Bytes for an ibv_mtu enum value (IBV_MTU_1024 -> 1024).
inline int mtu_bytes(int mtu_enum) { return 128 << mtu_enum; }

/// "::ffff:10.0.2.15"-style text for a GID (IPv4-mapped shown as such).
std::string gid_to_string(const union ibv_gid& gid);

}  // namespace mpr::btl::verbs
