#include "btl-rdma/tcp/ifaces.h"

#include <arpa/inet.h>
#include <ifaddrs.h>
#include <net/if.h>
#include <netinet/in.h>

#include <cstdlib>
#include <stdexcept>

namespace mpr::btl::tcp {

namespace {

uint32_t mask_of(int prefix) {
  return prefix <= 0 ? 0 : prefix >= 32 ? 0xffffffffu : ~((uint32_t{1} << (32 - prefix)) - 1);
}

int prefix_of(uint32_t mask) {
  int n = 0;
  while (n < 32 && (mask & (uint32_t{1} << (31 - n)))) ++n;
  return n;
}

bool parse_ip(const std::string& text, uint32_t* out) {
  in_addr a{};
  if (inet_pton(AF_INET, text.c_str(), &a) != 1) return false;
  *out = ntohl(a.s_addr);
  return true;
}

}  // namespace

std::vector<IfPattern> parse_patterns(const std::string& text) {
  std::vector<IfPattern> out;
  std::string cur;
  auto flush = [&] {
    if (cur.empty()) return;
    IfPattern p;
    const size_t slash = cur.find('/');
    uint32_t ip = 0;
    if (slash != std::string::npos) {
      const std::string bits = cur.substr(slash + 1);
      char* end = nullptr;
      const long prefix = std::strtol(bits.c_str(), &end, 10);
      if (!parse_ip(cur.substr(0, slash), &ip) || bits.empty() || *end || prefix < 0 || prefix > 32)
        throw std::invalid_argument("'" + cur + "' is neither an interface name nor a CIDR block");
      p.prefix = static_cast<int>(prefix);
      p.net = ip & mask_of(p.prefix);
    } else if (parse_ip(cur, &ip)) {
      p.prefix = 32;
      p.net = ip;
    } else {
      p.name = cur;
    }
    out.push_back(p);
    cur.clear();
  };
  for (char c : text) {
    if (c == ',') {
      flush();
    } else if (c != ' ') {
      cur += c;
    }
  }
  flush();
  return out;
}

bool matches(const IfAddr& a, const std::vector<IfPattern>& pats) {
  for (const IfPattern& p : pats) {
    if (!p.name.empty() ? p.name == a.name : (a.addr & mask_of(p.prefix)) == p.net) return true;
  }
  return false;
}

std::vector<IfAddr> host_addresses() {
  std::vector<IfAddr> out;
  ifaddrs* list = nullptr;
  if (getifaddrs(&list) != 0) return out;
  for (ifaddrs* i = list; i; i = i->ifa_next) {
    if (!i->ifa_addr || i->ifa_addr->sa_family != AF_INET) continue;
    if (!(i->ifa_flags & IFF_UP) || !(i->ifa_flags & IFF_RUNNING)) continue;
    IfAddr a;
    a.name = i->ifa_name;
    a.addr = ntohl(reinterpret_cast<const sockaddr_in*>(i->ifa_addr)->sin_addr.s_addr);
    a.prefix = i->ifa_netmask
                   ? prefix_of(ntohl(
                         reinterpret_cast<const sockaddr_in*>(i->ifa_netmask)->sin_addr.s_addr))
                   : 32;
    a.loopback = (i->ifa_flags & IFF_LOOPBACK) != 0;
    out.push_back(a);
  }
  freeifaddrs(list);
  return out;
}

std::vector<IfAddr> select_addresses(const std::vector<IfAddr>& all,
                                     const std::vector<IfPattern>& include,
                                     const std::vector<IfPattern>& exclude) {
  std::vector<IfAddr> out;
  for (const IfAddr& a : all) {
    if (!include.empty()) {
      if (matches(a, include)) out.push_back(a);
    } else if (!a.loopback && !matches(a, exclude)) {
      out.push_back(a);
    }
  }
  return out;
}

bool same_subnet(uint32_t a, int prefix_a, uint32_t b, int prefix_b) {
  const uint32_t m = mask_of(prefix_a < prefix_b ? prefix_a : prefix_b);
  return (a & m) == (b & m);
}

std::string format_ip(uint32_t addr) {
  in_addr a{};
  a.s_addr = htonl(addr);
  char buf[INET_ADDRSTRLEN] = {};
  inet_ntop(AF_INET, &a, buf, sizeof buf);
  return buf;
}

std::string format_cidr(uint32_t addr, int prefix) {
  return format_ip(addr) + "/" + std::to_string(prefix);
}

}  // namespace mpr::btl::tcp
