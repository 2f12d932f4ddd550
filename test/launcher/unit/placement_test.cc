// Placement on hwloc synthetic machines, so mappings this 2-core test machine cannot show (two
// packages, four NUMA nodes, two PUs per core) are checked too.
#include "launcher/placement.h"

#include <catch2/catch.hpp>

using namespace mpr::launch;

namespace {

// 2 packages x 2 NUMA nodes x 2 cores x 2 PUs: core c holds PUs 2c and 2c+1, NUMA node n
// holds cores 2n and 2n+1, package p holds NUMA nodes 2p and 2p+1.
const char* const kBig = "pack:2 numa:2 core:2 pu:2";

Options opts(int n, MapBy map = MapBy::kCore, BindTo bind = BindTo::kDefault, int cpr = 1) {
  Options o;
  o.nprocs = n;
  o.map_by = map;
  o.bind_to = bind;
  o.cpus_per_rank = cpr;
  return o;
}

std::vector<std::string> lists(const Placement& p) {
  std::vector<std::string> out;
  for (const RankPlacement& r : p.ranks) out.push_back(r.cpus.list());
  return out;
}

using V = std::vector<std::string>;

}  // namespace

TEST_CASE("map-by core binds consecutive cores", "[placement]") {
  Topology t(kBig, "");
  REQUIRE(t.cores() == 8);
  REQUIRE(t.pus() == 16);
  Placement p = place_ranks(t, opts(4));
  CHECK(p.binding == BindTo::kCore);
  CHECK_FALSE(p.oversubscribed);
  CHECK(lists(p) == V{"0-1", "2-3", "4-5", "6-7"});
  CHECK(p.ranks[1].where == "core 1");
  CHECK(binding_report(1, p.ranks[1]) == "rank 1 bound to core 1 [PU 2-3] mask 0xc");
}

TEST_CASE("map-by numa deals ranks round-robin over NUMA nodes", "[placement]") {
  Topology t(kBig, "");
  Placement p = place_ranks(t, opts(6, MapBy::kNuma, BindTo::kCore));
  // Ranks 0-3 take the first core of NUMA nodes 0-3, ranks 4-5 the second of nodes 0-1.
  CHECK(lists(p) == V{"0-1", "4-5", "8-9", "12-13", "2-3", "6-7"});
  Placement q = place_ranks(t, opts(4, MapBy::kNuma, BindTo::kNuma));
  CHECK(lists(q) == V{"0-3", "4-7", "8-11", "12-15"});
  CHECK(q.ranks[2].where == "numa 2");
}

TEST_CASE("map-by package alternates packages", "[placement]") {
  Topology t(kBig, "");
  Placement p = place_ranks(t, opts(4, MapBy::kPackage, BindTo::kCore));
  CHECK(lists(p) == V{"0-1", "8-9", "2-3", "10-11"});
  Placement q = place_ranks(t, opts(4, MapBy::kCore, BindTo::kPackage));
  CHECK(lists(q) == V{"0-7", "0-7", "0-7", "0-7"});
  CHECK(q.ranks[0].where == "package 0");
  Placement r = place_ranks(t, opts(8, MapBy::kCore, BindTo::kPackage));
  CHECK(r.ranks[4].cpus.list() == "8-15");
}

TEST_CASE("map-by node places like map-by core on one node", "[placement]") {
  Topology t(kBig, "");
  CHECK(lists(place_ranks(t, opts(5, MapBy::kNode))) == lists(place_ranks(t, opts(5))));
}

TEST_CASE("default binding: core, wrapping around when ranks outnumber cores", "[placement]") {
  Topology t(kBig, "");
  CHECK(place_ranks(t, opts(8)).binding == BindTo::kCore);
  Placement p = place_ranks(t, opts(9));
  CHECK(p.binding == BindTo::kCore);
  CHECK(p.ranks[0].bound);
  CHECK(p.ranks[8].bound);
  CHECK(p.ranks[8].cpus.list() == p.ranks[0].cpus.list());
  CHECK(p.ranks[8].cpus.list() == "0-1");
  CHECK(binding_report(8, p.ranks[8]) == "rank 8 bound to core 0 [PU 0-1] mask 0x3");
  // More ranks than cores but not than hardware threads: not oversubscribed.
  CHECK_FALSE(p.oversubscribed);
  CHECK(place_ranks(t, opts(17)).oversubscribed);
}

TEST_CASE("cpus-per-rank gives each rank several cores", "[placement]") {
  Topology t(kBig, "");
  Placement p = place_ranks(t, opts(3, MapBy::kCore, BindTo::kCore, 2));
  CHECK(lists(p) == V{"0-3", "4-7", "8-11"});
  CHECK(p.ranks[0].where == "cores 0,1");
  Placement q = place_ranks(t, opts(4, MapBy::kNuma, BindTo::kDefault, 2));
  CHECK(q.binding == BindTo::kCore);
  CHECK(lists(q) == V{"0-3", "4-7", "8-11", "12-15"});
  // 5 ranks x 2 cores do not fit on 8 cores: the fifth wraps around to the first two.
  Placement w = place_ranks(t, opts(5, MapBy::kCore, BindTo::kDefault, 2));
  CHECK(w.binding == BindTo::kCore);
  CHECK(w.ranks[4].cpus.list() == "0-3");
}

