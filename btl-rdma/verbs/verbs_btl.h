// The rdma-core verbs backend. One instance per process (tests may create several): one device
// context, protection domain, send CQ, receive CQ, shared receive queue of bounce buffers, one
// UD QP for connection setup, and one RC QP per peer actually talked to.
//
// File map: device.cc (choose device/port/GID), connect.cc (UD handshake, RC QP states, the
// loopback QP), am.cc (active messages, credits), rdma.cc (get/put), atomic.cc (64-bit device
// atomics), verbs_btl.cc (setup, progress, registration, teardown), verbs_handles.h (owning
// handles: who destroys each verbs object, in which order). See README.md for the protocols
// and their invariants.
#pragma once

#include <infiniband/verbs.h>

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <memory>
#include <optional>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "btl-rdma/btl.h"
#include "btl-rdma/rcache/rcache.h"
#include "btl-rdma/verbs/verbs_handles.h"
#include "btl-rdma/verbs/verbs_util.h"
#include "btl-rdma/verbs/wire.h"

namespace mpr::btl::verbs {

using Clock = std::chrono::steady_clock;

/// Tunables (common/params.cc), read once per instance.
struct Config {
  std::string device;            ///< MPR_VERBS_DEVICE: "name" or "name:port"; empty = auto
  bool requested = false;        ///< device named, or MPR_BTL lists verbs: failures throw
  size_t eager_limit = 8192;     ///< MPR_VERBS_EAGER_LIMIT
  size_t max_am_size = 16384;    ///< MPR_VERBS_MAX_AM_SIZE (raised to eager limit + 1 KiB)
  int credits = 32;              ///< MPR_VERBS_CREDITS: messages in flight per peer
  int sq_depth = 256;            ///< MPR_VERBS_SQ_DEPTH: send queue entries per RC QP
  int send_bufs = 256;           ///< MPR_VERBS_SEND_BUFS: registered bounce buffers for sends
  int srq_max = 16384;           ///< MPR_VERBS_SRQ_MAX: receive buffers at most (all peers)
  int max_inline = 64;           ///< MPR_VERBS_MAX_INLINE: bytes requested; device may give less
  int gid_index = -1;            ///< MPR_VERBS_GID_INDEX: -1 = RoCE v2 IPv4-mapped, else first
  size_t rdma_chunk = 8u << 20;  ///< MPR_VERBS_RDMA_CHUNK: bytes per RDMA READ/WRITE
  int timeout = 16;              ///< MPR_VERBS_TIMEOUT: RC ack timeout exponent (4.096us * 2^n)
  int retry_cnt = 7;             ///< MPR_VERBS_RETRY_CNT: retransmissions before a QP fails
  int rnr_retry = 7;             ///< MPR_VERBS_RNR_RETRY
  int min_rnr_timer = 12;        ///< MPR_VERBS_MIN_RNR_TIMER (IB encoding; 12 = 0.64 ms)
  int sl = -1;                   ///< MPR_VERBS_SL: -1 = the port's SM SL (IB), 0 (RoCE)
  int traffic_class = -1;        ///< MPR_VERBS_TRAFFIC_CLASS: -1 = the device's default
  int hop_limit = 64;            ///< MPR_VERBS_HOP_LIMIT (GRH)
  int keepalive_ms = 1000;       ///< MPR_VERBS_KEEPALIVE: idle-peer probe interval; 0 = off
  int connect_timeout_s = 600;   ///< MPR_VERBS_CONNECT_TIMEOUT
  bool rcache = true;            ///< MPR_VERBS_RCACHE
  size_t rcache_max_bytes = 256u << 20;  ///< MPR_VERBS_RCACHE_MAX_BYTES (unheld, LRU)
  std::string odp = "auto";              ///< MPR_VERBS_ODP: auto / 1 / 0
  bool fork_init = true;                 ///< MPR_VERBS_FORK_INIT
  static Config from_params();
};

/// The chosen device and port (device.cc). Owns the device context: closed with the Device.
struct Device {
  Context ctx;
  std::string name;
  uint8_t port = 1;
  ibv_device_attr attr{};
  ibv_port_attr port_attr{};
  bool roce = false;
  int gid_index = 0;
  ibv_gid gid{};
  std::string gid_type;     ///< "RoCE v2", "RoCE v1", "IB"
  bool odp_rc = false;      ///< RC on-demand paging for send/recv/read/write
  bool odp_atomic = false;  ///< ... and for atomics (needed to keep atomics with ODP MRs)
  int traffic_class = 0;    ///< the port's default GRH traffic class (sysfs tc/<port>), else 0
  std::string why;          ///< how it was chosen, or why there is none (ctx == nullptr)
};

/// Opens the device to use. ctx == nullptr (with `why`) when the node has no usable device and
/// none was named. Throws std::runtime_error naming the device when cfg.device is missing,
/// has no such port, or the port is down.
Device open_device(const Config& cfg, int rank, int local_rank);

/// The factory behind make_verbs_btl() with an explicit configuration (tests use it).
/// nullptr when no device can be used and none was asked for (verbose note says why).
std::unique_ptr<Btl> create(common::Bootstrap& bs, const Config& cfg);

/// Counters for tests, MPR_STATS and describe().
struct VerbsStats {
  uint64_t am_sent = 0, am_inline = 0, am_recv = 0;
  uint64_t retry_credits = 0, retry_sq = 0, retry_bufs = 0, retry_connect = 0;
  uint64_t credit_writes = 0, credit_piggyback = 0;
  uint64_t rdma_ops = 0, rdma_wrs = 0, rdma_bytes = 0;
  uint64_t atomics = 0, retry_atomic_slots = 0;
  uint64_t signaled = 0, unsignaled = 0;
  uint64_t connects = 0, conn_msgs_sent = 0, conn_msgs_recv = 0;
  uint64_t wc_errors = 0;
  uint64_t keepalives = 0;  ///< probes of idle peers (send_keepalives)
};

class VerbsBtl final : public Btl {
 public:
  /// Phase 1: creates PD/CQs/SRQ/UD QP and publishes "mpr.verbs". Takes ownership of dev.ctx.
  VerbsBtl(common::Bootstrap& bs, const Config& cfg, Device&& dev);
  /// Releases everything finalize() has not (see release()).
  ~VerbsBtl() override;

