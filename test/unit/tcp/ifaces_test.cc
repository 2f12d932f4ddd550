#include <catch2/catch.hpp>
#include <stdexcept>

#include "btl-rdma/tcp/ifaces.h"

using namespace mpr::btl::tcp;

namespace {

uint32_t ip(int a, int b, int c, int d) {
  return uint32_t(a) << 24 | uint32_t(b) << 16 | uint32_t(c) << 8 | uint32_t(d);
}

}  // namespace

TEST_CASE("interface patterns: names, CIDR blocks and single addresses", "[tcp]") {
  auto p = parse_patterns("eth0, 10.1.2.3/16,192.168.0.7");
  REQUIRE(p.size() == 3);
  CHECK(p[0].name == "eth0");
  CHECK(p[1].name.empty());
  CHECK(p[1].net == ip(10, 1, 0, 0));
  CHECK(p[1].prefix == 16);
  CHECK(p[2].net == ip(192, 168, 0, 7));
  CHECK(p[2].prefix == 32);
  CHECK(parse_patterns("").empty());
  CHECK_THROWS_WITH(parse_patterns("10.0.0.0/33"), Catch::Contains("'10.0.0.0/33'"));
  CHECK_THROWS_AS(parse_patterns("300.1.1.1/8"), std::invalid_argument);
}

TEST_CASE("address selection: include wins, loopback only when asked for", "[tcp]") {
  std::vector<IfAddr> all = {{"lo", ip(127, 0, 0, 1), 8, true},
                             {"eth0", ip(10, 250, 0, 1), 24, false},
                             {"eth1", ip(192, 168, 5, 9), 24, false}};
  auto names = [](const std::vector<IfAddr>& v) {
    std::string s;
    for (const auto& a : v) s += a.name + " ";
    return s;
  };
  CHECK(names(select_addresses(all, {}, {})) == "eth0 eth1 ");
  CHECK(names(select_addresses(all, {}, parse_patterns("eth1"))) == "eth0 ");
  CHECK(names(select_addresses(all, parse_patterns("192.168.0.0/16"), {})) == "eth1 ");
  CHECK(names(select_addresses(all, parse_patterns("lo"), {})) == "lo ");
  CHECK(names(select_addresses(all, parse_patterns("eth0"), parse_patterns("eth0"))) == "eth0 ");
}

TEST_CASE("subnets: the shorter prefix decides", "[tcp]") {
  CHECK(same_subnet(ip(10, 250, 0, 1), 24, ip(10, 250, 0, 2), 24));
  CHECK_FALSE(same_subnet(ip(10, 250, 0, 1), 24, ip(10, 250, 1, 2), 24));
  CHECK(same_subnet(ip(10, 250, 0, 1), 16, ip(10, 250, 1, 2), 24));
  CHECK_FALSE(same_subnet(ip(127, 0, 0, 1), 8, ip(10, 0, 0, 1), 8));
  CHECK(format_cidr(ip(10, 1, 2, 3), 24) == "10.1.2.3/24");
}
