// Fixed sizes of the verbs backend (the tunable ones are in Config).
#pragma once

#include <cstddef>
#include <cstdint>

namespace mpr::btl::verbs {

constexpr int kPollBatch = 32;          ///< completions taken per ibv_poll_cq
constexpr int kSendCqEntries = 4096;    ///< send CQ size (signaled completions only)
constexpr int kMaxSignalInterval = 16;  ///< at most this many unsignaled sends in a row
constexpr int kMaxRdAtomic = 16;        ///< RDMA READs/atomics in flight per QP, each direction
constexpr int kAtomicSlots = 512;       ///< internal atomic result slots (one 4 KiB page)
constexpr int kRecvChunk = 64;          ///< receive buffers allocated (and registered) at once
constexpr int kUdRecvSlots = 64;        ///< connection datagrams we can hold unprocessed
constexpr int kUdSendSlots = 16;
constexpr size_t kUdSlot = 128;         ///< GRH (40) + ConnMsg (40), rounded up
constexpr uint32_t kQkey = 0x4d505251;  ///< Q_Key of the connection-manager UD QPs
constexpr int kFirstRetryMs = 50;       ///< first REQ retransmission; doubles up to kMaxRetryMs
constexpr int kMaxRetryMs = 1000;

}  // namespace mpr::btl::verbs
