// A single rank talking to itself through the real self backend, and the packet-level rules
// of the pml checked with hand-built wire messages from a scripted peer (test/fixtures/).
#include <catch2/catch.hpp>
#include <cstring>
#include <vector>

#include "pml/headers.h"
#include "pml/pml_testing.h"
#include "test/fixtures/scripted_btl.h"
#include "test/unit/pml/fake_world.h"

using namespace mpr;
using mpr::test::check_payload;
using mpr::test::eager_hdr;
using mpr::test::FakeBootstrap;
using mpr::test::make_payload;
using mpr::test::Scripted;

namespace {

std::unique_ptr<pml::Pml> singleton(FakeBootstrap& bs) {
  std::vector<std::unique_ptr<btl::Btl>> btls;
  btls.push_back(btl::make_self_btl(bs));
  return pml::make_pml_over(bs, std::move(btls), pml::PmlConfig{});
}

}  // namespace

TEST_CASE("the self backend queues active messages until progress", "[self]") {
  FakeBootstrap bs(0, 1);
  auto b = btl::make_self_btl(bs);
  CHECK(b->reachable(0));
  CHECK_FALSE(b->reachable(1));
  struct Seen {
    int calls = 0;
    std::string text;
  } seen;
  b->set_handler(
      3,
      [](void* ctx, int src, const void* hdr, size_t hl, const void* p, size_t pl) {
        auto* s = static_cast<Seen*>(ctx);
        ++s->calls;
        s->text = std::to_string(src) + ":" + std::string(static_cast<const char*>(hdr), hl) + "|" +
                  std::string(static_cast<const char*>(p), pl);
      },
      &seen);
  char hdr[] = "HDR";
  char a[] = "ab", c[] = "cd";
  iovec iov[2] = {{a, 2}, {c, 2}};
  REQUIRE(b->send_am(0, 3, hdr, 3, iov, 2) == btl::Status::kDone);
  a[0] = 'X';              // the message was copied at send time
  CHECK(seen.calls == 0);  // never delivered from inside send_am
  CHECK(b->progress() == 1);
  CHECK(seen.calls == 1);
  CHECK(seen.text == "0:HDR|abcd");
  CHECK(b->progress() == 0);
}

TEST_CASE("the self backend's get and put are plain copies", "[self]") {
  FakeBootstrap bs(0, 1);
  auto b = btl::make_self_btl(bs);
  CHECK(b->caps().native_get);
  std::vector<uint8_t> src = make_payload(1, 1000), dst(1000);
  btl::Registration reg;
  b->reg(src.data(), src.size(), &reg);
  CHECK(b->get(0, dst.data(), nullptr, reinterpret_cast<uint64_t>(src.data()), reg.rkey, 1000,
               nullptr) == btl::Status::kDone);
  CHECK(dst == src);
  std::vector<uint8_t> back(1000);
  CHECK(b->put(0, src.data(), nullptr, reinterpret_cast<uint64_t>(back.data()), reg.rkey, 1000,
               nullptr) == btl::Status::kDone);
  CHECK(back == src);
  b->dereg(&reg);
}

TEST_CASE("a rank sends to itself through the self backend", "[self]") {
  FakeBootstrap bs(0, 1);
  auto p = singleton(bs);
  CHECK(std::string(pml::backend_for(*p, 0)) == "self");
  CHECK(bs.fences == 1);
  size_t n = GENERATE(size_t{0}, size_t{5}, size_t{8192}, size_t{8193}, size_t{5} << 20);
  INFO("size " << n);
  auto data = make_payload(2, n);
  std::vector<uint8_t> buf(n);
  SECTION("receive posted first") {
    pml::Request* r = p->irecv(buf.data(), n, 0, 1, 0);
    pml::Request* s = p->isend(data.data(), n, 0, 0, 1, 0, pml::SendMode::kStandard);
    p->wait(s);
    p->wait(r);
    CHECK(r->status.bytes == n);
    p->release(s);
    p->release(r);
  }
  SECTION("send first, synchronous") {
    pml::Request* s = p->isend(data.data(), n, 0, 0, 1, 0, pml::SendMode::kSync);
    for (int i = 0; i < 20; ++i) p->progress();
    CHECK_FALSE(s->complete);
    pml::Request* r = p->irecv(buf.data(), n, pml::kAnySource, pml::kAnyTag, 0);
    p->wait(r);
    p->wait(s);
    CHECK(r->status.source == 0);
    p->release(s);
    p->release(r);
  }
  CHECK(check_payload(buf.data(), 2, n));
  CHECK(p->stats().self_msgs == 1);
  CHECK(pml::debug_counters(*p).live_requests == 0);
  p->finalize();
  CHECK(bs.fences == 2);
}

