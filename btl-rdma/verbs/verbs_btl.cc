// Setup, progress, memory registration and teardown of the verbs backend; the factory.
#include "btl-rdma/verbs/verbs_btl.h"

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <sstream>
#include <stdexcept>
#include <system_error>

#include "btl-rdma/verbs/verbs_consts.h"
#include "common/log.h"
#include "common/params.h"
#include "mpr_config.h"

namespace mpr::btl {

namespace verbs {

namespace {

bool lists_verbs(const std::string& btl_list) {
  std::stringstream in(btl_list);
  std::string item;
  while (std::getline(in, item, ','))
    if (item == "verbs") return true;
  return false;
}

// Registrations handed out by reg(): every access a peer's get/put or our own transfers need.
class MrRegistrar final : public rcache::Registrar {
 public:
  MrRegistrar(ibv_pd* pd, int access) : pd_(pd), access_(access) {}
  void* reg(void* start, size_t len, int* err) override {
    errno = 0;
    Mr mr = adopt(ibv_reg_mr(pd_, start, len, access_));
    if (!mr) {
      *err = errno ? errno : ENOMEM;
      return nullptr;
    }
    return mr.release();  // the cache holds it until deregister()
  }
  void deregister(void* handle) override { VerbsDeleter{}(static_cast<ibv_mr*>(handle)); }

