// The tcp backend: active messages over one authenticated TCP connection per peer pair, and
// get/put emulated with messages that the peer's progress() serves (so data moves between
// ranks on different nodes without RDMA). Connections are made lazily, on the first message
// to a peer; when both ends connect at once, the connection made by the lower rank wins on
// both sides, and nothing is sent on a connection before its handshake is done, so no message
// is lost or duplicated. Large get responses and puts go out in fragments (MPR_TCP_FRAG)
// between which queued active messages go first, so one big transfer never starves small
// messages. Incoming data of a get or put is received straight into its destination.
//
// Thread safety: as btl.h, one thread at a time.
#pragma once

#include <sys/epoll.h>

#include <cstdint>
#include <deque>
#include <map>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "btl-rdma/btl.h"
#include "btl-rdma/tcp/ifaces.h"
#include "btl-rdma/tcp/wire.h"
#include "common/bootstrap.h"

namespace mpr::btl::tcp {

struct Config {
  std::vector<IfPattern> include, exclude;
  size_t eager_limit = 32768;
  size_t max_am_size = 65536 + 256;
  size_t frag = 256 << 10;            ///< bytes per get-response / put frame
  size_t max_queued = 8 << 20;        ///< queued active-message bytes per peer before kRetry
  int sndbuf = 0, rcvbuf = 0;         ///< 0: the kernel's autotuning
  int handshake_timeout_ms = 10000;   ///< an accepted connection must say who it is by then
  bool explicitly_requested = false;  ///< MPR_BTL names tcp
  bool shm_allowed = true;            ///< MPR_BTL is empty or names shm
  static Config from_params();
};

/// What a Hello carries to tell one job's connections from another's.
uint64_t job_hash(const std::string& job_id);

class TcpBtl final : public Btl {
 public:
  /// Phase 1: opens the listeners and puts this rank's endpoints and secret into the modex.
  /// `other_jobs_only`: loaded after setup to reach processes of other jobs only; then it
  /// always listens on loopback too (for those on this host) and puts nothing.
  TcpBtl(common::Bootstrap& bs, const Config& cfg, const std::vector<IfAddr>& addrs,
         bool other_jobs_only = false);
  ~TcpBtl() override;

  const Caps& caps() const override { return caps_; }
  void wire_up(common::Bootstrap& bs) override;
  void finalize() override;
  bool reachable(int peer) const override;
  std::string why_unreachable(int peer) const override;
  void add_peers(common::Bootstrap& bs, int first) override;
  void contact(std::map<std::string, std::vector<uint8_t>>* entries) const override;
  Status send_am(int peer, int am_id, const void* hdr, size_t hdr_len, const struct iovec* iov,
                 int iovcnt) override;
  void reg(void* addr, size_t len, Registration* out) override;
  void dereg(Registration* reg) override;
  Status get(int peer, void* local, const Registration* local_reg, uint64_t remote_addr,
             const RemoteKey& rkey, size_t len, Completion* c) override;
  Status put(int peer, const void* local, const Registration* local_reg, uint64_t remote_addr,
             const RemoteKey& rkey, size_t len, Completion* c) override;
  int progress() override;
  bool flushed() const override;
  std::string describe() const override;
  std::string stats_text() const override;

  /// For tests: the port of this rank's first listener (loopback if that is the only one).
  uint16_t listen_port() const;

 private:
  enum class ConnState { kConnecting, kHelloSent, kAwaitHello, kUp, kDead };

  struct Pollable {
    bool listener = false;
  };
  struct Listener : Pollable {
    int fd = -1;
    uint32_t addr = 0;  ///< host order
    uint16_t port = 0;
  };
  struct OutFrame {
    std::vector<uint8_t> head;      ///< frame header and fixed part; an AM's payload copied too
    const uint8_t* data = nullptr;  ///< payload sent from the caller's memory (not owned)
    size_t data_len = 0;
    size_t sent = 0;  ///< bytes of head then data already written
    size_t size() const { return head.size() + data_len; }
  };
  struct Conn : Pollable {
    int fd = -1;
    int peer = -1;  ///< -1 until an accepted connection said who it is
    ConnState state = ConnState::kConnecting;
    std::string remote;  ///< "10.1.2.3:4567", for messages
    int64_t deadline_ms = 0;
    bool want_out = false;  ///< EPOLLOUT is armed
    bool listed_ready = false;
    // Input: a buffer of bytes not yet parsed, and a direct-read target for get/put data.
    std::vector<uint8_t> in;
    size_t in_head = 0, in_tail = 0;
    uint8_t* direct = nullptr;
    size_t direct_left = 0;
    uint64_t direct_token = 0;  ///< the get (or put) that direct reading belongs to
    bool direct_is_put = false;
    size_t direct_len = 0;  ///< bytes of this frame's data
  };
  struct GetOp {
    uint8_t* local = nullptr;
    size_t len = 0;
    size_t received = 0;
    Completion* c = nullptr;
    int peer = -1;
  };
  struct PutOp {
    Completion* c = nullptr;
    int peer = -1;
  };
  struct PeerState {
    /// Who it is: its job (job_hash of its job id) and its rank there; for the job's own
    /// ranks this job's hash and the peer number.
    uint64_t job_hash = 0;
    int job_rank = -1;
    std::string job_id;  ///< of a process of another job, for messages
    ModexEntry info;
    bool have_info = false;
    bool local = false;  ///< on this node: reached through the loopback listeners
    bool reachable = false;
    std::string why_not;    ///< when !reachable
    uint32_t dst_addr = 0;  ///< host order
    uint16_t dst_port = 0;
    uint32_t src_addr = 0;  ///< local address to connect from (0: any)
    Conn* up = nullptr;
    Conn* connecting = nullptr;
    std::deque<OutFrame> ctl;   ///< active messages and requests, in order
    std::deque<OutFrame> bulk;  ///< get-response and put fragments
    size_t ctl_bytes = 0;
    bool goodbye_seen = false;
    bool lost = false;
  };
  struct Stats {
    uint64_t am_sent = 0, am_recv = 0, bytes_sent = 0, bytes_recv = 0;
    uint64_t connects = 0, accepts = 0, duplicates = 0, rejected = 0;
    uint64_t gets_served = 0, puts_served = 0;
  };

