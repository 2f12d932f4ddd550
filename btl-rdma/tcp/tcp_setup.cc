// The tcp backend's setup: configuration, listeners, the modex entry, and which address
// reaches which peer.
#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <stdexcept>
#include <system_error>

#include "btl-rdma/tcp/tcp_btl.h"
#include "common/log.h"
#include "common/params.h"

namespace mpr::btl::tcp {

namespace {

constexpr const char* kModexKey = "mpr.tcp";

std::vector<IfPattern> patterns(const char* param) {
  try {
    return parse_patterns(common::param_string(param));
  } catch (const std::invalid_argument& e) {
    throw std::runtime_error(std::string("tcp: ") + param + ": " + e.what());
  }
}

}  // namespace

uint64_t job_hash(const std::string& job_id) {  // FNV-1a
  uint64_t h = 1469598103934665603ull;
  for (unsigned char c : job_id) h = (h ^ c) * 1099511628211ull;
  return h;
}

Config Config::from_params() {
  Config c;
  c.include = patterns("MPR_TCP_IF_INCLUDE");
  c.exclude = patterns("MPR_TCP_IF_EXCLUDE");
  c.eager_limit = static_cast<size_t>(common::param_int("MPR_TCP_EAGER_LIMIT"));
  c.max_am_size = std::max(c.eager_limit + 1024, size_t{4096});
  c.frag = std::max<size_t>(static_cast<size_t>(common::param_int("MPR_TCP_FRAG")), 4096);
  c.sndbuf = static_cast<int>(common::param_int("MPR_TCP_SNDBUF"));
  c.rcvbuf = static_cast<int>(common::param_int("MPR_TCP_RCVBUF"));
  const std::string btl = common::param_string("MPR_BTL");
  c.explicitly_requested = btl.find("tcp") != std::string::npos;
  c.shm_allowed = btl.empty() || btl.find("shm") != std::string::npos;
  return c;
}

TcpBtl::TcpBtl(common::Bootstrap& bs, const Config& cfg, const std::vector<IfAddr>& addrs,
               bool other_jobs_only)
    : bs_(bs), cfg_(cfg), rank_(bs.rank()), size_(bs.size()), addrs_(addrs) {
  caps_.name = "tcp";
  caps_.rank = 30;  // after shm (10) and verbs (20)
  caps_.rkey_size = sizeof(uint64_t);
  caps_.max_am_size = cfg_.max_am_size;
  caps_.eager_limit = cfg_.eager_limit;
  // get() is served by the peer's progress(), which a rendezvous sender is always in (it
  // waits for the FIN); the data lands straight in the receiver's buffer.
  caps_.native_get = true;
  caps_.native_put = true;
  caps_.emulated_rdma = true;
  caps_.needs_registration = false;
  caps_.rndv_get_min = 0;
  caps_.native_atomics = false;
  caps_.other_jobs = true;
  job_hash_ = job_hash(bs.job_id());
  epfd_ = epoll_create1(EPOLL_CLOEXEC);
  if (epfd_ < 0) throw std::system_error(errno, std::generic_category(), "tcp: epoll_create1");
  if (getrandom(me_.secret, sizeof me_.secret, 0) != static_cast<ssize_t>(sizeof me_.secret))
    throw std::system_error(errno, std::generic_category(), "tcp: getrandom");
  char host[kHostNameBytes] = {};
  gethostname(host, sizeof host - 1);
  std::memcpy(me_.host, host, sizeof me_.host);
  for (const IfAddr& a : addrs_) {
    if (me_.nendpoints == static_cast<uint32_t>(kMaxEndpoints)) break;
    open_listener(a.addr);
    Endpoint& e = me_.endpoints[me_.nendpoints++];
    e.addr_be = htonl(a.addr);
    e.port_be = htons(listeners_.back()->port);
    e.prefix = static_cast<uint8_t>(a.prefix);
  }
  // Peers on this node are shm's, unless MPR_BTL leaves shm out: then they connect over
  // loopback, which works whatever interfaces exist and never leaves the host. (Without a
  // loopback listener a local peer is still reached through a shared interface address.)
  // Processes of other jobs on this host connect over loopback too.
  if (other_jobs_only || (bs.local_peers().size() > 1 && (!cfg_.shm_allowed || addrs_.empty()))) {
    open_listener(INADDR_LOOPBACK);
    me_.loopback_port_be = htons(listeners_.back()->port);
  }
  peers_.resize(static_cast<size_t>(size_));
  for (int peer = 0; peer < size_; ++peer) {
    peers_[static_cast<size_t>(peer)].job_hash = job_hash_;
    peers_[static_cast<size_t>(peer)].job_rank = peer;
    if (other_jobs_only)
      peers_[static_cast<size_t>(peer)].why_not = "tcp serves only processes of other jobs here";
  }
  if (other_jobs_only) return;
  const auto* p = reinterpret_cast<const uint8_t*>(&me_);
  bs.put(kModexKey, std::vector<uint8_t>(p, p + sizeof me_));
}

TcpBtl::~TcpBtl() {
  for (auto& c : conns_)
    if (c->fd >= 0) ::close(c->fd);
  for (auto& l : listeners_) ::close(l->fd);
  if (epfd_ >= 0) ::close(epfd_);
}

void TcpBtl::open_listener(uint32_t addr) {
  auto l = std::make_unique<Listener>();
  l->listener = true;
  l->addr = addr;
  l->fd = ::socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
  if (l->fd < 0) throw std::system_error(errno, std::generic_category(), "tcp: socket");
  sockaddr_in sa{};
  sa.sin_family = AF_INET;
  sa.sin_addr.s_addr = htonl(addr);
  sa.sin_port = 0;  // ephemeral
  socklen_t len = sizeof sa;
  if (::bind(l->fd, reinterpret_cast<sockaddr*>(&sa), sizeof sa) != 0 ||
      ::listen(l->fd, SOMAXCONN) != 0 ||
      ::getsockname(l->fd, reinterpret_cast<sockaddr*>(&sa), &len) != 0) {
    const int err = errno;
    ::close(l->fd);
    throw std::system_error(
        err, std::generic_category(),
        "tcp: rank " + std::to_string(rank_) + ": cannot listen on " + format_ip(addr));
  }
  l->port = ntohs(sa.sin_port);
  epoll_event ev{};
  ev.events = EPOLLIN;
  ev.data.ptr = static_cast<Pollable*>(l.get());
  epoll_ctl(epfd_, EPOLL_CTL_ADD, l->fd, &ev);
  listeners_.push_back(std::move(l));
}

uint16_t TcpBtl::listen_port() const { return listeners_.empty() ? 0 : listeners_.front()->port; }

void TcpBtl::wire_up(common::Bootstrap& bs) {
  const std::vector<int>& local = bs.local_peers();
  for (int peer = 0; peer < size_; ++peer) {
    PeerState& p = peers_[static_cast<size_t>(peer)];
    if (peer == rank_) {
      p.why_not = "this rank itself";
      continue;
    }
    if (!read_entry(bs, peer, p)) continue;
    p.local = std::find(local.begin(), local.end(), peer) != local.end();
    choose_route(peer, p);
  }
}

bool TcpBtl::read_entry(common::Bootstrap& bs, int peer, PeerState& p) {
  std::vector<uint8_t> raw;
  if (!bs.get(peer, kModexKey, &raw) || raw.size() != sizeof(ModexEntry)) {
    p.why_not = "it published no tcp endpoints (tcp not loaded there)";
    return false;
  }
  std::memcpy(&p.info, raw.data(), sizeof p.info);
  p.info.host[kHostNameBytes - 1] = 0;
  if (p.info.version != kModexVersion) {
    p.why_not = "its tcp modex entry has version " + std::to_string(p.info.version);
    return false;
  }
  p.have_info = true;
  return true;
}

void TcpBtl::add_peers(common::Bootstrap& bs, int first) {
  const int n = bs.npeers();
  if (static_cast<int>(peers_.size()) < n) peers_.resize(static_cast<size_t>(n));
  for (int peer = first; peer < n; ++peer) {
    PeerState& p = peers_[static_cast<size_t>(peer)];
    p.job_id = bs.peer_job(peer);
    p.job_hash = job_hash(p.job_id);
    p.job_rank = bs.peer_rank(peer);
    remote_[{p.job_hash, p.job_rank}] = peer;
    if (!read_entry(bs, peer, p)) continue;
    // On this host (same name) its loopback listener is the way in, as for local ranks.
    p.local = std::strncmp(p.info.host, me_.host, kHostNameBytes) == 0;
    choose_route(peer, p);
  }
}

void TcpBtl::contact(std::map<std::string, std::vector<uint8_t>>* entries) const {
  const auto* p = reinterpret_cast<const uint8_t*>(&me_);
  (*entries)[kModexKey] = std::vector<uint8_t>(p, p + sizeof me_);
}

void TcpBtl::choose_route(int peer, PeerState& p) {
  if (p.local && p.info.loopback_port_be != 0) {
    p.dst_addr = INADDR_LOOPBACK;
    p.dst_port = ntohs(p.info.loopback_port_be);
    p.src_addr = 0;
    p.reachable = true;
    return;
  }
  // Loopback reaches another node's rank never: only when both run on this host (same name).
  const bool same_host = std::strncmp(p.info.host, me_.host, kHostNameBytes) == 0;
  auto loopback = [](uint32_t a) { return (a >> 24) == 127; };
  for (const IfAddr& mine : addrs_) {
    for (uint32_t i = 0; i < std::min<uint32_t>(p.info.nendpoints, kMaxEndpoints); ++i) {
      const Endpoint& e = p.info.endpoints[i];
      const uint32_t theirs = ntohl(e.addr_be);
      if (!same_subnet(mine.addr, mine.prefix, theirs, e.prefix)) continue;
      if (!same_host && (loopback(mine.addr) || loopback(theirs))) continue;
      p.dst_addr = theirs;
      p.dst_port = ntohs(e.port_be);
      p.src_addr = mine.addr;
      p.reachable = true;
      return;
    }
  }
  std::string theirs, ours;
  for (uint32_t i = 0; i < std::min<uint32_t>(p.info.nendpoints, kMaxEndpoints); ++i)
    theirs += (theirs.empty() ? "" : ", ") +
              format_cidr(ntohl(p.info.endpoints[i].addr_be), p.info.endpoints[i].prefix);
  for (const IfAddr& a : addrs_) ours += (ours.empty() ? "" : ", ") + format_cidr(a.addr, a.prefix);
  p.why_not = "no interface of this rank (" + (ours.empty() ? std::string("none") : ours) +
              ") shares a subnet with one of " + who(peer) + "'s (" +
              (theirs.empty() ? std::string("none") : theirs) + "); see MPR_TCP_IF_INCLUDE";
}

bool TcpBtl::reachable(int peer) const {
  return peer >= 0 && static_cast<size_t>(peer) < peers_.size() &&
         peers_[static_cast<size_t>(peer)].reachable;
}

std::string TcpBtl::why_unreachable(int peer) const {
  if (peer < 0 || static_cast<size_t>(peer) >= peers_.size()) return "";
  return peers_[static_cast<size_t>(peer)].why_not;
}

std::string TcpBtl::who(int peer) const {
  const PeerState& p = peers_[static_cast<size_t>(peer)];
  if (peer < size_) return "rank " + std::to_string(peer);
  return "rank " + std::to_string(p.job_rank) + " of job " + p.job_id;
}

std::string TcpBtl::node_of(int peer) const {
  const PeerState& p = peers_[static_cast<size_t>(peer)];
  return p.have_info && p.info.host[0] ? p.info.host : "?";
}

std::string TcpBtl::describe() const {
  std::string eps;
  for (const auto& l : listeners_)
    eps += (eps.empty() ? "" : ", ") + format_ip(l->addr) + ":" + std::to_string(l->port);
  return "tcp: listening on " + eps + "; eager <= " + std::to_string(caps_.eager_limit) +
         " B, get/put served by the peer's progress in " + std::to_string(cfg_.frag >> 10) +
         " KiB frames";
}

std::string TcpBtl::stats_text() const {
  char buf[512];
  std::snprintf(buf, sizeof buf,
                "  tcp:         %llu msgs sent, %llu received, %llu/%llu bytes out/in; "
                "connections %llu made, %llu accepted, %llu duplicate, %llu refused; gets "
                "served %llu, puts %llu\n",
                static_cast<unsigned long long>(stats_.am_sent),
                static_cast<unsigned long long>(stats_.am_recv),
                static_cast<unsigned long long>(stats_.bytes_sent),
                static_cast<unsigned long long>(stats_.bytes_recv),
                static_cast<unsigned long long>(stats_.connects),
                static_cast<unsigned long long>(stats_.accepts),
                static_cast<unsigned long long>(stats_.duplicates),
                static_cast<unsigned long long>(stats_.rejected),
                static_cast<unsigned long long>(stats_.gets_served),
                static_cast<unsigned long long>(stats_.puts_served));
  return buf;
}

}  // namespace mpr::btl::tcp

