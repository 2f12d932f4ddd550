#include "launcher/hostfile.h"

#include <arpa/inet.h>
#include <ifaddrs.h>
#include <netinet/in.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>
#include <vector>

#include "launcher/options.h"

namespace mpr::launch {

namespace {

constexpr long kMaxSlots = 1 << 20;

std::string_view short_name(std::string_view host) { return host.substr(0, host.find('.')); }

// A slot count as written after "slots=" or "host:"; -1 when it is not a positive number.
long parse_count(std::string_view text) {
  if (text.empty() || text.size() > 9 || text.find_first_not_of("0123456789") != text.npos)
    return -1;
  long n = std::strtol(std::string(text).c_str(), nullptr, 10);
  return n > 0 && n <= kMaxSlots ? n : -1;
}

std::string not_here(std::string_view host) {
  return "host '" + std::string(host) +
         "' is not this node: mprun starts ranks on this node only (run multi-node jobs with "
         "srun --mpi=pmix inside a Slurm allocation)";
}

/// Slots of one "host:N" / "host" item. `where` prefixes error messages. Returns -1 with
/// `*why` set when the item does not parse.
long item_slots(std::string_view item, int default_slots, std::string* why) {
  std::string_view host = item;
  long n = default_slots;
  // "[::1]:4" and a bare "::1" both name the IPv6 loopback; only a count after ':' on a name
  // that is not an IPv6 literal is a slot count.
  if (size_t colon = item.rfind(':'); colon != item.npos && item.find(':') == colon) {
    host = item.substr(0, colon);
    n = parse_count(item.substr(colon + 1));
    if (n < 0) {
      *why = "cannot parse '" + std::string(item) + "' (expected host or host:N with N >= 1)";
      return -1;
    }
  }
  if (host.empty()) {
    *why = "cannot parse '" + std::string(item) + "' (empty host name)";
    return -1;
  }
  if (!is_this_node(host)) {
    *why = not_here(host);
    return -1;
  }
  return n;
}

}  // namespace

bool is_local_address(std::string_view host) {
  if (host.size() > 2 && host.front() == '[' && host.back() == ']')
    host = host.substr(1, host.size() - 2);
  // An IPv6 zone ("fe80::1%eth0") names the interface; the address alone is compared.
  std::string text(host.substr(0, host.find('%')));
  in_addr v4;
  in6_addr v6;
  const bool is_v4 = ::inet_pton(AF_INET, text.c_str(), &v4) == 1;
  const bool is_v6 = !is_v4 && ::inet_pton(AF_INET6, text.c_str(), &v6) == 1;
  if (!is_v4 && !is_v6) return false;
  if (is_v4 && (ntohl(v4.s_addr) >> 24) == 127) return true;
  if (is_v6 && IN6_IS_ADDR_LOOPBACK(&v6)) return true;
  ifaddrs* list = nullptr;
  if (::getifaddrs(&list) != 0) return false;
  bool found = false;
  for (const ifaddrs* ifa = list; ifa && !found; ifa = ifa->ifa_next) {
    if (!ifa->ifa_addr) continue;
    if (is_v4 && ifa->ifa_addr->sa_family == AF_INET)
      found = reinterpret_cast<const sockaddr_in*>(ifa->ifa_addr)->sin_addr.s_addr == v4.s_addr;
    else if (is_v6 && ifa->ifa_addr->sa_family == AF_INET6)
      found =
          IN6_ARE_ADDR_EQUAL(&reinterpret_cast<const sockaddr_in6*>(ifa->ifa_addr)->sin6_addr, &v6);
  }
  ::freeifaddrs(list);
  return found;
}

bool is_this_node(std::string_view host) {
  if (host == "localhost" || host == "localhost.localdomain" || host == "127.0.0.1" ||
      host == "::1" || host == "[::1]")
    return true;
  if (is_local_address(host)) return true;
  char name[256] = {};
  if (::gethostname(name, sizeof name - 1) != 0 || !name[0]) return false;
  std::string_view mine(name);
  return host == mine || short_name(host) == mine || host == short_name(mine);
}

int hostfile_slots(const std::string& path, int default_slots) {
  std::ifstream in(path);
  if (!in) throw UsageError("cannot read hostfile '" + path + "': " + std::strerror(errno));
  long total = 0;
  int hosts = 0;
  std::string line;
  for (int lineno = 1; std::getline(in, line); ++lineno) {
    auto fail = [&](const std::string& why) -> UsageError {
      return UsageError("hostfile " + path + " line " + std::to_string(lineno) + ": " + why);
    };
    line = line.substr(0, line.find('#'));
    std::istringstream words(line);
    std::string host;
    if (!(words >> host)) continue;
    std::string why;
    long n = -1;
    std::string word;
    bool has_slots = false;
    std::vector<std::string> extra;
    while (words >> word) extra.push_back(word);
    if (extra.empty()) {
      n = item_slots(host, default_slots, &why);
    } else if (host.find(':') != std::string::npos && host.find(':') == host.rfind(':')) {
      why = "cannot parse '" + extra.front() + "' after '" + host + "'";
    } else {
      if (!is_this_node(host)) throw fail(not_here(host));
      n = default_slots;
      for (const std::string& w : extra) {
        size_t eq = w.find('=');
        std::string key = w.substr(0, eq);
        long v = eq == std::string::npos ? -1 : parse_count(std::string_view(w).substr(eq + 1));
        if ((key == "slots" || key == "max_slots" || key == "max-slots") && v > 0) {
          if (key == "slots") {
            n = v;
            has_slots = true;
          } else if (!has_slots) {
            n = v;
          }
          continue;
        }
        why = "cannot parse '" + w + "' (expected: host [slots=N] [max_slots=N], or host:N)";
        n = -1;
        break;
      }
    }
    if (n < 0) throw fail(why);
    total += n;
    ++hosts;
    if (total > kMaxSlots) throw fail("more than " + std::to_string(kMaxSlots) + " slots");
  }
  if (hosts == 0) throw UsageError("hostfile " + path + " names no host");
  return static_cast<int>(total);
}

int host_list_slots(const std::string& list, int default_slots) {
  long total = 0;
  size_t start = 0;
  for (;;) {
    size_t comma = list.find(',', start);
    std::string_view item = std::string_view(list).substr(
        start, comma == std::string::npos ? std::string::npos : comma - start);
    std::string why;
    long n = item_slots(item, default_slots, &why);
    if (n < 0) throw UsageError("--host " + list + ": " + why);
    total += n;
    if (total > kMaxSlots) throw UsageError("--host " + list + ": too many slots");
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  return static_cast<int>(total);
}

}  // namespace mpr::launch