  // setup (tcp_setup.cc)
  void open_listener(uint32_t addr);
  void choose_route(int peer, PeerState& p);
  /// Reads `peer`'s entry from the bootstrap into p (false, with p.why_not, when unusable).
  bool read_entry(common::Bootstrap& bs, int peer, PeerState& p);
  std::string node_of(int peer) const;
  /// "rank 3", or "rank 3 of job <id>" for a process of another job, for messages.
  std::string who(int peer) const;
  /// Whose connection wins when both ends connect at once: the lower (job hash, rank).
  bool wins_over(const PeerState& p) const {
    return job_hash_ != p.job_hash ? job_hash_ < p.job_hash : rank_ < p.job_rank;
  }

  // connections (tcp_conn.cc)
  void start_connect(int peer);
  void on_connect_ready(Conn* c);
  void on_handshake_input(Conn* c);
  void accept_all(Listener* l);
  void check_hello(Conn* c);
  void reject(Conn* c, const std::string& why);
  void become_up(Conn* c, int peer);
  void close_conn(Conn* c);
  void lose_peer(int peer, const std::string& why);
  void watch(Conn* c, uint32_t events, bool add);
  void expire_handshakes();
  int64_t now_ms() const;

  // data path (tcp_data.cc)
  PeerState& peer_for_send(int peer);
  void enqueue(int peer, PeerState& p, OutFrame&& f, bool bulk);
  void flush(int peer, PeerState& p);
  int on_readable(Conn* c);
  bool parse_frames(Conn* c, int* events);
  bool handle_frame(Conn* c, const FrameHdr& fh, const uint8_t* body);
  void serve_get(int peer, const GetReq& rq);
  void finish_direct(Conn* c);
  bool check_range(uint64_t reg_id, uint64_t addr, uint64_t len) const;
  void queue_data(int peer, PeerState& p, FrameType type, const void* fixed, size_t fixed_len,
                  const uint8_t* data, size_t len);
  /// Queue a frame of `type` whose body is `body_len` bytes at `body` (a control message).
  void queue_ctl(int peer, FrameType type, const void* body, size_t body_len);

  common::Bootstrap& bs_;
  Config cfg_;
  Caps caps_;
  int rank_;
  int size_;
  uint64_t job_hash_ = 0;
  ModexEntry me_;
  int epfd_ = -1;
  std::vector<std::unique_ptr<Listener>> listeners_;
  std::vector<IfAddr> addrs_;
  std::vector<PeerState> peers_;
  /// Processes of other jobs: (job hash, rank there) -> peer.
  std::map<std::pair<uint64_t, int>, int> remote_;
  std::vector<std::unique_ptr<Conn>> conns_;  ///< every live connection
  std::vector<Conn*> ready_;  ///< connections with parsed-but-undelivered input (after a yield)
  std::vector<std::unique_ptr<Conn>> graveyard_;  ///< closed during this progress()
  std::unordered_map<uint64_t, GetOp> gets_;
  std::unordered_map<uint64_t, PutOp> puts_;
  struct RegEntry {
    uintptr_t addr = 0;
    size_t len = 0;
  };
  std::unordered_map<uint64_t, RegEntry> regs_;
  uint64_t next_reg_ = 1;
  uint64_t next_token_ = 1;
  std::vector<Completion*> done_;  ///< completions to call before progress() returns
  std::vector<int> done_status_;
  Stats stats_;
  bool finalizing_ = false;
  bool logged_reject_ = false;
  unsigned poll_count_ = 0;
  int handshaking_ = 0;  ///< accepted connections that have not said who they are
};

}  // namespace mpr::btl::tcp
