// The tcp backend with several ranks in one process: each rank is a TcpBtl over a shared fake
// modex, and the test drives every rank's progress() in turn, so connections, handshakes and
// transfers run over real sockets on loopback.
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <chrono>
#include <cstring>
#include <functional>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "btl-rdma/tcp/tcp_btl.h"
#include "btl-rdma/tcp/wire.h"
#include "test/fixtures/fake_bootstrap.h"

using mpr::btl::Completion;
using mpr::btl::Registration;
using mpr::btl::Status;
using mpr::btl::tcp::Config;
using mpr::btl::tcp::IfAddr;
using mpr::btl::tcp::TcpBtl;
using mpr::test::FakeBootstrap;
using mpr::test::FakeStore;

namespace {

struct Arrival {
  int src;
  int am_id;
  std::vector<uint8_t> hdr, payload;
};

struct Rank {
  std::unique_ptr<FakeBootstrap> bs;
  std::unique_ptr<TcpBtl> btl;
  std::vector<Arrival> got;
};

void on_am(void* ctx, int src, const void* hdr, size_t hdr_len, const void* payload,
           size_t payload_len) {
  auto* r = static_cast<Rank*>(ctx);
  const auto* h = static_cast<const uint8_t*>(hdr);
  const auto* p = static_cast<const uint8_t*>(payload);
  r->got.push_back({src, 0, {h, h + hdr_len}, {p, p + payload_len}});
}

/// `n` ranks. node_local: all ranks are one node (loopback listeners); otherwise each rank is
/// its own node and reaches the others through its 127.0.0.1 "interface".
struct World {
  std::shared_ptr<FakeStore> store = std::make_shared<FakeStore>();
  std::vector<Rank> ranks;
  World(int n, bool node_local, Config cfg = Config{}) : ranks(static_cast<size_t>(n)) {
    std::vector<IfAddr> lo;
    if (!node_local) lo.push_back({"lo", INADDR_LOOPBACK, 8, true});
    for (int r = 0; r < n; ++r) {
      Rank& k = ranks[static_cast<size_t>(r)];
      k.bs = std::make_unique<FakeBootstrap>(store, r, n, "tcp-test-job");
      if (!node_local) k.bs->set_local_peers({r});
      k.btl = std::make_unique<TcpBtl>(*k.bs, cfg, lo);
      for (int id = 0; id < mpr::btl::kMaxAmIds; ++id) k.btl->set_handler(id, &on_am, &k);
    }
    for (Rank& k : ranks) k.btl->wire_up(*k.bs);
  }
  TcpBtl& operator[](int r) { return *ranks[static_cast<size_t>(r)].btl; }
  std::vector<Arrival>& got(int r) { return ranks[static_cast<size_t>(r)].got; }
  void progress() {
    for (Rank& k : ranks)
      if (k.btl) k.btl->progress();
  }
  /// Progress every rank until `done` or 20 s; false on timeout.
  bool until(const std::function<bool()>& done) { return until_only(done, true); }
  bool until_only(const std::function<bool()>& done, bool all) {
    auto end = std::chrono::steady_clock::now() + std::chrono::seconds(20);
    while (!done()) {
      if (std::chrono::steady_clock::now() > end) return false;
      if (all) progress();
    }
    return true;
  }
};

void send(World& w, int from, int to, uint32_t seq, size_t payload_len) {
  std::vector<uint8_t> payload(payload_len);
  for (size_t i = 0; i < payload_len; ++i) payload[i] = static_cast<uint8_t>(seq + i);
  iovec iov{payload.data(), payload.size()};
  while (w[from].send_am(to, 3, &seq, sizeof seq, &iov, payload_len ? 1 : 0) == Status::kRetry)
    w.progress();
}

bool intact(const Arrival& a, uint32_t seq) {
  uint32_t s;
  if (a.hdr.size() != sizeof s) return false;
  std::memcpy(&s, a.hdr.data(), sizeof s);
  if (s != seq) return false;
  for (size_t i = 0; i < a.payload.size(); ++i)
    if (a.payload[i] != static_cast<uint8_t>(seq + i)) return false;
  return true;
}

struct Done : Completion {
  bool done = false;
  int status = -1;
  Done() {
    fn = [](Completion* c, int st) {
      auto* d = static_cast<Done*>(c);
      d->done = true;
      d->status = st;
    };
  }
};

std::string stats_of(TcpBtl& b) { return b.stats_text(); }

}  // namespace

