// The progress engine: per-peer retry queues, request completion and lifetime, sequence
// checking of matched messages, and the blocking wait.

#include <cassert>
#include <cstring>

#include "common/log.h"
#include "pml/pml_impl.h"

namespace mpr::pml {

void PmlImpl::send_ctl(int peer, const void* hdr, size_t hdr_len, SendReq* done_on_send, int am_id,
                       const void* data, size_t len) {
  assert(hdr_len <= kMaxHdrLen);
  Peer& p = peers_[peer];
  if (p.pending.empty()) {
    iovec iov{const_cast<void*>(data), len};
    btl::Status st = p.btl->send_am(peer, am_id, hdr, hdr_len, &iov, len ? 1 : 0);
    if (st != btl::Status::kRetry) {
      if (done_on_send) complete(done_on_send);
      return;
    }
    pending_peers_.push_back(peer);
  }
  // Everything later to this peer queues behind the first kRetry so the peer sees our
  // kAmMatch sequence in order.
  PendingAm& a = p.pending.emplace_back();
  a.am_id = am_id;
  std::memcpy(a.hdr, hdr, hdr_len);
  a.hdr_len = hdr_len;
  a.data = data;
  a.len = len;
  a.done_on_send = done_on_send;
}

int PmlImpl::drain_pending() {
  int events = 0;
  for (size_t i = 0; i < pending_peers_.size();) {
    int peer = pending_peers_[i];
    Peer& p = peers_[peer];
    while (!p.pending.empty()) {
      PendingAm& a = p.pending.front();
      iovec iov{const_cast<void*>(a.data), a.len};
      if (p.btl->send_am(peer, a.am_id, a.hdr, a.hdr_len, &iov, a.len ? 1 : 0) ==
          btl::Status::kRetry)
        break;
      SendReq* done = a.done_on_send;
      p.pending.pop_front();
      ++events;
      if (done) complete(done);
    }
    if (p.pending.empty()) {
      pending_peers_[i] = pending_peers_.back();
      pending_peers_.pop_back();
    } else {
      ++i;
    }
  }
  return events;
}

uint64_t PmlImpl::assign_id(ReqBase* r) {
  if (r->id == 0) {
    r->id = next_id_++;
    live_.emplace(r->id, r);
  }
  return r->id;
}

ReqBase* PmlImpl::lookup(uint64_t id, const char* what, int peer) {
  auto it = live_.find(id);
  if (it != live_.end()) return it->second;
  ++protocol_errors_;
  common::log_error("pml: %s from peer %d names unknown request %llu; dropped", what, peer,
                    static_cast<unsigned long long>(id));
  return nullptr;
}

// The caller must not touch `r` afterwards: a released request is freed here.
void PmlImpl::complete(ReqBase* r) {
  assert(!r->complete);
  if (r->id) {
    live_.erase(r->id);
    r->id = 0;
  }
  r->complete = true;
  --incomplete_;
  if (r->released) free_req(r);
}

void PmlImpl::release(Request* req) {
  if (!req || req->kind == Request::Kind::kGeneric) return;
  auto* r = static_cast<ReqBase*>(req);
  assert(!r->released);
  if (r->complete) {
    free_req(r);
  } else {
    r->released = true;
  }
}

void PmlImpl::am_match(void* ctx, int src, const void* hdr, size_t hdr_len, const void* payload,
                       size_t payload_len) {
  static_cast<PmlImpl*>(ctx)->on_match_am(src, hdr, hdr_len, payload, payload_len);
}

void PmlImpl::am_ctl(void* ctx, int src, const void* hdr, size_t hdr_len, const void*, size_t) {
  static_cast<PmlImpl*>(ctx)->on_ctl(src, hdr, hdr_len);
}

void PmlImpl::am_frag(void* ctx, int src, const void* hdr, size_t hdr_len, const void* payload,
                      size_t payload_len) {
  static_cast<PmlImpl*>(ctx)->on_frag(src, hdr, hdr_len, payload, payload_len);
}

void PmlImpl::on_match_am(int peer, const void* hdr, size_t hdr_len, const void* payload,
                          size_t payload_len) {
  MatchHdr m{};
  if (peer < 0 || static_cast<size_t>(peer) >= peers_.size() || !read_hdr(hdr, hdr_len, &m)) {
    ++protocol_errors_;
    common::log_error("pml: malformed message (%zu-byte header) from peer %d; dropped", hdr_len,
                      peer);
    return;
  }
  Peer& p = peers_[peer];
  if (m.seq == p.recv_seq) {
    ++p.recv_seq;
    process_match(peer, m, hdr, hdr_len, payload, payload_len);
    if (!p.parked.empty()) drain_parked(peer);
    return;
  }
  ++out_of_sequence_;
  if (!seq_after(m.seq, p.recv_seq)) {
    ++protocol_errors_;
    common::log_error("pml: message from peer %d has stale sequence %u (expected %u); dropped",
                      peer, m.seq, p.recv_seq);
    return;
  }
  // Backends promise per-peer FIFO, so this is a backend bug; matching out of order would
  // break MPI's non-overtaking rule, so hold the message until its predecessors arrive.
  ParkedAm& parked = p.parked[m.seq];
  const auto* h = static_cast<const uint8_t*>(hdr);
  const auto* d = static_cast<const uint8_t*>(payload);
  parked.hdr.assign(h, h + hdr_len);
  parked.payload.assign(d, d + payload_len);
}

void PmlImpl::drain_parked(int peer) {
  Peer& p = peers_[peer];
  for (auto it = p.parked.find(p.recv_seq); it != p.parked.end(); it = p.parked.find(p.recv_seq)) {
    ParkedAm a = std::move(it->second);
    p.parked.erase(it);
    ++p.recv_seq;
    MatchHdr m{};
    read_hdr(a.hdr.data(), a.hdr.size(), &m);  // checked when it was parked
    process_match(peer, m, a.hdr.data(), a.hdr.size(), a.payload.data(), a.payload.size());
  }
}

int PmlImpl::progress() {
  int events = 0;
  for (btl::Btl* b : used_btls_) events += b->progress();
  if (!pending_peers_.empty()) events += drain_pending();
  if (!getters_.empty()) events += drive_gets();
  if (!pipelines_.empty()) events += drive_pipelines();
  events += run_hooks();
  return events;
}

void PmlImpl::wait(Request* req) {
  common::Waiter waiter(wait_policy_, common::WaitKind::kCounted);
  while (!req->complete) {
    int events = progress();
    if (req->kind == Request::Kind::kGeneric && req->poll && req->poll(req)) ++events;
    if (req->complete) break;
    if (events > 0)
      waiter.busy();
    else
      waiter.idle();
  }
}

bool PmlImpl::idle() const {
  return incomplete_ == match_.posted_count() && pending_peers_.empty() && getters_.empty() &&
         pipelines_.empty();
}

}  // namespace mpr::pml
