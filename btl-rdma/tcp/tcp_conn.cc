// The tcp backend's connections: lazy connect, the authenticating handshake, the rule that
// settles simultaneous connects, refusal of anything that is not a rank of this job, and
// the loss of a peer.
#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "btl-rdma/tcp/tcp_btl.h"
#include "common/log.h"

namespace mpr::btl::tcp {

namespace {

void tune(int fd, const Config& cfg) {
  int one = 1;
  setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
  if (cfg.sndbuf > 0) setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &cfg.sndbuf, sizeof cfg.sndbuf);
  if (cfg.rcvbuf > 0) setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &cfg.rcvbuf, sizeof cfg.rcvbuf);
}

/// Bytes of input a connection buffers: several active messages per recv(), and room for the
/// largest one.
size_t in_capacity(const Config& cfg) { return std::max<size_t>(cfg.max_am_size * 2, 256 << 10); }

}  // namespace

int64_t TcpBtl::now_ms() const {
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return int64_t{ts.tv_sec} * 1000 + ts.tv_nsec / 1000000;
}

void TcpBtl::watch(Conn* c, uint32_t events, bool add) {
  epoll_event ev{};
  ev.events = events;
  ev.data.ptr = static_cast<Pollable*>(c);
  epoll_ctl(epfd_, add ? EPOLL_CTL_ADD : EPOLL_CTL_MOD, c->fd, &ev);
}

void TcpBtl::start_connect(int peer) {
  PeerState& p = peers_[static_cast<size_t>(peer)];
  auto c = std::make_unique<Conn>();
  c->peer = peer;
  c->state = ConnState::kConnecting;
  c->remote = format_ip(p.dst_addr) + ":" + std::to_string(p.dst_port);
  c->in.resize(in_capacity(cfg_));
  c->fd = ::socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
  if (c->fd < 0) {
    lose_peer(peer, std::string("cannot create a socket: ") + std::strerror(errno));
    return;
  }
  tune(c->fd, cfg_);
  sockaddr_in sa{};
  sa.sin_family = AF_INET;
  if (p.src_addr) {  // leave through the interface whose subnet reaches the peer
    sa.sin_addr.s_addr = htonl(p.src_addr);
    if (::bind(c->fd, reinterpret_cast<sockaddr*>(&sa), sizeof sa) != 0) {
      const int err = errno;
      ::close(c->fd);
      lose_peer(peer, "cannot bind to " + format_ip(p.src_addr) + ": " + std::strerror(err));
      return;
    }
  }
  sa.sin_addr.s_addr = htonl(p.dst_addr);
  sa.sin_port = htons(p.dst_port);
  if (::connect(c->fd, reinterpret_cast<sockaddr*>(&sa), sizeof sa) != 0 && errno != EINPROGRESS) {
    const int err = errno;
    ::close(c->fd);
    lose_peer(peer, "cannot connect to " + c->remote + ": " + std::strerror(err));
    return;
  }
  ++stats_.connects;
  p.connecting = c.get();
  watch(c.get(), EPOLLOUT, true);
  conns_.push_back(std::move(c));
}

// The nonblocking connect finished: say who we are and whom we want.
void TcpBtl::on_connect_ready(Conn* c) {
  int err = 0;
  socklen_t len = sizeof err;
  getsockopt(c->fd, SOL_SOCKET, SO_ERROR, &err, &len);
  const int peer = c->peer;
  if (err != 0) {
    close_conn(c);
    lose_peer(peer, "cannot connect to " + c->remote + ": " + std::strerror(err));
    return;
  }
  const PeerState& p = peers_[static_cast<size_t>(peer)];
  Hello h;
  h.job_hash = job_hash_;
  h.src = rank_;
  h.dst = p.job_rank;
  std::memcpy(h.secret, p.info.secret, sizeof h.secret);
  // A fresh socket's send buffer always takes 40 bytes.
  if (::send(c->fd, &h, sizeof h, MSG_NOSIGNAL) != static_cast<ssize_t>(sizeof h)) {
    const int e = errno;
    close_conn(c);
    lose_peer(peer, "cannot send the handshake to " + c->remote + ": " + std::strerror(e));
    return;
  }
  c->state = ConnState::kHelloSent;
  watch(c, EPOLLIN, false);
}

