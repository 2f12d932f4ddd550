// The backend registry: the factory table, MPR_BTL, the choice of a backend per peer, slots,
// the retry backlog and registrations made ahead of use (MPI_Alloc_mem).
#include "btl-rdma/registry.h"

#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <sstream>
#include <stdexcept>

#include "common/log.h"
#include "common/params.h"

namespace mpr::btl {

namespace {

using Factory = std::unique_ptr<Btl> (*)(common::Bootstrap&);

/// Every backend this build knows, in slot order. The loopback backend is always loaded:
/// messages to this rank take it, and it costs nothing when unused. A backend not built
/// here has a factory that returns nullptr (its stub lives beside the backend).
struct Entry {
  const char* name;
  Factory factory;
  bool always;
  /// Loads the backend after setup to reach processes of other jobs only (nullptr: it cannot).
  Factory for_other_jobs;
};
constexpr Entry kTable[] = {
    {"self", &make_self_btl, true, nullptr},
    {"shm", &make_shm_btl, false, nullptr},
    {"verbs", &make_verbs_btl, false, nullptr},
    {"tcp", &make_tcp_btl, false, &make_tcp_btl_other_jobs},
};
static_assert(std::size(kTable) <= kMaxSlots);

std::vector<std::string> split_list(const std::string& text) {
  std::vector<std::string> out;
  std::string cur;
  for (char c : text + ",") {
    if (c == ',') {
      if (!cur.empty()) out.push_back(cur);
      cur.clear();
    } else if (c != ' ') {
      cur += c;
    }
  }
  return out;
}

std::string known_names() {
  std::string out;
  for (const Entry& e : kTable) out += std::string(out.empty() ? "" : ", ") + e.name;
  return out;
}

std::vector<int> sequential(size_t n) {
  std::vector<int> s(n);
  for (size_t i = 0; i < n; ++i) s[i] = static_cast<int>(i);
  return s;
}

/// Each rank's host name, for messages about peers on other nodes.
constexpr const char* kNodeKey = "mpr.node";

PeerLostFn g_peer_lost = nullptr;

/// What pin() registered: one registration per backend that needs them.
struct Pinned {
  std::vector<std::pair<Btl*, Registration>> regs;
};

}  // namespace

std::unique_ptr<Registry> Registry::create(common::Bootstrap& bs) {
  const std::vector<std::string> wanted = split_list(common::param_string("MPR_BTL"));
  for (const std::string& w : wanted) {
    if (std::none_of(std::begin(kTable), std::end(kTable),
                     [&](const Entry& e) { return w == e.name; }))
      throw std::runtime_error("rank " + std::to_string(bs.rank()) +
                               ": MPR_BTL names unknown backend '" + w +
                               "' (known: " + known_names() + ")");
  }
  auto allowed = [&](const char* name) {
    return wanted.empty() || std::find(wanted.begin(), wanted.end(), name) != wanted.end();
  };
  char host[256] = {};
  if (gethostname(host, sizeof host - 1) != 0) host[0] = 0;
  bs.put(kNodeKey, std::vector<uint8_t>(host, host + std::strlen(host)));
  std::vector<std::unique_ptr<Btl>> btls;
  std::vector<int> slots;
  std::vector<std::string> declined;
  for (size_t i = 0; i < std::size(kTable); ++i) {
    const Entry& e = kTable[i];
    if (!e.always && !allowed(e.name)) {
      declined.push_back(std::string(e.name) + ": not in MPR_BTL");
      continue;
    }
    std::string why;
    try {
      if (auto b = e.factory(bs)) {
        btls.push_back(std::move(b));
        slots.push_back(static_cast<int>(i));
        continue;
      }
      why = "not available on this machine";
    } catch (const Unavailable& ex) {
      if (!wanted.empty() && !e.always)
        throw std::runtime_error("rank " + std::to_string(bs.rank()) + ": MPR_BTL asks for " +
                                 e.name + " but it cannot be used: " + ex.what());
      why = ex.what();
    } catch (const std::exception& ex) {
      if (!wanted.empty() || e.always) throw;
      why = ex.what();
    }
    declined.push_back(std::string(e.name) + ": " + why);
  }
  auto reg = std::make_unique<Registry>(bs, std::move(btls), std::move(slots));
  reg->declined_ = std::move(declined);
  return reg;
}

Registry::Registry(common::Bootstrap& bs, std::vector<std::unique_ptr<Btl>> btls,
                   std::vector<int> slots)
    : bs_(bs), owned_(std::move(btls)), slots_(std::move(slots)) {
  if (slots_.empty()) slots_ = sequential(owned_.size());
  if (slots_.size() != owned_.size() || owned_.size() > size_t{kMaxSlots})
    throw std::logic_error("btl registry: " + std::to_string(owned_.size()) + " backends for " +
                           std::to_string(slots_.size()) + " slots (at most " +
                           std::to_string(kMaxSlots) + ")");
  for (auto& b : owned_) {
    if (b->caps().rkey_size > sizeof(RemoteKey))
      throw std::runtime_error(std::string("backend ") + b->caps().name + " declares " +
                               std::to_string(b->caps().rkey_size) +
                               "-byte remote keys; RemoteKey holds " +
                               std::to_string(sizeof(RemoteKey)) + " (raise kRemoteKeyWords)");
    loaded_.push_back(b.get());
  }
  peers_.resize(static_cast<size_t>(bs.size()));
}

// Members are destroyed in reverse order: the backlog (which points into nothing owned)
// first, the backends last.
Registry::~Registry() = default;

void Registry::set_handler(int am_id, AmHandler fn, void* ctx) {
  handlers_[am_id] = {fn, ctx};
  for (Btl* b : loaded_) b->set_handler(am_id, fn, ctx);
}

void Registry::connect() {
  bs_.fence();
  for (Btl* b : loaded_) b->wire_up(bs_);
  for (int peer = 0; peer < npeers(); ++peer) choose(peer);
}

void Registry::choose(int peer) {
  Btl* best = nullptr;
  for (Btl* b : loaded_) {
    if (!b->reachable(peer)) continue;
    if (!best || b->caps().rank < best->caps().rank) best = b;
  }
  if (!best) {
    // Every backend's reason: those loaded say why not this peer, the others why not at all.
    std::string why;
    for (Btl* b : loaded_) {
      std::string w = b->why_unreachable(peer);
      why += std::string(why.empty() ? "" : "; ") + b->caps().name + ": " +
             (w.empty() ? "does not reach it" : w);
    }
    for (const std::string& d : declined_) why += "; " + d;
    std::vector<uint8_t> node;
    std::string where;
    if (bs_.get(peer, kNodeKey, &node) && !node.empty())
      where = " on node " + std::string(node.begin(), node.end());
    const std::string whom = peer < bs_.size() ? "peer " + std::to_string(peer)
                                               : "rank " + std::to_string(bs_.peer_rank(peer)) +
                                                     " of job " + bs_.peer_job(peer);
    throw std::runtime_error("rank " + std::to_string(bs_.rank()) + ": no backend reaches " + whom +
                             where + " (" + why + "; check MPR_BTL)");
  }
  peers_[static_cast<size_t>(peer)].btl = best;
  if (std::find(used_.begin(), used_.end(), best) == used_.end()) used_.push_back(best);
}

std::map<std::string, std::vector<uint8_t>> Registry::contact() {
  std::map<std::string, std::vector<uint8_t>> entries;
  char host[256] = {};
  if (gethostname(host, sizeof host - 1) != 0) host[0] = 0;
  entries[kNodeKey] = std::vector<uint8_t>(host, host + std::strlen(host));
  bool any = false;
  for (Btl* b : loaded_) {
    if (!b->caps().other_jobs) continue;
    b->contact(&entries);
    any = true;
  }
  if (any) return entries;
  // None loaded at setup: load the first that can serve other jobs alone, if MPR_BTL allows.
  const std::vector<std::string> wanted = split_list(common::param_string("MPR_BTL"));
  std::string why;
  for (size_t i = 0; i < std::size(kTable); ++i) {
    const Entry& e = kTable[i];
    if (!e.for_other_jobs) continue;
    if (!wanted.empty() && std::find(wanted.begin(), wanted.end(), e.name) == wanted.end()) {
      why += std::string(why.empty() ? "" : "; ") + e.name + ": not in MPR_BTL";
      continue;
    }
    std::unique_ptr<Btl> b;
    try {
      b = e.for_other_jobs(bs_);
    } catch (const std::exception& ex) {
      why += std::string(why.empty() ? "" : "; ") + e.name + ": " + ex.what();
      continue;
    }
    if (!b) {
      why += std::string(why.empty() ? "" : "; ") + e.name + ": not built";
      continue;
    }
    for (int id = 0; id < kMaxAmIds; ++id)
      if (handlers_[id].fn) b->set_handler(id, handlers_[id].fn, handlers_[id].ctx);
    b->contact(&entries);
    loaded_.push_back(b.get());
    slots_.push_back(static_cast<int>(i));
    owned_.push_back(std::move(b));
    return entries;
  }
  throw std::runtime_error("no backend can reach processes of other jobs (" +
                           (why.empty() ? std::string("none built") : why) + ")");
}

std::string Registry::add_peers() {
  const int first = npeers();
  const int n = bs_.npeers();
  if (n <= first) return "";
  peers_.resize(static_cast<size_t>(n));
  for (Btl* b : loaded_)
    if (b->caps().other_jobs) b->add_peers(bs_, first);
  std::string why;
  for (int peer = first; peer < n; ++peer) {
    try {
      choose(peer);
    } catch (const std::runtime_error& e) {
      if (why.empty()) why = e.what();
    }
  }
  return why;
}

int Registry::slot(const Btl* b) const {
  for (size_t i = 0; i < loaded_.size(); ++i)
    if (loaded_[i] == b) return slots_[i];
  throw std::logic_error("btl registry: slot() of a backend it does not own");
}

size_t Registry::backlog_size() const {
  size_t n = 0;
  for (int peer : backlogged_peers_) n += peers_[static_cast<size_t>(peer)].backlog.size();
  return n;
}

void Registry::queue(Peer& p, int am_id, const void* hdr, size_t hdr_len, const void* data,
                     size_t len, SentFn sent, void* ctx, void* arg) {
  Queued& q = p.backlog.emplace_back();
  q.am_id = am_id;
  std::memcpy(q.hdr, hdr, hdr_len);
  q.hdr_len = hdr_len;
  q.data = data;
  q.len = len;
  q.sent = sent;
  q.ctx = ctx;
  q.arg = arg;
}

int Registry::drain() {
  int events = 0;
  for (size_t i = 0; i < backlogged_peers_.size();) {
    const int peer = backlogged_peers_[i];
    Peer& p = peers_[static_cast<size_t>(peer)];
    while (!p.backlog.empty()) {
      Queued& q = p.backlog.front();
      iovec iov{const_cast<void*>(q.data), q.len};
      if (p.btl->send_am(peer, q.am_id, q.hdr, q.hdr_len, &iov, q.len ? 1 : 0) == Status::kRetry)
        break;
      const SentFn sent = q.sent;
      void* ctx = q.ctx;
      void* arg = q.arg;
      p.backlog.pop_front();
      ++events;
      if (sent) sent(ctx, arg);
    }
    if (p.backlog.empty()) {
      backlogged_peers_[i] = backlogged_peers_.back();
      backlogged_peers_.pop_back();
    } else {
      ++i;
    }
  }
  return events;
}

void* Registry::pin(void* addr, size_t len) {
  auto* p = new Pinned;
  for (Btl* b : used_) {
    if (!b->caps().needs_registration) continue;
    Registration r;
    try {
      b->reg(addr, len, &r);
    } catch (const std::exception&) {
      continue;  // registered on demand later, as any other memory
    }
    p->regs.emplace_back(b, r);
  }
  if (!p->regs.empty()) return p;
  delete p;
  return nullptr;
}

void Registry::unpin(void* token) {
  auto* p = static_cast<Pinned*>(token);
  if (!p) return;
  // After finalize the backends already released every registration.
  if (!finalized_)
    for (auto& [b, r] : p->regs) b->dereg(&r);
  delete p;
}

void Registry::finalize() {
  if (finalized_) return;
  finalized_ = true;
  for (Btl* b : loaded_) b->finalize();
}

std::string Registry::stats() const {
  std::string out;
  for (Btl* b : used_) out += b->stats_text();
  return out;
}

void set_peer_lost_handler(PeerLostFn fn) { g_peer_lost = fn; }

void report_peer_lost(int peer, const std::string& why) {
  if (g_peer_lost) g_peer_lost(peer, why.c_str());
  throw std::runtime_error(why);
}

std::string Registry::describe() const {
  std::ostringstream out;
  for (Btl* b : loaded_) out << "  " << b->caps().name << ": " << b->describe() << "\n";
  return out.str();
}

}  // namespace mpr::btl