  const Caps& caps() const override { return caps_; }
  void wire_up(common::Bootstrap& bs) override;
  void finalize() override;
  bool reachable(int peer) const override;
  Status send_am(int peer, int am_id, const void* hdr, size_t hdr_len, const struct iovec* iov,
                 int iovcnt) override;
  void reg(void* addr, size_t len, Registration* out) override;
  void dereg(Registration* reg) override;
  Status get(int peer, void* local, const Registration* local_reg, uint64_t remote_addr,
             const RemoteKey& rkey, size_t len, Completion* c) override;
  Status put(int peer, const void* local, const Registration* local_reg, uint64_t remote_addr,
             const RemoteKey& rkey, size_t len, Completion* c) override;
  /// Device fetch-and-add / compare-and-swap (atomic.cc). `peer` may be this rank (loopback
  /// QP). `result` may be null (old value not wanted); with no usable `result_reg` the value
  /// lands in an internal registered slot first. kRetry: send queue or internal slots full.
  Status atomic(int peer, AtomicOp op, uint64_t remote_addr, const RemoteKey& rkey,
                uint64_t operand, uint64_t compare, uint64_t* result,
                const Registration* result_reg, Completion* c) override;
  int progress() override;
  std::string describe() const override;

  // For tests and diagnostics.
  const VerbsStats& stats() const { return stats_; }
  const rcache::Stats& rcache_stats() const { return res_->rcache->stats(); }
  const Config& config() const { return cfg_; }
  const Device& device() const { return dev_; }
  size_t max_inline() const { return max_inline_; }
  /// Credits this rank may still spend on `peer` right now.
  int send_credits(int peer) const;
  bool connected(int peer) const;
  bool connect(int peer) override;
  /// Receive buffers currently posted to the SRQ.
  int posted_recvs() const { return posted_recvs_; }

 private:
  enum class ConnState : uint8_t { kNone, kReqSent, kWaitPeer, kUp, kFailed };

  enum class OpKind : uint8_t { kGet, kPut, kAtomic };

  /// One in-progress get/put, split into chunks of at most rdma_chunk_ bytes, or one atomic.
  struct RdmaOp {
    OpKind kind = OpKind::kGet;
    int peer = 0;
    char* local = nullptr;
    uint32_t lkey = 0;
    uint64_t remote = 0;
    uint32_t rkey = 0;
    size_t len = 0;
    size_t posted = 0;  ///< bytes handed to the send queue so far
    Completion* c = nullptr;
    rcache::Region* tmp_reg = nullptr;  ///< registered by us (caller passed no registration)
    int status = 0;
    // Atomics: `local` is where the device writes the old value (8 bytes, lkey above).
    AtomicOp atomic_op = AtomicOp::kFetchAdd;
    uint64_t operand = 0;
    uint64_t compare = 0;
    uint64_t* result = nullptr;  ///< caller's result, filled from the slot at completion
    int32_t slot = -1;           ///< internal result slot, or -1 (caller's registered memory)
  };

