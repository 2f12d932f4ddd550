// Setup and teardown: the pml's view of the backend serving each peer (chosen by the registry),
// describe() for MPR_VERBOSE, and finalize.

#include <algorithm>
#include <cassert>
#include <chrono>
#include <sstream>
#include <stdexcept>

#include "common/log.h"
#include "common/params.h"
#include "pml/pml_impl.h"

namespace mpr::pml {

namespace {

/// "0-3,5,7-8"
std::string format_ranks(const std::vector<int>& ranks) {
  std::string out;
  for (size_t i = 0; i < ranks.size();) {
    size_t j = i;
    while (j + 1 < ranks.size() && ranks[j + 1] == ranks[j] + 1) ++j;
    if (!out.empty()) out += ',';
    out += std::to_string(ranks[i]);
    if (j > i) out += '-' + std::to_string(ranks[j]);
    i = j + 1;
  }
  return out.empty() ? "none" : out;
}

std::string format_bytes(size_t n) {
  if (n >= (size_t{1} << 20) && n % (size_t{1} << 20) == 0) return std::to_string(n >> 20) + " MiB";
  if (n >= 1024 && n % 1024 == 0) return std::to_string(n >> 10) + " KiB";
  return std::to_string(n) + " B";
}

}  // namespace

PmlConfig PmlConfig::from_params() {
  PmlConfig c;
  c.get_chunk =
      static_cast<size_t>(std::max<int64_t>(common::param_int("MPR_PML_GET_CHUNK"), 4096));
  c.get_inflight =
      static_cast<int>(std::clamp<int64_t>(common::param_int("MPR_PML_GET_INFLIGHT"), 1, 64));
  c.spin_count = static_cast<int>(std::min<int64_t>(common::param_int("MPR_SPIN_COUNT"), 1 << 30));
  c.pack_chunk =
      static_cast<size_t>(std::max<int64_t>(common::param_int("MPR_PML_PACK_CHUNK"), 4096));
  return c;
}

PmlImpl::PmlImpl(common::Bootstrap& bs, btl::Registry& reg, std::unique_ptr<btl::Registry> owned,
                 const PmlConfig& cfg)
    : bs_(bs), owned_reg_(std::move(owned)), reg_(reg), cfg_(cfg), rank_(bs.rank()) {
  cfg_.get_inflight = std::max(cfg_.get_inflight, 1);
  cfg_.frag_budget = std::max(cfg_.frag_budget, 1);
  cfg_.get_chunk = std::max<size_t>(cfg_.get_chunk, 1);
  cfg_.pack_chunk = std::max<size_t>(cfg_.pack_chunk, 1);
  wait_policy_ = common::WaitPolicy::from_params(bs.oversubscribed());
  wait_policy_.spin_polls = cfg_.spin_count;
  peers_.resize(static_cast<size_t>(bs.size()));
  static_assert(btl::kAmIdsPml == 0 && int{kAmFrag} < btl::kAmIdRma,
                "the pml's active-message ids are the registry's first range");
  reg_.set_handler(kAmMatch, &PmlImpl::am_match, this);
  reg_.set_handler(kAmCtl, &PmlImpl::am_ctl, this);
  reg_.set_handler(kAmFrag, &PmlImpl::am_frag, this);
  reg_.connect();
  select_backends();
}

void PmlImpl::add_peers() {
  const size_t first = peers_.size();
  if (static_cast<size_t>(reg_.npeers()) <= first) return;
  peers_.resize(static_cast<size_t>(reg_.npeers()));
  select_backends(static_cast<int>(first));
}

void PmlImpl::select_backends(int first) {
  for (int peer = first; peer < static_cast<int>(peers_.size()); ++peer) {
    btl::Btl* best = reg_.backend(peer);
    if (!best) continue;  // a process of another job nothing reaches (Registry::add_peers)
    const btl::Caps& caps = best->caps();
    if (caps.max_am_size <= sizeof(RtsHdr))
      throw std::runtime_error("rank " + std::to_string(rank_) + ": backend " + caps.name +
                               " carries only " + std::to_string(caps.max_am_size) +
                               "-byte active messages; the pml needs more than " +
                               std::to_string(sizeof(RtsHdr)));
    Peer& p = peers_[peer];
    p.btl = best;
    p.eager_limit = std::min(caps.eager_limit, caps.max_am_size - sizeof(EagerSyncHdr));
    p.frag_payload = caps.max_am_size - sizeof(FragHdr);
  }
}

PmlImpl::~PmlImpl() {
  // Free what the runtime never released (abnormal teardown) before the backends go away.
  while (ReqBase* r = all_reqs_.front()) {
    if (r->kind == Request::Kind::kSend) {
      drop_send_reg(static_cast<SendReq*>(r));
    } else {
      auto* rr = static_cast<RecvReq*>(r);
      if (rr->registered) rr->reg_btl->dereg(&rr->reg);
    }
    free_req(r);
  }
  while (Message* m = taken_msgs_.front()) {
    taken_msgs_.erase(m);
    delete m;
  }
  while (ArrivedEntry* e = match_.take_any_unexpected()) delete static_cast<Message*>(e);
  for (Message* m : spare_msgs_) delete m;
}

void PmlImpl::finalize() {
  if (finalized_) return;
  finalized_ = true;
  // Requests the runtime released before completion (MPI_Request_free) and replies still
  // queued behind kRetry must reach the peer before we stop progressing. Receives that never
  // matched are not waited for: nothing may arrive for them any more.
  common::Waiter waiter(wait_policy_, common::WaitKind::kCounted);
  const auto start = std::chrono::steady_clock::now();
  bool warned = false;
  while (!idle()) {
    if (progress() > 0) continue;
    waiter.idle();
    if (!warned && std::chrono::steady_clock::now() - start > std::chrono::seconds(10)) {
      warned = true;
      common::log_error(
          "MPI_Finalize: still waiting for %zu request(s) in progress (a send "
          "no peer ever received?)",
          incomplete_ - match_.posted_count());
    }
  }
  if (match_.unexpected_count() > 0)
    common::log_verbose("pml: %zu unexpected message(s) were never received",
                        match_.unexpected_count());
  // The last fence keeps progressing: a peer may still wait for an answer from this rank (to
  // a send cancellation, say) until it reaches the fence itself.
  common::Waiter fence_waiter(wait_policy_, common::WaitKind::kCounted);
  bs_.fence_while([&] {
    if (progress() > 0) {
      fence_waiter.busy();
      return true;
    }
    fence_waiter.idle();
    return false;
  });
  reg_.finalize();
}

std::string PmlImpl::describe() const {
  std::ostringstream out;
  out << "pml: rank " << rank_ << " of " << peers_.size() << ", get chunk "
      << format_bytes(cfg_.get_chunk) << " x " << cfg_.get_inflight << " in flight\n";
  for (btl::Btl* b : reg_.loaded()) {
    std::vector<int> served;
    size_t eager = 0;
    for (size_t i = 0; i < peers_.size(); ++i)
      if (peers_[i].btl == b) {
        served.push_back(static_cast<int>(i));
        eager = peers_[i].eager_limit;
      }
    const btl::Caps& caps = b->caps();
    out << "  " << caps.name << ": peers " << format_ranks(served);
    if (!served.empty()) {
      out << "; eager <= " << format_bytes(eager) << "; rendezvous: ";
      if (caps.native_get) {
        out << "receiver get()" << (caps.needs_registration ? " on registered memory" : "");
        if (caps.rndv_get_min > 0)
          out << " from " << format_bytes(caps.rndv_get_min) << ", copy pipeline below";
        if (caps.rndv_get_duplex_min > 0 && caps.rndv_get_duplex_min < caps.rndv_get_min)
          out << " (get() from " << format_bytes(caps.rndv_get_duplex_min) << " to "
              << format_bytes(caps.rndv_get_duplex_max) << " while both directions are busy)";
      } else
        out << "copy pipeline (CTS + " << format_bytes(caps.max_am_size - sizeof(FragHdr))
            << " fragments)";
    }
    out << "\n    " << b->describe() << "\n";
  }
  for (const std::string& d : reg_.declined()) out << "  not used: " << d << "\n";
  return out.str();
}

PmlDebug PmlImpl::debug() const {
  PmlDebug d;
  d.out_of_sequence = out_of_sequence_;
  d.protocol_errors = protocol_errors_;
  d.live_requests = all_reqs_.size();
  d.incomplete = incomplete_;
  d.unexpected = match_.unexpected_count();
  d.posted = match_.posted_count();
  d.pending_ams = reg_.backlog_size();
  return d;
}

const char* PmlImpl::backend_name(int peer) const {
  return peers_.at(static_cast<size_t>(peer)).btl->caps().name;
}

std::unique_ptr<Pml> make_pml_over(common::Bootstrap& bs,
                                   std::vector<std::unique_ptr<btl::Btl>> btls,
                                   const PmlConfig& cfg) {
  auto reg = std::make_unique<btl::Registry>(bs, std::move(btls));
  btl::Registry& r = *reg;
  return std::make_unique<PmlImpl>(bs, r, std::move(reg), cfg);
}

PmlDebug debug_counters(const Pml& pml) { return static_cast<const PmlImpl&>(pml).debug(); }

const char* backend_for(const Pml& pml, int peer) {
  return static_cast<const PmlImpl&>(pml).backend_name(peer);
}

std::unique_ptr<Pml> Pml::create(common::Bootstrap& bs, btl::Registry& btls) {
  return std::make_unique<PmlImpl>(bs, btls, nullptr, PmlConfig::from_params());
}

}  // namespace mpr::pml
