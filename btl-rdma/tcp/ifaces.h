// The addresses the tcp backend may use: IPv4 interfaces of this host, filtered by
// MPR_TCP_IF_INCLUDE / MPR_TCP_IF_EXCLUDE, and the subnet test that decides which of them
// reaches a peer. Pure functions over plain data, so the choice is unit-tested without sockets.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace mpr::btl::tcp {

/// One IPv4 address of an interface (host byte order).
struct IfAddr {
  std::string name;  ///< interface name (eth0)
  uint32_t addr = 0;
  int prefix = 32;  ///< netmask length
  bool loopback = false;
};

/// An interface filter entry: an interface name, or an IPv4 CIDR block ("10.0.0.0/8").
struct IfPattern {
  std::string name;  ///< empty for a CIDR entry
  uint32_t net = 0;
  int prefix = 0;
};

/// Parses a comma list of names and CIDR blocks. Throws std::invalid_argument naming the bad
/// entry (an address with host bits set is accepted: "10.1.2.3/16" means 10.1.0.0/16).
std::vector<IfPattern> parse_patterns(const std::string& text);

/// True if `a` matches any of `pats` (by name, or by its address lying inside the block).
bool matches(const IfAddr& a, const std::vector<IfPattern>& pats);

/// This host's IPv4 addresses on interfaces that are up (getifaddrs), loopback included.
std::vector<IfAddr> host_addresses();

/// The addresses to listen on and connect from: with `include` non-empty, those matching it;
/// else every non-loopback one not matching `exclude`. Loopback addresses are taken only when
/// `include` names them.
std::vector<IfAddr> select_addresses(const std::vector<IfAddr>& all,
                                     const std::vector<IfPattern>& include,
                                     const std::vector<IfPattern>& exclude);

/// True if `a` and `b` lie in one subnet (the shorter of the two prefixes decides).
bool same_subnet(uint32_t a, int prefix_a, uint32_t b, int prefix_b);

/// "10.1.2.3"
std::string format_ip(uint32_t addr);
/// "10.1.2.3/24"
std::string format_cidr(uint32_t addr, int prefix);

}  // namespace mpr::btl::tcp