  /// What to release when a send-queue entry is known complete.
  struct SendSlot {
    int32_t bounce = -1;  ///< send buffer index
    RdmaOp* op = nullptr;
    bool last_chunk = false;
    bool signaled = false;
  };

  struct Peer {
    bool reachable = false;
    VerbsAddr addr{};
    ConnState state = ConnState::kNone;
    bool initiator = false;  ///< we sent REQ (so we retransmit it)
    Qp qp;                   ///< RC QP to the peer (destroyed before the CQs: see release())
    Ah ah;                   ///< to the peer's UD QP
    uint32_t local_psn = 0;
    uint32_t remote_qpn = 0;
    uint32_t remote_psn = 0;
    int reqs_sent = 0;
    Clock::time_point next_req{}, deadline{};
    std::chrono::milliseconds backoff{0};
    // Sending to the peer: it granted `credits_granted` receive buffers.
    uint32_t credits_granted = 0;
    uint64_t sent = 0;      ///< messages sent (each takes a credit)
    uint64_t returned = 0;  ///< of those, consumed and re-posted by the peer
    // Receiving from the peer.
    uint32_t credits_given = 0;  ///< buffers reserved for it in the SRQ
    uint64_t freed = 0;          ///< its messages we consumed (buffer re-posted)
    uint64_t reported = 0;       ///< `freed` as last told to it
    bool credit_write_pending = false;
    // Send queue ring: entries [sq_tail, sq_head) are posted and not known complete.
    std::vector<SendSlot> ring;
    uint64_t sq_head = 0, sq_tail = 0;
    int unsignaled = 0;             ///< unsignaled entries since the last signaled one
    std::deque<RdmaOp*> rdma_wait;  ///< ops (or their tails) not yet on the send queue
    std::string host;               ///< its node's host name (modex "mpr.node"), for messages
  };

  // verbs_btl.cc: setup() runs the steps of phase 1 in this order.
  void setup(common::Bootstrap& bs);
  void size_queues();
  void create_queues();
  void probe_max_inline();
  void alloc_send_buffers();
  void alloc_credit_slots();
  bool setup_registration();
  void publish_address(common::Bootstrap& bs);
  void release();
  Peer& peer_at(int peer, const char* call);
  int poll_send_cq();
  int poll_recv_cq();
  void retire(int peer, uint32_t seq_low, ibv_wc_status status);
  void fail_peer(Peer& p, int peer, const std::string& why);
  std::string fail_connection(Peer& p, int peer, ibv_wc_status status);
  int service_level() const;  ///< SL of every QP: MPR_VERBS_SL, else the port's SM SL (IB), 0
  int traffic_class() const;  ///< GRH traffic class: MPR_VERBS_TRAFFIC_CLASS, else the port's
  std::string peer_name(int peer) const;
  void send_keepalives();
  bool signaled_in_flight(const Peer& p) const;
  Mr reg_internal(void* addr, size_t len, int access, const char* what);

  // connect.cc
  void setup_ud();
  void start_connect(int peer);
  void connect_loopback();
  ibv_qp* create_rc_qp(int peer);
  void qp_to_init(ibv_qp* qp, int peer);
  void qp_to_rtr_rts(Peer& p, int peer);
  ibv_ah_attr ah_attr_for(const VerbsAddr& a) const;
  void send_conn_msg(int peer, uint8_t type);
  void on_conn_msg(const ConnMsg& m);
  void become_up(Peer& p, int peer, bool send_hello);
  void drive_connects();
  void post_ud_recv(uint32_t idx);
  uint32_t grant_credits(int peer);

  // am.cc
  bool grow_recv_pool(int min_total);
  void post_srq_recv(uint32_t idx);
  char* recv_buf(uint32_t idx);
  void on_am(const ibv_wc& wc);
  void apply_credit_ack(Peer& p, uint32_t ack);
  void refresh_credits(Peer& p, int peer);
  bool return_credits(int peer);
  void post_credit_write(int peer, uint64_t count, bool signaled);
  void flush_credit_returns();
  bool sq_room(const Peer& p, int n, bool signaled) const;
  bool want_signal(const Peer& p) const;
  uint64_t post_rc(int peer, ibv_send_wr& wr, const SendSlot& slot);
  Status post_am(int peer, uint8_t am_id, uint8_t flags, const void* hdr, size_t hdr_len,
                 const struct iovec* iov, int iovcnt, size_t payload_len);

