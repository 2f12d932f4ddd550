// Posting sends and receives, matching arrivals, and the eager protocol: header and data in
// one active message; an unexpected eager message is copied once into a buffer of its own.
#include <algorithm>
#include <cassert>
#include <cstring>

#include "common/log.h"
#include "pml/pml_impl.h"

namespace mpr::pml {

MatchHdr PmlImpl::make_match_hdr(HdrType type, int dst, int src_rank, int tag, uint32_t ctx) {
  MatchHdr m{};
  m.type = type;
  m.ctx = ctx;
  m.src = src_rank;
  m.tag = tag;
  m.seq = peers_[dst].send_seq++;
  return m;
}

Request* PmlImpl::isend(const void* buf, size_t bytes, int dst_peer, int src_rank, int tag,
                        uint32_t ctx, SendMode mode) {
  return post_send(buf, nullptr, bytes, dst_peer, src_rank, tag, ctx, mode);
}

Request* PmlImpl::isend_conv(Convertor* cv, size_t bytes, int dst_peer, int src_rank, int tag,
                             uint32_t ctx, SendMode mode) {
  return post_send(nullptr, cv, bytes, dst_peer, src_rank, tag, ctx, mode);
}

SendReq* PmlImpl::post_send(const void* buf, Convertor* cv, size_t bytes, int dst_peer,
                            int src_rank, int tag, uint32_t ctx, SendMode mode) {
  assert(dst_peer >= 0 && static_cast<size_t>(dst_peer) < peers_.size());
  auto* s = send_reqs_.make();
  s->kind = Request::Kind::kSend;
  s->peer = dst_peer;
  s->buf = static_cast<const uint8_t*>(buf);
  s->len = bytes;
  s->mode = mode;
  s->conv = cv;
  all_reqs_.push_back(s);
  ++incomplete_;
  if (dst_peer == rank_) ++stats_.self_msgs;
  if (mode == SendMode::kSync) ++stats_.sync_msgs;
  if (bytes <= peers_[dst_peer].eager_limit) {
    if (cv) {
      // At most an eager limit's worth: packed whole, then sent like contiguous data.
      s->staging.reset(new uint8_t[bytes ? bytes : 1]);
      cv->pack(0, s->staging.get(), bytes);
      s->buf = s->staging.get();
    }
    send_eager(s, dst_peer, src_rank, tag, ctx);
  } else {
    send_rts(s, dst_peer, src_rank, tag, ctx);
  }
  return s;
}

void PmlImpl::send_eager(SendReq* s, int dst, int src_rank, int tag, uint32_t ctx) {
  ++stats_.eager_msgs;
  stats_.eager_bytes += s->len;
  if (s->mode == SendMode::kSync) {
    // Completes on the receiver's FIN, sent when the message matches.
    EagerSyncHdr h{};
    h.m = make_match_hdr(HdrType::kEagerSync, dst, src_rank, tag, ctx);
    h.sreq = assign_id(s);
    s->ctx = ctx;
    s->src_rank = src_rank;
    s->seq = h.m.seq;
    send_ctl(dst, &h, sizeof h, nullptr, kAmMatch, s->buf, s->len);
    return;
  }
  MatchHdr h = make_match_hdr(HdrType::kEager, dst, src_rank, tag, ctx);
  s->ctx = ctx;
  s->src_rank = src_rank;
  s->seq = h.seq;
  send_ctl(dst, &h, sizeof h, s, kAmMatch, s->buf, s->len);
}

bool PmlImpl::send_now(const void* buf, size_t bytes, int dst_peer, int src_rank, int tag,
                       uint32_t ctx) {
  assert(dst_peer >= 0 && static_cast<size_t>(dst_peer) < peers_.size());
  Peer& p = peers_[dst_peer];
  if (bytes > p.eager_limit || reg_.backlogged(dst_peer)) return false;
  MatchHdr h = make_match_hdr(HdrType::kEager, dst_peer, src_rank, tag, ctx);
  iovec iov{const_cast<void*>(buf), bytes};
  if (p.btl->send_am(dst_peer, kAmMatch, &h, sizeof h, &iov, bytes ? 1 : 0) ==
      btl::Status::kRetry) {
    --p.send_seq;  // nothing went out: the isend that follows takes this number
    return false;
  }
  ++stats_.eager_msgs;
  stats_.eager_bytes += bytes;
  if (dst_peer == rank_) ++stats_.self_msgs;
  return true;
}

bool PmlImpl::recv_now(void* buf, size_t bytes, int src, int tag, uint32_t ctx, Status* st) {
  if (match_.unexpected_count() == 0) return false;
  ArrivedEntry* e = match_.find_unexpected(ctx, src, tag);
  if (!e) return false;
  auto* m = static_cast<Message*>(e);
  if (m->hdr.m.type == HdrType::kRts) return false;  // rendezvous needs a request
  match_.remove_unexpected(m);
  eager_into(buf, bytes, m->peer, m->hdr, m->data.get(), st);
  free_message(m);
  return true;
}

RecvReq* PmlImpl::new_recv(void* buf, size_t bytes) {
  auto* r = recv_reqs_.make();
  r->kind = Request::Kind::kRecv;
  r->buf = static_cast<uint8_t*>(buf);
  r->cap = bytes;
  all_reqs_.push_back(r);
  ++incomplete_;
  return r;
}

Request* PmlImpl::irecv(void* buf, size_t bytes, int src, int tag, uint32_t ctx) {
  return post_recv(new_recv(buf, bytes), src, tag, ctx);
}

Request* PmlImpl::irecv_conv(Convertor* cv, size_t bytes, int src, int tag, uint32_t ctx) {
  RecvReq* r = new_recv(nullptr, bytes);
  r->conv = cv;
  return post_recv(r, src, tag, ctx);
}

RecvReq* PmlImpl::post_recv(RecvReq* r, int src, int tag, uint32_t ctx) {
  if (auto* m = static_cast<Message*>(match_.take_unexpected(ctx, src, tag))) {
    deliver(r, m->peer, m->hdr, m->data.get());
    free_message(m);
    return r;
  }
  r->ctx = ctx;
  r->src = src;
  r->tag = tag;
  match_.post(r);
  return r;
}

Message* PmlImpl::new_message(size_t payload) {
  Message* m;
  if (spare_msgs_.empty()) {
    m = new Message;
  } else {
    m = spare_msgs_.back();
    spare_msgs_.pop_back();
  }
  if (payload > m->data_cap) {
    m->data.reset(new uint8_t[payload]);
    m->data_cap = payload;
  }
  return m;
}

void PmlImpl::free_message(Message* m) {
  if (m->taken) {
    taken_msgs_.erase(m);
    m->taken = false;
  }
  if (kRecycle && spare_msgs_.size() < kKeptMessages && m->data_cap <= kKeptPayload) {
    assert(!m->queued);
    spare_msgs_.push_back(m);
  } else {
    delete m;
  }
}

void PmlImpl::free_req(ReqBase* r) {
  all_reqs_.erase(r);
  if (r->kind == Request::Kind::kSend)
    send_reqs_.drop(static_cast<SendReq*>(r));
  else
    recv_reqs_.drop(static_cast<RecvReq*>(r));
}

namespace {
void fill_probe_status(const Message* m, Status* st) {
  if (!st) return;
  st->source = m->hdr.m.src;
  st->tag = m->hdr.m.tag;
  st->error = kOk;
  st->bytes = m->hdr.len;
  st->cancelled = false;
}
}  // namespace

bool PmlImpl::iprobe(int src, int tag, uint32_t ctx, Status* st) {
  ArrivedEntry* e = match_.find_unexpected(ctx, src, tag);
  if (!e) {
    progress();
    e = match_.find_unexpected(ctx, src, tag);
  }
  if (!e) return false;
  fill_probe_status(static_cast<Message*>(e), st);
  return true;
}

Message* PmlImpl::improbe(int src, int tag, uint32_t ctx, Status* st) {
  ArrivedEntry* e = match_.take_unexpected(ctx, src, tag);
  if (!e) {
    progress();
    e = match_.take_unexpected(ctx, src, tag);
  }
  if (!e) return nullptr;
  auto* m = static_cast<Message*>(e);
  m->taken = true;
  taken_msgs_.push_back(m);
  fill_probe_status(m, st);
  return m;
}

Request* PmlImpl::imrecv(void* buf, size_t bytes, Message* msg) {
  return post_mrecv(new_recv(buf, bytes), msg);
}

Request* PmlImpl::imrecv_conv(Convertor* cv, size_t bytes, Message* msg) {
  RecvReq* r = new_recv(nullptr, bytes);
  r->conv = cv;
  return post_mrecv(r, msg);
}

RecvReq* PmlImpl::post_mrecv(RecvReq* r, Message* msg) {
  if (!msg) {
    // MPI_MESSAGE_NO_PROC: an empty receive that is complete at once.
    complete(r);
    return r;
  }
  assert(!msg->queued);
  deliver(r, msg->peer, msg->hdr, msg->data.get());
  free_message(msg);
  return r;
}

bool PmlImpl::cancel(Request* req) {
  if (req && req->kind == Request::Kind::kSend) {
    cancel_send(static_cast<SendReq*>(req));
    return false;
  }
  if (!req || req->kind != Request::Kind::kRecv || req->complete) return false;
  auto* r = static_cast<RecvReq*>(req);
  if (!match_.cancel(r)) return false;
  r->status.cancelled = true;
  r->status.bytes = 0;
  complete(r);
  return true;
}

void PmlImpl::cancel_send(SendReq* s) {
  // Matched for sure: a synchronous or rendezvous send that completed (FIN), or one whose
  // receiver asked for the data (CTS: it left the id table). Or already being cancelled.
  if (s->cancelling || (s->complete && (s->rndv || s->mode == SendMode::kSync)) ||
      (!s->complete && s->rndv && s->id == 0))
    return;
  if (s->complete) {
    // A standard eager send completes once its data is out; its message may still wait
    // unmatched at the receiver. The request is incomplete again until the answer.
    s->complete = false;
    ++incomplete_;
    s->finished = true;
  }
  s->cancelling = true;
  CtlHdr c{};
  c.type = HdrType::kCancel;
  c.sreq = assign_id(s);
  c.rreq = uint64_t{s->ctx} << 32 | static_cast<uint32_t>(s->src_rank);
  c.len = s->seq;
  // Behind the message on the same per-peer path, so the receiver has matched or queued it
  // by the time it reads this.
  send_ctl(s->peer, &c, sizeof c);
  // To itself the answer is a local matter: settle it now, so a caller that asks for the
  // status right after MPI_Cancel (and receives the message if it was not withdrawn) sees
  // the outcome instead of receiving a message that is about to disappear.
  if (s->peer == rank_)
    while (s->cancelling) progress();
}

void PmlImpl::on_cancel(int peer, const CtlHdr& c) {
  const auto ctx = static_cast<uint32_t>(c.rreq >> 32);
  const auto src = static_cast<int32_t>(static_cast<uint32_t>(c.rreq));
  const auto seq = static_cast<uint16_t>(c.len);
  ArrivedEntry* e = match_.find_unexpected_if(ctx, src, [&](ArrivedEntry* a) {
    auto* m = static_cast<Message*>(a);
    return m->peer == peer && m->hdr.m.seq == seq;
  });
  CtlHdr ack{};
  ack.type = HdrType::kCancelAck;
  ack.sreq = c.sreq;
  if (e) {
    match_.remove_unexpected(e);
    free_message(static_cast<Message*>(e));
    ack.len = 1;
  }
  send_ctl(peer, &ack, sizeof ack);
}

void PmlImpl::finish_send(SendReq* s) {
  if (s->cancelling) {
    s->finished = true;
    return;
  }
  complete(s);
}

void PmlImpl::process_match(int peer, const MatchHdr& mh, const void* hdr, size_t hdr_len,
                            const void* payload, size_t payload_len) {
  // Normalize every header to an RtsHdr so queued and matched paths share one shape; an
  // eager header fills only its MatchHdr and sreq (the rest is read for kRts only).
  RtsHdr h;
  h.m = mh;
  h.len = payload_len;
  h.sreq = 0;
  bool ok = mh.src >= 0;
  switch (mh.type) {
    case HdrType::kEager:
      break;
    case HdrType::kEagerSync: {
      EagerSyncHdr es{};
      ok = ok && read_hdr(hdr, hdr_len, &es);
      h.sreq = es.sreq;
      break;
    }
    case HdrType::kRts:
      ok = ok && read_hdr(hdr, hdr_len, &h) && payload_len == peers_[peer].btl->caps().rkey_size;
      break;
    default:
      ok = false;
  }
  if (!ok) {
    ++protocol_errors_;
    common::log_error("pml: malformed match message (type %d, %zu+%zu bytes) from peer %d; dropped",
                      static_cast<int>(mh.type), hdr_len, payload_len, peer);
    return;
  }
  if (PostedEntry* e = match_.match_arrival(mh.ctx, mh.src, mh.tag)) {
    deliver(static_cast<RecvReq*>(e), peer, h, payload);
    // Whoever waits for this receive can go on now. Messages behind it stay in the backend
    // until the next progress(), where their receives are likely posted already: matched
    // there, they are copied once, straight into the receive buffer, instead of copied aside
    // as unexpected and copied again. That pays from a few KiB; below, draining a batch is
    // cheaper than a progress() call per message (measured on bcast streams:
    // docs/MEASUREMENTS.md).
    if (h.len >= kYieldAfterBytes) peers_[peer].btl->yield_progress();
    return;
  }
  // An RTS keeps its remote key as the data.
  const size_t data_len = payload_len;
  Message* m = new_message(data_len);
  m->ctx = mh.ctx;
  m->src = mh.src;
  m->tag = mh.tag;
  m->peer = peer;
  if (mh.type == HdrType::kRts) {
    m->hdr = h;
  } else {
    m->hdr.m = mh;
    m->hdr.len = h.len;
    m->hdr.sreq = h.sreq;
  }
  if (data_len > 0) copy_payload(m->data.get(), payload, data_len);
  match_.add_unexpected(m);
  ++stats_.unexpected_msgs;
  if (match_.unexpected_count() > stats_.unexpected_peak)
    stats_.unexpected_peak = match_.unexpected_count();
}

void PmlImpl::deliver(RecvReq* r, int peer, const RtsHdr& h, const void* payload) {
  r->peer = peer;
  r->status.source = h.m.src;
  r->status.tag = h.m.tag;
  r->want = std::min<size_t>(h.len, r->cap);
  r->status.bytes = r->want;
  r->status.error = h.len > r->cap ? kErrTruncate : kOk;
  if (h.m.type == HdrType::kRts)
    start_rndv_recv(r, peer, h, payload);
  else
    deliver_eager(r, peer, h, payload);
}

void PmlImpl::deliver_eager(RecvReq* r, int peer, const RtsHdr& h, const void* payload) {
  if (r->conv) {
    if (r->want) r->conv->unpack(0, payload, r->want);
    if (h.m.type == HdrType::kEagerSync) send_fin(peer, h.sreq);
  } else {
    eager_into(r->buf, r->cap, peer, h, payload, &r->status);
  }
  complete(r);
}

void PmlImpl::eager_into(void* buf, size_t cap, int peer, const RtsHdr& h, const void* payload,
                         Status* st) {
  const size_t n = std::min<size_t>(h.len, cap);
  if (n) copy_payload(buf, payload, n);
  st->source = h.m.src;
  st->tag = h.m.tag;
  st->bytes = n;
  st->error = h.len > cap ? kErrTruncate : kOk;
  st->cancelled = false;
  if (h.m.type == HdrType::kEagerSync) send_fin(peer, h.sreq);
}

void PmlImpl::send_fin(int peer, uint64_t sreq) {
  CtlHdr fin{};
  fin.type = HdrType::kFin;
  fin.sreq = sreq;
  send_ctl(peer, &fin, sizeof fin);
}

}  // namespace mpr::pml
