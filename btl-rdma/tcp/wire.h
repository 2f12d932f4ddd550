// What the tcp backend puts on the wire and in the modex. Both ends are the same build on the
// same architecture (the job's ranks), so fields are in host byte order except IP addresses
// and ports, which are in network order as the socket calls want them.
#pragma once

#include <cstddef>
#include <cstdint>

namespace mpr::btl::tcp {

/// The modex entry "mpr.tcp": this rank's listening endpoints and its connection secret.
constexpr uint32_t kModexVersion = 1;
constexpr size_t kSecretBytes = 16;
constexpr size_t kHostNameBytes = 64;
constexpr int kMaxEndpoints = 8;

struct Endpoint {
  uint32_t addr_be = 0;  ///< IPv4 address, network order
  uint16_t port_be = 0;  ///< network order
  uint8_t prefix = 32;   ///< the interface's netmask length
  uint8_t pad = 0;
};

struct ModexEntry {
  uint32_t version = kModexVersion;
  uint32_t nendpoints = 0;
  uint16_t loopback_port_be = 0;  ///< listener on 127.0.0.1 for peers on this node; 0 = none
  uint16_t pad[3] = {};
  uint8_t secret[kSecretBytes] = {};  ///< a connecting peer must present this
  char host[kHostNameBytes] = {};     ///< for messages: the node that rank runs on
  Endpoint endpoints[kMaxEndpoints];
};

/// First bytes on every connection, from the side that connected.
constexpr uint32_t kHelloMagic = 0x4d505254;  // "MPRT"
constexpr uint16_t kWireVersion = 1;

struct Hello {
  uint32_t magic = kHelloMagic;
  uint16_t version = kWireVersion;
  uint16_t pad = 0;
  uint64_t job_hash = 0;              ///< of Bootstrap::job_id()
  int32_t src = -1;                   ///< the connecting rank
  int32_t dst = -1;                   ///< the rank it wants
  uint8_t secret[kSecretBytes] = {};  ///< dst's secret from the modex
};
static_assert(sizeof(Hello) == 40);

/// The answer of the side that accepted.
enum class Verdict : uint32_t {
  kAccept = 1,     ///< this socket carries the pair's traffic from now on
  kDuplicate = 2,  ///< both connected at once and the other socket wins: close this one
};

struct Reply {
  uint32_t magic = kHelloMagic;
  Verdict verdict = Verdict::kAccept;
  uint8_t secret[kSecretBytes] = {};  ///< the connecting rank's secret: the acceptor is genuine
};
static_assert(sizeof(Reply) == 24);

/// After the handshake the stream is a sequence of frames: a FrameHdr, then `len` bytes.
enum class FrameType : uint8_t {
  kAm = 1,       ///< active message: hdr_len header bytes, then payload
  kGetReq = 2,   ///< GetReq: send me bytes of your registered memory
  kGetResp = 3,  ///< GetResp, then data (a response comes in one or more frames)
  kPut = 4,      ///< PutHdr, then data to write into registered memory
  kPutAck = 5,   ///< PutAck
  kGoodbye = 6,  ///< orderly close at finalize: the end of the stream that follows is no failure
};

struct FrameHdr {
  uint32_t len = 0;  ///< bytes after this header
  FrameType type = FrameType::kAm;
  uint8_t am_id = 0;
  uint16_t hdr_len = 0;  ///< kAm: active-message header bytes at the start of the body
};
static_assert(sizeof(FrameHdr) == 8);

struct GetReq {
  uint64_t token = 0;  ///< the requester's operation, echoed in the responses
  uint64_t reg_id = 0;
  uint64_t addr = 0;
  uint64_t len = 0;
};

struct GetResp {
  uint64_t token = 0;
  uint64_t offset = 0;  ///< of this frame's data within the request
  int32_t status = 0;   ///< 0, or an errno (the request was refused: no data follows)
  uint32_t pad = 0;
};

struct PutHdr {
  uint64_t token = 0;
  uint64_t reg_id = 0;
  uint64_t addr = 0;   ///< where this frame's data goes
  uint64_t total = 0;  ///< bytes of the whole put
  uint64_t offset = 0;
};

struct PutAck {
  uint64_t token = 0;
  int32_t status = 0;
  uint32_t pad = 0;
};

}  // namespace mpr::btl::tcp