TEST_CASE("tcp: messages arrive whole and in order, both ways, over one connection", "[tcp]") {
  for (bool node_local : {true, false}) {
    CAPTURE(node_local);
    World w(2, node_local);
    CHECK(w[0].reachable(1));
    CHECK_FALSE(w[0].reachable(0));
    // Both send first: the connects cross, and the lower rank's connection must win on both
    // sides with nothing lost.
    const uint32_t n = 600;
    for (uint32_t i = 0; i < n; ++i) {
      send(w, 0, 1, i, (i * 977) % 40000);
      send(w, 1, 0, i, (i * 131) % 3000);
    }
    REQUIRE(w.until([&] { return w.got(0).size() == n && w.got(1).size() == n; }));
    for (uint32_t i = 0; i < n; ++i) {
      CHECK(intact(w.got(1)[i], i));
      CHECK(intact(w.got(0)[i], i));
    }
    // One connection between the pair: one side made it, the other accepted it.
    const std::string s0 = stats_of(w[0]), s1 = stats_of(w[1]);
    CHECK(s0.find("1 accepted") + s1.find("1 accepted") != 2 * std::string::npos);
    w.progress();
    CHECK(w.got(0).size() == n);
  }
}

TEST_CASE("tcp: get reads registered memory straight into the destination", "[tcp]") {
  World w(2, false);
  std::vector<uint8_t> src(5 * 1024 * 1024 + 3);
  for (size_t i = 0; i < src.size(); ++i) src[i] = static_cast<uint8_t>(i * 7 + 1);
  Registration reg;
  w[1].reg(src.data(), src.size(), &reg);
  std::vector<uint8_t> dst(src.size());
  Done d;
  REQUIRE(w[0].get(1, dst.data(), nullptr, reinterpret_cast<uint64_t>(src.data()), reg.rkey,
                   src.size(), &d) == Status::kPosted);
  REQUIRE(w.until([&] { return d.done; }));
  CHECK(d.status == 0);
  CHECK(dst == src);

  SECTION("a read outside the registration is refused and reads nothing") {
    Done bad;
    std::vector<uint8_t> out(64, 0xee);
    REQUIRE(w[0].get(1, out.data(), nullptr, reinterpret_cast<uint64_t>(src.data()) + src.size(),
                     reg.rkey, 64, &bad) == Status::kPosted);
    REQUIRE(w.until([&] { return bad.done; }));
    CHECK(bad.status != 0);
    CHECK(out == std::vector<uint8_t>(64, 0xee));
  }
  SECTION("after dereg the key no longer reads") {
    w[1].dereg(&reg);
    Done gone;
    REQUIRE(w[0].get(1, dst.data(), nullptr, reinterpret_cast<uint64_t>(src.data()),
                     mpr::btl::RemoteKey{{1}}, 16, &gone) == Status::kPosted);
    REQUIRE(w.until([&] { return gone.done; }));
    CHECK(gone.status != 0);
  }
}

TEST_CASE("tcp: put writes registered memory and completes after the peer has it", "[tcp]") {
  World w(2, true);
  std::vector<uint8_t> target(3 * 1024 * 1024, 0);
  Registration reg;
  w[1].reg(target.data(), target.size(), &reg);
  std::vector<uint8_t> src(target.size() - 100);
  for (size_t i = 0; i < src.size(); ++i) src[i] = static_cast<uint8_t>(i ^ 0x5a);
  Done d;
  REQUIRE(w[0].put(1, src.data(), nullptr, reinterpret_cast<uint64_t>(target.data()) + 100,
                   reg.rkey, src.size(), &d) == Status::kPosted);
  REQUIRE(w.until([&] { return d.done; }));
  CHECK(d.status == 0);
  CHECK(std::equal(src.begin(), src.end(), target.begin() + 100));
  CHECK(target[99] == 0);
}

TEST_CASE("tcp: small messages overtake a large transfer in flight", "[tcp]") {
  Config cfg;
  cfg.frag = 64 << 10;
  World w(2, false, cfg);
  std::vector<uint8_t> src(64 << 20, 1), dst(64 << 20, 0);
  Registration reg;
  w[1].reg(src.data(), src.size(), &reg);
  send(w, 1, 0, 0, 8);  // connect first
  REQUIRE(w.until([&] { return w.got(0).size() == 1; }));
  Done d;
  REQUIRE(w[0].get(1, dst.data(), nullptr, reinterpret_cast<uint64_t>(src.data()), reg.rkey,
                   src.size(), &d) == Status::kPosted);
  // Rank 1 takes the request and starts streaming (as far as its socket lets it); rank 0
  // reads nothing yet.
  w[0].progress();  // the request goes out
  REQUIRE(w.until_only(
      [&] {
        w[1].progress();
        return stats_of(w[1]).find("gets served 1") != std::string::npos;
      },
      false));
  send(w, 1, 0, 1, 8);
  REQUIRE(w.until([&] { return w.got(0).size() == 2; }));
  CHECK_FALSE(d.done);  // 64 MiB in 64 KiB frames: the message went between them
  REQUIRE(w.until([&] { return d.done; }));
  CHECK(dst == src);
}

