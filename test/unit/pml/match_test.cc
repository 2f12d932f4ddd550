// The matching engine on its own: MPI's ordering and wildcard rules, with no protocol.
#include "pml/match.h"

#include <catch2/catch.hpp>
#include <vector>

using mpr::pml::ArrivedEntry;
using mpr::pml::kAnySource;
using mpr::pml::kAnyTag;
using mpr::pml::MatchEngine;
using mpr::pml::PostedEntry;

namespace {

struct Recv : PostedEntry {
  int id;
  Recv(int id_, uint32_t ctx_, int src_, int tag_) : id(id_) {
    ctx = ctx_;
    src = src_;
    tag = tag_;
  }
};

struct Msg : ArrivedEntry {
  int id;
  Msg(int id_, uint32_t ctx_, int src_, int tag_) : id(id_) {
    ctx = ctx_;
    src = src_;
    tag = tag_;
  }
};

int id_of(PostedEntry* e) { return e ? static_cast<Recv*>(e)->id : -1; }
int id_of(ArrivedEntry* e) { return e ? static_cast<Msg*>(e)->id : -1; }

}  // namespace

TEST_CASE("an arrival matches the oldest posted receive that accepts it", "[match]") {
  MatchEngine m;
  Recv a(1, 0, 3, 7), b(2, 0, 3, 7);
  m.post(&a);
  m.post(&b);
  CHECK(id_of(m.match_arrival(0, 3, 7)) == 1);
  CHECK(id_of(m.match_arrival(0, 3, 7)) == 2);
  CHECK(m.match_arrival(0, 3, 7) == nullptr);
  CHECK(m.posted_count() == 0);
}

TEST_CASE("source, tag and context must all agree unless wildcarded", "[match]") {
  MatchEngine m;
  Recv r(1, 5, 2, 9);
  m.post(&r);
  CHECK(m.match_arrival(5, 1, 9) == nullptr);  // other source
  CHECK(m.match_arrival(5, 2, 8) == nullptr);  // other tag
  CHECK(m.match_arrival(6, 2, 9) == nullptr);  // other communicator
  CHECK(id_of(m.match_arrival(5, 2, 9)) == 1);
}

TEST_CASE("a receive with a non-matching tag is skipped, not blocking later ones", "[match]") {
  MatchEngine m;
  Recv t1(1, 0, 0, 1), t2(2, 0, 0, 2);
  m.post(&t1);
  m.post(&t2);
  CHECK(id_of(m.match_arrival(0, 0, 2)) == 2);
  CHECK(id_of(m.match_arrival(0, 0, 1)) == 1);
}

TEST_CASE("wildcard and specific receives are matched in posting order", "[match]") {
  MatchEngine m;
  SECTION("wildcard posted first wins") {
    Recv any(1, 0, kAnySource, kAnyTag), spec(2, 0, 4, 0);
    m.post(&any);
    m.post(&spec);
    CHECK(id_of(m.match_arrival(0, 4, 0)) == 1);
    CHECK(id_of(m.match_arrival(0, 4, 0)) == 2);
  }
  SECTION("specific posted first wins") {
    Recv spec(1, 0, 4, 0), any(2, 0, kAnySource, kAnyTag);
    m.post(&spec);
    m.post(&any);
    CHECK(id_of(m.match_arrival(0, 4, 0)) == 1);
    CHECK(id_of(m.match_arrival(0, 4, 0)) == 2);
  }
  SECTION("any-tag on a specific source and any-source on a specific tag interleave") {
    Recv a(1, 0, 4, kAnyTag), b(2, 0, kAnySource, 3), c(3, 0, 4, 3);
    m.post(&a);
    m.post(&b);
    m.post(&c);
    CHECK(id_of(m.match_arrival(0, 9, 3)) == 2);  // only b takes source 9
    CHECK(id_of(m.match_arrival(0, 4, 3)) == 1);
    CHECK(id_of(m.match_arrival(0, 4, 3)) == 3);
  }
}

