// Only mprun's own user may connect to its PMIx server. libpmix 4.2's listener takes TCP
// connections on loopback and believes the uid a client claims in its handshake ("native"
// security), so any local user who reads the job's PMIX_* values could join as a rank and
// abort the job. mprun defines accept() itself, so the listener thread's call lands here
// (an executable's definition precedes libc's for every library it loads): the connecting
// socket's owner is looked up in the kernel (sock_diag for TCP, SO_PEERCRED for unix
// sockets) and a connection of any other uid is closed before libpmix reads a byte of it.
// The listener treats ECONNABORTED as "the client gave up" and goes on listening.
#include <linux/inet_diag.h>
#include <linux/netlink.h>
#include <linux/sock_diag.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstring>

#include "launcher/peer_auth.h"

namespace mpr::launch {

namespace {

std::atomic<int> g_refused{0};

bool tcp_owner(int fd, uid_t* uid) {
  sockaddr_storage local{}, peer{};
  socklen_t llen = sizeof local, plen = sizeof peer;
  if (::getsockname(fd, reinterpret_cast<sockaddr*>(&local), &llen) != 0 ||
      ::getpeername(fd, reinterpret_cast<sockaddr*>(&peer), &plen) != 0 ||
      local.ss_family != peer.ss_family)
    return false;
  struct {
    nlmsghdr nlh;
    inet_diag_req_v2 req;
  } msg{};
  msg.nlh.nlmsg_len = sizeof msg;
  msg.nlh.nlmsg_type = SOCK_DIAG_BY_FAMILY;
  msg.nlh.nlmsg_flags = NLM_F_REQUEST;
  msg.req.sdiag_family = static_cast<uint8_t>(local.ss_family);
  msg.req.sdiag_protocol = IPPROTO_TCP;
  msg.req.idiag_states = ~0U;
  // The client's socket: its source is our peer, its destination is us.
  inet_diag_sockid& id = msg.req.id;
  id.idiag_cookie[0] = INET_DIAG_NOCOOKIE;
  id.idiag_cookie[1] = INET_DIAG_NOCOOKIE;
  if (local.ss_family == AF_INET) {
    const auto* l = reinterpret_cast<const sockaddr_in*>(&local);
    const auto* p = reinterpret_cast<const sockaddr_in*>(&peer);
    id.idiag_sport = p->sin_port;
    id.idiag_dport = l->sin_port;
    std::memcpy(id.idiag_src, &p->sin_addr, sizeof p->sin_addr);
    std::memcpy(id.idiag_dst, &l->sin_addr, sizeof l->sin_addr);
  } else if (local.ss_family == AF_INET6) {
    const auto* l = reinterpret_cast<const sockaddr_in6*>(&local);
    const auto* p = reinterpret_cast<const sockaddr_in6*>(&peer);
    id.idiag_sport = p->sin6_port;
    id.idiag_dport = l->sin6_port;
    std::memcpy(id.idiag_src, &p->sin6_addr, sizeof p->sin6_addr);
    std::memcpy(id.idiag_dst, &l->sin6_addr, sizeof l->sin6_addr);
  } else {
    return false;
  }
  int nl = ::socket(AF_NETLINK, SOCK_DGRAM | SOCK_CLOEXEC, NETLINK_SOCK_DIAG);
  if (nl < 0) return false;
  bool found = false;
  if (::send(nl, &msg, sizeof msg, 0) == static_cast<ssize_t>(sizeof msg)) {
    alignas(nlmsghdr) char buf[8192];
    ssize_t n = ::recv(nl, buf, sizeof buf, 0);
    for (auto* h = reinterpret_cast<nlmsghdr*>(buf); n > 0 && NLMSG_OK(h, static_cast<size_t>(n));
         h = NLMSG_NEXT(h, n)) {
      if (h->nlmsg_type != SOCK_DIAG_BY_FAMILY) break;  // NLMSG_ERROR: no such socket
      const auto* m = static_cast<const inet_diag_msg*>(NLMSG_DATA(h));
      *uid = m->idiag_uid;
      found = true;
      break;
    }
  }
  ::close(nl);
  return found;
}

}  // namespace

bool connection_owner(int fd, uid_t* uid) {
  sockaddr_storage local{};
  socklen_t len = sizeof local;
  if (::getsockname(fd, reinterpret_cast<sockaddr*>(&local), &len) != 0) return false;
  if (local.ss_family == AF_UNIX) {
    ucred cred{};
    socklen_t clen = sizeof cred;
    if (::getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &clen) != 0) return false;
    *uid = cred.uid;
    return true;
  }
  return tcp_owner(fd, uid);
}

}  // namespace mpr::launch

// Replaces libc's accept() in mprun (see the top of this file). Connections of other socket
// families pass unchanged.
extern "C" __attribute__((visibility("default"))) int accept(int fd, sockaddr* addr,
                                                             socklen_t* len) {
  int s = static_cast<int>(::syscall(SYS_accept4, fd, addr, len, 0));
  if (s < 0) return s;
  sockaddr_storage local{};
  socklen_t llen = sizeof local;
  if (::getsockname(s, reinterpret_cast<sockaddr*>(&local), &llen) != 0 ||
      (local.ss_family != AF_INET && local.ss_family != AF_INET6 && local.ss_family != AF_UNIX))
    return s;
  uid_t owner = 0;
  const uid_t me = ::geteuid();
  if (mpr::launch::connection_owner(s, &owner) && owner == me) return s;
  ::close(s);
  // One line per refusal (at most ten): someone tried to join the job.
  if (mpr::launch::g_refused.fetch_add(1) < 10) {
    char line[200];
    int n = owner == me ? std::snprintf(line, sizeof line,
                                        "mprun: refused a connection to the job's PMIx server "
                                        "whose owner could not be determined\n")
                        : std::snprintf(line, sizeof line,
                                        "mprun: refused a connection to the job's PMIx server "
                                        "from uid %u (the job belongs to uid %u)\n",
                                        static_cast<unsigned>(owner), static_cast<unsigned>(me));
    if (n > 0) {
      ssize_t ignored = ::write(STDERR_FILENO, line, static_cast<size_t>(n));
      (void)ignored;
    }
  }
  errno = ECONNABORTED;
  return -1;
}
