// Backend choice per peer (the registry), the MPR_BTL rules, and the pml's setup over them.
#include <catch2/catch.hpp>
#include <cstdlib>
#include <set>
#include <stdexcept>
#include <string>

#include "pml/pml_testing.h"
#include "test/unit/pml/fake_world.h"

using namespace mpr;
using mpr::test::FakeBootstrap;

namespace {

/// A backend that only answers reachable(); enough for setup decisions.
class NamedBtl final : public btl::Btl {
 public:
  NamedBtl(const char* name, int rank, std::set<int> reach, size_t max_am = 4096,
           size_t eager = 1024)
      : reach_(std::move(reach)) {
    caps_.name = name;
    caps_.rank = rank;
    caps_.max_am_size = max_am;
    caps_.eager_limit = eager;
  }
  const btl::Caps& caps() const override { return caps_; }
  void wire_up(common::Bootstrap&) override { ++wired; }
  bool reachable(int peer) const override { return reach_.count(peer) > 0; }
  btl::Status send_am(int, int, const void*, size_t, const iovec*, int) override {
    return btl::Status::kRetry;
  }
  void reg(void*, size_t, btl::Registration*) override {}
  void dereg(btl::Registration*) override {}
  btl::Status get(int, void*, const btl::Registration*, uint64_t, const btl::RemoteKey&, size_t,
                  btl::Completion*) override {
    return btl::Status::kRetry;
  }
  btl::Status put(int, const void*, const btl::Registration*, uint64_t, const btl::RemoteKey&,
                  size_t, btl::Completion*) override {
    return btl::Status::kRetry;
  }
  int progress() override { return 0; }
  std::string describe() const override { return std::string(caps_.name) + ": named test btl"; }
  void set_rkey_size(size_t n) { caps_.rkey_size = n; }
  int wired = 0;

 private:
  std::set<int> reach_;
  btl::Caps caps_;
};

/// Sets an environment variable for one scope.
class ScopedEnv {
 public:
  ScopedEnv(const char* name, const char* value) : name_(name) {
    if (const char* old = std::getenv(name)) old_ = old, had_ = true;
    setenv(name, value, 1);
  }
  ~ScopedEnv() {
    if (had_)
      setenv(name_, old_.c_str(), 1);
    else
      unsetenv(name_);
  }

 private:
  const char* name_;
  std::string old_;
  bool had_ = false;
};

}  // namespace

TEST_CASE("self serves the own rank, shm the node, verbs the rest", "[setup]") {
  // The ranks the real backends declare: self 0, shm 10, verbs 20.
  FakeBootstrap bs(1, 4);
  std::vector<std::unique_ptr<btl::Btl>> btls;
  // Load order does not decide: verbs comes first here and still loses to shm on the node.
  auto verbs = std::make_unique<NamedBtl>("verbs", 20, std::set<int>{0, 1, 2, 3});
  auto shm = std::make_unique<NamedBtl>("shm", 10, std::set<int>{0, 1});
  NamedBtl* v = verbs.get();
  btls.push_back(std::move(verbs));
  btls.push_back(std::move(shm));
  btls.push_back(btl::make_self_btl(bs));
  auto p = pml::make_pml_over(bs, std::move(btls), pml::PmlConfig{});
  CHECK(std::string(pml::backend_for(*p, 0)) == "shm");
  CHECK(std::string(pml::backend_for(*p, 1)) == "self");
  CHECK(std::string(pml::backend_for(*p, 2)) == "verbs");
  CHECK(std::string(pml::backend_for(*p, 3)) == "verbs");
  CHECK(v->wired == 1);
  CHECK(bs.fences == 1);  // one fence between the factories' puts and wire_up
  std::string d = p->describe();
  INFO(d);
  CHECK(d.find("shm: peers 0;") != std::string::npos);
  CHECK(d.find("verbs: peers 2-3;") != std::string::npos);
}

TEST_CASE("verbs serves node peers too when it is the only backend allowed", "[setup]") {
  FakeBootstrap bs(0, 2);
  std::vector<std::unique_ptr<btl::Btl>> btls;
  btls.push_back(btl::make_self_btl(bs));
  btls.push_back(std::make_unique<NamedBtl>("verbs", 20, std::set<int>{0, 1}));
  auto p = pml::make_pml_over(bs, std::move(btls), pml::PmlConfig{});
  CHECK(std::string(pml::backend_for(*p, 1)) == "verbs");
}

TEST_CASE("a peer that no backend reaches is an error naming it", "[setup]") {
  FakeBootstrap bs(0, 3);
  std::vector<std::unique_ptr<btl::Btl>> btls;
  btls.push_back(btl::make_self_btl(bs));
  btls.push_back(std::make_unique<NamedBtl>("shm", 10, std::set<int>{0, 1}));
  CHECK_THROWS_WITH(pml::make_pml_over(bs, std::move(btls), pml::PmlConfig{}),
                    Catch::Contains("rank 0: no backend reaches peer 2 (") &&
                        Catch::Contains("self: does not reach it; shm: does not reach it"));
}

