// One-sided get/put: RDMA READ/WRITE between registered memory, split into work requests of
// at most rdma_chunk_ bytes (the port's max message size caps it: 8 MiB on soft-RoCE, 1-2 GiB
// on ConnectX; the configured chunk also keeps one huge transfer from monopolising the send
// queue). Only the last chunk asks for a completion (plus whatever the signaling rule needs):
// RC completes in order, so its completion means the whole transfer is done.
#include <algorithm>
#include <stdexcept>

#include "btl-rdma/verbs/verbs_btl.h"
#include "btl-rdma/verbs/verbs_consts.h"
#include "common/log.h"

namespace mpr::btl::verbs {

Status VerbsBtl::get(int peer, void* local, const Registration* local_reg, uint64_t remote_addr,
                     const RemoteKey& rkey, size_t len, Completion* c) {
  return start_rdma(peer, true, static_cast<char*>(local), local_reg, remote_addr, rkey, len, c);
}

Status VerbsBtl::put(int peer, const void* local, const Registration* local_reg,
                     uint64_t remote_addr, const RemoteKey& rkey, size_t len, Completion* c) {
  return start_rdma(peer, false, const_cast<char*>(static_cast<const char*>(local)), local_reg,
                    remote_addr, rkey, len, c);
}

Status VerbsBtl::start_rdma(int peer, bool is_get, char* local, const Registration* local_reg,
                            uint64_t remote_addr, const RemoteKey& rkey, size_t len,
                            Completion* c) {
  const char* call = is_get ? "get" : "put";
  Peer& p = peer_at(peer, call);
  if (len == 0) return Status::kDone;
  auto* op = new RdmaOp;
  op->kind = is_get ? OpKind::kGet : OpKind::kPut;
  op->peer = peer;
  op->local = local;
  op->remote = remote_addr;
  op->rkey = static_cast<uint32_t>(rkey.words[0]);
  op->len = len;
  op->c = c;
  if (local_reg && local_reg->backend_data) {
    const char* base = static_cast<const char*>(local_reg->addr);
    if (local < base || local + len > base + local_reg->len) {
      delete op;
      throw std::invalid_argument("rank " + std::to_string(rank_) + ": verbs " + call +
                                  " with peer " + std::to_string(peer) +
                                  ": local buffer lies outside its registration");
    }
    op->lkey = static_cast<uint32_t>(local_reg->lkey);
  } else {
    try {
      op->tmp_reg = res_->rcache->acquire(local, len);
    } catch (...) {
      delete op;
      throw;
    }
    op->lkey = static_cast<ibv_mr*>(op->tmp_reg->handle)->lkey;
  }
  ++stats_.rdma_ops;
  stats_.rdma_bytes += len;
  return submit_op(p, op, call);
}

// Posts `op` now if the connection is up and nothing is queued before it; otherwise queues it
// (connection pending, or no send-queue room) for progress(). Connects on first use: through
// the UD handshake to a peer, at once for this rank itself (loopback QP).
Status VerbsBtl::submit_op(Peer& p, RdmaOp* op, const char* call) {
  const int peer = op->peer;
  ops_.insert(op);
  if (p.state != ConnState::kUp) {
    start_connect(peer);
    if (p.state == ConnState::kFailed) {
      ops_.erase(op);
      discard_op(op);
      peer_at(peer, call);  // throws with the cause
    }
  }
  if (p.state == ConnState::kUp && p.rdma_wait.empty() && post_rdma(p, op)) return Status::kPosted;
  p.rdma_wait.push_back(op);
  if (p.state == ConnState::kUp &&
      std::find(rdma_waiters_.begin(), rdma_waiters_.end(), peer) == rdma_waiters_.end())
    rdma_waiters_.push_back(peer);
  return Status::kPosted;
}

bool VerbsBtl::post_rdma(Peer& p, RdmaOp* op) {
  if (op->kind == OpKind::kAtomic) return post_atomic(p, op);
  while (op->posted < op->len) {
    const size_t n = std::min(rdma_chunk_, op->len - op->posted);
    SendSlot slot;
    slot.op = op;
    slot.last_chunk = op->posted + n == op->len;
    slot.signaled = slot.last_chunk || want_signal(p);
    if (!sq_room(p, 1, slot.signaled)) return false;
    ibv_sge sge{reinterpret_cast<uintptr_t>(op->local + op->posted), static_cast<uint32_t>(n),
                op->lkey};
    ibv_send_wr wr{};
    wr.sg_list = &sge;
    wr.num_sge = 1;
    wr.opcode = op->kind == OpKind::kGet ? IBV_WR_RDMA_READ : IBV_WR_RDMA_WRITE;
    wr.wr.rdma.remote_addr = op->remote + op->posted;
    wr.wr.rdma.rkey = op->rkey;
    post_rc(op->peer, wr, slot);
    op->posted += n;
    ++stats_.rdma_wrs;
  }
  return true;
}

void VerbsBtl::drive_rdma_waiters() {
  const std::vector<int> list = rdma_waiters_;
  rdma_waiters_.clear();
  for (int peer : list) {
    Peer& p = peers_[static_cast<size_t>(peer)];
    if (p.state != ConnState::kUp) continue;  // failed: drained by fail_peer; else re-added when up
    try {
      while (!p.rdma_wait.empty() && post_rdma(p, p.rdma_wait.front())) p.rdma_wait.pop_front();
    } catch (const std::exception& e) {
      fail_peer(p, peer, e.what());
      continue;
    }
    if (!p.rdma_wait.empty()) rdma_waiters_.push_back(peer);
  }
}

// Completion is reported here, always from inside progress(). An atomic's old value is in the
// caller's hands (copied out of an internal slot if one was used) before its completion runs.
void VerbsBtl::finish_op(RdmaOp* op) {
  ops_.erase(op);
  if (op->slot >= 0 && op->status == 0 && op->result)
    *op->result = res_->atomic_slots.mem[op->slot];
  Completion* c = op->c;
  const int status = op->status;
  discard_op(op);
  if (c && c->fn) c->fn(c, status);
}

// Releases what `op` holds (temporary registration, atomic slot) and deletes it.
void VerbsBtl::discard_op(RdmaOp* op) {
  if (op->tmp_reg && res_) res_->rcache->release(op->tmp_reg);
  if (op->slot >= 0) atomic_free_.push_back(op->slot);
  delete op;
}

}  // namespace mpr::btl::verbs
