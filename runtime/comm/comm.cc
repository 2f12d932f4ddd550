#include "runtime/comm/comm.h"

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <set>
#include <utility>

#include "common/entry_lock.h"
#include "runtime/comm/comm_impl.h"
#include "runtime/comm/topo.h"
#include "runtime/core/state.h"
#include "runtime/p2p/bsend.h"

namespace mpr::runtime {

namespace {

// Pairs in use by live communicators of this process (bit set = in use).
uint64_t g_ctx_used[kCtxMaskWords];
// Pairs offered by nonblocking agreements still running: no other agreement offers them.
uint64_t g_ctx_pending[kCtxMaskWords];

int pair_of(uint32_t ctx) { return static_cast<int>((ctx - kFirstFreeCtx) / 2); }

void reserve_pair(int i) { g_ctx_used[i / 64] |= uint64_t{1} << (i % 64); }

std::vector<uint64_t> free_mask() {
  std::vector<uint64_t> m(kCtxMaskWords);
  for (int i = 0; i < kCtxMaskWords; ++i) m[i] = ~(g_ctx_used[i] | g_ctx_pending[i]);
  return m;
}

// Lowest pair free everywhere, or -1.
int lowest_free(const std::vector<uint64_t>& m) {
  for (int w = 0; w < kCtxMaskWords; ++w)
    if (m[w]) return w * 64 + __builtin_ctzll(m[w]);
  return -1;
}

int take(const char* fn, const std::vector<uint64_t>& mask, bool keep, uint32_t* out) {
  int pair = lowest_free(mask);
  if (pair < 0)
    return make_error(MPI_ERR_INTERN, fn,
                      "no context id free in every member: %d communicators already exist "
                      "(free some with MPI_Comm_free)",
                      kCtxPairs);
  if (keep) reserve_pair(pair);
  *out = kFirstFreeCtx + 2 * static_cast<uint32_t>(pair);
  return MPI_SUCCESS;
}

std::vector<uint8_t> mask_bytes(const std::vector<uint64_t>& m) {
  std::vector<uint8_t> b(m.size() * sizeof(uint64_t));
  std::memcpy(b.data(), m.data(), b.size());
  return b;
}

}  // namespace

Comm::Comm(std::vector<int> peers, int my_rank, uint32_t ctx, MPI_Comm predefined_handle)
    : peers_(std::move(peers)),
      rank_(my_rank),
      owns_ctx_(predefined_handle == MPI_COMM_NULL),
      ctx_(ctx),
      handle_(predefined_handle),
      errhandler_(errhandler_fatal()) {}

Comm::Comm(std::vector<int> local, int my_rank, std::vector<int> remote, uint32_t ctx)
    : peers_(std::move(local)),
      remote_(std::move(remote)),
      rank_(my_rank),
      inter_(true),
      owns_ctx_(true),
      ctx_(ctx),
      handle_(MPI_COMM_NULL),
      errhandler_(errhandler_fatal()) {}

Comm::~Comm() {
  magic_ = 0;
  if (internal_) internal_->release();
  if (local_) local_->release();
  if (owns_ctx_) release_context_id(ctx_);
  errhandler_release(errhandler_);
}

void Comm::set_errhandler(Errhandler* e) {
  errhandler_retain(e);
  errhandler_release(errhandler_);
  errhandler_ = e;
}

void Comm::release() {
  if (--refs_ == 0) delete this;
}

Comm* Comm::internal() {
  if (!internal_) {
    internal_ = inter_ ? new Comm(peers_, rank_, remote_, ctx_ + 1)
                       : new Comm(peers_, rank_, ctx_ + 1, MPI_COMM_NULL);
    internal_->owns_ctx_ = false;  // borrowed: this communicator's collective context
    internal_->name_ = name_ + " (internal)";
  }
  return internal_;
}

Comm* Comm::local_comm() {
  if (!local_) {
    local_ = new Comm(peers_, rank_, ctx_ + kLocalCtxOffset, MPI_COMM_NULL);
    local_->owns_ctx_ = false;  // derived from this communicator's pair, never allocated
    local_->name_ = name_ + " (local group)";
  }
  return local_;
}

Comm* to_comm(MPI_Comm h) {
  auto v = reinterpret_cast<uintptr_t>(h);
  if (v == reinterpret_cast<uintptr_t>(MPI_COMM_WORLD)) return g_state.world;
  if (v == reinterpret_cast<uintptr_t>(MPI_COMM_SELF)) return g_state.self;
  if (v < 0x1000) return nullptr;
  auto* c = reinterpret_cast<Comm*>(h);
  return c->valid() && !c->predefined() ? c : nullptr;
}

void comms_init() {
  std::memset(g_ctx_used, 0, sizeof g_ctx_used);
  std::memset(g_ctx_pending, 0, sizeof g_ctx_pending);
  const auto& bs = *g_state.bootstrap;
  std::vector<int> all(bs.size());
  for (int i = 0; i < bs.size(); ++i) all[i] = i;
  g_state.world = new Comm(std::move(all), bs.rank(), kWorldCtx, MPI_COMM_WORLD);
  g_state.world->set_name("MPI_COMM_WORLD");
  g_state.self = new Comm({bs.rank()}, 0, kSelfCtx, MPI_COMM_SELF);
  g_state.self->set_name("MPI_COMM_SELF");
}

void comms_finalize_attrs() {
  if (g_state.self) attrs_delete_all("MPI_Finalize", g_state.self);
}

void comms_fini() {
  if (g_state.world) g_state.world->release();
  if (g_state.self) g_state.self->release();
  g_state.world = g_state.self = nullptr;
  g_state.parent = nullptr;  // the program's to free, as any communicator it made
}

ctl::Channel local_channel(const Comm* c) { return {c->ctx_coll(), c->rank(), &c->peers()}; }

ctl::Channel p2p_channel(const Comm* c) {
  return {c->ctx_coll(), c->rank(), c->is_inter() ? &c->remote_peers() : &c->peers()};
}

namespace {

int g_idups_waiting = 0;

// Marks the free pairs of `m` held and returns them.
std::vector<uint64_t> hold(std::vector<uint64_t> m) {
  for (int w = 0; w < kCtxMaskWords; ++w) g_ctx_pending[w] |= m[w];
  return m;
}

// A blocking agreement holds what it offers while its allreduce runs (an MPI_Comm_idup round
// progressing meanwhile must not offer the same pairs), plus a flag word: 1 when nothing else
// was held, so the offer is everything this process has free. An empty AND of offers not all
// complete means some member's pairs are held by an outstanding MPI_Comm_idup (coll/idup.cc),
// which finishes while this one waits: the agreement runs again. All members see the same AND
// and so run the same rounds.
//
// Under MPI_THREAD_MULTIPLE threads of one process may agree at once on distinct
// communicators, and the one that holds the pairs keeps the others' rounds empty. The
// agreement first in the order all processes see alike (parent context id, then tag) offers
// its free pairs but those of kCtxEagerWord; the others offer only free pairs of that word.
// Letting each thread offer whatever the others do not hold could leave two agreements each
// holding, in different processes, what the other needs, round after round; offering nothing
// unless first deadlocks when the first one waits for a member whose thread is stuck in a
// later agreement (MPICH's comm_dup_deadlock: a dup of MPI_COMM_SELF behind a dup of a
// communicator across the job).
struct HeldOffer {
  std::vector<uint64_t> held;   // this process's offer
  std::vector<uint64_t> words;  // the offer and the flag word; the AND after the exchange
  explicit HeldOffer(bool first) {
    words.assign(kCtxMaskWords + 1, 0);
    std::vector<uint64_t> m = free_mask();
    if (common::EntryLock::on()) {
      // Threads: the first offers all but the eager word, the others the eager word alone.
      // A first that finds the rest held (by an agreement that was first when its round
      // began and waits for members) offers the eager word too.
      bool rest = false;
      for (int w = 0; w < kCtxMaskWords; ++w)
        if (w != kCtxEagerWord && m[w]) rest = true;
      for (int w = 0; w < kCtxMaskWords; ++w)
        if ((w == kCtxEagerWord) == (first && rest)) m[w] = 0;
    } else if (!first) {
      std::fill(m.begin(), m.end(), 0);
    }
    if (!first) {
      // No flag: an empty AND says nothing about a shortage.
    } else if (g_idups_waiting > 0) {
      // Outstanding idups keep the rest: holding those pairs now could keep them from ever
      // agreeing (each would hold where the other needs them). The idups may be waiting for
      // members that are in this very call, so it offers the pairs no idup offers.
      for (int w = 0; w < kCtxMaskWords; ++w)
        if (w != kCtxBlockingWord) m[w] = 0;
    } else {
      words[kCtxMaskWords] = ctx_nothing_held() ? 1 : 0;
    }
    held = hold(std::move(m));
    std::copy(held.begin(), held.end(), words.begin());
  }
  ~HeldOffer() { ctx_window_release(held); }
  bool settled() const {
    if (words[kCtxMaskWords]) return true;  // everyone offered everything
    for (int w = 0; w < kCtxMaskWords; ++w)
      if (words[w]) return true;
    return false;
  }
  std::vector<uint64_t> agreed() const {
    return std::vector<uint64_t>(words.begin(), words.begin() + kCtxMaskWords);
  }
};

// The blocking agreements in progress in this process, by (parent context id, tag).
std::multiset<std::pair<uint32_t, int>> g_agreeing;

class Agreeing {
 public:
  Agreeing(uint32_t ctx, int tag) : key_(ctx, tag) { it_ = g_agreeing.insert(key_); }
  ~Agreeing() { g_agreeing.erase(it_); }
  Agreeing(const Agreeing&) = delete;
  Agreeing& operator=(const Agreeing&) = delete;
  bool first() const { return *g_agreeing.begin() == key_; }