TEST_CASE("tcp: a peer that stops reading makes send_am return kRetry, not grow", "[tcp]") {
  Config cfg;
  cfg.max_queued = 1 << 20;
  World w(2, true, cfg);
  send(w, 0, 1, 0, 8);
  REQUIRE(w.until([&] { return w.got(1).size() == 1; }));
  std::vector<uint8_t> payload(30000);
  iovec iov{payload.data(), payload.size()};
  uint32_t seq = 1;
  int sent = 0;
  // Rank 1 makes no progress: the socket buffers fill, then the queue, then kRetry.
  while (w[0].send_am(1, 3, &seq, sizeof seq, &iov, 1) == Status::kDone && sent < 100000) {
    ++sent;
    w[0].progress();
  }
  CHECK(sent < 100000);
  REQUIRE(w.until([&] { return w.got(1).size() == static_cast<size_t>(sent) + 1; }));
}

namespace {

int connect_to(uint16_t port) {
  int fd = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in sa{};
  sa.sin_family = AF_INET;
  sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  sa.sin_port = htons(port);
  if (connect(fd, reinterpret_cast<sockaddr*>(&sa), sizeof sa) != 0) {
    close(fd);
    return -1;
  }
  return fd;
}

}  // namespace

TEST_CASE("tcp: garbage and a wrong secret are refused and reach nothing", "[tcp]") {
  World w(2, false);
  const uint16_t port = w[1].listen_port();
  REQUIRE(port != 0);
  int junk = connect_to(port);
  REQUIRE(junk >= 0);
  const char garbage[] = "GET / HTTP/1.0\r\n\r\nmore bytes than a hello has, to be sure";
  REQUIRE(write(junk, garbage, sizeof garbage) > 0);
  int forged = connect_to(port);
  REQUIRE(forged >= 0);
  mpr::btl::tcp::Hello h;
  h.src = 0;
  h.dst = 1;  // right ranks, right magic, but no secret
  REQUIRE(write(forged, &h, sizeof h) == static_cast<ssize_t>(sizeof h));
  int guessed = connect_to(port);
  REQUIRE(guessed >= 0);
  h.job_hash = mpr::btl::tcp::job_hash("tcp-test-job");  // this job, a guessed secret
  std::memset(h.secret, 0x42, sizeof h.secret);
  REQUIRE(write(guessed, &h, sizeof h) == static_cast<ssize_t>(sizeof h));
  REQUIRE(w.until([&] { return stats_of(w[1]).find("3 refused") != std::string::npos; }));
  // All were closed by rank 1 without an answer.
  char c;
  CHECK(read(junk, &c, 1) <= 0);
  CHECK(read(forged, &c, 1) <= 0);
  CHECK(read(guessed, &c, 1) <= 0);
  close(junk);
  close(forged);
  close(guessed);
  CHECK(w.got(1).empty());
  // The job's own traffic is untouched.
  send(w, 0, 1, 7, 100);
  REQUIRE(w.until([&] { return w.got(1).size() == 1; }));
  CHECK(intact(w.got(1)[0], 7));
}

TEST_CASE("tcp: a peer gone without finalize is reported, naming it; after finalize not", "[tcp]") {
  SECTION("killed") {
    World w(2, false);
    send(w, 0, 1, 0, 8);
    REQUIRE(w.until([&] { return w.got(1).size() == 1; }));
    w.ranks[1].btl.reset();  // sockets closed with no goodbye, as when the process dies
    std::string why;
    auto end = std::chrono::steady_clock::now() + std::chrono::seconds(10);
    while (why.empty() && std::chrono::steady_clock::now() < end) {
      try {
        w[0].progress();
      } catch (const std::runtime_error& e) {
        why = e.what();
      }
    }
    CHECK_THAT(why, Catch::Contains("connection to rank 1 on node ") && Catch::Contains("lost"));
  }
  SECTION("finalized") {
    World w(2, false);
    send(w, 0, 1, 0, 8);
    REQUIRE(w.until([&] { return w.got(1).size() == 1; }));
    w[1].finalize();
    w.ranks[1].btl.reset();
    for (int i = 0; i < 20000; ++i) CHECK_NOTHROW(w[0].progress());
  }
}

TEST_CASE("tcp: a peer in no shared subnet is unreachable, and the reason says why", "[tcp]") {
  auto store = std::make_shared<FakeStore>();
  FakeBootstrap a(store, 0, 2, "j"), b(store, 1, 2, "j");
  a.set_local_peers({0});
  b.set_local_peers({1});
  TcpBtl ta(a, Config{}, {{"lo", INADDR_LOOPBACK, 8, true}});
  TcpBtl tb(b, Config{}, {{"lo", INADDR_LOOPBACK + 1, 32, true}});
  // rank 1 listens on 127.0.0.2/32 only: rank 0's 127.0.0.1/8 contains it, so the shorter
  // prefix (/8) decides and they do share a subnet; an unrelated one does not.
  ta.wire_up(a);
  tb.wire_up(b);
  CHECK(ta.reachable(1));
  FakeBootstrap c(store, 0, 2, "j");
  c.set_local_peers({0});
  std::vector<IfAddr> none;
  TcpBtl tc(c, Config{}, none);
  tc.wire_up(c);
  CHECK_FALSE(tc.reachable(1));
  CHECK_THAT(tc.why_unreachable(1),
             Catch::Contains("shares a subnet") && Catch::Contains("127.0.0.2/32"));
}