TEST_CASE("unexpected messages are received in arrival order per source", "[match]") {
  MatchEngine m;
  Msg m1(1, 0, 2, 5), m2(2, 0, 2, 5), m3(3, 0, 1, 5);
  m.add_unexpected(&m1);
  m.add_unexpected(&m2);
  m.add_unexpected(&m3);
  CHECK(m.unexpected_count() == 3);
  CHECK(id_of(m.take_unexpected(0, 2, 5)) == 1);
  CHECK(id_of(m.take_unexpected(0, 1, kAnyTag)) == 3);  // passes source 2's older message
  CHECK(id_of(m.take_unexpected(0, kAnySource, kAnyTag)) == 2);
  CHECK(m.take_unexpected(0, kAnySource, kAnyTag) == nullptr);
  CHECK(m.unexpected_count() == 0);
}

TEST_CASE("any-source receive takes the oldest arrival it accepts across sources", "[match]") {
  MatchEngine m;
  Msg a(1, 0, 3, 1), b(2, 0, 1, 2), c(3, 0, 2, 2);
  m.add_unexpected(&a);
  m.add_unexpected(&b);
  m.add_unexpected(&c);
  CHECK(id_of(m.take_unexpected(0, kAnySource, 2)) == 2);
  CHECK(id_of(m.take_unexpected(0, kAnySource, 2)) == 3);
  CHECK(id_of(m.take_unexpected(0, kAnySource, 2)) == -1);
  CHECK(id_of(m.take_unexpected(0, kAnySource, 1)) == 1);
}

TEST_CASE("probe finds without dequeuing", "[match]") {
  MatchEngine m;
  Msg a(1, 7, 0, 4);
  m.add_unexpected(&a);
  CHECK(id_of(m.find_unexpected(7, 0, 4)) == 1);
  CHECK(id_of(m.find_unexpected(7, kAnySource, kAnyTag)) == 1);
  CHECK(m.find_unexpected(7, 0, 5) == nullptr);
  CHECK(m.find_unexpected(8, 0, 4) == nullptr);
  CHECK(m.unexpected_count() == 1);
  m.remove_unexpected(m.find_unexpected(7, 0, 4));
  CHECK(m.find_unexpected(7, 0, 4) == nullptr);
}

TEST_CASE("cancel removes a posted receive once and only while queued", "[match]") {
  MatchEngine m;
  Recv a(1, 0, 1, 1), b(2, 0, kAnySource, 1);
  m.post(&a);
  m.post(&b);
  CHECK(m.cancel(&a));
  CHECK_FALSE(m.cancel(&a));
  CHECK(id_of(m.match_arrival(0, 1, 1)) == 2);  // the wildcard behind it now matches
  CHECK_FALSE(m.cancel(&b));                    // already matched
  CHECK(m.posted_count() == 0);
}

TEST_CASE("a deep queue of other sources does not get in the way", "[match]") {
  // 10000 receives for source 1 and one for source 2: the arrival from source 2 finds its
  // receive at the head of its own bucket, and order within source 1 is preserved.
  MatchEngine m;
  std::vector<Recv> deep;
  deep.reserve(10000);
  for (int i = 0; i < 10000; ++i) deep.emplace_back(i, 0, 1, 0);
  for (auto& r : deep) m.post(&r);
  Recv other(-7, 0, 2, 0);
  m.post(&other);
  CHECK(id_of(m.match_arrival(0, 2, 0)) == -7);
  for (int i = 0; i < 10000; ++i) REQUIRE(id_of(m.match_arrival(0, 1, 0)) == i);
}

TEST_CASE("entries can be reused after they leave the queues", "[match]") {
  MatchEngine m;
  Recv r(1, 0, 0, 0);
  m.post(&r);
  CHECK(m.match_arrival(0, 0, 0) == &r);
  m.post(&r);
  CHECK(m.match_arrival(0, 0, 0) == &r);
  Msg u(2, 0, 0, 0);
  m.add_unexpected(&u);
  CHECK(m.take_unexpected(0, 0, 0) == &u);
  m.add_unexpected(&u);
  CHECK(m.take_unexpected(0, 0, 0) == &u);
}
