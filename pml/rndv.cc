// Rendezvous: the sender exposes its buffer and sends RTS; the matched receiver reads it with
// get() in chunks straight into the user buffer and answers FIN. A buffer offered with
// kFlagGetIfDuplex is read only while the receiver has rendezvous sends of its own to the
// sender in flight (both directions busy), and otherwise goes the copy pipeline's way. When the backend cannot read
// remote memory (no native get, reg() or get() failed), the receiver answers CTS instead and
// the sender pushes the data as fragments (copy pipeline) and completes after the last one.
// Non-contiguous data (a Convertor) never goes through one whole-message buffer: the sender
// always uses the copy pipeline and packs each fragment as it goes; the receiver gets chunks
// into a few bounce buffers and unpacks each as it completes, or unpacks fragments.
#include <algorithm>
#include <cassert>
#include <cstring>
#include <exception>

#include "common/log.h"
#include "pml/pml_impl.h"

namespace mpr::pml {

void PmlImpl::send_rts(SendReq* s, int dst, int src_rank, int tag, uint32_t ctx) {
  s->rndv = true;
  btl::Btl* b = peers_[dst].btl;
  RtsHdr h{};
  h.m = make_match_hdr(HdrType::kRts, dst, src_rank, tag, ctx);
  h.len = s->len;
  h.sreq = assign_id(s);
  s->ctx = ctx;
  s->src_rank = src_rank;
  s->seq = h.m.seq;
  h.addr = reinterpret_cast<uint64_t>(s->buf);
  h.m.flags = kFlagNoGet;
  const btl::Caps& caps = b->caps();
  const bool duplex_only = s->len < caps.rndv_get_min && caps.rndv_get_duplex_min > 0 &&
                           s->len >= caps.rndv_get_duplex_min &&
                           s->len <= caps.rndv_get_duplex_max;
  ++peers_[dst].rndv_out;
  s->rndv_counted = true;
  if (caps.native_get && !s->conv && (s->len >= caps.rndv_get_min || duplex_only)) {
    try {
      b->reg(const_cast<uint8_t*>(s->buf), s->len, &s->reg);
      s->registered = true;
      s->reg_btl = b;
      h.m.flags = duplex_only ? kFlagGetIfDuplex : 0;
    } catch (const std::exception& e) {
      common::log_verbose(
          "pml: %s reg() of %zu bytes for peer %d failed (%s); using the copy "
          "pipeline",
          b->caps().name, s->len, dst, e.what());
    }
  }
  // The key (zero under kFlagNoGet) lives in the request until FIN, so it may wait in the
  // backlog.
  send_ctl(dst, &h, sizeof h, nullptr, kAmMatch, &s->reg.rkey, b->caps().rkey_size);
}

void PmlImpl::drop_send_reg(SendReq* s) {
  if (!s->registered) return;
  s->reg_btl->dereg(&s->reg);
  s->registered = false;
}

void PmlImpl::start_rndv_recv(RecvReq* r, int peer, const RtsHdr& h, const void* key) {
  r->sreq = h.sreq;
  r->remote_addr = h.addr;
  r->rkey = btl::RemoteKey{};
  if (const size_t n = peers_[peer].btl->caps().rkey_size) std::memcpy(&r->rkey, key, n);
  if (r->want == 0) {
    send_fin(peer, r->sreq);
    complete(r);
    return;
  }
  btl::Btl* b = peers_[peer].btl;
  // A get offered for both-directions traffic only: without sends of ours to this peer in
  // flight the copy pipeline is faster.
  const bool duplex = peers_[peer].rndv_out > 0;
  if ((h.m.flags & kFlagNoGet) || !b->caps().native_get ||
      ((h.m.flags & kFlagGetIfDuplex) && !duplex)) {
    request_cts(r);
    return;
  }
  uint8_t* local = r->buf;
  size_t local_len = r->want;
  if (r->conv) {
    r->bounce_chunk = std::min({cfg_.get_chunk, cfg_.pack_chunk, r->want});
    local_len = r->bounce_chunk * static_cast<size_t>(cfg_.get_inflight);
    r->bounce.reset(new uint8_t[local_len]);
    local = r->bounce.get();
  }
  if (b->caps().needs_registration) {
    try {
      b->reg(local, local_len, &r->reg);
      r->registered = true;
      r->reg_btl = b;
    } catch (const std::exception& e) {
      common::log_verbose(
          "pml: %s reg() of a %zu-byte receive buffer failed (%s); asking peer "
          "%d for the copy pipeline",
          b->caps().name, r->want, e.what(), peer);
      r->bounce.reset();
      request_cts(r);
      return;
    }
  }
  r->chunks.reset(new GetChunk[cfg_.get_inflight]);
  for (int i = 0; i < cfg_.get_inflight; ++i) {
    r->chunks[i].c.fn = &PmlImpl::on_get_done;
    r->chunks[i].req = r;
    if (r->conv) r->chunks[i].dst = r->bounce.get() + static_cast<size_t>(i) * r->bounce_chunk;
  }
  getters_.push_back(r);
  drive_get(r);
  finish_get(r);
}

void PmlImpl::request_cts(RecvReq* r) {
  CtlHdr cts{};
  cts.type = HdrType::kCts;
  cts.sreq = r->sreq;
  cts.rreq = assign_id(r);
  cts.len = r->want;
  r->done = 0;
  send_ctl(r->peer, &cts, sizeof cts);
}

void PmlImpl::on_get_done(btl::Completion* c, int status) {
  auto* chunk = reinterpret_cast<GetChunk*>(c);
  RecvReq* r = chunk->req;
  chunk->busy = false;
  --r->inflight;
  if (status == 0 && r->conv) r->conv->unpack(chunk->pos, chunk->dst, chunk->len);
  if (status == 0)
    r->done += chunk->len;
  else
    r->get_failed = true;
}

// Issues get()s up to the in-flight window. At most get_inflight per call even when the
// backend finishes them synchronously, so one huge message cannot starve other traffic.
void PmlImpl::drive_get(RecvReq* r) {
  btl::Btl* b = peers_[r->peer].btl;
  const btl::Registration* lreg = r->registered ? &r->reg : nullptr;
  for (int issued = 0; issued < cfg_.get_inflight && !r->get_failed && r->next_get < r->want;
       ++issued) {
    GetChunk* slot = nullptr;
    for (int i = 0; i < cfg_.get_inflight && !slot; ++i)
      if (!r->chunks[i].busy) slot = &r->chunks[i];
    if (!slot) return;
    size_t len = std::min(r->conv ? r->bounce_chunk : cfg_.get_chunk, r->want - r->next_get);
    uint8_t* dst = r->conv ? slot->dst : r->buf + r->next_get;
    btl::Status st;
    try {
      st = b->get(r->peer, dst, lreg, r->remote_addr + r->next_get, r->rkey, len, &slot->c);
    } catch (const std::exception& e) {
      common::log_verbose(
          "pml: %s get() of %zu bytes from peer %d failed (%s); asking for the "
          "copy pipeline",
          b->caps().name, len, r->peer, e.what());
      r->get_failed = true;
      return;
    }
    if (st == btl::Status::kRetry) return;
    const size_t pos = r->next_get;
    r->next_get += len;
    if (st == btl::Status::kDone) {
      if (r->conv) r->conv->unpack(pos, dst, len);
      r->done += len;
    } else {
      slot->busy = true;
      slot->len = len;
      slot->pos = pos;
      ++r->inflight;
    }
  }
}

// True if `r` left the get path (finished, or switched to the copy pipeline).
bool PmlImpl::finish_get(RecvReq* r) {
  if (r->inflight > 0) return false;
  if (!r->get_failed && r->done < r->want) return false;
  getters_.erase(r);
  r->chunks.reset();
  if (r->registered) {
    r->reg_btl->dereg(&r->reg);
    r->registered = false;
  }
  r->bounce.reset();
  if (r->get_failed) {
    common::log_verbose("pml: get() from peer %d failed; asking it for the copy pipeline", r->peer);
    r->next_get = 0;
    r->get_failed = false;
    request_cts(r);
    return true;
  }
  send_fin(r->peer, r->sreq);
  complete(r);
  return true;
}

int PmlImpl::drive_gets() {
  int events = 0;
  for (RecvReq* r = getters_.front(); r;) {
    RecvReq* next = IList<RecvReq, ActiveTag>::next(r);
    size_t before = r->done;
    drive_get(r);
    if (r->done != before) ++events;
    if (finish_get(r)) ++events;
    r = next;
  }
  return events;
}

int PmlImpl::drive_pipelines() {
  int events = 0;
  for (SendReq* s = pipelines_.front(); s;) {
    SendReq* next = IList<SendReq, ActiveTag>::next(s);
    Peer& p = peers_[s->peer];
    // Fragments wait behind queued messages to keep the per-peer queue the only backlog.
    for (int n = 0;
         n < cfg_.frag_budget && !reg_.backlogged(s->peer) && s->frag_offset < s->frag_limit; ++n) {
      size_t len = std::min(p.frag_payload, s->frag_limit - s->frag_offset);
      FragHdr f{};
      f.type = HdrType::kFrag;
      f.rreq = s->rreq;
      f.offset = s->frag_offset;
      const uint8_t* data;
      if (s->conv) {
        // send_am copies before it returns, so one scratch fragment serves every send; after
        // kRetry the same range is packed again.
        if (frag_scratch_.size() < len) frag_scratch_.resize(p.frag_payload);
        s->conv->pack(s->frag_offset, frag_scratch_.data(), len);
        data = frag_scratch_.data();
      } else {
        data = s->buf + s->frag_offset;
      }
      iovec iov{const_cast<uint8_t*>(data), len};
      if (p.btl->send_am(s->peer, kAmFrag, &f, sizeof f, &iov, 1) == btl::Status::kRetry) break;
      s->frag_offset += len;
      ++events;
    }
    if (s->frag_offset == s->frag_limit) {
      pipelines_.erase(s);
      finish_send(s);
    }
    s = next;
  }
  return events;
}

void PmlImpl::on_ctl(int peer, const void* hdr, size_t hdr_len) {
  CtlHdr c{};
  if (!read_hdr(hdr, hdr_len, &c) ||
      (c.type != HdrType::kFin && c.type != HdrType::kCts && c.type != HdrType::kCancel &&
       c.type != HdrType::kCancelAck)) {
    ++protocol_errors_;
    common::log_error("pml: malformed control message (%zu bytes) from peer %d; dropped", hdr_len,
                      peer);
    return;
  }
  if (c.type == HdrType::kCancel) {
    on_cancel(peer, c);
    return;
  }
  const char* what = c.type == HdrType::kFin   ? "FIN"
                     : c.type == HdrType::kCts ? "CTS"
                                               : "cancel answer";
  ReqBase* base = lookup(c.sreq, what, peer);
  if (!base) return;
  if (base->kind != Request::Kind::kSend || base->peer != peer) {
    ++protocol_errors_;
    common::log_error("pml: control message from peer %d names request %llu of another peer", peer,
                      static_cast<unsigned long long>(c.sreq));
    return;
  }
  auto* s = static_cast<SendReq*>(base);
  if (c.type == HdrType::kCancelAck) {
    s->cancelling = false;
    if (c.len == 1) {
      // Withdrawn unmatched: nothing else will address this request.
      drop_send_reg(s);
      s->status.cancelled = true;
      complete(s);
    } else if (s->finished) {
      complete(s);
    }
    return;
  }
  drop_send_reg(s);
  if (c.type == HdrType::kFin) {
    if (s->rndv) {
      ++stats_.rndv_msgs;
      stats_.rndv_bytes += s->len;
    }
    finish_send(s);
    return;
  }
  ++stats_.rndv_fallback_msgs;
  s->rreq = c.rreq;
  s->frag_offset = 0;
  s->frag_limit = std::min<size_t>(c.len, s->len);
  // Nothing addresses the sender after CTS (but the answer to a cancellation sent before it
  // came): it completes when its last fragment is out.
  if (!s->cancelling) {
    live_.erase(s->id);
    s->id = 0;
  }
  pipelines_.push_back(s);
}

void PmlImpl::on_frag(int peer, const void* hdr, size_t hdr_len, const void* payload,
                      size_t payload_len) {
  FragHdr f{};
  if (!read_hdr(hdr, hdr_len, &f) || f.type != HdrType::kFrag) {
    ++protocol_errors_;
    common::log_error("pml: malformed fragment (%zu-byte header) from peer %d; dropped", hdr_len,
                      peer);
    return;
  }
  ReqBase* base = lookup(f.rreq, "fragment", peer);
  if (!base) return;
  auto* r = static_cast<RecvReq*>(base);
  if (base->kind != Request::Kind::kRecv || r->peer != peer || f.offset > r->want ||
      payload_len > r->want - f.offset) {
    ++protocol_errors_;
    common::log_error(
        "pml: fragment from peer %d (offset %llu, %zu bytes) does not fit request "
        "%llu; dropped",
        peer, static_cast<unsigned long long>(f.offset), payload_len,
        static_cast<unsigned long long>(f.rreq));
    return;
  }
  if (r->conv)
    r->conv->unpack(f.offset, payload, payload_len);
  else
    std::memcpy(r->buf + f.offset, payload, payload_len);
  r->done += payload_len;
  if (r->done == r->want) complete(r);
}

}  // namespace mpr::pml
