// What the verbs backend puts on the wire and in the modex. Plain trivially copyable structs
// with asserted sizes: both ends run the same build, but the layout must not depend on padding.
#pragma once

#include <cstddef>
#include <cstdint>
#include <type_traits>

namespace mpr::btl::verbs {

/// Modex entry ("mpr.verbs"): how to reach this rank's connection-manager UD QP and where its
/// per-peer credit slots live. Per-connection data (RC QP number, PSN, credits) goes over UD on
/// first use; see connect.cc.
struct VerbsAddr {
  uint32_t magic;   ///< kAddrMagic; also versions the layout
  uint32_t ud_qpn;  ///< connection-manager UD QP
  uint8_t gid[16];  ///< port GID (RoCE: the chosen GID index; IB: for GRH routing)
  uint16_t lid;     ///< IB: port LID (0 on RoCE)
  uint8_t port;
  uint8_t mtu;         ///< enum ibv_mtu of the port (active)
  uint8_t link_layer;  ///< IBV_LINK_LAYER_*
  uint8_t gid_index;   ///< informational (the sender uses its own index)
  uint16_t reserved = 0;
  uint32_t credit_rkey;    ///< rkey of the credit slot array
  uint64_t credit_base;    ///< address of the credit slot array (one CreditSlot per job rank)
  uint64_t subnet_prefix;  ///< IB: peers on another subnet need a GRH
};
static_assert(sizeof(VerbsAddr) == 56);
static_assert(std::is_trivially_copyable_v<VerbsAddr>);
constexpr uint32_t kAddrMagic = 0x4d505276;  // "MPRv"

/// Connection-manager datagram (UD). REQ: "here is my RC QP for you, connect to it"; REP: "my
/// RC QP for you is ready to receive (RTR), here it is".
struct ConnMsg {
  uint32_t magic;
  uint8_t type;  ///< kConnReq / kConnRep
  uint8_t reserved0 = 0;
  uint16_t reserved1 = 0;
  uint32_t src_rank;
  uint32_t dst_rank;
  uint32_t qpn;      ///< sender's RC QP for this pair
  uint32_t psn;      ///< first PSN the sender will send with
  uint32_t credits;  ///< messages the receiver of this datagram may send before a return
  uint32_t reserved2 = 0;
  uint64_t job_tag;  ///< hash of the job id: ignore stray datagrams from other jobs
};
static_assert(sizeof(ConnMsg) == 40);
static_assert(std::is_trivially_copyable_v<ConnMsg>);
constexpr uint32_t kConnMagic = 0x4d50526b;  // "MPRk"
constexpr uint8_t kConnReq = 1;
constexpr uint8_t kConnRep = 2;
/// UD receive buffers start with room for the 40-byte GRH the HCA writes there.
constexpr size_t kGrhBytes = 40;

/// Prefix of every active message on an RC QP.
struct AmWireHdr {
  uint8_t am_id;
  uint8_t flags;        ///< kAmInternal: backend message, not dispatched
  uint16_t hdr_len;     ///< user header bytes that follow; the payload follows them
  uint32_t credit_ack;  ///< low 32 bits of the count of the receiver's messages we consumed
};
static_assert(sizeof(AmWireHdr) == 8);
static_assert(std::is_trivially_copyable_v<AmWireHdr>);
constexpr uint8_t kAmInternal = 1;

/// Credit return written by the receiver with RDMA WRITE into the sender's memory: the
/// cumulative count of the sender's messages the receiver has consumed and re-posted. It needs
/// no receive buffer, so credit returns can never deadlock on credits. `check` is ~count: a
/// software device (rxe) copies the 16 bytes with a plain memcpy, and a read that catches the
/// copy half done fails the check (the reader also accepts only counts it could have sent).
struct alignas(16) CreditSlot {
  uint64_t count;
  uint64_t check;
};
static_assert(sizeof(CreditSlot) == 16);

}  // namespace mpr::btl::verbs