namespace mpr::btl {

std::unique_ptr<Btl> make_tcp_btl_other_jobs(common::Bootstrap& bs) {
  const tcp::Config cfg = tcp::Config::from_params();
  const std::vector<tcp::IfAddr> addrs =
      tcp::select_addresses(tcp::host_addresses(), cfg.include, cfg.exclude);
  // With no usable interface it still listens on loopback, for processes on this host.
  return std::make_unique<tcp::TcpBtl>(bs, cfg, addrs, true);
}

std::unique_ptr<Btl> make_tcp_btl(common::Bootstrap& bs) {
  if (bs.size() < 2) return nullptr;  // no peer to reach
  const tcp::Config cfg = tcp::Config::from_params();
  // A job on one node opens no sockets unless asked to.
  if (static_cast<int>(bs.local_peers().size()) == bs.size() && !cfg.explicitly_requested)
    throw Unavailable("every rank of the job is on this node (MPR_BTL=self,tcp to use tcp here)");
  const std::vector<tcp::IfAddr> addrs =
      tcp::select_addresses(tcp::host_addresses(), cfg.include, cfg.exclude);
  if (addrs.empty() && bs.local_peers().size() < 2) {
    std::string why = "no usable IPv4 interface";
    if (!cfg.include.empty()) why += " matches MPR_TCP_IF_INCLUDE";
    throw Unavailable(why);
  }
  return std::make_unique<tcp::TcpBtl>(bs, cfg, addrs);
}

}  // namespace mpr::btl
