#include "test/unit/pml/fake_world.h"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <stdexcept>
#include <system_error>

namespace mpr::test {

// The shared medium. Channels are per (src, dst) and strictly FIFO; only the channel heads
// compete, in random order, which is exactly the freedom a real transport has.
class FakeWire {
 public:
  FakeWire(int n, const FakeOptions& opt) : n_(n), opt_(opt), rng_(opt.seed), channels_(n * n) {}

  struct Msg {
    int src = 0;
    int am_id = 0;
    std::vector<uint8_t> hdr, payload;
    long ready_at = 0;
  };
  struct PendingGet {
    btl::Completion* c;
    void* local;
    const void* remote;
    size_t len;
    long ready_at;
    int status;
  };

  btl::Status send(int src, int dst, int am_id, const void* hdr, size_t hdr_len, const iovec* iov,
                   int iovcnt) {
    std::lock_guard<std::mutex> lock(mu_);
    auto& ch = channels_[src * n_ + dst];
    if ((opt_.channel_capacity && ch.size() >= opt_.channel_capacity) || roll(opt_.retry_percent)) {
      ++counters_.retries;
      return btl::Status::kRetry;
    }
    Msg m;
    m.src = src;
    m.am_id = am_id;
    m.hdr.assign(static_cast<const uint8_t*>(hdr), static_cast<const uint8_t*>(hdr) + hdr_len);
    for (int i = 0; i < iovcnt; ++i) {
      const auto* b = static_cast<const uint8_t*>(iov[i].iov_base);
      m.payload.insert(m.payload.end(), b, b + iov[i].iov_len);
    }
    m.ready_at = ticks_[dst] + delay(opt_.max_delay);
    ++counters_.am_sent[am_id];
    ch.push_back(std::move(m));
    return btl::Status::kDone;
  }

  btl::Status get(int self, void* local, const void* remote, size_t len, btl::Completion* c) {
    std::lock_guard<std::mutex> lock(mu_);
    ++counters_.gets;
    counters_.get_bytes += len;
    counters_.max_get_len = std::max(counters_.max_get_len, len);
    gets_[self].push_back(
        {c, local, remote, len, ticks_[self] + delay(opt_.get_delay), opt_.get_fails ? EIO : 0});
    return btl::Status::kPosted;
  }

  /// Next ready message for `dst` from a randomly chosen ready channel, if any.
  bool next_message(int dst, Msg* out) {
    std::lock_guard<std::mutex> lock(mu_);
    std::vector<int> ready;
    for (int s = 0; s < n_; ++s) {
      auto& ch = channels_[s * n_ + dst];
      if (!ch.empty() && ch.front().ready_at <= ticks_[dst]) ready.push_back(s);
    }
    if (ready.empty()) return false;
    int s = ready[std::uniform_int_distribution<size_t>(0, ready.size() - 1)(rng_)];
    auto& ch = channels_[s * n_ + dst];
    *out = std::move(ch.front());
    ch.pop_front();
    return true;
  }

  bool next_get(int self, PendingGet* out) {
    std::lock_guard<std::mutex> lock(mu_);
    auto& q = gets_[self];
    for (auto it = q.begin(); it != q.end(); ++it) {
      if (it->ready_at <= ticks_[self]) {
        *out = *it;
        q.erase(it);
        return true;
      }
    }
    return false;
  }

  void tick(int self) {
    std::lock_guard<std::mutex> lock(mu_);
    ++ticks_[self];
  }
  void count_reg(bool reg) {
    std::lock_guard<std::mutex> lock(mu_);
    ++(reg ? counters_.regs : counters_.deregs);
  }

  const FakeOptions& options() const { return opt_; }
  const WireCounters& counters() const { return counters_; }

 private:
  bool roll(int percent) {
    return percent > 0 && std::uniform_int_distribution<int>(0, 99)(rng_) < percent;
  }
  long delay(int max) { return max > 0 ? std::uniform_int_distribution<int>(0, max)(rng_) : 0; }