  // rdma.cc
  Status start_rdma(int peer, bool is_get, char* local, const Registration* local_reg,
                    uint64_t remote_addr, const RemoteKey& rkey, size_t len, Completion* c);
  Status submit_op(Peer& p, RdmaOp* op, const char* call);
  bool post_rdma(Peer& p, RdmaOp* op);
  void drive_rdma_waiters();
  void finish_op(RdmaOp* op);
  void discard_op(RdmaOp* op);

  // atomic.cc
  bool post_atomic(Peer& p, RdmaOp* op);
  void setup_atomic_slots();

  Config cfg_;
  Device dev_;
  Caps caps_;
  int rank_ = -1;
  int size_ = 0;
  uint64_t job_tag_ = 0;
  bool finalized_ = false;
  bool in_progress_ = false;
  uint32_t progress_calls_ = 0;  ///< progress() calls since the clock was last read
  Clock::time_point next_keepalive_{};

  size_t max_inline_ = 0;
  size_t rdma_chunk_ = 0;
  int sq_depth_ = 0;
  int signal_interval_ = 16;
  int signaled_budget_ = 0;  ///< signaled sends the send CQ can hold
  int signaled_outstanding_ = 0;
  int max_rd_atomic_ = 1;
  int max_dest_rd_atomic_ = 1;
  int qp_access_ = 0;        ///< what peers may do through our RC QPs (IBV_ACCESS_REMOTE_*)
  VerbsAddr self_addr_{};    ///< our own modex entry: the loopback QP's destination
  std::string atomics_why_;  ///< describe(): atomics on/off and why

  // Receive buffers: chunks of kRecvChunk buffers of stride_ bytes (Resources::recv_chunks).
  size_t stride_ = 0;
  int srq_max_ = 0;
  int posted_recvs_ = 0;
  int credits_reserved_ = 0;  ///< sum of credits_given over peers

  std::vector<int32_t> send_free_;      ///< free send bounce buffers (Resources::send)
  std::vector<uint32_t> ud_send_free_;  ///< free UD send slots (Resources::ud)
  std::vector<int32_t> atomic_free_;    ///< free atomic result slots (Resources::atomic_slots)

  /// The verbs objects and registered buffers of this instance, but for the device context
  /// (dev_.ctx, closed after them) and each peer's RC QP and AH (in peers_, destroyed before
  /// them). Members are destroyed in the reverse of their declaration: the UD QP, the SRQ and
  /// CQs (no QP uses them any more), the cache with its MRs, the internal MRs (each before
  /// its memory is freed), the PD. release() ends them all at once with res_.reset().
  struct Resources {
    Pd pd;
    // Atomic result slots for callers without a registered result buffer: one registered
    // page, allocated on the first atomic.
    RegisteredMem<uint64_t> atomic_slots;
    // Credit slots: peers write into credit_in[their rank]; credit_out is the source when the
    // device cannot send 16 bytes inline.
    RegisteredMem<CreditSlot> credit_out;
    RegisteredMem<CreditSlot> credit_in;
    // Connection-manager UD QP buffers: [recv slots][send slots], kUdSlot bytes each.
    RegisteredMem<char> ud;
    RegisteredMem<char> send;                      ///< send bounce buffers, stride_ bytes each
    std::vector<RegisteredMem<char>> recv_chunks;  ///< kRecvChunk receive buffers each
    std::unique_ptr<rcache::Registrar> registrar;  ///< outlives the cache that calls it
    std::unique_ptr<rcache::Rcache> rcache;
    Cq recv_cq;
    Cq send_cq;
    Srq srq;
    Qp ud_qp;
  };
  std::optional<Resources> res_;

  std::vector<Peer> peers_;
  std::unordered_map<uint32_t, int> qpn_peer_;  ///< local RC QP number -> peer
  std::vector<int> connecting_;                 ///< peers with a handshake in progress
  std::vector<int> rdma_waiters_;               ///< peers with queued RDMA ops
  std::vector<int> credit_due_;                 ///< peers owed a credit write
  std::unordered_set<RdmaOp*> ops_;             ///< every get/put not yet completed

  std::string validation_;  ///< how cached entries are proven current

  VerbsStats stats_;
};

}  // namespace mpr::btl::verbs
