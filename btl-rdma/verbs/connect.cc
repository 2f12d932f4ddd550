// Connections: one RC QP per peer, created on first use and connected through a handshake
// over each rank's UD QP (whose address is in the modex).
//
// Why a handshake and not just QP numbers in the modex: an RC QP drops packets until it is in
// RTR, and ranks reach wire_up() at different times, so a sender can never know from the modex
// alone that the receiver's QP is ready. The UD QP is ready before the fence (it needs nothing
// from the peer), so a request always finds it listening. Rule that keeps it race-free: a rank
// sends on the RC QP only after it has proof that the peer's QP is in RTR, and both kinds of
// proof are sent only after the sender moved its QP to RTR:
//   REQ  (initiator -> responder, UD): my QP number, PSN, credits I grant you.
//   REP  (responder -> initiator, UD): the same, sent once the responder's QP is RTR/RTS.
//   first RC message (initiator -> responder): the initiator is RTR/RTS too ("hello" if the
//        initiator has nothing else to say). The responder sends nothing before it arrives.
// Requests cross (both ranks initiate) without harm: each side has one QP per peer, so both
// REQs carry the same QP numbers as the REPs would. Lost datagrams: REQ is retransmitted with
// backoff; a REQ for a pair already set up is answered with REP again.
#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <stdexcept>

#include "btl-rdma/verbs/verbs_btl.h"
#include "btl-rdma/verbs/verbs_consts.h"
#include "common/log.h"