  int n_;
  FakeOptions opt_;
  std::mutex mu_;
  std::mt19937 rng_;
  std::vector<std::deque<Msg>> channels_;
  std::map<int, long> ticks_;
  std::map<int, std::deque<PendingGet>> gets_;
  WireCounters counters_;
};

namespace {

class FakeBtl final : public btl::Btl {
 public:
  FakeBtl(FakeWire& wire, int rank) : wire_(wire), rank_(rank) {
    const FakeOptions& o = wire.options();
    caps_.name = "fake";
    caps_.max_am_size = o.max_am_size;
    caps_.eager_limit = o.eager_limit;
    caps_.native_get = o.native_get;
    caps_.needs_registration = o.needs_registration;
    caps_.rndv_get_min = o.rndv_get_min;
    caps_.rndv_get_duplex_min = o.rndv_get_duplex_min;
    caps_.rndv_get_duplex_max = o.rndv_get_duplex_max;
  }
  const btl::Caps& caps() const override { return caps_; }
  void wire_up(common::Bootstrap&) override {}
  bool reachable(int peer) const override { return peer != rank_ || !wire_.options().use_self_btl; }
  btl::Status send_am(int peer, int am_id, const void* hdr, size_t hdr_len, const iovec* iov,
                      int iovcnt) override {
    size_t total = hdr_len;
    for (int i = 0; i < iovcnt; ++i) total += iov[i].iov_len;
    if (total > caps_.max_am_size)
      throw std::logic_error("fake btl: active message of " + std::to_string(total) +
                             " bytes exceeds max_am_size");
    return wire_.send(rank_, peer, am_id, hdr, hdr_len, iov, iovcnt);
  }
  void reg(void* addr, size_t len, btl::Registration* out) override {
    if (wire_.options().reg_throws) throw std::system_error(ENOMEM, std::generic_category(), "reg");
    *out = btl::Registration{};
    out->addr = addr;
    out->len = len;
    out->rkey.words[0] = 0xfeed;
    wire_.count_reg(true);
  }
  void dereg(btl::Registration* reg) override {
    if (reg->rkey.words[0] != 0xfeed) throw std::logic_error("fake btl: dereg of a bad key");
    *reg = btl::Registration{};
    wire_.count_reg(false);
  }
  btl::Status get(int, void* local, const btl::Registration* local_reg, uint64_t remote_addr,
                  const btl::RemoteKey& rkey, size_t len, btl::Completion* c) override {
    if (!caps_.native_get) throw std::logic_error("fake btl: get() without native_get");
    if (rkey.words[0] != 0xfeed) throw std::logic_error("fake btl: get() with a bad remote key");
    if (caps_.needs_registration && !local_reg)
      throw std::logic_error("fake btl: get() into unregistered memory");
    return wire_.get(rank_, local, reinterpret_cast<const void*>(remote_addr), len, c);
  }
  btl::Status put(int, const void*, const btl::Registration*, uint64_t, const btl::RemoteKey&,
                  size_t, btl::Completion*) override {
    throw std::logic_error("fake btl: the pml never puts");
  }
  int progress() override {
    wire_.tick(rank_);
    int events = 0;
    FakeWire::PendingGet g;
    while (wire_.next_get(rank_, &g)) {
      if (g.status == 0) std::memcpy(g.local, g.remote, g.len);
      g.c->fn(g.c, g.status);
      ++events;
    }
    FakeWire::Msg m;
    for (int i = 0; i < 64 && wire_.next_message(rank_, &m); ++i) {
      dispatch(m.am_id, m.src, m.hdr.data(), m.hdr.size(), m.payload.data(), m.payload.size());
      ++events;
    }
    return events;
  }
  std::string describe() const override { return "fake: in-process test wire"; }

 private:
  FakeWire& wire_;
  int rank_;
  btl::Caps caps_;
};

}  // namespace

FakeWorld::FakeWorld(int n, const FakeOptions& opt) : wire_(std::make_unique<FakeWire>(n, opt)) {
  for (int r = 0; r < n; ++r) boots_.push_back(std::make_unique<FakeBootstrap>(r, n));
  for (int r = 0; r < n; ++r) {
    std::vector<std::unique_ptr<btl::Btl>> btls;
    if (opt.use_self_btl) btls.push_back(btl::make_self_btl(*boots_[r]));
    btls.push_back(std::make_unique<FakeBtl>(*wire_, r));
    pmls_.push_back(pml::make_pml_over(*boots_[r], std::move(btls), opt.pml));
  }
}

FakeWorld::~FakeWorld() = default;

const WireCounters& FakeWorld::wire() const { return wire_->counters(); }

bool FakeWorld::drive(const std::function<bool()>& done, int rounds) {
  for (int i = 0; i < rounds; ++i) {
    if (done()) return true;
    for (auto& p : pmls_) p->progress();
  }
  return done();
}

bool FakeWorld::drive_all(const std::vector<pml::Request*>& reqs, int rounds) {
  return drive(
      [&] {
        for (auto* r : reqs)
          if (!r->complete) return false;
        return true;
      },
      rounds);
}

std::vector<uint8_t> make_payload(uint32_t id, size_t len) {
  std::vector<uint8_t> v(len);
  for (size_t i = 0; i < len; ++i) v[i] = pattern(id, i);
  return v;
}

bool check_payload(const uint8_t* buf, uint32_t id, size_t len) {
  for (size_t i = 0; i < len; ++i)
    if (buf[i] != pattern(id, i)) return false;
  return true;
}

}  // namespace mpr::test