 private:
  std::pair<uint32_t, int> key_;
  std::multiset<std::pair<uint32_t, int>>::iterator it_;
};

}  // namespace

int agree_ctx(const char* fn, const ctl::Channel& ch, int tag, bool keep, uint32_t* out) {
  Agreeing agreeing(ch.ctx, tag);
  for (;;) {
    HeldOffer offer(agreeing.first());
    int rc = ctl::allreduce_and(fn, ch, tag, offer.words.data(), offer.words.size());
    if (rc != MPI_SUCCESS) return rc;
    if (offer.settled()) {
      std::vector<uint64_t> m = offer.agreed();
      ctx_window_release(offer.held);
      offer.held.clear();
      return take(fn, m, keep, out);
    }
    // Not settled: an agreement first in line may be waiting for this thread to let it in
    // (a round among members of this process alone never waits, so never hands over).
    common::EntryLock::let_others_in();
  }
}

int agree_ctx_inter(const char* fn, const ctl::Channel& local, int leader,
                    const ctl::Channel* bridge, int remote_leader, int bridge_tag, bool keep,
                    uint32_t* out) {
  return agree_ctx_inter(
      fn, local, leader,
      [&](const std::vector<uint8_t>& mine, std::vector<uint8_t>* theirs) {
        return ctl::exchange_vec(fn, *bridge, remote_leader, bridge_tag, mine, theirs);
      },
      keep, out);
}

int agree_ctx_inter(const char* fn, const ctl::Channel& local, int leader,
                    const LeaderExchange& exchange, bool keep, uint32_t* out) {
  Agreeing agreeing(local.ctx, ctl::kTagCtlAgree);
  for (;;) {
    HeldOffer offer(agreeing.first());
    int rc =
        ctl::allreduce_and(fn, local, ctl::kTagCtlAgree, offer.words.data(), offer.words.size());
    if (rc != MPI_SUCCESS) return rc;
    std::vector<uint8_t> bytes = mask_bytes(offer.words);
    if (local.me == leader) {
      std::vector<uint8_t> theirs;
      rc = exchange(bytes, &theirs);
      if (rc != MPI_SUCCESS) return rc;
      if (theirs.size() != bytes.size())
        return make_error(MPI_ERR_INTERN, fn, "context id masks of the two groups differ in size");
      for (size_t i = 0; i < bytes.size(); ++i) bytes[i] &= theirs[i];
    }
    rc = ctl::bcast_vec(fn, local, leader, ctl::kTagCtlAgree, &bytes);
    if (rc != MPI_SUCCESS) return rc;
    std::memcpy(offer.words.data(), bytes.data(),
                std::min(bytes.size(), offer.words.size() * sizeof(uint64_t)));
    if (offer.settled()) {
      std::vector<uint64_t> m = offer.agreed();
      ctx_window_release(offer.held);
      offer.held.clear();
      return take(fn, m, keep, out);
    }
    // Not settled: an agreement first in line may be waiting for this thread to let it in
    // (a round among members of this process alone never waits, so never hands over).
    common::EntryLock::let_others_in();
  }
}

int agree_context_id(const char* fn, Comm* parent, uint32_t* out) {
  if (!parent->is_inter())
    return agree_ctx(fn, local_channel(parent), ctl::kTagCtlAgree, true, out);
  ctl::Channel bridge = p2p_channel(parent);
  return agree_ctx_inter(fn, local_channel(parent), 0, &bridge, 0, ctl::kTagCtlLeader, true, out);
}

std::vector<uint64_t> ctx_window_take() {
  std::vector<uint64_t> m = free_mask();
  m[kCtxBlockingWord] = 0;  // blocking agreements' own (comm_impl.h)
  if (common::EntryLock::on()) m[kCtxEagerWord] = 0;
  return hold(std::move(m));
}

void ctx_idup_waiting(int delta) { g_idups_waiting += delta; }

bool ctx_nothing_held() {
  for (int w = 0; w < kCtxMaskWords; ++w)
    if (g_ctx_pending[w]) return false;
  return true;
}

void ctx_window_release(const std::vector<uint64_t>& window) {
  for (int w = 0; w < kCtxMaskWords && w < static_cast<int>(window.size()); ++w)
    g_ctx_pending[w] &= ~window[w];
}

int ctx_window_finish(const char* fn, const std::vector<uint64_t>& window,
                      const std::vector<uint64_t>& agreed, uint32_t* out) {
  ctx_window_release(window);
  std::vector<uint64_t> m(kCtxMaskWords);
  for (int w = 0; w < kCtxMaskWords; ++w) m[w] = window[w] & agreed[w];
  return take(fn, m, true, out);
}

void release_context_id(uint32_t ctx) {
  if (ctx < kFirstFreeCtx) return;
  int i = pair_of(ctx);
  if (i < kCtxPairs) g_ctx_used[i / 64] &= ~(uint64_t{1} << (i % 64));
}

void inherit(Comm* child, const Comm* parent) { child->set_errhandler(parent->errhandler()); }

Comm* comm_clone_on(const Comm* parent, uint32_t ctx) {
  Comm* c = parent->is_inter()
                ? new Comm(parent->peers(), parent->rank(), parent->remote_peers(), ctx)
                : new Comm(parent->peers(), parent->rank(), ctx, MPI_COMM_NULL);
  inherit(c, parent);
  return c;
}

int comm_clone(const char* fn, Comm* parent, Comm** out) {
  uint32_t ctx = 0;
  int rc = agree_context_id(fn, parent, &ctx);
  if (rc != MPI_SUCCESS) return rc;
  *out = comm_clone_on(parent, ctx);
  return MPI_SUCCESS;
}

int comm_dup(Comm* parent, Comm** out) {
  constexpr const char* fn = "MPI_Comm_dup";
  Comm* c = nullptr;
  int rc = comm_clone(fn, parent, &c);
  if (rc != MPI_SUCCESS) return rc;
  return comm_dup_finish(fn, parent, c, out);
}

int comm_dup_finish(const char* fn, Comm* parent, Comm* c, Comm** out) {
  c->set_topo(parent->topo_ptr());
  int rc = attrs_copy(fn, parent, c);
  if (rc != MPI_SUCCESS) {
    attrs_delete_all(fn, c);
    c->mark_freed();
    c->release();
    return rc;
  }
  *out = c;
  return MPI_SUCCESS;
}

int comm_compare(const Comm* a, const Comm* b) {
  if (a == b) return MPI_IDENT;
  if (a->is_inter() != b->is_inter()) return MPI_UNEQUAL;
  auto same_set = [](std::vector<int> x, std::vector<int> y) {
    std::sort(x.begin(), x.end());
    std::sort(y.begin(), y.end());
    return x == y;
  };
  if (a->peers() == b->peers() && a->remote_peers() == b->remote_peers()) return MPI_CONGRUENT;
  if (same_set(a->peers(), b->peers()) && same_set(a->remote_peers(), b->remote_peers()))
    return MPI_SIMILAR;
  return MPI_UNEQUAL;
}

}  // namespace mpr::runtime
