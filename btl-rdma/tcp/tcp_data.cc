// The tcp backend's data path: frames out (active messages first, bulk fragments between
// them), frames in (several per recv(), get/put data straight into its destination), and the
// emulated get/put.
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "btl-rdma/tcp/tcp_btl.h"
#include "common/log.h"

namespace mpr::btl::tcp {

namespace {

constexpr int kMaxIov = 64;
constexpr int kMaxEvents = 64;

template <typename T>
void append(std::vector<uint8_t>* v, const T& x) {
  const auto* p = reinterpret_cast<const uint8_t*>(&x);
  v->insert(v->end(), p, p + sizeof x);
}

}  // namespace

TcpBtl::PeerState& TcpBtl::peer_for_send(int peer) {
  PeerState& p = peers_[static_cast<size_t>(peer)];
  if (!p.up && !p.connecting && !p.lost) start_connect(peer);
  return p;
}

void TcpBtl::enqueue(int peer, PeerState& p, OutFrame&& f, bool bulk) {
  if (p.lost) return;
  const bool idle = p.ctl.empty() && p.bulk.empty();
  if (!bulk) p.ctl_bytes += f.size();
  (bulk ? p.bulk : p.ctl).push_back(std::move(f));
  if (idle && p.up) flush(peer, p);
}

// Writes what the peer's queues hold until the socket is full. The order on the wire: a
// partly written frame first (a frame is never interrupted), then active messages in order,
// and a bulk fragment only when no active message waits.
void TcpBtl::flush(int peer, PeerState& p) {
  Conn* c = p.up;
  if (!c) return;
  while (!p.ctl.empty() || !p.bulk.empty()) {
    struct Pick {
      bool bulk;
      OutFrame* f;
    };
    Pick picks[kMaxIov / 2];
    int np = 0;
    // At most one frame is partly written, and it is the front of its queue.
    const bool bulk_partial = !p.bulk.empty() && p.bulk.front().sent > 0;
    if (bulk_partial) picks[np++] = {true, &p.bulk.front()};
    for (auto it = p.ctl.begin(); it != p.ctl.end() && np < kMaxIov / 2; ++it)
      picks[np++] = {false, &*it};
    if (np == 0) picks[np++] = {true, &p.bulk.front()};
    iovec iov[kMaxIov];
    int n = 0;
    size_t total = 0;
    for (int i = 0; i < np; ++i) {
      OutFrame& f = *picks[i].f;
      if (f.sent < f.head.size()) iov[n++] = {f.head.data() + f.sent, f.head.size() - f.sent};
      const size_t data_off = f.sent > f.head.size() ? f.sent - f.head.size() : 0;
      if (f.data_len > data_off)
        iov[n++] = {const_cast<uint8_t*>(f.data) + data_off, f.data_len - data_off};
      total += f.size() - f.sent;
    }
    msghdr mh{};
    mh.msg_iov = iov;
    mh.msg_iovlen = static_cast<size_t>(n);
    const ssize_t w = ::sendmsg(c->fd, &mh, MSG_NOSIGNAL | MSG_DONTWAIT);
    if (w < 0) {
      if (errno == EINTR) continue;
      if (errno == EAGAIN) break;
      lose_peer(peer, std::string("send failed: ") + std::strerror(errno));
      return;
    }
    stats_.bytes_sent += static_cast<uint64_t>(w);
    size_t left = static_cast<size_t>(w);
    for (int i = 0; i < np; ++i) {
      OutFrame& f = *picks[i].f;
      const size_t take = std::min(left, f.size() - f.sent);
      f.sent += take;
      left -= take;
      if (f.sent < f.size()) break;
      if (picks[i].bulk) {
        p.bulk.pop_front();
      } else {
        p.ctl_bytes -= f.size();
        p.ctl.pop_front();
      }
    }
    if (static_cast<size_t>(w) < total) break;  // the socket is full
  }
  const bool more = !p.ctl.empty() || !p.bulk.empty();
  if (more != c->want_out && c->state == ConnState::kUp) {
    c->want_out = more;
    watch(c, more ? EPOLLIN | EPOLLOUT : EPOLLIN, false);
  }
}

Status TcpBtl::send_am(int peer, int am_id, const void* hdr, size_t hdr_len,
                       const struct iovec* iov, int iovcnt) {
  size_t payload = 0;
  for (int i = 0; i < iovcnt; ++i) payload += iov[i].iov_len;
  PeerState& p = peer_for_send(peer);
  if (p.lost) return Status::kDone;  // reported already; the job is ending
  if (p.ctl_bytes > cfg_.max_queued) return Status::kRetry;
  FrameHdr fh;
  fh.len = static_cast<uint32_t>(hdr_len + payload);
  fh.type = FrameType::kAm;
  fh.am_id = static_cast<uint8_t>(am_id);
  fh.hdr_len = static_cast<uint16_t>(hdr_len);
  ++stats_.am_sent;
  // The common case: nothing queued and a connection up, so the message goes straight from
  // the caller's memory into the socket.
  size_t written = 0;
  if (p.up && p.ctl.empty() && p.bulk.empty()) {
    iovec v[kMaxIov];
    int n = 0;
    v[n++] = {&fh, sizeof fh};
    if (hdr_len) v[n++] = {const_cast<void*>(hdr), hdr_len};
    for (int i = 0; i < iovcnt && n < kMaxIov; ++i)
      if (iov[i].iov_len) v[n++] = iov[i];
    msghdr mh{};
    mh.msg_iov = v;
    mh.msg_iovlen = static_cast<size_t>(n);
    const ssize_t w = ::sendmsg(p.up->fd, &mh, MSG_NOSIGNAL | MSG_DONTWAIT);
    if (w < 0 && errno != EAGAIN && errno != EINTR) {
      lose_peer(peer, std::string("send failed: ") + std::strerror(errno));
      return Status::kDone;
    }
    if (w > 0) {
      written = static_cast<size_t>(w);
      stats_.bytes_sent += written;
    }
    if (written == sizeof fh + fh.len) return Status::kDone;
  }
  // The rest is copied into a frame of the queue, marked as partly sent.
  OutFrame f;
  f.head.reserve(sizeof fh + fh.len);
  append(&f.head, fh);
  const auto* h = static_cast<const uint8_t*>(hdr);
  f.head.insert(f.head.end(), h, h + hdr_len);
  for (int i = 0; i < iovcnt; ++i) {
    const auto* b = static_cast<const uint8_t*>(iov[i].iov_base);
    f.head.insert(f.head.end(), b, b + iov[i].iov_len);
  }
  f.sent = written;
  p.ctl_bytes += f.size();
  p.ctl.push_back(std::move(f));
  if (p.up) flush(peer, p);
  return Status::kDone;
}

void TcpBtl::reg(void* addr, size_t len, Registration* out) {
  *out = Registration{};
  out->addr = addr;
  out->len = len;
  const uint64_t id = next_reg_++;
  regs_[id] = {reinterpret_cast<uintptr_t>(addr), len};
  out->rkey.words[0] = id;
  out->backend_data = reinterpret_cast<void*>(static_cast<uintptr_t>(id));
}

void TcpBtl::dereg(Registration* reg) {
  regs_.erase(reg->rkey.words[0]);
  *reg = Registration{};
}

bool TcpBtl::check_range(uint64_t reg_id, uint64_t addr, uint64_t len) const {
  auto it = regs_.find(reg_id);
  if (it == regs_.end()) return false;
  const RegEntry& r = it->second;
  return addr >= r.addr && len <= r.len && addr - r.addr <= r.len - len;
}

Status TcpBtl::get(int peer, void* local, const Registration*, uint64_t remote_addr,
                   const RemoteKey& rkey, size_t len, Completion* c) {
  PeerState& p = peer_for_send(peer);
  if (p.lost) return Status::kRetry;
  const uint64_t token = next_token_++;
  gets_[token] = GetOp{static_cast<uint8_t*>(local), len, 0, c, peer};
  GetReq rq{token, rkey.words[0], remote_addr, len};
  queue_ctl(peer, FrameType::kGetReq, &rq, sizeof rq);
  return Status::kPosted;
}

// Data frames of `len` bytes from `data` (not copied: a get's source stays registered until
// the requester is done, a put's until its completion), `fixed` before each frame's data.
void TcpBtl::queue_data(int peer, PeerState& p, FrameType type, const void* fixed, size_t fixed_len,
                        const uint8_t* data, size_t len) {
  size_t off = 0;
  do {
    const size_t n = std::min(cfg_.frag, len - off);
    OutFrame f;
    FrameHdr fh;
    fh.len = static_cast<uint32_t>(fixed_len + n);
    fh.type = type;
    append(&f.head, fh);
    const auto* fx = static_cast<const uint8_t*>(fixed);
    f.head.insert(f.head.end(), fx, fx + fixed_len);
    // The offset is the last 8 bytes of GetResp's token/offset pair and of PutHdr.
    if (type == FrameType::kGetResp) {
      GetResp r;
      std::memcpy(&r, fx, sizeof r);
      r.offset = off;
      std::memcpy(f.head.data() + sizeof fh, &r, sizeof r);
    } else {
      PutHdr h;
      std::memcpy(&h, fx, sizeof h);
      h.offset = off;
      h.addr += off;
      std::memcpy(f.head.data() + sizeof fh, &h, sizeof h);
    }
    f.data = data + off;
    f.data_len = n;
    enqueue(peer, p, std::move(f), true);
    off += n;
  } while (off < len);
}

void TcpBtl::queue_ctl(int peer, FrameType type, const void* body, size_t body_len) {
  OutFrame f;
  FrameHdr fh;
  fh.len = static_cast<uint32_t>(body_len);
  fh.type = type;
  append(&f.head, fh);
  if (body_len) {
    const auto* b = static_cast<const uint8_t*>(body);
    f.head.insert(f.head.end(), b, b + body_len);
  }
  enqueue(peer, peers_[static_cast<size_t>(peer)], std::move(f), false);
}

Status TcpBtl::put(int peer, const void* local, const Registration*, uint64_t remote_addr,
                   const RemoteKey& rkey, size_t len, Completion* c) {
  PeerState& p = peer_for_send(peer);
  if (p.lost) return Status::kRetry;
  const uint64_t token = next_token_++;
  puts_[token] = PutOp{c, peer};
  PutHdr h{token, rkey.words[0], remote_addr, len, 0};
  queue_data(peer, p, FrameType::kPut, &h, sizeof h, static_cast<const uint8_t*>(local), len);
  return Status::kPosted;
}

void TcpBtl::serve_get(int peer, const GetReq& rq) {
  PeerState& p = peers_[static_cast<size_t>(peer)];
  ++stats_.gets_served;
  GetResp r;
  r.token = rq.token;
  if (!check_range(rq.reg_id, rq.addr, rq.len)) {
    r.status = EFAULT;
    queue_ctl(peer, FrameType::kGetResp, &r, sizeof r);
    return;
  }
  queue_data(peer, p, FrameType::kGetResp, &r, sizeof r,
             reinterpret_cast<const uint8_t*>(static_cast<uintptr_t>(rq.addr)), rq.len);
}

bool TcpBtl::flushed() const {
  for (const PeerState& p : peers_)
    if (!p.lost && (!p.ctl.empty() || !p.bulk.empty())) return false;
  return true;
}

int TcpBtl::progress() {
  int events = 0;
  // Input left buffered by a handler's yield_progress() first: epoll does not report it.
  // A connection stays listed until its buffer holds no whole frame.
  for (size_t i = 0; i < ready_.size() && !yield_;) {
    Conn* c = ready_[i];
    c->listed_ready = false;
    ready_[i] = ready_.back();
    ready_.pop_back();
    if (c->state == ConnState::kUp) events += on_readable(c);
  }
  epoll_event ev[kMaxEvents];
  const int n = yield_ ? 0 : epoll_wait(epfd_, ev, kMaxEvents, 0);
  for (int i = 0; i < n; ++i) {
    auto* pl = static_cast<Pollable*>(ev[i].data.ptr);
    if (pl->listener) {
      accept_all(static_cast<Listener*>(pl));
      ++events;
      continue;
    }
    auto* c = static_cast<Conn*>(pl);
    switch (c->state) {
      case ConnState::kConnecting:
        on_connect_ready(c);
        break;
      case ConnState::kHelloSent:
      case ConnState::kAwaitHello:
        on_handshake_input(c);
        break;
      case ConnState::kUp:
        if (ev[i].events & EPOLLOUT) flush(c->peer, peers_[static_cast<size_t>(c->peer)]);
        if (c->state == ConnState::kUp && (ev[i].events & (EPOLLIN | EPOLLHUP | EPOLLERR)))
          events += on_readable(c);
        break;
      case ConnState::kDead:
        break;
    }
    ++events;
  }
  if (!done_.empty()) {
    std::vector<Completion*> done;
    std::vector<int> status;
    done.swap(done_);
    status.swap(done_status_);
    for (size_t i = 0; i < done.size(); ++i) done[i]->fn(done[i], status[i]);
    events += static_cast<int>(done.size());
  }
  graveyard_.clear();
  if (handshaking_ > 0 && (++poll_count_ & 1023) == 0) expire_handshakes();
  yield_ = false;
  return events;
}

// Reads what the socket has: frames are parsed out of the buffer; the data of a get response
// or a put is read straight into its destination.
int TcpBtl::on_readable(Conn* c) {
  int events = 0;
  // A recv() that returned less than it was offered emptied the socket: parse what it brought
  // and return without another recv() to hear EAGAIN (epoll reports the next arrival).
  bool drained = false;
  for (;;) {
    if (c->direct_left > 0) {
      const size_t buffered = c->in_tail - c->in_head;
      if (buffered > 0) {
        const size_t n = std::min(buffered, c->direct_left);
        std::memcpy(c->direct, c->in.data() + c->in_head, n);
        c->in_head += n;
        c->direct += n;
        c->direct_left -= n;
      }
      while (c->direct_left > 0) {
        const ssize_t r = ::recv(c->fd, c->direct, c->direct_left, MSG_DONTWAIT);
        if (r > 0) {
          stats_.bytes_recv += static_cast<uint64_t>(r);
          c->direct += r;
          c->direct_left -= static_cast<size_t>(r);
          continue;
        }
        if (r < 0 && errno == EINTR) continue;
        if (r < 0 && errno == EAGAIN) return events;
        lose_peer(c->peer, r == 0 ? "the peer closed the connection in the middle of a transfer"
                                  : std::string("receive failed: ") + std::strerror(errno));
        return events;
      }
      finish_direct(c);
      ++events;
    }
    if (!parse_frames(c, &events)) return events;  // yielded, or the connection is gone
    if (c->direct_left > 0) continue;
    if (drained) return events;
    // Make room and read more.
    if (c->in_head > 0) {
      std::memmove(c->in.data(), c->in.data() + c->in_head, c->in_tail - c->in_head);
      c->in_tail -= c->in_head;
      c->in_head = 0;
    }
    const size_t room = c->in.size() - c->in_tail;
    const ssize_t r = ::recv(c->fd, c->in.data() + c->in_tail, room, MSG_DONTWAIT);
    if (r > 0) {
      stats_.bytes_recv += static_cast<uint64_t>(r);
      c->in_tail += static_cast<size_t>(r);
      drained = static_cast<size_t>(r) < room;
      continue;
    }
    if (r < 0 && errno == EINTR) continue;
    if (r < 0 && errno == EAGAIN) return events;
    const int peer = c->peer;
    PeerState& p = peers_[static_cast<size_t>(peer)];
    if (r == 0 && (p.goodbye_seen || finalizing_)) {
      close_conn(c);
      return events;
    }
    lose_peer(peer, r == 0 ? "the peer closed the connection (its process ended without "
                             "MPI_Finalize, or was killed)"
                           : std::string("receive failed: ") + std::strerror(errno));
    return events;
  }
}

// Handles every complete frame in the buffer. False when the caller must stop reading: a
// handler yielded (the connection is listed in ready_) or the connection was closed.
bool TcpBtl::parse_frames(Conn* c, int* events) {
  for (;;) {
    const size_t buffered = c->in_tail - c->in_head;
    if (buffered < sizeof(FrameHdr)) return true;
    FrameHdr fh;
    std::memcpy(&fh, c->in.data() + c->in_head, sizeof fh);
    const uint8_t* body = c->in.data() + c->in_head + sizeof fh;
    size_t fixed = fh.len;  // bytes that must be buffered before the frame can be handled
    if (fh.type == FrameType::kGetResp) fixed = std::min<size_t>(fh.len, sizeof(GetResp));
    if (fh.type == FrameType::kPut) fixed = std::min<size_t>(fh.len, sizeof(PutHdr));
    if (fixed > c->in.size() - sizeof fh) {
      lose_peer(c->peer, "protocol error: a frame of " + std::to_string(fh.len) + " bytes");
      return false;
    }
    if (buffered < sizeof fh + fixed) return true;
    c->in_head += sizeof fh + fixed;
    if (!handle_frame(c, fh, body)) return false;
    ++*events;
    if (c->state != ConnState::kUp) return false;
    if (c->direct_left > 0) return true;
    if (yield_) {
      if (c->in_tail > c->in_head && !c->listed_ready) {
        c->listed_ready = true;
        ready_.push_back(c);
      }
      return false;
    }
  }
}

bool TcpBtl::handle_frame(Conn* c, const FrameHdr& fh, const uint8_t* body) {
  const int peer = c->peer;
  switch (fh.type) {
    case FrameType::kAm:
      if (fh.hdr_len > fh.len || fh.am_id >= kMaxAmIds) break;
      ++stats_.am_recv;
      dispatch(fh.am_id, peer, body, fh.hdr_len, body + fh.hdr_len, fh.len - fh.hdr_len);
      return true;
    case FrameType::kGetReq: {
      if (fh.len != sizeof(GetReq)) break;
      GetReq rq;
      std::memcpy(&rq, body, sizeof rq);
      serve_get(peer, rq);
      return true;
    }
    case FrameType::kGetResp: {
      if (fh.len < sizeof(GetResp)) break;
      GetResp r;
      std::memcpy(&r, body, sizeof r);
      auto it = gets_.find(r.token);
      const size_t n = fh.len - sizeof r;
      if (it == gets_.end() || it->second.peer != peer || r.offset > it->second.len ||
          n > it->second.len - r.offset)
        break;
      GetOp& op = it->second;
      if (r.status != 0) {
        done_.push_back(op.c);
        done_status_.push_back(r.status);
        gets_.erase(it);
        return true;
      }
      c->direct = op.local + r.offset;
      c->direct_left = n;
      c->direct_len = n;
      c->direct_token = r.token;
      c->direct_is_put = false;
      if (n == 0) finish_direct(c);
      return true;
    }
    case FrameType::kPut: {
      if (fh.len < sizeof(PutHdr)) break;
      PutHdr h;
      std::memcpy(&h, body, sizeof h);
      const size_t n = fh.len - sizeof h;
      // The whole put must lie in memory this rank registered; a peer cannot write elsewhere.
      if (!check_range(h.reg_id, h.addr - h.offset, h.total) || h.offset + n > h.total) {
        lose_peer(peer, "protocol error: a put outside registered memory");
        return false;
      }
      c->direct = reinterpret_cast<uint8_t*>(static_cast<uintptr_t>(h.addr));
      c->direct_left = n;
      c->direct_len = n;
      c->direct_token = h.token;
      c->direct_is_put = true;
      // The ack goes after the frame that completes the put.
      if (h.offset + n == h.total) c->direct_len = SIZE_MAX;
      if (n == 0) finish_direct(c);
      return true;
    }
    case FrameType::kPutAck: {
      if (fh.len != sizeof(PutAck)) break;
      PutAck a;
      std::memcpy(&a, body, sizeof a);
      auto it = puts_.find(a.token);
      if (it == puts_.end() || it->second.peer != peer) break;
      done_.push_back(it->second.c);
      done_status_.push_back(a.status);
      puts_.erase(it);
      return true;
    }
    case FrameType::kGoodbye:
      peers_[static_cast<size_t>(peer)].goodbye_seen = true;
      return true;
  }
  lose_peer(peer, "protocol error: an unexpected frame (type " +
                      std::to_string(static_cast<int>(fh.type)) + ", " + std::to_string(fh.len) +
                      " bytes)");
  return false;
}

void TcpBtl::finish_direct(Conn* c) {
  const int peer = c->peer;
  c->direct = nullptr;
  c->direct_left = 0;
  if (c->direct_is_put) {
    if (c->direct_len != SIZE_MAX) return;  // more frames of this put follow
    ++stats_.puts_served;
    PutAck a;
    a.token = c->direct_token;
    queue_ctl(peer, FrameType::kPutAck, &a, sizeof a);
    return;
  }
  auto it = gets_.find(c->direct_token);
  if (it == gets_.end()) return;
  it->second.received += c->direct_len;
  if (it->second.received < it->second.len) return;
  done_.push_back(it->second.c);
  done_status_.push_back(0);
  gets_.erase(it);
}

}  // namespace mpr::btl::tcp