TEST_CASE("256 MiB to itself is one rendezvous", "[self][large]") {
  FakeBootstrap bs(0, 1);
  auto p = singleton(bs);
  const size_t n = size_t{256} << 20;
  std::vector<uint8_t> src(n, 0x11), dst(n);
  src[0] = 1;
  src[n - 1] = 2;
  pml::Request* r = p->irecv(dst.data(), n, 0, 0, 0);
  pml::Request* s = p->isend(src.data(), n, 0, 0, 0, 0, pml::SendMode::kStandard);
  p->wait(r);
  p->wait(s);
  CHECK(r->status.bytes == n);
  CHECK(std::memcmp(src.data(), dst.data(), n) == 0);
  CHECK(p->stats().rndv_msgs == 1);
  CHECK(p->stats().rndv_bytes == n);
  p->release(s);
  p->release(r);
}

TEST_CASE("wait drives a generic request through its poll hook", "[self]") {
  FakeBootstrap bs(0, 1, /*oversubscribed=*/true);
  auto p = singleton(bs);
  struct Countdown : pml::Request {
    int left = 100;
  } g;
  g.kind = pml::Request::Kind::kGeneric;
  g.poll = [](pml::Request* self) {
    auto* c = static_cast<Countdown*>(self);
    if (--c->left == 0) c->complete = true;
    return c->left % 2 == 0;
  };
  p->wait(&g);
  CHECK(g.complete);
  CHECK(g.left == 0);
  p->release(&g);  // generic requests belong to the runtime: release leaves them alone
  CHECK(g.left == 0);
}

TEST_CASE("matched probe on nothing and receive of no message", "[self]") {
  FakeBootstrap bs(0, 1);
  auto p = singleton(bs);
  pml::Status st;
  CHECK(p->improbe(0, 0, 0, &st) == nullptr);
  pml::Request* r = p->imrecv(nullptr, 0, nullptr);
  CHECK(r->complete);
  p->release(r);
}

TEST_CASE("describe names each backend, its peers and its protocols", "[self]") {
  mpr::test::FakeOptions o;
  o.eager_limit = 2048;
  o.native_get = false;
  mpr::test::FakeWorld w(3, o);
  std::string d = w.pml(1).describe();
  INFO(d);
  CHECK(d.find("rank 1 of 3") != std::string::npos);
  CHECK(d.find("self: peers 1;") != std::string::npos);
  CHECK(d.find("fake: peers 0,2; eager <= 2 KiB; rendezvous: copy pipeline") != std::string::npos);
  CHECK(std::count(d.begin(), d.end(), '\n') >= 4);
}

TEST_CASE("wire: an eager message carries header and data in one active message", "[wire]") {
  Scripted s;
  char data[] = "hello";
  pml::Request* r = s.p->isend(data, 5, 1, 0, 9, 4, pml::SendMode::kStandard);
  CHECK(r->complete);  // copied out by the backend: the buffer is free again
  REQUIRE(s.wire->sent.size() == 1);
  const auto& m = s.wire->sent[0];
  CHECK(m.am_id == pml::kAmMatch);
  pml::MatchHdr h;
  REQUIRE(pml::read_hdr(m.hdr.data(), m.hdr.size(), &h));
  CHECK(h.type == pml::HdrType::kEager);
  CHECK(h.ctx == 4);
  CHECK(h.src == 0);
  CHECK(h.tag == 9);
  CHECK(h.seq == 0);
  CHECK(m.hdr.size() == sizeof(pml::MatchHdr));  // an eager message's length is its payload's
  CHECK(std::string(m.payload.begin(), m.payload.end()) == "hello");
  s.p->release(r);
}

