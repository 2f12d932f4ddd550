// The progress engine: per-peer retry queues, request completion and lifetime, sequence
// checking of matched messages, and the blocking wait.

#include <cassert>
#include <cstring>

#include "common/log.h"
#include "pml/pml_impl.h"

namespace mpr::pml {

// Everything to a peer queues behind the first kRetry (in the registry's backlog, shared with
// one-sided communication) so the peer sees our kAmMatch sequence in order.
void PmlImpl::send_ctl(int peer, const void* hdr, size_t hdr_len, SendReq* done_on_send, int am_id,
                       const void* data, size_t len) {
  assert(hdr_len <= kMaxHdrLen);
  reg_.send_or_queue(peer, am_id, hdr, hdr_len, data, len, done_on_send ? &on_sent : nullptr, this,
                     done_on_send);
}

void PmlImpl::on_sent(void* ctx, void* req) {
  static_cast<PmlImpl*>(ctx)->finish_send(static_cast<SendReq*>(req));
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
  if (r->kind == Request::Kind::kSend) {
    auto* s = static_cast<SendReq*>(r);
    if (s->rndv_counted) {
      s->rndv_counted = false;
      --peers_[size_t(s->peer)].rndv_out;
    }
  }
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
  events += reg_.progress();
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
  return incomplete_ == match_.posted_count() && reg_.flushed() && getters_.empty() &&
         pipelines_.empty();
}

}  // namespace mpr::pml
