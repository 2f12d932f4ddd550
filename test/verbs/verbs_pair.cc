#include "test/verbs/verbs_pair.h"

#include <atomic>
#include <catch2/catch.hpp>
#include <cstring>
#include <stdexcept>

namespace mpr::verbs_test {

namespace {
std::atomic<int> g_job{0};

void on_am(void* ctx, int src, const void* hdr, size_t hdr_len, const void* payload,
           size_t payload_len) {
  auto* ep = static_cast<Endpoint*>(ctx);
  const auto* h = static_cast<const uint8_t*>(hdr);
  const auto* p = static_cast<const uint8_t*>(payload);
  if (ep->on_msg) {
    ep->on_msg(src, h, hdr_len, p, payload_len);
    return;
  }
  Received r;
  r.src = src;
  r.hdr.assign(h, h + hdr_len);
  r.payload.assign(p, p + payload_len);
  ep->inbox.push_back(std::move(r));
}
}  // namespace

bool device_available(std::string* why) {
  btl::verbs::Config cfg = btl::verbs::Config::from_params();
  try {
    btl::verbs::Device d = btl::verbs::open_device(cfg, 0, 0);  // closed again on return
    if (!d.ctx) *why = d.why;
    return d.ctx != nullptr;
  } catch (const std::exception& e) {
    *why = e.what();
    return false;
  }
}

btl::verbs::Config default_config() { return btl::verbs::Config::from_params(); }

World::World(const btl::verbs::Config& cfg, int n) {
  auto store = std::make_shared<FakeStore>();
  const std::string job = "verbs-test-" + std::to_string(g_job++);
  for (int r = 0; r < n; ++r) {
    auto ep = std::make_unique<Endpoint>();
    ep->bs = std::make_unique<FakeBootstrap>(store, r, n, job);
    ep->btl = btl::verbs::create(*ep->bs, cfg);
    if (!ep->btl) throw std::runtime_error("verbs backend could not be created");
    ep->v = dynamic_cast<btl::verbs::VerbsBtl*>(ep->btl.get());
    for (int id = 0; id < btl::kMaxAmIds; ++id) ep->btl->set_handler(id, &on_am, ep.get());
    eps_.push_back(std::move(ep));
  }
  for (auto& ep : eps_) ep->bs->fence();
  for (auto& ep : eps_) ep->btl->wire_up(*ep->bs);
}

World::~World() = default;

void World::progress_all() {
  for (auto& ep : eps_) ep->btl->progress();
}

bool World::spin(const std::function<bool()>& done, double seconds) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(seconds);
  while (!done()) {
    progress_all();
    if (std::chrono::steady_clock::now() > deadline) return false;
  }
  return true;
}

bool World::send(int from, int to, int am_id, const void* hdr, size_t hdr_len, const void* payload,
                 size_t payload_len, double seconds) {
  iovec iov{const_cast<void*>(payload), payload_len};
  bool sent = false;
  return spin(
      [&] {
        if (!sent)
          sent = (*this)[from].btl->send_am(to, am_id, hdr, hdr_len, &iov, payload_len ? 1 : 0) ==
                 btl::Status::kDone;
        return sent;
      },
      seconds);
}

void World::finalize_all() {
  for (auto& ep : eps_) ep->btl->finalize();
}

void fill(void* buf, size_t len, uint64_t seed) {
  auto* b = static_cast<uint8_t*>(buf);
  for (size_t i = 0; i < len; ++i) b[i] = pattern(seed, i);
}

size_t first_mismatch(const void* buf, size_t len, uint64_t seed) {
  const auto* b = static_cast<const uint8_t*>(buf);
  for (size_t i = 0; i < len; ++i)
    if (b[i] != pattern(seed, i)) return i;
  return SIZE_MAX;
}

WaitCompletion::WaitCompletion() {
  c.fn = [](btl::Completion* self, int st) {
    auto* w = reinterpret_cast<WaitCompletion*>(self);
    w->done = true;
    w->status = st;
  };
}

}  // namespace mpr::verbs_test
