// Active messages over RC SEND into a shared receive queue of bounce buffers, with per-peer
// credits so a sender never sends into a receive queue without a buffer for it.
//
// Credits: each side of a connection reserves `credits_given` SRQ buffers for the other and
// tells it in the handshake. A message costs the sender one credit. The receiver re-posts a
// buffer right after its handler returns and counts it in `freed`; that count travels back
// piggybacked on every message it sends to the peer, or, when it has nothing to send and a
// quarter of the credits are owed, by RDMA WRITE into the peer's credit slot (no receive
// buffer needed, so returns cannot deadlock). Since posted buffers always cover every credit
// handed out, RNR NAKs cannot occur: no retry storms, and MPR_VERBS_RNR_RETRY=0 proves it.
//
// Send queue: small messages go inline (copied into the work request, no buffer held);
// others are copied to a registered send buffer. Only every signal_interval_-th inline send
// asks for a completion, plus every send that holds a buffer or fills the queue past the
// last interval, so the queue always drains and the send CQ cannot overflow.
#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <stdexcept>

#include "btl-rdma/verbs/verbs_btl.h"
#include "btl-rdma/verbs/verbs_consts.h"
#include "common/log.h"

namespace mpr::btl::verbs {

namespace {
constexpr size_t kInlineCap = 4096;  // Config caps max_inline at this
}

bool VerbsBtl::grow_recv_pool(int min_total) {
  std::vector<RegisteredMem<char>>& chunks = res_->recv_chunks;
  while (static_cast<int>(chunks.size()) * kRecvChunk < min_total) {
    if (static_cast<int>(chunks.size() + 1) * kRecvChunk > srq_max_) return false;
    RegisteredMem<char> c;
    const size_t bytes = static_cast<size_t>(kRecvChunk) * stride_;
    c.mem = alloc_pages<char>(bytes, false);
    if (!c.mem) return false;
    try {
      c.mr = reg_internal(c.mem.get(), bytes, IBV_ACCESS_LOCAL_WRITE, "receive buffers");
    } catch (const std::exception& e) {
      common::log_error("%s", e.what());
      return false;
    }
    chunks.push_back(std::move(c));
    const uint32_t base = static_cast<uint32_t>(chunks.size() - 1) * kRecvChunk;
    for (uint32_t i = 0; i < kRecvChunk; ++i) post_srq_recv(base + i);
  }
  return true;
}

char* VerbsBtl::recv_buf(uint32_t idx) {
  return res_->recv_chunks[idx / kRecvChunk].mem.get() + (idx % kRecvChunk) * stride_;
}

void VerbsBtl::post_srq_recv(uint32_t idx) {
  ibv_sge sge{reinterpret_cast<uintptr_t>(recv_buf(idx)), static_cast<uint32_t>(stride_),
              res_->recv_chunks[idx / kRecvChunk].mr->lkey};
  ibv_recv_wr wr{};
  wr.wr_id = make_wr_id(WrKind::kSrqRecv, 0, idx);
  wr.sg_list = &sge;
  wr.num_sge = 1;
  ibv_recv_wr* bad = nullptr;
  if (int rc = ibv_post_srq_recv(res_->srq.get(), &wr, &bad))
    throw_verbs_error(rank_, "ibv_post_srq_recv", "receive buffer " + std::to_string(idx), rc);
  ++posted_recvs_;
}

void VerbsBtl::on_am(const ibv_wc& wc) {
  const uint32_t idx = wr_low(wc.wr_id);
  --posted_recvs_;
  auto it = qpn_peer_.find(wc.qp_num);
  if (wc.status != IBV_WC_SUCCESS || it == qpn_peer_.end()) {
    if (wc.status != IBV_WC_WR_FLUSH_ERR) {
      ++stats_.wc_errors;
      common::log_error("verbs: receive on QP %u failed: %s", wc.qp_num,
                        it == qpn_peer_.end() ? "unknown QP" : ibv_wc_status_str(wc.status));
    }
    post_srq_recv(idx);
    return;
  }
  const int peer = it->second;
  Peer& p = peers_[static_cast<size_t>(peer)];
  char* buf = recv_buf(idx);
  AmWireHdr h;
  std::memcpy(&h, buf, sizeof h);
  apply_credit_ack(p, h.credit_ack);
  if (p.state == ConnState::kWaitPeer) become_up(p, peer, false);
  // The buffer goes back to the SRQ once the handler is done with it (even if it throws);
  // only then does it count as a credit to return.
  auto repost = [&] {
    post_srq_recv(idx);
    ++p.freed;
    const uint64_t threshold = std::max<uint32_t>(1, p.credits_given / 4);
    if (p.freed - p.reported >= threshold && !p.credit_write_pending) {
      p.credit_write_pending = true;
      credit_due_.push_back(peer);
    }
  };
  const size_t body = wc.byte_len >= sizeof h ? wc.byte_len - sizeof h : 0;
  if (h.flags & kAmInternal) {
    repost();
    return;
  }
  if (wc.byte_len < sizeof h || h.am_id >= kMaxAmIds || h.hdr_len > body ||
      !handlers_[h.am_id].fn) {
    common::log_error(
        "verbs: dropping a malformed active message from peer %d (id %u, %u-byte "
        "header, %u bytes)",
        peer, h.am_id, h.hdr_len, wc.byte_len);
    repost();
    return;
  }
  ++stats_.am_recv;
  try {
    dispatch(h.am_id, peer, buf + sizeof h, h.hdr_len, buf + sizeof h + h.hdr_len,
             body - h.hdr_len);
  } catch (...) {
    repost();
    throw;
  }
  repost();
}

// `ack` is the low 32 bits of the peer's count of our consumed messages; it can only be ahead
// of what we know, and never beyond what we sent.
void VerbsBtl::apply_credit_ack(Peer& p, uint32_t ack) {
  const uint32_t delta = ack - static_cast<uint32_t>(p.returned);
  if (delta <= p.sent - p.returned) p.returned += delta;
}

void VerbsBtl::refresh_credits(Peer& p, int peer) {
  const CreditSlot* slot = &res_->credit_in.mem[peer];
  const uint64_t count = __atomic_load_n(&slot->count, __ATOMIC_ACQUIRE);
  const uint64_t check = __atomic_load_n(&slot->check, __ATOMIC_ACQUIRE);
  if (check == ~count && count > p.returned && count <= p.sent) p.returned = count;
}

int VerbsBtl::send_credits(int peer) const {
  if (!reachable(peer)) return 0;
  const Peer& p = peers_[static_cast<size_t>(peer)];
  return static_cast<int>(p.credits_granted) - static_cast<int>(p.sent - p.returned);
}

bool VerbsBtl::want_signal(const Peer& p) const {
  const int used = static_cast<int>(p.sq_head - p.sq_tail);
  return p.unsignaled + 1 >= signal_interval_ || sq_depth_ - used <= signal_interval_;
}

bool VerbsBtl::sq_room(const Peer& p, int n, bool signaled) const {
  if (static_cast<int>(p.sq_head - p.sq_tail) + n > sq_depth_) return false;
  return !signaled || signaled_outstanding_ < signaled_budget_;
}

uint64_t VerbsBtl::post_rc(int peer, ibv_send_wr& wr, const SendSlot& slot) {
  Peer& p = peers_[static_cast<size_t>(peer)];
  const uint64_t seq = p.sq_head;
  wr.wr_id = make_wr_id(WrKind::kRcSend, static_cast<uint32_t>(peer), static_cast<uint32_t>(seq));
  wr.next = nullptr;
  if (slot.signaled) wr.send_flags |= IBV_SEND_SIGNALED;
  ibv_send_wr* bad = nullptr;
  if (int rc = ibv_post_send(p.qp.get(), &wr, &bad))
    throw_verbs_error(rank_, "ibv_post_send", "to peer " + std::to_string(peer), rc);
  p.ring[seq % static_cast<uint64_t>(sq_depth_)] = slot;
  ++p.sq_head;
  if (slot.signaled) {
    ++signaled_outstanding_;
    p.unsignaled = 0;
    ++stats_.signaled;
  } else {
    ++p.unsignaled;
    ++stats_.unsignaled;
  }
  return seq;
}

Status VerbsBtl::send_am(int peer, int am_id, const void* hdr, size_t hdr_len,
                         const struct iovec* iov, int iovcnt) {
  if (am_id < 0 || am_id >= kMaxAmIds)
    throw std::invalid_argument("rank " + std::to_string(rank_) + ": verbs send_am: active " +
                                "message id " + std::to_string(am_id) + " out of range");
  size_t payload = 0;
  for (int i = 0; i < iovcnt; ++i) payload += iov[i].iov_len;
  if (hdr_len + payload > caps_.max_am_size)
    throw std::length_error("rank " + std::to_string(rank_) + ": verbs send_am to peer " +
                            std::to_string(peer) + ": " + std::to_string(hdr_len + payload) +
                            " bytes exceed the " + std::to_string(caps_.max_am_size) +
                            "-byte active message limit");
  Peer& p = peer_at(peer, "send_am");
  if (p.state != ConnState::kUp) {
    start_connect(peer);
    if (p.state == ConnState::kFailed) peer_at(peer, "send_am");  // throws with the cause
    if (p.state != ConnState::kUp) {  // the loopback QP is up at once; a peer's is not
      ++stats_.retry_connect;
      return Status::kRetry;
    }
  }
  // To ourselves: receive buffers are reserved on the first message, not when the loopback QP
  // is made (atomics on our own memory need none). We are our own receiver: grant = given.
  if (peer == rank_ && p.credits_granted == 0) {
    p.credits_granted = grant_credits(peer);
    if (p.credits_granted == 0)
      throw std::runtime_error("rank " + std::to_string(rank_) +
                               ": verbs send_am to itself: no room for its receive buffers "
                               "(MPR_VERBS_SRQ_MAX " +
                               std::to_string(srq_max_) + " reached)");
  }
  return post_am(peer, static_cast<uint8_t>(am_id), 0, hdr, hdr_len, iov, iovcnt, payload);
}

Status VerbsBtl::post_am(int peer, uint8_t am_id, uint8_t flags, const void* hdr, size_t hdr_len,
                         const struct iovec* iov, int iovcnt, size_t payload_len) {
  Peer& p = peers_[static_cast<size_t>(peer)];
  if (p.sent - p.returned >= p.credits_granted) {
    refresh_credits(p, peer);
    if (p.sent - p.returned >= p.credits_granted) {
      ++stats_.retry_credits;
      return Status::kRetry;
    }
  }
  const size_t total = sizeof(AmWireHdr) + hdr_len + payload_len;
  const bool inl = total <= max_inline_;
  SendSlot slot;
  slot.signaled = !inl || want_signal(p);
  if (!sq_room(p, 1, slot.signaled)) {
    ++stats_.retry_sq;
    return Status::kRetry;
  }
  alignas(8) char inline_buf[kInlineCap];
  char* dst = inline_buf;
  uint32_t lkey = 0;
  if (!inl) {
    if (send_free_.empty()) {
      ++stats_.retry_bufs;
      return Status::kRetry;
    }
    slot.bounce = send_free_.back();
    send_free_.pop_back();
    dst = res_->send.mem.get() + static_cast<size_t>(slot.bounce) * stride_;
    lkey = res_->send.mr->lkey;
  }
  AmWireHdr w{am_id, flags, static_cast<uint16_t>(hdr_len), static_cast<uint32_t>(p.freed)};
  std::memcpy(dst, &w, sizeof w);
  size_t off = sizeof w;
  if (hdr_len) std::memcpy(dst + off, hdr, hdr_len);
  off += hdr_len;
  for (int i = 0; i < iovcnt; ++i) {
    if (iov[i].iov_len) std::memcpy(dst + off, iov[i].iov_base, iov[i].iov_len);
    off += iov[i].iov_len;
  }
  ibv_sge sge{reinterpret_cast<uintptr_t>(dst), static_cast<uint32_t>(total), lkey};
  ibv_send_wr wr{};
  wr.sg_list = &sge;
  wr.num_sge = 1;
  wr.opcode = IBV_WR_SEND;
  if (inl) wr.send_flags = IBV_SEND_INLINE;
  try {
    post_rc(peer, wr, slot);
  } catch (...) {
    if (slot.bounce >= 0) send_free_.push_back(slot.bounce);
    throw;
  }
  ++p.sent;
  if (p.freed != p.reported) ++stats_.credit_piggyback;
  p.reported = p.freed;
  ++stats_.am_sent;
  if (inl) ++stats_.am_inline;
  return Status::kDone;
}

// Explicit credit return: RDMA WRITE of our consumed count into the peer's slot for us.
bool VerbsBtl::return_credits(int peer) {
  Peer& p = peers_[static_cast<size_t>(peer)];
  if (p.state != ConnState::kUp || p.freed == p.reported) {
    p.credit_write_pending = false;
    return true;
  }
  const bool sig = want_signal(p);
  if (!sq_room(p, 1, sig)) return false;
  post_credit_write(peer, p.freed, sig);
  p.reported = p.freed;
  p.credit_write_pending = false;
  ++stats_.credit_writes;
  return true;
}

// RDMA WRITE of {count, ~count} into the peer's credit slot for us (the caller checked room).
void VerbsBtl::post_credit_write(int peer, uint64_t count, bool signaled) {
  Peer& p = peers_[static_cast<size_t>(peer)];
  CreditSlot v{count, ~count};
  ibv_sge sge{reinterpret_cast<uintptr_t>(&v), sizeof v, 0};
  ibv_send_wr wr{};
  if (max_inline_ >= sizeof v) {
    wr.send_flags = IBV_SEND_INLINE;
  } else {
    // Rewriting the source while an older write of it is in flight is harmless: counts only
    // grow, and a half-updated slot fails the receiver's check.
    res_->credit_out.mem[peer] = v;
    sge.addr = reinterpret_cast<uintptr_t>(&res_->credit_out.mem[peer]);
    sge.lkey = res_->credit_out.mr->lkey;
  }
  wr.sg_list = &sge;
  wr.num_sge = 1;
  wr.opcode = IBV_WR_RDMA_WRITE;
  wr.wr.rdma.remote_addr = p.addr.credit_base + static_cast<uint64_t>(rank_) * sizeof(CreditSlot);
  wr.wr.rdma.rkey = p.addr.credit_rkey;
  SendSlot slot;
  slot.signaled = signaled;
  post_rc(peer, wr, slot);
}

void VerbsBtl::flush_credit_returns() {
  std::vector<int> due;
  due.swap(credit_due_);
  for (int peer : due) {
    try {
      if (!return_credits(peer)) credit_due_.push_back(peer);
    } catch (const std::exception& e) {
      fail_peer(peers_[static_cast<size_t>(peer)], peer, e.what());
    }
  }
}

}  // namespace mpr::btl::verbs