 private:
  ibv_pd* pd_;
  int access_;
};

// Fork: what ibv_is_fork_initialized() reports decides. UNNEEDED: the kernel (5.13+) copies
// pinned pages for the child, nothing to do. ENABLED: someone already called ibv_fork_init().
// DISABLED: call ibv_fork_init() ourselves, but only while no registration exists in this
// process (it cannot protect earlier ones, and rdma-core refuses it late).
std::string fork_policy(const Config& cfg) {
#if HAVE_DECL_IBV_IS_FORK_INITIALIZED
  switch (ibv_is_fork_initialized()) {
    case IBV_FORK_UNNEEDED:
      return "fork-safe (kernel copies pinned pages)";
    case IBV_FORK_ENABLED:
      return "ibv_fork_init active (registered pages not inherited)";
    case IBV_FORK_DISABLED:
      break;
  }
#else
  static bool called = false;
  if (called) return "ibv_fork_init active (registered pages not inherited)";
#endif
  if (!cfg.fork_init) return "fork unsafe while memory is registered (MPR_VERBS_FORK_INIT=0)";
  LiveCounts live = live_counts();
  if (live.mrs > 0 || live.contexts > 0)
    return "fork unsafe: registrations existed before ibv_fork_init() could be called";
  if (int rc = ibv_fork_init())
    return std::string("fork unsafe: ibv_fork_init() failed: ") + std::strerror(rc);
#if !HAVE_DECL_IBV_IS_FORK_INITIALIZED
  called = true;
#endif
  return "ibv_fork_init() called (registered pages not inherited by children)";
}

std::string g_fork_note;

std::string format_bytes(size_t n) {
  if (n >= (1u << 20) && n % (1u << 20) == 0) return std::to_string(n >> 20) + " MiB";
  if (n >= 1024 && n % 1024 == 0) return std::to_string(n >> 10) + " KiB";
  return std::to_string(n) + " B";
}

}  // namespace

Config Config::from_params() {
  using common::param_int;
  Config c;
  c.device = common::param_string("MPR_VERBS_DEVICE");
  c.requested = !c.device.empty() || lists_verbs(common::param_string("MPR_BTL"));
  c.eager_limit = static_cast<size_t>(param_int("MPR_VERBS_EAGER_LIMIT"));
  c.max_am_size =
      std::max(static_cast<size_t>(param_int("MPR_VERBS_MAX_AM_SIZE")), c.eager_limit + 1024);
  c.credits = static_cast<int>(std::clamp<int64_t>(param_int("MPR_VERBS_CREDITS"), 2, 4096));
  c.sq_depth = static_cast<int>(std::clamp<int64_t>(param_int("MPR_VERBS_SQ_DEPTH"), 16, 32768));
  c.send_bufs = static_cast<int>(std::clamp<int64_t>(param_int("MPR_VERBS_SEND_BUFS"), 4, 65536));
  c.srq_max = static_cast<int>(std::clamp<int64_t>(param_int("MPR_VERBS_SRQ_MAX"), 64, 1 << 22));
  c.max_inline = static_cast<int>(std::min<int64_t>(param_int("MPR_VERBS_MAX_INLINE"), 4096));
  std::string gid = common::param_string("MPR_VERBS_GID_INDEX");
  c.gid_index = gid.empty() ? -1 : static_cast<int>(param_int("MPR_VERBS_GID_INDEX"));
  c.rdma_chunk = std::max<size_t>(static_cast<size_t>(param_int("MPR_VERBS_RDMA_CHUNK")), 4096);
  c.timeout = static_cast<int>(std::clamp<int64_t>(param_int("MPR_VERBS_TIMEOUT"), 1, 31));
  c.retry_cnt = static_cast<int>(std::clamp<int64_t>(param_int("MPR_VERBS_RETRY_CNT"), 0, 7));
  c.rnr_retry = static_cast<int>(std::clamp<int64_t>(param_int("MPR_VERBS_RNR_RETRY"), 0, 7));
  c.min_rnr_timer =
      static_cast<int>(std::clamp<int64_t>(param_int("MPR_VERBS_MIN_RNR_TIMER"), 0, 31));
  if (!common::param_string("MPR_VERBS_SL").empty())
    c.sl = static_cast<int>(std::clamp<int64_t>(param_int("MPR_VERBS_SL"), 0, 15));
  if (!common::param_string("MPR_VERBS_TRAFFIC_CLASS").empty())
    c.traffic_class =
        static_cast<int>(std::clamp<int64_t>(param_int("MPR_VERBS_TRAFFIC_CLASS"), 0, 255));
  c.hop_limit = static_cast<int>(std::clamp<int64_t>(param_int("MPR_VERBS_HOP_LIMIT"), 1, 255));
  c.keepalive_ms = static_cast<int>(std::max<int64_t>(param_int("MPR_VERBS_KEEPALIVE"), 0));
  c.connect_timeout_s =
      static_cast<int>(std::max<int64_t>(param_int("MPR_VERBS_CONNECT_TIMEOUT"), 1));
  c.rcache = common::param_bool("MPR_VERBS_RCACHE");
  c.rcache_max_bytes = static_cast<size_t>(param_int("MPR_VERBS_RCACHE_MAX_BYTES"));
  c.odp = common::param_string("MPR_VERBS_ODP");
  c.fork_init = common::param_bool("MPR_VERBS_FORK_INIT");
  return c;
}

VerbsBtl::VerbsBtl(common::Bootstrap& bs, const Config& cfg, Device&& dev)
    : cfg_(cfg), dev_(std::move(dev)) {
  rank_ = bs.rank();
  size_ = bs.size();
  job_tag_ = std::hash<std::string>{}(bs.job_id());
  res_.emplace();
  try {
    setup(bs);
  } catch (...) {
    release();
    throw;
  }
}

VerbsBtl::~VerbsBtl() { release(); }

Mr VerbsBtl::reg_internal(void* addr, size_t len, int access, const char* what) {
  Mr mr = adopt(ibv_reg_mr(res_->pd.get(), addr, len, access));
  if (!mr) throw_verbs_error(rank_, "ibv_reg_mr", what, errno);
  return mr;
}

// Phase 1 of setup, step by step in the order setup() (below) runs them. The device itself
// was chosen and opened by the factory (open_device() in device.cc).

// Queue depths and per-QP limits: what the configuration asks, clamped to the device.
void VerbsBtl::size_queues() {
  const ibv_device_attr& a = dev_.attr;
  sq_depth_ = std::min(cfg_.sq_depth, a.max_qp_wr);
  signal_interval_ = std::clamp(sq_depth_ / 8, 1, kMaxSignalInterval);
  max_rd_atomic_ = std::clamp(a.max_qp_init_rd_atom, 1, kMaxRdAtomic);
  max_dest_rd_atomic_ = std::clamp(a.max_qp_rd_atom, 1, kMaxRdAtomic);
  rdma_chunk_ = std::min<size_t>(cfg_.rdma_chunk, dev_.port_attr.max_msg_sz);
  srq_max_ = std::min({cfg_.srq_max, a.max_srq_wr, a.max_cqe - kUdRecvSlots});
  stride_ = (sizeof(AmWireHdr) + cfg_.max_am_size + 63) & ~size_t{63};
}

// The PD, the send and receive CQs and the SRQ every RC QP shares.
void VerbsBtl::create_queues() {
  Resources& r = *res_;
  r.pd = adopt(ibv_alloc_pd(dev_.ctx.get()));
  if (!r.pd) throw_verbs_error(rank_, "ibv_alloc_pd", dev_.name, errno);

  // The send CQ only receives signaled completions; signaled_budget_ keeps them within it.
  int send_cqe = std::min(dev_.attr.max_cqe, kSendCqEntries);
  r.send_cq = adopt(ibv_create_cq(dev_.ctx.get(), send_cqe, nullptr, nullptr, 0));
  if (!r.send_cq) throw_verbs_error(rank_, "ibv_create_cq", "send CQ", errno);
  signaled_budget_ = send_cqe - kUdSendSlots;

  r.recv_cq = adopt(ibv_create_cq(dev_.ctx.get(), srq_max_ + kUdRecvSlots, nullptr, nullptr, 0));
  if (!r.recv_cq) throw_verbs_error(rank_, "ibv_create_cq", "receive CQ", errno);
  ibv_srq_init_attr sia{};
  sia.attr.max_wr = static_cast<uint32_t>(srq_max_);
  sia.attr.max_sge = 1;
  r.srq = adopt(ibv_create_srq(r.pd.get(), &sia));
  if (!r.srq)
    throw_verbs_error(rank_, "ibv_create_srq", std::to_string(srq_max_) + " entries", errno);
}

// The device says how much inline data a QP may carry only when one is created: ask for
// the configured amount and halve until the device accepts.
void VerbsBtl::probe_max_inline() {
  for (int want = std::max(cfg_.max_inline, 0);; want /= 2) {
    ibv_qp_init_attr qia{};
    qia.qp_type = IBV_QPT_RC;
    qia.send_cq = res_->send_cq.get();
    qia.recv_cq = res_->recv_cq.get();
    qia.srq = res_->srq.get();
    qia.cap.max_send_wr = static_cast<uint32_t>(sq_depth_);
    qia.cap.max_send_sge = 1;
    qia.cap.max_inline_data = static_cast<uint32_t>(want);
    if (Qp probe = adopt(ibv_create_qp(res_->pd.get(), &qia))) {
      max_inline_ = std::min<size_t>(qia.cap.max_inline_data, static_cast<size_t>(want));
      break;  // the probe QP is destroyed here
    }
    if (want == 0) throw_verbs_error(rank_, "ibv_create_qp", "RC probe", errno);
  }
}

void VerbsBtl::alloc_send_buffers() {
  RegisteredMem<char>& send = res_->send;
  const size_t send_bytes = static_cast<size_t>(cfg_.send_bufs) * stride_;
  send.mem = alloc_pages<char>(send_bytes, false);
  if (!send.mem) throw_out_of_memory(rank_, "send buffers");
  send.mr = reg_internal(send.mem.get(), send_bytes, IBV_ACCESS_LOCAL_WRITE, "send buffers");
  for (int i = cfg_.send_bufs - 1; i >= 0; --i) send_free_.push_back(i);
}

// One slot per job rank for the credit writes of peers, and (when the device cannot send the
// 16 bytes inline) one registered source per peer for ours.
void VerbsBtl::alloc_credit_slots() {
  const size_t bytes = static_cast<size_t>(size_) * sizeof(CreditSlot);
  RegisteredMem<CreditSlot>& in = res_->credit_in;
  in.mem = alloc_pages<CreditSlot>(bytes, true);
  if (!in.mem) throw_out_of_memory(rank_, "credit slots");
  in.mr = reg_internal(in.mem.get(), bytes, IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE,
                       "credit slots");
  if (max_inline_ < sizeof(CreditSlot)) {
    RegisteredMem<CreditSlot>& out = res_->credit_out;
    out.mem = alloc_pages<CreditSlot>(bytes, true);
    if (!out.mem) throw_out_of_memory(rank_, "credit slots");
    out.mr = reg_internal(out.mem.get(), bytes, IBV_ACCESS_LOCAL_WRITE, "credit sources");
  }
}

// User registrations: which proof makes a cache hit safe (README "Registration cache"), and
// whether peers may apply atomics to them (README "Atomics"). Automatic ODP is chosen only
// if it keeps atomics working; ODP forced by MPR_VERBS_ODP=1 wins over atomics. Makes the
// registration cache; returns whether atomics are on.
bool VerbsBtl::setup_registration() {
  const bool frames = rcache::PagemapFrames::instance().frames_visible();
  const bool dev_atomics = dev_.attr.atomic_cap != IBV_ATOMIC_NONE;
  const bool odp_ok_for_atomics = !dev_atomics || dev_.odp_atomic;
  bool odp = false;
  bool odp_skipped = false;  // auto mode would have used ODP, but it cannot do atomics here
  if (cfg_.odp == "1") {
    odp = dev_.odp_rc;
  } else if (cfg_.odp != "0") {
    odp = dev_.odp_rc && !frames && odp_ok_for_atomics;
    odp_skipped = dev_.odp_rc && !frames && !odp_ok_for_atomics;
  }
  const bool atomics = dev_atomics && (!odp || dev_.odp_atomic);
  if (!dev_atomics)
    atomics_why_ = "atomics off (the device reports IBV_ATOMIC_NONE)";
  else if (!atomics)
    atomics_why_ =
        "atomics off (MPR_VERBS_ODP=1 asks for on-demand paging, whose MRs cannot take atomics "
        "on this device)";
  else
    atomics_why_ = dev_.attr.atomic_cap == IBV_ATOMIC_GLOB
                       ? "atomics 64-bit (GLOB: also atomic with respect to the CPU)"
                       : "atomics 64-bit (HCA: atomic only among device operations)";
  qp_access_ = IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ |
               (atomics ? IBV_ACCESS_REMOTE_ATOMIC : 0);
  int access = qp_access_;
  rcache::Options ro;
  ro.enabled = cfg_.rcache;
  ro.max_unused_bytes = cfg_.rcache_max_bytes;
  if (odp) {
    access |= IBV_ACCESS_ON_DEMAND;
    ro.validation = rcache::Validation::kNone;
    validation_ = "on-demand paging";
  } else if (frames) {
    ro.validation = rcache::Validation::kPageFrames;
    validation_ = "page frames checked per hit";
  } else {
    ro.validation = rcache::Validation::kInUseOnly;
    validation_ = odp_skipped ? "reuse only while held (page frames unreadable without "
                                "CAP_SYS_ADMIN; ODP not used: it cannot do atomics here)"
                              : "reuse only while held (page frames unreadable without "
                                "CAP_SYS_ADMIN)";
  }
  if (!cfg_.rcache) validation_ = "off";
  res_->registrar = std::make_unique<MrRegistrar>(res_->pd.get(), access);
  res_->rcache =
      std::make_unique<rcache::Rcache>(*res_->registrar, ro, &rcache::PagemapFrames::instance());
  return atomics;
}

void VerbsBtl::setup(common::Bootstrap& bs) {
  size_queues();
  create_queues();
  probe_max_inline();
  alloc_send_buffers();
  alloc_credit_slots();
  setup_ud();  // connect.cc: the UD QP of the connection handshake
  const bool atomics = setup_registration();

  const size_t slots = static_cast<size_t>(size_);
  peers_.resize(slots);
  caps_.name = "verbs";
  caps_.rank = 20;
  caps_.rkey_size = sizeof(uint64_t);  // the MR's rkey in words[0]
  caps_.max_am_size = cfg_.max_am_size;
  caps_.eager_limit = std::min(cfg_.eager_limit, cfg_.max_am_size);
  caps_.native_get = true;
  caps_.native_put = true;
  caps_.needs_registration = true;
  caps_.native_atomics = atomics;
  publish_address(bs);
}

// The modex entry "mpr.verbs": how peers reach our UD QP and our credit slots.
void VerbsBtl::publish_address(common::Bootstrap& bs) {
  VerbsAddr addr{};
  addr.magic = kAddrMagic;
  addr.ud_qpn = res_->ud_qp->qp_num;
  std::memcpy(addr.gid, dev_.gid.raw, sizeof addr.gid);
  addr.lid = dev_.port_attr.lid;
  addr.port = dev_.port;
  addr.mtu = static_cast<uint8_t>(dev_.port_attr.active_mtu);
  addr.link_layer = dev_.port_attr.link_layer;
  addr.gid_index = static_cast<uint8_t>(dev_.gid_index);
  addr.credit_rkey = res_->credit_in.mr->rkey;
  addr.credit_base = reinterpret_cast<uint64_t>(res_->credit_in.mem.get());
  addr.subnet_prefix = dev_.gid.global.subnet_prefix;
  self_addr_ = addr;
  std::vector<uint8_t> blob(sizeof addr);
  std::memcpy(blob.data(), &addr, sizeof addr);
  bs.put("mpr.verbs", blob);
}

void VerbsBtl::wire_up(common::Bootstrap& bs) {
  // One modex read per rank: pml's backend selection asks reachable() for every peer anyway.
  // The expensive part, an RC QP and its receive buffers, waits until a peer is used.
  std::vector<uint8_t> blob;
  for (int r = 0; r < size_; ++r) {
    Peer& p = peers_[static_cast<size_t>(r)];
    if (!bs.get(r, "mpr.verbs", &blob) || blob.size() != sizeof(VerbsAddr)) continue;
    std::memcpy(&p.addr, blob.data(), sizeof p.addr);
    p.reachable = p.addr.magic == kAddrMagic && p.addr.link_layer == dev_.port_attr.link_layer;
    if (!p.reachable)
      common::log_verbose("verbs: peer %d is on another kind of link; not reachable by verbs", r);
    else if (r != rank_ && bs.get(r, "mpr.node", &blob))
      p.host.assign(blob.begin(), blob.end());
  }
}

bool VerbsBtl::reachable(int peer) const {
  return peer >= 0 && peer < size_ && peers_[static_cast<size_t>(peer)].reachable;
}

bool VerbsBtl::connected(int peer) const {
  return reachable(peer) && peers_[static_cast<size_t>(peer)].state == ConnState::kUp;
}

bool VerbsBtl::connect(int peer) {
  if (finalized_ || peer < 0 || peer >= size_ || (peer != rank_ && !reachable(peer))) return true;
  Peer& p = peers_[static_cast<size_t>(peer)];
  if (p.state == ConnState::kNone) start_connect(peer);
  return p.state == ConnState::kUp || p.state == ConnState::kFailed;
}

VerbsBtl::Peer& VerbsBtl::peer_at(int peer, const char* call) {
  if (finalized_)
    throw std::logic_error("rank " + std::to_string(rank_) + ": verbs " + call + " after finalize");
  // This rank itself is always reachable: through the loopback QP (connect_loopback()).
  if (peer < 0 || peer >= size_ || (peer != rank_ && !peers_[static_cast<size_t>(peer)].reachable))
    throw std::runtime_error("rank " + std::to_string(rank_) + ": verbs " + call + ": peer " +
                             std::to_string(peer) + " is not reachable over verbs");
  Peer& p = peers_[static_cast<size_t>(peer)];
  if (p.state == ConnState::kFailed)
    throw std::runtime_error("rank " + std::to_string(rank_) + ": verbs " + call +
                             ": the connection to peer " + std::to_string(peer) + " failed");
  return p;
}

int VerbsBtl::progress() {
  if (in_progress_ || finalized_) return 0;
  in_progress_ = true;
  struct Reset {
    bool& flag;
    ~Reset() { flag = false; }
  } reset{in_progress_};
  int n = poll_send_cq();
  n += poll_recv_cq();
  if (!credit_due_.empty()) flush_credit_returns();
  if (!rdma_waiters_.empty()) drive_rdma_waiters();
  if (!connecting_.empty()) drive_connects();
  // The clock is read once per 256 calls: a rank that waits calls progress() millions of
  // times a second, or sleeps between calls (then the probes are only a little late).
  if (cfg_.keepalive_ms > 0 && n == 0 && ++progress_calls_ >= 256) {
    progress_calls_ = 0;
    send_keepalives();
  }
  return n;
}

// A peer that sends nothing and to which nothing is in flight could be dead without anyone
// noticing: the rank waiting for its message would wait forever. Its node's RDMA device acks
// our packets whether or not the peer process is running MPI, so a probe fails only when the
// process (whose QP the kernel destroyed) or its host is gone: after (retry_cnt + 1) ack
// timeouts the probe completes with an error, and retire() ends the job naming the peer.
// The probe writes the credit count the peer already has into its slot for us: harmless.
void VerbsBtl::send_keepalives() {
  const auto now = Clock::now();
  if (now < next_keepalive_) return;
  next_keepalive_ = now + std::chrono::milliseconds(cfg_.keepalive_ms);
  for (int peer = 0; peer < size_; ++peer) {
    Peer& p = peers_[static_cast<size_t>(peer)];
    if (peer == rank_ || p.state != ConnState::kUp || signaled_in_flight(p)) continue;
    if (!sq_room(p, 1, true)) continue;
    try {
      post_credit_write(peer, p.reported, true);
    } catch (const std::exception& e) {
      fail_peer(p, peer, e.what());
      continue;
    }
    ++stats_.keepalives;
  }
}

// A signaled entry still on the peer's send queue will complete, with an error if the peer is
// gone: no probe needed. Unsignaled entries (inline sends, credit writes) stay on the ring until
// a later signaled one retires them, so an idle connection's ring is rarely empty.
bool VerbsBtl::signaled_in_flight(const Peer& p) const {
  for (uint64_t s = p.sq_tail; s < p.sq_head; ++s)
    if (p.ring[s % static_cast<uint64_t>(sq_depth_)].signaled) return true;
  return false;
}

int VerbsBtl::poll_send_cq() {
  ibv_wc wc[kPollBatch];
  int n = ibv_poll_cq(res_->send_cq.get(), kPollBatch, wc);
  if (n < 0) throw_verbs_error(rank_, "ibv_poll_cq", "send CQ", EIO);
  for (int i = 0; i < n; ++i) {
    switch (wr_kind(wc[i].wr_id)) {
      case WrKind::kRcSend:
        retire(static_cast<int>(wr_peer(wc[i].wr_id)), wr_low(wc[i].wr_id), wc[i].status);
        break;
      case WrKind::kUdSend:
        ud_send_free_.push_back(wr_low(wc[i].wr_id));
        if (wc[i].status != IBV_WC_SUCCESS)
          common::log_verbose("verbs: connection datagram send failed: %s",
                              ibv_wc_status_str(wc[i].status));
        break;
      default:
        break;
    }
  }
  return n;
}

int VerbsBtl::poll_recv_cq() {
  ibv_wc wc[kPollBatch];
  int n = ibv_poll_cq(res_->recv_cq.get(), kPollBatch, wc);
  if (n < 0) throw_verbs_error(rank_, "ibv_poll_cq", "receive CQ", EIO);
  for (int i = 0; i < n; ++i) {
    if (wr_kind(wc[i].wr_id) == WrKind::kSrqRecv) {
      on_am(wc[i]);
    } else if (wr_kind(wc[i].wr_id) == WrKind::kUdRecv) {
      const uint32_t idx = wr_low(wc[i].wr_id);
      if (wc[i].status == IBV_WC_SUCCESS && wc[i].byte_len >= kGrhBytes + sizeof(ConnMsg)) {
        ConnMsg m;
        std::memcpy(&m, res_->ud.mem.get() + idx * kUdSlot + kGrhBytes, sizeof m);
        ++stats_.conn_msgs_recv;
        on_conn_msg(m);
      }
      post_ud_recv(idx);
    }
  }
  return n;
}

// Entries up to and including the one whose completion arrived are done: RC completes a send
// queue in order, so one signaled entry retires every unsignaled one before it.
void VerbsBtl::retire(int peer, uint32_t seq_low, ibv_wc_status status) {
  if (peer < 0 || peer >= size_) return;
  Peer& p = peers_[static_cast<size_t>(peer)];
  const uint64_t seq =
      p.sq_tail + static_cast<uint32_t>(seq_low - static_cast<uint32_t>(p.sq_tail));
  if (seq >= p.sq_head) return;  // already retired (a flush after an earlier error)
  std::string lost;
  if (status != IBV_WC_SUCCESS) {
    ++stats_.wc_errors;
    // Before the entries retire: fail_peer() marks where partly posted operations now end.
    if (p.state != ConnState::kFailed && status != IBV_WC_WR_FLUSH_ERR)
      lost = fail_connection(p, peer, status);
  }
  while (p.sq_tail <= seq) {
    SendSlot& s = p.ring[p.sq_tail % static_cast<uint64_t>(sq_depth_)];
    if (s.bounce >= 0) send_free_.push_back(s.bounce);
    if (s.signaled) --signaled_outstanding_;
    if (s.op) {
      if (p.sq_tail == seq && status != IBV_WC_SUCCESS) s.op->status = EIO;
      if (s.last_chunk) finish_op(s.op);
    }
    s = SendSlot{};
    ++p.sq_tail;
  }
  // The operations retired here have their EIO; a lost peer now ends the job.
  if (!lost.empty()) report_peer_lost(peer, lost);
}

std::string VerbsBtl::peer_name(int peer) const {
  const Peer& p = peers_[static_cast<size_t>(peer)];
  return "rank " + std::to_string(peer) + (p.host.empty() ? "" : " on node " + p.host);
}

// A work request to the peer failed: the queue pair is dead, its operations complete with EIO.
// If the wire itself failed (no acknowledgement however often we retransmitted), so, as far as
// this job can tell, did the peer: the sentence returned is for report_peer_lost(), whose
// handler ends the job. Other errors (a bad rkey, a protection error) are the caller's,
// reported through the operations' completions; for them the result is empty.
std::string VerbsBtl::fail_connection(Peer& p, int peer, ibv_wc_status status) {
  std::string why = std::string(ibv_wc_status_str(status));
  if (status == IBV_WC_RETRY_EXC_ERR) {
    const double timeout_ms = 4.096e-3 * static_cast<double>(1ull << cfg_.timeout);
    char buf[160];
    std::snprintf(buf, sizeof buf,
                  " (no acknowledgement after %d retries of %.0f ms: the process or its host is "
                  "gone, or the network between us is; MPR_VERBS_TIMEOUT/MPR_VERBS_RETRY_CNT)",
                  cfg_.retry_cnt, timeout_ms);
    why += buf;
  } else if (status == IBV_WC_RNR_RETRY_EXC_ERR) {
    why += " (the peer had no receive buffer posted; MPR_VERBS_RNR_RETRY)";
  }
  fail_peer(p, peer, why);
  if (peer == rank_ || status != IBV_WC_RETRY_EXC_ERR) return "";
  ibv_gid gid;
  std::memcpy(gid.raw, p.addr.gid, sizeof gid.raw);
  return "verbs: connection to " + peer_name(peer) + " (GID " + gid_to_string(gid) +
         ") lost: " + why;
}

int VerbsBtl::service_level() const {
  return cfg_.sl >= 0 ? cfg_.sl : dev_.roce ? 0 : dev_.port_attr.sm_sl;
}

int VerbsBtl::traffic_class() const {
  return cfg_.traffic_class >= 0 ? cfg_.traffic_class : dev_.traffic_class;
}

void VerbsBtl::fail_peer(Peer& p, int peer, const std::string& why) {
  if (p.state == ConnState::kFailed) return;
  common::log_error("verbs: connection to %s failed: %s", peer_name(peer).c_str(), why.c_str());
  p.state = ConnState::kFailed;
  // Outstanding work flushes with errors (completing its ops); queued work fails now.
  if (p.qp) {
    ibv_qp_attr qa{};
    qa.qp_state = IBV_QPS_ERR;
    ibv_modify_qp(p.qp.get(), &qa, IBV_QP_STATE);
  }
  while (!p.rdma_wait.empty()) {
    RdmaOp* op = p.rdma_wait.front();
    p.rdma_wait.pop_front();
    op->status = EIO;
    if (op->posted == 0) {
      finish_op(op);
      continue;
    }
    // Partly posted: it completes when its last posted chunk flushes; the rest never will.
    for (uint64_t s = p.sq_head; s > p.sq_tail; --s) {
      SendSlot& slot = p.ring[(s - 1) % static_cast<uint64_t>(sq_depth_)];
      if (slot.op == op) {
        slot.last_chunk = true;
        break;
      }
    }
  }
  connecting_.erase(std::remove(connecting_.begin(), connecting_.end(), peer), connecting_.end());
}

void VerbsBtl::reg(void* addr, size_t len, Registration* out) {
  if (finalized_)
    throw std::logic_error("rank " + std::to_string(rank_) + ": verbs reg after finalize");
  rcache::Region* r = res_->rcache->acquire(addr, len);
  auto* mr = static_cast<ibv_mr*>(r->handle);
  out->addr = addr;
  out->len = len;
  out->lkey = mr->lkey;
  out->rkey = RemoteKey{};
  out->rkey.words[0] = mr->rkey;
  out->backend_data = r;
}

void VerbsBtl::dereg(Registration* reg) {
  // After finalize every registration is already gone with the protection domain.
  if (reg->backend_data && !finalized_)
    res_->rcache->release(static_cast<rcache::Region*>(reg->backend_data));
  reg->backend_data = nullptr;
}

std::string VerbsBtl::describe() const {
  std::ostringstream o;
  o << "verbs: " << dev_.name << " port " << int(dev_.port) << " ("
    << (dev_.roce ? dev_.gid_type + ", GID index " + std::to_string(dev_.gid_index) + " " +
                        gid_to_string(dev_.gid)
                  : "IB, LID " + std::to_string(dev_.port_attr.lid))
    << "; " << dev_.why << "), MTU " << mtu_bytes(dev_.port_attr.active_mtu) << ", inline "
    << max_inline_ << " B, eager limit " << format_bytes(caps_.eager_limit) << ", max AM "
    << format_bytes(caps_.max_am_size) << ", " << cfg_.credits << " credits/peer, RDMA chunk "
    << format_bytes(rdma_chunk_) << ", " << atomics_why_ << ", rcache " << validation_ << ", "
    << g_fork_note << "; QP timeout " << cfg_.timeout << " x" << cfg_.retry_cnt + 1 << ", SL "
    << service_level() << ", traffic class " << traffic_class() << ", keepalive "
    << (cfg_.keepalive_ms ? std::to_string(cfg_.keepalive_ms) + " ms" : "off");
  return o.str();
}

void VerbsBtl::finalize() {
  if (finalized_) return;
  if (common::param_bool("MPR_STATS")) {
    const rcache::Stats& rs = res_->rcache->stats();
    common::log_error(
        "verbs stats: AMs sent %llu (inline %llu) received %llu, retries credits %llu send queue "
        "%llu buffers %llu, credit writes %llu, RDMA ops %llu (%llu B), atomics %llu (slot "
        "retries %llu), connections %llu, keepalives %llu, rcache hits %llu misses %llu "
        "evictions %llu invalidations %llu",
        (unsigned long long)stats_.am_sent, (unsigned long long)stats_.am_inline,
        (unsigned long long)stats_.am_recv, (unsigned long long)stats_.retry_credits,
        (unsigned long long)stats_.retry_sq, (unsigned long long)stats_.retry_bufs,
        (unsigned long long)stats_.credit_writes, (unsigned long long)stats_.rdma_ops,
        (unsigned long long)stats_.rdma_bytes, (unsigned long long)stats_.atomics,
        (unsigned long long)stats_.retry_atomic_slots, (unsigned long long)stats_.connects,
        (unsigned long long)stats_.keepalives, (unsigned long long)rs.hits,
        (unsigned long long)rs.misses, (unsigned long long)rs.evictions,
        (unsigned long long)rs.invalidations);
  }
  release();
  finalized_ = true;
}

// Ends everything this instance owns by resetting its owners: called by finalize(), by the
// destructor and by a constructor that throws. Every owner is empty afterwards, so whatever
// runs first releases everything and a later call releases nothing. The order is what verbs
// needs: the RC QPs and AHs first, then Resources (UD QP, SRQ, CQs, the cache's MRs, internal
// MRs, PD: see its comment), the context last.
void VerbsBtl::release() {
  for (RdmaOp* op : ops_) {
    if (op->tmp_reg && res_) res_->rcache->release(op->tmp_reg);
    delete op;
  }
  ops_.clear();
  for (Peer& p : peers_) {
    p.rdma_wait.clear();
    p.qp.reset();
    p.ah.reset();
  }
  qpn_peer_.clear();
  if (res_ && res_->rcache) {
    if (size_t held = res_->rcache->flush())
      common::log_verbose("verbs: %zu registration(s) still held at teardown; deregistering", held);
  }
  res_.reset();
  atomic_free_.clear();
  dev_.ctx.reset();
  if (common::verbose() && rank_ >= 0) {
    LiveCounts live = live_counts();
    if (!live.all_zero())
      common::log_verbose("verbs: after teardown this process still has %s",
                          to_string(live).c_str());
  }
}

std::string g_why_not;  // why the last create() returned nullptr

std::unique_ptr<Btl> create(common::Bootstrap& bs, const Config& cfg) {
  g_fork_note = fork_policy(cfg);
  Device dev;
  try {
    dev = open_device(cfg, bs.rank(), bs.local_rank());
  } catch (const std::exception& e) {
    if (cfg.requested) throw;
    g_why_not = e.what();
    return nullptr;
  }
  if (!dev.ctx) {
    if (cfg.requested)
      throw std::runtime_error("rank " + std::to_string(bs.rank()) +
                               ": verbs: MPR_BTL asks for verbs but " + dev.why);
    g_why_not = dev.why;
    return nullptr;
  }
  try {
    auto b = std::make_unique<VerbsBtl>(bs, cfg, std::move(dev));
    common::log_verbose("%s", b->describe().c_str());
    return b;
  } catch (const std::exception& e) {
    if (cfg.requested) throw;
    g_why_not = e.what();
    return nullptr;
  }
}

}  // namespace verbs

std::unique_ptr<Btl> make_verbs_btl(common::Bootstrap& bs) {
  std::unique_ptr<Btl> b = verbs::create(bs, verbs::Config::from_params());
  if (!b) throw Unavailable(verbs::g_why_not);
  return b;
}

}  // namespace mpr::btl