TEST_CASE("wire: messages ahead of their sequence number wait for the missing one", "[wire]") {
  Scripted s;
  int a = 0, b = 0;
  pml::Request* r1 = s.p->irecv(&a, 4, 1, pml::kAnyTag, 0);
  pml::Request* r2 = s.p->irecv(&b, 4, 1, pml::kAnyTag, 0);
  std::vector<uint8_t> one = {1, 0, 0, 0}, two = {2, 0, 0, 0};
  s.wire->inject(pml::kAmMatch, eager_hdr(1, 0), two);
  s.p->progress();
  CHECK_FALSE(r1->complete);  // parked: sequence 0 has not arrived
  s.wire->inject(pml::kAmMatch, eager_hdr(0, 0), one);
  s.p->progress();
  CHECK(r1->complete);
  CHECK(r2->complete);
  CHECK(a == 1);
  CHECK(b == 2);
  CHECK(pml::debug_counters(*s.p).out_of_sequence == 1);
  s.p->release(r1);
  s.p->release(r2);
}

TEST_CASE("wire: a repeated sequence number is dropped, not matched twice", "[wire]") {
  Scripted s;
  int a = 0;
  s.wire->inject(pml::kAmMatch, eager_hdr(0, 0), {5, 0, 0, 0});
  s.wire->inject(pml::kAmMatch, eager_hdr(0, 0), {6, 0, 0, 0});
  s.p->progress();
  auto d = pml::debug_counters(*s.p);
  CHECK(d.unexpected == 1);
  CHECK(d.protocol_errors == 1);
  pml::Request* r = s.p->irecv(&a, 4, 1, 0, 0);
  CHECK(a == 5);
  s.p->release(r);
}

TEST_CASE("wire: a synchronous eager message is answered by FIN at match time", "[wire]") {
  Scripted s;
  pml::EagerSyncHdr h{};
  h.m = eager_hdr(0, 3);
  h.m.type = pml::HdrType::kEagerSync;
  h.sreq = 77;
  s.wire->inject(pml::kAmMatch, h, {1, 2});
  s.p->progress();
  CHECK(s.wire->sent.empty());  // unexpected: no answer until a receive matches
  uint8_t buf[2];
  pml::Request* r = s.p->irecv(buf, 2, 1, 3, 0);
  REQUIRE(s.wire->sent.size() == 1);
  pml::CtlHdr fin;
  REQUIRE(pml::read_hdr(s.wire->sent[0].hdr.data(), s.wire->sent[0].hdr.size(), &fin));
  CHECK(s.wire->sent[0].am_id == pml::kAmCtl);
  CHECK(fin.type == pml::HdrType::kFin);
  CHECK(fin.sreq == 77);
  s.p->release(r);
}

TEST_CASE("wire: an RTS whose key is not the backend's key size is dropped as malformed",
          "[wire]") {
  Scripted s;
  pml::RtsHdr h{};
  h.m = eager_hdr(0, 0);
  h.len = 1000;
  h.m.type = pml::HdrType::kRts;
  h.sreq = 5;
  std::vector<uint8_t> buf(1000, 0);
  pml::Request* r = s.p->irecv(buf.data(), 1000, 1, 0, 0);
  s.wire->inject(pml::kAmMatch, h, std::vector<uint8_t>(s.wire->caps().rkey_size + 1, 0));
  s.p->progress();
  CHECK(s.wire->sent.empty());  // neither get() nor CTS
  CHECK(pml::debug_counters(*s.p).protocol_errors == 1);
  CHECK_FALSE(r->complete);
  CHECK(s.p->cancel(r));
  s.p->release(r);
}

