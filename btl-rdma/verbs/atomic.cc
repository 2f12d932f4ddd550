// 64-bit device atomics: IBV_WR_ATOMIC_FETCH_AND_ADD and IBV_WR_ATOMIC_CMP_AND_SWP on the RC QP
// to the peer, this rank included (the loopback QP of connect.cc).
//
// Why the owner of a word goes through its own device too: most devices (rxe, ConnectX) report
// IBV_ATOMIC_HCA, which makes an atomic indivisible only with respect to other atomics executed
// by the same HCA. rxe, for one, does a plain load, add and store under a driver lock; a CPU
// __atomic_fetch_add landing between that load and store is lost. So every read-modify-write of
// a word that peers may update atomically must be a device atomic, the owner's included.
//
// The old value is written by the device into local registered memory: the caller's `result`
// when it lies inside `result_reg`, else an internal slot (kAtomicSlots of them in one registered
// page) that finish_op() copies to *result before the completion runs. An atomic is always
// signaled: its completion is the only way to learn that the old value has arrived.
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <stdexcept>

#include "btl-rdma/verbs/verbs_btl.h"
#include "btl-rdma/verbs/verbs_consts.h"

namespace mpr::btl::verbs {

Status VerbsBtl::atomic(int peer, AtomicOp aop, uint64_t remote_addr, const RemoteKey& rkey,
                        uint64_t operand, uint64_t compare, uint64_t* result,
                        const Registration* result_reg, Completion* c) {
  auto refuse = [&](const std::string& why) {
    return std::invalid_argument("rank " + std::to_string(rank_) + ": verbs atomic with peer " +
                                 std::to_string(peer) + ": " + why);
  };
  if (!caps_.native_atomics)
    throw std::logic_error("rank " + std::to_string(rank_) + ": verbs atomic: " + atomics_why_);
  // The device NAKs a misaligned target, which breaks the connection: refuse it here instead.
  if (remote_addr % 8 != 0) throw refuse("remote address is not 8-byte aligned");
  if (reinterpret_cast<uintptr_t>(result) % 8 != 0)
    throw refuse("result buffer is not 8-byte aligned");
  Peer& p = peer_at(peer, "atomic");

  char* local = reinterpret_cast<char*>(result);
  uint32_t lkey = 0;
  int32_t slot = -1;
  if (result && result_reg && result_reg->backend_data) {
    const char* base = static_cast<const char*>(result_reg->addr);
    if (local < base || local + sizeof(uint64_t) > base + result_reg->len)
      throw refuse("result buffer lies outside its registration");
    lkey = static_cast<uint32_t>(result_reg->lkey);
  } else {
    if (!res_->atomic_slots.mem) setup_atomic_slots();
    if (atomic_free_.empty()) {
      ++stats_.retry_atomic_slots;
      return Status::kRetry;
    }
    slot = atomic_free_.back();
    local = reinterpret_cast<char*>(&res_->atomic_slots.mem[slot]);
    lkey = res_->atomic_slots.mr->lkey;
  }
  // No send-queue room: kRetry ("no resources right now"), so atomics waiting for room stay in
  // the caller's queue, in the caller's order. A connection still being set up queues them
  // here like get/put (posted in order once it is up).
  if (p.state == ConnState::kUp && (!p.rdma_wait.empty() || !sq_room(p, 1, true))) {
    ++stats_.retry_sq;
    return Status::kRetry;
  }
  if (slot >= 0) atomic_free_.pop_back();
  auto* op = new RdmaOp;
  op->kind = OpKind::kAtomic;
  op->peer = peer;
  op->local = local;
  op->lkey = lkey;
  op->remote = remote_addr;
  op->rkey = static_cast<uint32_t>(rkey.words[0]);
  op->len = sizeof(uint64_t);
  op->c = c;
  op->atomic_op = aop;
  op->operand = operand;
  op->compare = compare;
  op->result = result;
  op->slot = slot;
  ++stats_.atomics;
  return submit_op(p, op, "atomic");
}

bool VerbsBtl::post_atomic(Peer& p, RdmaOp* op) {
  SendSlot slot;
  slot.op = op;
  slot.last_chunk = true;
  slot.signaled = true;
  if (!sq_room(p, 1, true)) return false;
  ibv_sge sge{reinterpret_cast<uintptr_t>(op->local), sizeof(uint64_t), op->lkey};
  ibv_send_wr wr{};
  wr.sg_list = &sge;
  wr.num_sge = 1;
  wr.wr.atomic.remote_addr = op->remote;
  wr.wr.atomic.rkey = op->rkey;
  if (op->atomic_op == AtomicOp::kFetchAdd) {
    wr.opcode = IBV_WR_ATOMIC_FETCH_AND_ADD;
    wr.wr.atomic.compare_add = op->operand;
  } else {
    wr.opcode = IBV_WR_ATOMIC_CMP_AND_SWP;
    wr.wr.atomic.compare_add = op->compare;
    wr.wr.atomic.swap = op->operand;
  }
  post_rc(op->peer, wr, slot);
  op->posted = op->len;
  return true;
}

void VerbsBtl::setup_atomic_slots() {
  const size_t bytes = kAtomicSlots * sizeof(uint64_t);
  RegisteredMem<uint64_t> slots;
  slots.mem = alloc_pages<uint64_t>(bytes, true);
  if (!slots.mem) throw_out_of_memory(rank_, "atomic result slots");
  slots.mr = reg_internal(slots.mem.get(), bytes, IBV_ACCESS_LOCAL_WRITE, "atomic result slots");
  res_->atomic_slots = std::move(slots);
  for (int32_t i = kAtomicSlots - 1; i >= 0; --i) atomic_free_.push_back(i);
}

}  // namespace mpr::btl::verbs