TEST_CASE("the error names the unreachable peer's node when its rank published it", "[setup]") {
  auto store = std::make_shared<mpr::test::FakeStore>();
  FakeBootstrap bs(store, 0, 2, "job");
  FakeBootstrap other(store, 1, 2, "job");
  const std::string node = "n2";
  other.put("mpr.node", std::vector<uint8_t>(node.begin(), node.end()));
  std::vector<std::unique_ptr<btl::Btl>> btls;
  btls.push_back(btl::make_self_btl(bs));
  CHECK_THROWS_WITH(pml::make_pml_over(bs, std::move(btls), pml::PmlConfig{}),
                    Catch::Contains("no backend reaches peer 1 on node n2 (self: does not"));
}

TEST_CASE("a backend too small for the rendezvous header is refused", "[setup]") {
  FakeBootstrap bs(0, 2);
  std::vector<std::unique_ptr<btl::Btl>> btls;
  btls.push_back(btl::make_self_btl(bs));
  btls.push_back(std::make_unique<NamedBtl>("tcp", 30, std::set<int>{1}, 32, 16));
  CHECK_THROWS_WITH(pml::make_pml_over(bs, std::move(btls), pml::PmlConfig{}),
                    Catch::Contains("tcp"));
}

TEST_CASE("the eager limit never exceeds what one active message carries", "[setup]") {
  FakeBootstrap bs(0, 2);
  std::vector<std::unique_ptr<btl::Btl>> btls;
  btls.push_back(btl::make_self_btl(bs));
  btls.push_back(std::make_unique<NamedBtl>("shm", 10, std::set<int>{1}, 1048, 1 << 20));
  auto p = pml::make_pml_over(bs, std::move(btls), pml::PmlConfig{});
  // 1048-byte messages minus the 24-byte synchronous eager header.
  CHECK(p->describe().find("eager <= 1 KiB") != std::string::npos);
}

/// What MPI_Init does: the registry from MPR_BTL, then the pml over it.
struct Stack {
  explicit Stack(common::Bootstrap& bs)
      : btls(btl::Registry::create(bs)), pml(pml::Pml::create(bs, *btls)) {}
  std::unique_ptr<btl::Registry> btls;
  std::unique_ptr<pml::Pml> pml;
};

TEST_CASE("the registry and Pml::create honour MPR_BTL", "[setup]") {
  SECTION("self alone runs a singleton") {
    ScopedEnv env("MPR_BTL", "self");
    FakeBootstrap bs(0, 1);
    Stack s(bs);
    CHECK(std::string(pml::backend_for(*s.pml, 0)) == "self");
    CHECK(bs.fences == 1);
    s.pml->finalize();
  }
  SECTION("self alone cannot reach another rank") {
    ScopedEnv env("MPR_BTL", "self");
    FakeBootstrap bs(0, 2);
    CHECK_THROWS_WITH(Stack(bs), Catch::Contains("no backend reaches peer 1"));
  }
  SECTION("an unknown name is refused by name, with the names this build knows") {
    ScopedEnv env("MPR_BTL", "self,infiniband");
    FakeBootstrap bs(0, 1);
    CHECK_THROWS_WITH(
        btl::Registry::create(bs),
        Catch::Contains("'infiniband'") && Catch::Contains("known: self, shm, verbs, tcp)"));
  }
  SECTION("a backend asked for that cannot serve here is an error saying why") {
    ScopedEnv env("MPR_BTL", "self,tcp");
    ScopedEnv only("MPR_TCP_IF_INCLUDE", "203.0.113.0/24");  // no such interface
    FakeBootstrap bs(0, 2);
    bs.set_local_peers({0});
    CHECK_THROWS_WITH(btl::Registry::create(bs),
                      Catch::Contains("MPR_BTL asks for tcp but it cannot be used") &&
                          Catch::Contains("no usable IPv4 interface matches MPR_TCP_IF_INCLUDE"));
  }
}

TEST_CASE("the registry chooses by rank, not by load order or name", "[setup][registry]") {
  FakeBootstrap bs(0, 2);
  std::vector<std::unique_ptr<btl::Btl>> btls;
  // Same name, different ranks: only the rank decides.
  btls.push_back(std::make_unique<NamedBtl>("net", 30, std::set<int>{0, 1}));
  btls.push_back(std::make_unique<NamedBtl>("net", 5, std::set<int>{1}));
  btl::Btl* second = btls[1].get();
  btl::Btl* first = btls[0].get();
  btl::Registry reg(bs, std::move(btls));
  reg.connect();
  CHECK(reg.backend(0) == first);
  CHECK(reg.backend(1) == second);
  CHECK(reg.slot(first) == 0);
  CHECK(reg.slot(second) == 1);
  CHECK(reg.used().size() == 2);
}

TEST_CASE("the registry refuses a backend whose keys do not fit a RemoteKey", "[setup][registry]") {
  FakeBootstrap bs(0, 1);
  std::vector<std::unique_ptr<btl::Btl>> btls;
  auto big = std::make_unique<NamedBtl>("big", 5, std::set<int>{0});
  big->set_rkey_size(sizeof(btl::RemoteKey) + 1);
  btls.push_back(std::move(big));
  CHECK_THROWS_WITH(btl::Registry(bs, std::move(btls)), Catch::Contains("33-byte remote keys"));
}