void TcpBtl::accept_all(Listener* l) {
  for (;;) {
    sockaddr_in sa{};
    socklen_t len = sizeof sa;
    const int fd =
        ::accept4(l->fd, reinterpret_cast<sockaddr*>(&sa), &len, SOCK_NONBLOCK | SOCK_CLOEXEC);
    if (fd < 0) return;  // EAGAIN, or a connection that went away before we took it
    auto c = std::make_unique<Conn>();
    c->fd = fd;
    c->state = ConnState::kAwaitHello;
    c->remote = format_ip(ntohl(sa.sin_addr.s_addr)) + ":" + std::to_string(ntohs(sa.sin_port));
    c->deadline_ms = now_ms() + cfg_.handshake_timeout_ms;
    c->in.resize(sizeof(Hello));
    tune(fd, cfg_);
    ++handshaking_;
    watch(c.get(), EPOLLIN, true);
    conns_.push_back(std::move(c));
  }
}

// Input on a connection that is not up yet: the Hello (accepted side) or the Reply.
void TcpBtl::on_handshake_input(Conn* c) {
  const size_t want = c->state == ConnState::kAwaitHello ? sizeof(Hello) : sizeof(Reply);
  while (c->in_tail < want) {
    const ssize_t n = ::recv(c->fd, c->in.data() + c->in_tail, want - c->in_tail, 0);
    if (n > 0) {
      c->in_tail += static_cast<size_t>(n);
      continue;
    }
    if (n < 0 && (errno == EAGAIN || errno == EINTR)) return;
    if (c->state == ConnState::kAwaitHello) {
      // Closed before saying anything: a connection the other side gave up (it lost a
      // simultaneous connect) or a port probe. Nothing reached MPI; no noise.
      if (c->in_tail == 0) {
        --handshaking_;
        close_conn(c);
      } else {
        reject(c, "closed in the middle of its handshake");
      }
      return;
    }
    const int peer = c->peer;
    PeerState& p = peers_[static_cast<size_t>(peer)];
    close_conn(c);
    if (p.connecting == c) p.connecting = nullptr;
    // The acceptor closed without answering. It does so only after our own Hello was refused
    // as a duplicate... which comes with a Reply; so this is a failure.
    lose_peer(peer, who(peer) + " at " + c->remote + " closed the connection during the handshake");
    return;
  }
  if (c->state == ConnState::kAwaitHello) {
    check_hello(c);
    return;
  }
  Reply r;
  std::memcpy(&r, c->in.data(), sizeof r);
  const int peer = c->peer;
  PeerState& p = peers_[static_cast<size_t>(peer)];
  if (r.magic != kHelloMagic || std::memcmp(r.secret, me_.secret, sizeof r.secret) != 0) {
    p.connecting = nullptr;
    close_conn(c);
    lose_peer(peer, "the process at " + c->remote + " is not " + who(peer) +
                        (peer < size_ ? " of this job" : "") +
                        " (its handshake answer did not authenticate)");
    return;
  }
  p.connecting = nullptr;
  if (r.verdict == Verdict::kDuplicate) {
    // The peer's own connection to us wins; it is on its way (or already here).
    ++stats_.duplicates;
    close_conn(c);
    return;
  }
  c->in_head = c->in_tail = 0;
  become_up(c, peer);
}

void TcpBtl::check_hello(Conn* c) {
  Hello h;
  std::memcpy(&h, c->in.data(), sizeof h);
  if (h.magic != kHelloMagic) return reject(c, "not an MPR connection");
  if (h.version != kWireVersion)
    return reject(c, "wire version " + std::to_string(h.version) + ", this build speaks " +
                         std::to_string(kWireVersion));
  int peer = -1;
  if (h.job_hash == job_hash_) {
    if (h.src < 0 || h.src >= size_ || h.src == rank_)
      peer = -2;
    else
      peer = h.src;
  } else if (auto it = remote_.find({h.job_hash, h.src}); it != remote_.end()) {
    peer = it->second;  // a process of another job this one connected to
  }
  if (peer == -1) return reject(c, "it belongs to another job (none this process is connected to)");
  if (h.dst != rank_ || peer < 0)
    return reject(c, "it names ranks " + std::to_string(h.src) + " -> " + std::to_string(h.dst));
  if (std::memcmp(h.secret, me_.secret, sizeof h.secret) != 0)
    return reject(c, "wrong secret for rank " + std::to_string(rank_));
  PeerState& p = peers_[static_cast<size_t>(peer)];
  if (!p.have_info) return reject(c, who(peer) + " handed over no tcp endpoints");
  --handshaking_;
  Reply r;
  std::memcpy(r.secret, p.info.secret, sizeof r.secret);
  // Simultaneous connects: the connection made by the lower (job, rank) wins on both sides.
  const bool duplicate = p.up || (p.connecting && wins_over(p));
  r.verdict = duplicate ? Verdict::kDuplicate : Verdict::kAccept;
  if (::send(c->fd, &r, sizeof r, MSG_NOSIGNAL) != static_cast<ssize_t>(sizeof r) || duplicate) {
    if (duplicate) ++stats_.duplicates;
    close_conn(c);
    return;
  }
  if (p.connecting) {  // ours loses: the peer (lower rank) will refuse it
    close_conn(p.connecting);
    p.connecting = nullptr;
  }
  ++stats_.accepts;
  c->peer = peer;
  c->in.resize(in_capacity(cfg_));
  c->in_head = c->in_tail = 0;
  become_up(c, peer);
}