TEST_CASE("impossible requests are refused with the numbers", "[placement]") {
  Topology t(kBig, "");
  CHECK_THROWS_WITH(place_ranks(t, opts(1, MapBy::kNuma, BindTo::kCore, 3)),
                    "--cpus-per-rank 3 needs 3 cores in one NUMA node, but at most 2 are usable "
                    "here");
  CHECK_NOTHROW(place_ranks(t, opts(1, MapBy::kCore, BindTo::kCore, 3)));
  CHECK_THROWS_AS(place_ranks(t, opts(1, MapBy::kCore, BindTo::kCore, 9)), UsageError);
}

TEST_CASE("ranks stay inside the allowed PUs", "[placement]") {
  // NUMA nodes 1 and 2 only: cores 2-5.
  Topology t(kBig, "4-11");
  REQUIRE(t.cores() == 4);
  CHECK(lists(place_ranks(t, opts(2))) == V{"4-5", "6-7"});
  CHECK(lists(place_ranks(t, opts(2, MapBy::kPackage, BindTo::kCore))) == V{"4-5", "8-9"});
  CHECK(place_ranks(t, opts(1, MapBy::kCore, BindTo::kNuma)).ranks[0].cpus.list() == "4-7");
  CHECK(place_ranks(t, opts(1, MapBy::kCore, BindTo::kPackage)).ranks[0].cpus.list() == "4-7");
  Placement none = place_ranks(t, opts(2, MapBy::kCore, BindTo::kNone));
  CHECK(none.ranks[1].cpus.list() == "4-11");
  // Half a core allowed: the rank gets that PU only.
  Topology half(kBig, "3");
  CHECK(place_ranks(half, opts(1)).ranks[0].cpus.list() == "3");
}

TEST_CASE("uneven NUMA nodes fill before the dealing starts over", "[placement]") {
  // NUMA 0 keeps one core (PUs 0-1), NUMA 1 and 2 two each, NUMA 3 none.
  Topology t(kBig, "0-1,4-11");
  Placement p = place_ranks(t, opts(5, MapBy::kNuma, BindTo::kCore));
  CHECK(lists(p) == V{"0-1", "4-5", "8-9", "6-7", "10-11"});
  // Oversubscribed with --bind-to numa: the dealing wraps around.
  Placement q = place_ranks(t, opts(7, MapBy::kNuma, BindTo::kNuma));
  CHECK(q.ranks[5].cpus.list() == "0-1");
  CHECK(q.ranks[6].cpus.list() == "4-7");
}

TEST_CASE("CpuSet masks and affinity words", "[placement]") {
  CpuSet s;
  hwloc_bitmap_set_range(s.get(), 8, 9);
  hwloc_bitmap_set(s.get(), 70);
  CHECK(s.list() == "8-9,70");
  CHECK(s.mask() == "0x400000000000000300");
  std::vector<unsigned long> w = s.affinity_words();
  REQUIRE(w.size() == (sizeof(unsigned long) == 8 ? 2u : 3u));
  CHECK((w[0] & 0x300UL) == 0x300UL);
  CHECK(CpuSet().mask() == "0x0");
}

TEST_CASE("ppr fills each object before the next; ppr_slots counts them", "[placement]") {
  Topology t(kBig, "");
  Options o = opts(4, MapBy::kPackage);
  o.ppr = 2;
  CHECK(ppr_slots(t, o) == 4);
  CHECK(lists(place_ranks(t, o)) == V{"0-1", "2-3", "8-9", "10-11"});
  o.nprocs = 5;
  CHECK_THROWS_WITH(place_ranks(t, o), Catch::Contains("4 in all, but the job has 5 ranks"));
  Options c = opts(8, MapBy::kCore);
  c.ppr = 1;
  CHECK(ppr_slots(t, c) == 8);
}

TEST_CASE("hardware threads as CPUs, and binding to them", "[placement]") {
  Topology t(kBig, "");
  Options o = opts(3, MapBy::kCore, BindTo::kHwthread);
  Placement p = place_ranks(t, o);
  CHECK(lists(p) == V{"0", "2", "4"});  // the first PU of each rank's core
  CHECK(p.ranks[1].where == "PU 2");
  o.use_hwthreads = true;
  CHECK(lists(place_ranks(t, o)) == V{"0", "1", "2"});
  Options pe = opts(2, MapBy::kCore, BindTo::kCore, 2);
  pe.use_hwthreads = true;
  CHECK(lists(place_ranks(t, pe)) == V{"0-1", "2-3"});
}

TEST_CASE("a rankfile places each rank where its line says", "[placement]") {
  Topology t(kBig, "");
  Options o = opts(3);
  o.rankfile = "rf";
  o.rankfile_slots = {"3", "1:0-1", "0,2"};
  Placement p = place_ranks(t, o);
  CHECK(lists(p) == V{"6-7", "8-11", "0-1,4-5"});
  o.rankfile_slots = {"9", "0", "1"};
  CHECK_THROWS_WITH(place_ranks(t, o), Catch::Contains("rank 0 slot=9: names a core beyond"));
}

TEST_CASE("--cpu-set narrows the usable CPUs", "[placement]") {
  Topology t(kBig, "");
  t.restrict_to("4-7");
  CHECK(t.cores() == 2);
  CHECK(lists(place_ranks(t, opts(2))) == V{"4-5", "6-7"});
  CHECK_THROWS_WITH(t.restrict_to("100"), Catch::Contains("none of these CPUs is usable"));
}