TEST_CASE("wire: an RTS the receiver cannot read is answered by CTS, then fragments land",
          "[wire]") {
  Scripted s;
  pml::RtsHdr h{};
  h.m = eager_hdr(0, 0);
  h.len = 1000;
  h.m.type = pml::HdrType::kRts;
  h.m.flags = pml::kFlagNoGet;
  h.sreq = 5;
  std::vector<uint8_t> buf(600, 0);
  pml::Request* r = s.p->irecv(buf.data(), 600, 1, 0, 0);
  // The payload of an RTS is the sender's key, as many bytes as the backend declares.
  s.wire->inject(pml::kAmMatch, h, std::vector<uint8_t>(s.wire->caps().rkey_size, 0));
  s.p->progress();
  REQUIRE(s.wire->sent.size() == 1);
  pml::CtlHdr cts;
  REQUIRE(pml::read_hdr(s.wire->sent[0].hdr.data(), s.wire->sent[0].hdr.size(), &cts));
  CHECK(cts.type == pml::HdrType::kCts);
  CHECK(cts.sreq == 5);
  CHECK(cts.len == 600);  // only what fits: the rest is never sent
  pml::FragHdr f{};
  f.type = pml::HdrType::kFrag;
  f.rreq = cts.rreq;
  f.offset = 300;
  s.wire->inject(pml::kAmFrag, f, std::vector<uint8_t>(300, 2));
  f.offset = 0;
  s.wire->inject(pml::kAmFrag, f, std::vector<uint8_t>(300, 1));
  s.p->progress();
  REQUIRE(r->complete);
  CHECK(r->status.error == pml::kErrTruncate);
  CHECK(r->status.bytes == 600);
  CHECK(buf[0] == 1);
  CHECK(buf[599] == 2);
  // A fragment for a finished request is refused, not written anywhere.
  s.wire->inject(pml::kAmFrag, f, std::vector<uint8_t>(10, 9));
  s.p->progress();
  CHECK(pml::debug_counters(*s.p).protocol_errors == 1);
  s.p->release(r);
}

TEST_CASE("wire: FIN for an unknown request and truncated headers are dropped", "[wire]") {
  Scripted s;
  pml::CtlHdr fin{};
  fin.type = pml::HdrType::kFin;
  fin.sreq = 12345;
  s.wire->inject(pml::kAmCtl, fin);
  uint16_t junk = 1;
  s.wire->inject(pml::kAmMatch, junk);
  s.p->progress();
  CHECK(pml::debug_counters(*s.p).protocol_errors == 2);
  CHECK(pml::debug_counters(*s.p).unexpected == 0);
}

TEST_CASE("wire: sequence numbers are 16 bits and compare across the wrap", "[wire]") {
  CHECK(pml::seq_after(1, 0));
  CHECK(pml::seq_after(0, 65535));  // wrapped
  CHECK(pml::seq_after(100, 65500));
  CHECK_FALSE(pml::seq_after(65535, 0));
  CHECK_FALSE(pml::seq_after(7, 7));
  CHECK_FALSE(pml::seq_after(0, 32768));  // half the space away counts as behind
  CHECK(pml::seq_after(32767, 0));
  // A sender past 2^16 messages keeps matching in order: the receiver's counter wraps too.
  Scripted s;
  int got = 0;
  for (uint32_t n = 0; n < 70000; ++n) {
    pml::Request* r = s.p->irecv(&got, 4, 1, pml::kAnyTag, 0);
    std::vector<uint8_t> v = {uint8_t(n), uint8_t(n >> 8), uint8_t(n >> 16), 0};
    s.wire->inject(pml::kAmMatch, eager_hdr(uint16_t(n), 0), v);
    s.p->progress();
    REQUIRE(r->complete);
    REQUIRE(got == int(n));
    s.p->release(r);
  }
  CHECK(pml::debug_counters(*s.p).out_of_sequence == 0);
}