namespace mpr::btl::verbs {

// Step of setup(): the connection-manager UD QP and its datagram buffers. It is ready (RTS,
// receives posted) before the modex entry naming it is published.
void VerbsBtl::setup_ud() {
  const size_t bytes = static_cast<size_t>(kUdRecvSlots + kUdSendSlots) * kUdSlot;
  RegisteredMem<char>& ud = res_->ud;
  ud.mem = alloc_pages<char>(bytes, true);
  if (!ud.mem) throw_out_of_memory(rank_, "");
  ud.mr = reg_internal(ud.mem.get(), bytes, IBV_ACCESS_LOCAL_WRITE, "connection datagram buffers");

  ibv_qp_init_attr qia{};
  qia.qp_type = IBV_QPT_UD;
  qia.send_cq = res_->send_cq.get();
  qia.recv_cq = res_->recv_cq.get();
  qia.cap.max_send_wr = kUdSendSlots;
  qia.cap.max_recv_wr = kUdRecvSlots;
  qia.cap.max_send_sge = 1;
  qia.cap.max_recv_sge = 1;
  res_->ud_qp = adopt(ibv_create_qp(res_->pd.get(), &qia));
  ibv_qp* const ud_qp = res_->ud_qp.get();
  if (!ud_qp) throw_verbs_error(rank_, "ibv_create_qp", "UD connection QP", errno);

  ibv_qp_attr qa{};
  qa.qp_state = IBV_QPS_INIT;
  qa.pkey_index = 0;
  qa.port_num = dev_.port;
  qa.qkey = kQkey;
  if (int rc =
          ibv_modify_qp(ud_qp, &qa, IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT | IBV_QP_QKEY))
    throw_verbs_error(rank_, "ibv_modify_qp", "UD QP to INIT", rc);
  qa = ibv_qp_attr{};
  qa.qp_state = IBV_QPS_RTR;
  if (int rc = ibv_modify_qp(ud_qp, &qa, IBV_QP_STATE))
    throw_verbs_error(rank_, "ibv_modify_qp", "UD QP to RTR", rc);
  qa = ibv_qp_attr{};
  qa.qp_state = IBV_QPS_RTS;
  qa.sq_psn = 0;
  if (int rc = ibv_modify_qp(ud_qp, &qa, IBV_QP_STATE | IBV_QP_SQ_PSN))
    throw_verbs_error(rank_, "ibv_modify_qp", "UD QP to RTS", rc);
  for (uint32_t i = 0; i < kUdRecvSlots; ++i) post_ud_recv(i);
  for (uint32_t i = 0; i < kUdSendSlots; ++i) ud_send_free_.push_back(kUdRecvSlots + i);
}

void VerbsBtl::post_ud_recv(uint32_t idx) {
  ibv_sge sge{reinterpret_cast<uintptr_t>(res_->ud.mem.get() + idx * kUdSlot),
              static_cast<uint32_t>(kUdSlot), res_->ud.mr->lkey};
  ibv_recv_wr wr{};
  wr.wr_id = make_wr_id(WrKind::kUdRecv, 0, idx);
  wr.sg_list = &sge;
  wr.num_sge = 1;
  ibv_recv_wr* bad = nullptr;
  if (int rc = ibv_post_recv(res_->ud_qp.get(), &wr, &bad))
    throw_verbs_error(rank_, "ibv_post_recv", "UD connection QP", rc);
}

// Receive buffers for a new peer: reserved in the SRQ before we tell the peer it may send.
uint32_t VerbsBtl::grant_credits(int peer) {
  Peer& p = peers_[static_cast<size_t>(peer)];
  if (p.credits_given) return p.credits_given;
  const int grant = std::min(cfg_.credits, srq_max_ - credits_reserved_);
  if (grant < 2 || !grow_recv_pool(credits_reserved_ + grant)) return 0;
  credits_reserved_ += grant;
  p.credits_given = static_cast<uint32_t>(grant);
  return p.credits_given;
}

ibv_qp* VerbsBtl::create_rc_qp(int peer) {
  Peer& p = peers_[static_cast<size_t>(peer)];
  ibv_qp_init_attr qia{};
  qia.qp_type = IBV_QPT_RC;
  qia.send_cq = res_->send_cq.get();
  qia.recv_cq = res_->recv_cq.get();
  qia.srq = res_->srq.get();
  qia.cap.max_send_wr = static_cast<uint32_t>(sq_depth_);
  qia.cap.max_send_sge = 1;
  qia.cap.max_inline_data = static_cast<uint32_t>(max_inline_);
  qia.sq_sig_all = 0;
  Qp owned = adopt(ibv_create_qp(res_->pd.get(), &qia));
  if (!owned)
    throw_verbs_error(rank_, "ibv_create_qp", "RC QP for peer " + std::to_string(peer), errno);
  ibv_qp* const qp = owned.get();
  p.qp = std::move(owned);
  qpn_peer_[qp->qp_num] = peer;
  p.ring.assign(static_cast<size_t>(sq_depth_), SendSlot{});
  // A PSN that differs per QP incarnation, so stale packets of an old QP number never match.
  const auto now = static_cast<uint32_t>(Clock::now().time_since_epoch().count());
  p.local_psn = (qp->qp_num * 2654435761u ^ static_cast<uint32_t>(rank_) * 40503u ^ now) & 0xffffff;
  qp_to_init(qp, peer);
  return qp;
}

void VerbsBtl::qp_to_init(ibv_qp* qp, int peer) {
  ibv_qp_attr qa{};
  qa.qp_state = IBV_QPS_INIT;
  qa.pkey_index = 0;
  qa.port_num = dev_.port;
  qa.qp_access_flags = static_cast<unsigned>(qp_access_);
  if (int rc = ibv_modify_qp(qp, &qa,
                             IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT | IBV_QP_ACCESS_FLAGS))
    throw_verbs_error(rank_, "ibv_modify_qp", "INIT for peer " + std::to_string(peer), rc);
}

ibv_ah_attr VerbsBtl::ah_attr_for(const VerbsAddr& a) const {
  ibv_ah_attr ah{};
  ah.dlid = a.lid;
  ah.port_num = dev_.port;
  // IB: the subnet manager's SL for this port unless told otherwise; RoCE maps priority from
  // the traffic class (DSCP) instead, and the SL is 0.
  ah.sl = static_cast<uint8_t>(service_level());
  // RoCE always routes by GID; IB needs the GRH only to leave the subnet.
  if (dev_.roce || a.subnet_prefix != dev_.gid.global.subnet_prefix) {
    ah.is_global = 1;
    std::memcpy(ah.grh.dgid.raw, a.gid, sizeof a.gid);
    ah.grh.sgid_index = static_cast<uint8_t>(dev_.gid_index);
    ah.grh.hop_limit = static_cast<uint8_t>(cfg_.hop_limit);
    ah.grh.traffic_class = static_cast<uint8_t>(traffic_class());
  }
  return ah;
}

void VerbsBtl::qp_to_rtr_rts(Peer& p, int peer) {
  ibv_qp_attr qa{};
  qa.qp_state = IBV_QPS_RTR;
  qa.path_mtu = std::min(dev_.port_attr.active_mtu, static_cast<ibv_mtu>(p.addr.mtu));
  qa.dest_qp_num = p.remote_qpn;
  qa.rq_psn = p.remote_psn;
  qa.max_dest_rd_atomic = static_cast<uint8_t>(max_dest_rd_atomic_);
  qa.min_rnr_timer = static_cast<uint8_t>(cfg_.min_rnr_timer);  // RNR cannot happen with credits
  qa.ah_attr = ah_attr_for(p.addr);
  if (int rc = ibv_modify_qp(p.qp.get(), &qa,
                             IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU | IBV_QP_DEST_QPN |
                                 IBV_QP_RQ_PSN | IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_MIN_RNR_TIMER))
    throw_verbs_error(rank_, "ibv_modify_qp", "RTR for peer " + std::to_string(peer), rc);
  qa = ibv_qp_attr{};
  qa.qp_state = IBV_QPS_RTS;
  qa.timeout = static_cast<uint8_t>(cfg_.timeout);
  qa.retry_cnt = static_cast<uint8_t>(cfg_.retry_cnt);
  qa.rnr_retry = static_cast<uint8_t>(cfg_.rnr_retry);
  qa.sq_psn = p.local_psn;
  qa.max_rd_atomic = static_cast<uint8_t>(max_rd_atomic_);
  if (int rc = ibv_modify_qp(p.qp.get(), &qa,
                             IBV_QP_STATE | IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY |
                                 IBV_QP_SQ_PSN | IBV_QP_MAX_QP_RD_ATOMIC))
    throw_verbs_error(rank_, "ibv_modify_qp", "RTS for peer " + std::to_string(peer), rc);
}

void VerbsBtl::start_connect(int peer) {
  Peer& p = peers_[static_cast<size_t>(peer)];
  if (p.state != ConnState::kNone) return;
  if (peer == rank_) {
    connect_loopback();
    return;
  }
  try {
    if (!p.qp) create_rc_qp(peer);
  } catch (const std::exception& e) {
    fail_peer(p, peer, e.what());
    return;
  }
  if (!grant_credits(peer)) {
    fail_peer(p, peer,
              "no room for its receive buffers (MPR_VERBS_SRQ_MAX " + std::to_string(srq_max_) +
                  " reached)");
    return;
  }
  p.initiator = true;
  p.state = ConnState::kReqSent;
  const auto now = Clock::now();
  p.deadline = now + std::chrono::seconds(cfg_.connect_timeout_s);
  p.backoff = std::chrono::milliseconds(kFirstRetryMs);
  p.next_req = now + p.backoff;
  connecting_.push_back(peer);
  ++stats_.connects;
  send_conn_msg(peer, kConnReq);
}

// This rank's own QP: an RC QP whose destination QP is itself (legal; the HCA, or rxe, loops
// the packets back). It exists for atomics above all: device atomics are atomic only among
// themselves, so the owner of a word must update it through the device like everyone else.
// get/put/send_am to this rank use it too. Both ends are the same QP, so it is RTR when it is
// RTS: no handshake and no hello. Receive credits are reserved only when send_am first uses
// it (see send_am), so a rank that only does atomics on itself costs no receive buffers.
void VerbsBtl::connect_loopback() {
  Peer& p = peers_[static_cast<size_t>(rank_)];
  try {
    if (!p.qp) create_rc_qp(rank_);
    p.addr = self_addr_;
    p.remote_qpn = p.qp->qp_num;
    p.remote_psn = p.local_psn;
    qp_to_rtr_rts(p, rank_);
  } catch (const std::exception& e) {
    fail_peer(p, rank_, std::string("loopback QP: ") + e.what());
    return;
  }
  p.state = ConnState::kUp;
  ++stats_.connects;
}

void VerbsBtl::send_conn_msg(int peer, uint8_t type) {
  Peer& p = peers_[static_cast<size_t>(peer)];
  if (ud_send_free_.empty()) return;  // a REQ is retransmitted; a REP is re-sent on the next REQ
  if (!p.ah) {
    ibv_ah_attr aa = ah_attr_for(p.addr);
    p.ah = adopt(ibv_create_ah(res_->pd.get(), &aa));
    if (!p.ah) {
      fail_peer(p, peer, std::string("ibv_create_ah: ") + std::strerror(errno));
      return;
    }
  }
  const uint32_t idx = ud_send_free_.back();
  ud_send_free_.pop_back();
  ConnMsg m{};
  m.magic = kConnMagic;
  m.type = type;
  m.src_rank = static_cast<uint32_t>(rank_);
  m.dst_rank = static_cast<uint32_t>(peer);
  m.qpn = p.qp->qp_num;
  m.psn = p.local_psn;
  m.credits = p.credits_given;
  m.job_tag = job_tag_;
  char* const buf = res_->ud.mem.get() + idx * kUdSlot;
  std::memcpy(buf, &m, sizeof m);
  ibv_sge sge{reinterpret_cast<uintptr_t>(buf), sizeof m, res_->ud.mr->lkey};
  ibv_send_wr wr{};
  wr.wr_id = make_wr_id(WrKind::kUdSend, 0, idx);
  wr.sg_list = &sge;
  wr.num_sge = 1;
  wr.opcode = IBV_WR_SEND;
  wr.send_flags = IBV_SEND_SIGNALED;
  wr.wr.ud.ah = p.ah.get();
  wr.wr.ud.remote_qpn = p.addr.ud_qpn;
  wr.wr.ud.remote_qkey = kQkey;
  ibv_send_wr* bad = nullptr;
  if (int rc = ibv_post_send(res_->ud_qp.get(), &wr, &bad)) {
    ud_send_free_.push_back(idx);
    common::log_verbose("verbs: connection datagram to peer %d not sent: %s", peer,
                        std::strerror(rc));
    return;
  }
  ++stats_.conn_msgs_sent;
}

void VerbsBtl::on_conn_msg(const ConnMsg& m) {
  if (m.magic != kConnMagic || m.dst_rank != static_cast<uint32_t>(rank_) ||
      m.src_rank >= static_cast<uint32_t>(size_) || m.job_tag != job_tag_)
    return;
  const int peer = static_cast<int>(m.src_rank);
  Peer& p = peers_[static_cast<size_t>(peer)];
  if (!p.reachable || p.state == ConnState::kFailed || finalized_) return;
  try {
    if (m.type == kConnReq) {
      if (p.state == ConnState::kNone) {
        if (!p.qp) create_rc_qp(peer);
        if (!grant_credits(peer)) {
          fail_peer(p, peer,
                    "no room for its receive buffers (MPR_VERBS_SRQ_MAX " +
                        std::to_string(srq_max_) + " reached)");
          return;
        }
        p.initiator = false;
        p.deadline = Clock::now() + std::chrono::seconds(cfg_.connect_timeout_s);
        connecting_.push_back(peer);
        ++stats_.connects;
      }
      if (p.state == ConnState::kNone || p.state == ConnState::kReqSent) {
        p.remote_qpn = m.qpn;
        p.remote_psn = m.psn;
        p.credits_granted = m.credits;
        qp_to_rtr_rts(p, peer);
        p.state = ConnState::kWaitPeer;
      } else if (m.qpn != p.remote_qpn) {
        common::log_verbose(
            "verbs: ignoring a connection request from peer %d for QP %u "
            "(already paired with its QP %u)",
            peer, m.qpn, p.remote_qpn);
        return;
      }
      send_conn_msg(peer, kConnRep);
    } else if (m.type == kConnRep) {
      if (p.state == ConnState::kReqSent) {
        p.remote_qpn = m.qpn;
        p.remote_psn = m.psn;
        p.credits_granted = m.credits;
        qp_to_rtr_rts(p, peer);
        become_up(p, peer, true);
      } else if (p.state == ConnState::kWaitPeer && m.qpn == p.remote_qpn) {
        become_up(p, peer, true);
      }
    }
  } catch (const std::exception& e) {
    fail_peer(p, peer, e.what());
  }
}

void VerbsBtl::become_up(Peer& p, int peer, bool send_hello) {
  p.state = ConnState::kUp;
  connecting_.erase(std::remove(connecting_.begin(), connecting_.end(), peer), connecting_.end());
  // The peer may be waiting for proof that our QP is ready before it sends anything. The
  // send queue is empty and the peer granted at least two credits, so this cannot retry.
  if (send_hello) post_am(peer, 0, kAmInternal, nullptr, 0, nullptr, 0, 0);
  if (!p.rdma_wait.empty() &&
      std::find(rdma_waiters_.begin(), rdma_waiters_.end(), peer) == rdma_waiters_.end())
    rdma_waiters_.push_back(peer);
}

void VerbsBtl::drive_connects() {
  const auto now = Clock::now();
  const std::vector<int> list = connecting_;
  for (int peer : list) {
    Peer& p = peers_[static_cast<size_t>(peer)];
    if (p.state == ConnState::kUp || p.state == ConnState::kFailed) continue;
    if (now >= p.deadline) {
      fail_peer(p, peer,
                "no connection after " + std::to_string(cfg_.connect_timeout_s) + " s (" +
                    std::to_string(p.reqs_sent + 1) +
                    " requests sent; is the peer still calling MPI?)");
      continue;
    }
    if (p.initiator && now >= p.next_req) {
      ++p.reqs_sent;
      send_conn_msg(peer, kConnReq);
      p.backoff = std::min(p.backoff * 2, std::chrono::milliseconds(kMaxRetryMs));
      p.next_req = now + p.backoff;
    }
  }
  connecting_.erase(std::remove_if(connecting_.begin(), connecting_.end(),
                                   [this](int peer) {
                                     ConnState s = peers_[static_cast<size_t>(peer)].state;
                                     return s == ConnState::kUp || s == ConnState::kFailed;
                                   }),
                    connecting_.end());
}

}  // namespace mpr::btl::verbs