void TcpBtl::reject(Conn* c, const std::string& why) {
  --handshaking_;
  ++stats_.rejected;
  if (!logged_reject_) {
    logged_reject_ = true;
    common::log_error(
        "tcp: refused a connection from %s: %s (nothing it sent reached MPI; further "
        "refusals are only counted, see MPR_STATS)",
        c->remote.c_str(), why.c_str());
  }
  close_conn(c);
}

void TcpBtl::become_up(Conn* c, int peer) {
  PeerState& p = peers_[static_cast<size_t>(peer)];
  c->state = ConnState::kUp;
  c->peer = peer;
  p.up = c;
  watch(c, EPOLLIN, false);
  c->want_out = false;
  flush(peer, p);
}

void TcpBtl::close_conn(Conn* c) {
  if (c->state == ConnState::kDead) return;
  c->state = ConnState::kDead;
  epoll_ctl(epfd_, EPOLL_CTL_DEL, c->fd, nullptr);
  ::close(c->fd);
  c->fd = -1;
  if (c->peer >= 0) {
    PeerState& p = peers_[static_cast<size_t>(c->peer)];
    if (p.up == c) p.up = nullptr;
    if (p.connecting == c) p.connecting = nullptr;
  }
  ready_.erase(std::remove(ready_.begin(), ready_.end(), c), ready_.end());
  // Moved to the graveyard: events of this progress() may still point at it.
  for (auto& owned : conns_) {
    if (owned.get() != c) continue;
    graveyard_.push_back(std::move(owned));
    owned = std::move(conns_.back());
    conns_.pop_back();
    break;
  }
}

void TcpBtl::lose_peer(int peer, const std::string& why) {
  PeerState& p = peers_[static_cast<size_t>(peer)];
  if (p.lost) return;
  p.lost = true;
  const std::string where =
      p.dst_port ? " (" + format_ip(p.dst_addr) + ":" + std::to_string(p.dst_port) + ")" : "";
  if (p.up) close_conn(p.up);
  if (p.connecting) close_conn(p.connecting);
  p.ctl.clear();
  p.bulk.clear();
  p.ctl_bytes = 0;
  if (finalizing_) return;
  report_peer_lost(peer, "tcp: connection to " + who(peer) + " on node " + node_of(peer) + where +
                             " lost: " + why);
}

void TcpBtl::expire_handshakes() {
  const int64_t now = now_ms();
  for (size_t i = 0; i < conns_.size();) {
    Conn* c = conns_[i].get();
    if (c->state == ConnState::kAwaitHello && now > c->deadline_ms) {
      reject(c, "it did not complete the handshake within " +
                    std::to_string(cfg_.handshake_timeout_ms / 1000) + " s");
      continue;  // close_conn moved another connection into slot i
    }
    ++i;
  }
}

void TcpBtl::finalize() {
  if (finalizing_) return;
  finalizing_ = true;
  // Every peer we talk to learns that the end of our stream is no failure. The runtime fenced
  // before this, so nothing else is in flight.
  const int64_t until = now_ms() + 2000;
  const int npeers = static_cast<int>(peers_.size());
  for (int peer = 0; peer < npeers; ++peer) {
    PeerState& p = peers_[static_cast<size_t>(peer)];
    if (p.up) queue_ctl(peer, FrameType::kGoodbye, nullptr, 0);
  }
  for (;;) {
    bool pending = false;
    for (int peer = 0; peer < npeers; ++peer) {
      PeerState& p = peers_[static_cast<size_t>(peer)];
      if (p.up && (!p.ctl.empty() || !p.bulk.empty())) {
        flush(peer, p);
        pending = pending || !p.ctl.empty() || !p.bulk.empty();
      }
    }
    if (!pending || now_ms() > until) break;
    progress();
  }
  while (!conns_.empty()) close_conn(conns_.back().get());
  graveyard_.clear();
  for (auto& l : listeners_) {
    epoll_ctl(epfd_, EPOLL_CTL_DEL, l->fd, nullptr);
    ::close(l->fd);
  }
  listeners_.clear();
}

}  // namespace mpr::btl::tcp
