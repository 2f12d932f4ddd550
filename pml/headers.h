// Wire headers of the pml protocols. Plain trivially copyable structs: a header is copied into
// the active message as bytes and read back with memcpy (handlers get unaligned buffers), so
// the layout is the protocol and is pinned by static_asserts.
#pragma once

#include <cstdint>
#include <cstring>
#include <type_traits>

#include "btl-rdma/btl.h"

namespace mpr::pml {

/// Active-message ids the pml registers on every backend.
enum AmId : int {
  kAmMatch = 0,  ///< eager, eager-sync and RTS: everything that goes through matching
  kAmCtl = 1,    ///< FIN, CTS and cancellation: addressed by request id
  kAmFrag = 2,   ///< copy-pipeline fragment: sender -> receiver, addressed by request id
};

enum class HdrType : uint8_t {
  kEager = 1,      ///< MatchHdr + payload
  kEagerSync = 2,  ///< EagerSyncHdr + payload; receiver answers FIN at match
  kRts = 3,        ///< RtsHdr; receiver gets the data (or asks CTS) then answers FIN
  kFin = 4,        ///< CtlHdr: the sender request `sreq` is complete
  kCts = 5,        ///< CtlHdr: send `len` bytes of `sreq` as fragments addressed to `rreq`
  kFrag = 6,       ///< FragHdr + payload
  /// CtlHdr, sender -> receiver: withdraw the message of request `sreq` if it is still
  /// unmatched; it is found by `rreq` = context id << 32 | sender's communicator rank and
  /// `len` = its sequence number.
  kCancel = 7,
  /// CtlHdr, receiver -> sender: the answer to kCancel for `sreq`; `len` 1 = withdrawn.
  kCancelAck = 8,
};

/// RtsHdr flag: the sender could not (or chose not to) expose its buffer, so the receiver
/// must answer CTS instead of reading it.
constexpr uint8_t kFlagNoGet = 0x1;
/// RtsHdr flag: the buffer is exposed, but the receiver reads it only if it is itself sending
/// rendezvous messages to the sender (Caps::rndv_get_duplex_min); otherwise it answers CTS.
constexpr uint8_t kFlagGetIfDuplex = 0x2;

/// Matching information carried by every kAmMatch message. `seq` counts kAmMatch messages per
/// (sender job rank -> receiver job rank), modulo 2^16; it is checked on arrival so a backend
/// that ever broke per-peer FIFO would be caught and repaired (parked) instead of mis-matching.
/// 16 bytes: with the shm record word and 8 bytes of data an eager message is 32 bytes, two
/// to a cache line. An eager message's length is its payload's; RTS carries it in RtsHdr.
struct MatchHdr {
  HdrType type;
  uint8_t flags;
  uint16_t seq;
  uint32_t ctx;  ///< communicator context id
  int32_t src;   ///< sender's rank in the communicator
  int32_t tag;
};
static_assert(sizeof(MatchHdr) == 16);
static_assert(std::is_trivially_copyable_v<MatchHdr>);

/// Synchronous-mode eager: the receiver sends FIN(sreq) when the message matches.
struct EagerSyncHdr {
  MatchHdr m;
  uint64_t sreq;
};
static_assert(sizeof(EagerSyncHdr) == 24);
static_assert(std::is_trivially_copyable_v<EagerSyncHdr>);

/// Request to send: the data stays in the sender's buffer at `addr` (readable with the remote
/// key unless kFlagNoGet) until the sender gets FIN or has sent every fragment asked by CTS.
/// The key is the message's payload: the first Caps::rkey_size bytes of the RemoteKey of the
/// backend that carries it, so each backend's peers pay only for the key size it declares.
/// The pml also keeps every arrived match message in this shape, `len` filled in from the
/// payload for eager ones.
struct RtsHdr {
  MatchHdr m;
  uint64_t len;  ///< full message length in bytes
  uint64_t addr;
  uint64_t sreq;
};
static_assert(sizeof(RtsHdr) == 40);
static_assert(std::is_trivially_copyable_v<RtsHdr>);

/// FIN and CTS. `len` is the number of bytes the receiver wants (CTS); unused by FIN.
struct CtlHdr {
  HdrType type;
  uint8_t reserved[7];
  uint64_t sreq;
  uint64_t rreq;
  uint64_t len;
};
static_assert(sizeof(CtlHdr) == 32);
static_assert(std::is_trivially_copyable_v<CtlHdr>);

/// One copy-pipeline fragment: payload goes to byte `offset` of receive request `rreq`.
struct FragHdr {
  HdrType type;
  uint8_t reserved[7];
  uint64_t rreq;
  uint64_t offset;
};
static_assert(sizeof(FragHdr) == 24);
static_assert(std::is_trivially_copyable_v<FragHdr>);

/// Largest header the pml ever sends (sizes the per-peer retry queue entries).
constexpr size_t kMaxHdrLen = sizeof(RtsHdr);

/// Reads a header out of an active message. Returns false if the message is too short, which
/// only a broken backend or a corrupted peer can cause.
template <typename H>
bool read_hdr(const void* hdr, size_t hdr_len, H* out) {
  static_assert(std::is_trivially_copyable_v<H>);
  if (hdr_len < sizeof(H)) return false;
  std::memcpy(out, hdr, sizeof(H));
  return true;
}

/// True if sequence number `a` comes after `b`, with wraparound.
inline bool seq_after(uint16_t a, uint16_t b) { return static_cast<int16_t>(uint16_t(a - b)) > 0; }

}  // namespace mpr::pml
