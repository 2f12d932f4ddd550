#include "runtime/core/ports.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cctype>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <map>
#include <stdexcept>

#include "btl-rdma/tcp/ifaces.h"
#include "common/params.h"
#include "runtime/core/errors.h"

namespace mpr::runtime {

namespace {

std::map<std::string, int> g_ports;  // name -> listening socket

uint32_t port_address() {
  namespace tcp = btl::tcp;
  std::vector<tcp::IfAddr> chosen = tcp::select_addresses(
      tcp::host_addresses(), tcp::parse_patterns(common::param_string("MPR_TCP_IF_INCLUDE")),
      tcp::parse_patterns(common::param_string("MPR_TCP_IF_EXCLUDE")));
  return chosen.empty() ? INADDR_LOOPBACK : chosen.front().addr;
}

}  // namespace

int open_port(const char* fn, std::string* name) {
  uint32_t addr;
  try {
    addr = port_address();
  } catch (const std::invalid_argument& e) {
    return make_error(MPI_ERR_PORT, fn, "no address to listen on: %s", e.what());
  }
  unsigned char token[16];
  if (getrandom(token, sizeof token, 0) != static_cast<ssize_t>(sizeof token))
    return make_error(MPI_ERR_PORT, fn, "no random bytes for the port's token: %s",
                      std::strerror(errno));
  const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_in sa{};
  sa.sin_family = AF_INET;
  sa.sin_addr.s_addr = htonl(addr);
  socklen_t len = sizeof sa;
  if (fd < 0 || ::bind(fd, reinterpret_cast<sockaddr*>(&sa), sizeof sa) != 0 ||
      ::listen(fd, SOMAXCONN) != 0 ||
      ::getsockname(fd, reinterpret_cast<sockaddr*>(&sa), &len) != 0) {
    const int err = errno;
    if (fd >= 0) ::close(fd);
    return make_error(MPI_ERR_PORT, fn, "cannot listen on %s: %s",
                      btl::tcp::format_ip(addr).c_str(), std::strerror(err));
  }
  char hex[2 * sizeof token + 1];
  for (size_t i = 0; i < sizeof token; ++i) std::snprintf(hex + 2 * i, 3, "%02x", token[i]);
  *name = "mpr-port:tcp:" + btl::tcp::format_ip(addr) + ":" + std::to_string(ntohs(sa.sin_port)) +
          ":" + hex;
  g_ports[*name] = fd;
  return MPI_SUCCESS;
}

bool close_port(const std::string& name) {
  auto it = g_ports.find(name);
  if (it == g_ports.end()) return false;
  ::close(it->second);
  g_ports.erase(it);
  return true;
}

void close_all_ports() {
  for (auto& [name, fd] : g_ports) ::close(fd);
  g_ports.clear();
}

int open_port_count() { return static_cast<int>(g_ports.size()); }

int port_socket(const std::string& name) {
  auto it = g_ports.find(name);
  return it == g_ports.end() ? -1 : it->second;
}

bool parse_port_name(const std::string& name, PortAddress* out) {
  static const std::string kPrefix = "mpr-port:tcp:";
  if (name.compare(0, kPrefix.size(), kPrefix) != 0) return false;
  const std::string rest = name.substr(kPrefix.size());
  const size_t c1 = rest.find(':');
  const size_t c2 = c1 == std::string::npos ? c1 : rest.find(':', c1 + 1);
  if (c2 == std::string::npos) return false;
  in_addr ia{};
  if (inet_pton(AF_INET, rest.substr(0, c1).c_str(), &ia) != 1) return false;
  const std::string port = rest.substr(c1 + 1, c2 - c1 - 1);
  const std::string hex = rest.substr(c2 + 1);
  if (port.empty() || port.size() > 5 || hex.size() != 2 * sizeof out->token) return false;
  unsigned long p = 0;
  for (char ch : port) {
    if (ch < '0' || ch > '9') return false;
    p = p * 10 + static_cast<unsigned long>(ch - '0');
  }
  if (p == 0 || p > 65535) return false;
  for (size_t i = 0; i < sizeof out->token; ++i) {
    unsigned v = 0;
    if (std::sscanf(hex.c_str() + 2 * i, "%2x", &v) != 1 || !std::isxdigit(hex[2 * i]) ||
        !std::isxdigit(hex[2 * i + 1]))
      return false;
    out->token[i] = static_cast<uint8_t>(v);
  }
  out->addr = ntohl(ia.s_addr);
  out->port = static_cast<uint16_t>(p);
  return true;
}

}  // namespace mpr::runtime
