// The backend registry: the one owner of the backends of a process (Open MPI's bml plays this
// role). It runs the factories MPR_BTL allows, wires them up, chooses one backend per peer by
// reachability and Caps::rank, gives each backend kind a slot that means the same backend in
// every process of the job (for remote keys exchanged by upper layers), and keeps the one
// per-peer backlog of active messages that met kRetry. The pml and one-sided communication
// both reach backends only through it; neither names a backend.
//
// Thread safety: as btl.h, one thread at a time.
#pragma once

#include <sys/uio.h>

#include <cassert>
#include <cstdint>
#include <cstring>
#include <deque>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "btl-rdma/btl.h"
#include "common/bootstrap.h"

namespace mpr::btl {

/// Active-message ids, split among the registry's users so two never share one:
/// 0..7 point-to-point (pml/headers.h), 8 one-sided communication.
constexpr int kAmIdsPml = 0;
constexpr int kAmIdRma = 8;

/// Slots: one per backend kind, the same index in every process of a build (factory table
/// order), so an array of remote keys indexed by slot can be exchanged between processes.
/// Backends given to the registry directly (tests) take the slots after the table's.
constexpr int kMaxSlots = 6;

/// Largest header an entry of the retry backlog holds.
constexpr size_t kMaxQueuedHdr = 96;

class Registry {
 public:
  /// Phase 1 of setup: runs the factory of every backend MPR_BTL allows (all built ones when it
  /// is empty); each puts its address into the modex. Throws std::runtime_error for a name
  /// MPR_BTL lists that no backend has, or when a backend MPR_BTL names explicitly fails.
  static std::unique_ptr<Registry> create(common::Bootstrap& bs);

  /// Over backends the caller built, with the slot of each (create() passes its table
  /// indexes); no slots: slots in the given order (tests).
  Registry(common::Bootstrap& bs, std::vector<std::unique_ptr<Btl>> btls,
           std::vector<int> slots = {});
  ~Registry();
  Registry(const Registry&) = delete;
  Registry& operator=(const Registry&) = delete;

  /// Install `fn` for `am_id` on every loaded backend. Before connect() for the pml's ids.
  void set_handler(int am_id, AmHandler fn, void* ctx);

  /// Phase 2: one fence through the bootstrap, wire_up() of every backend, then the choice of
  /// one backend per peer: among those that reach it, the lowest Caps::rank. Throws
  /// std::runtime_error naming the first peer no backend reaches and what was loaded.
  void connect();

  /// What a process of another job needs to reach this one (MPI_Comm_connect/accept, spawn):
  /// this process's host name and the entries of every backend that reaches other jobs. When
  /// none is loaded (a job on one node does not load tcp), loads one now. Throws
  /// std::runtime_error saying why none can be used (MPR_BTL leaves tcp out, no address).
  std::map<std::string, std::vector<uint8_t>> contact();

  /// Processes of other jobs became peers (Bootstrap::add_remote), up to bs.npeers(): each
  /// backend that reaches other jobs learns of them and every new peer gets the reachable one
  /// with the lowest Caps::rank. Returns "" or, when some peer is reached by none (its
  /// backend() stays nullptr), the sentence naming the first such peer and why.
  std::string add_peers();

  /// The backend that carries traffic to job rank `peer` (after connect()).
  Btl* backend(int peer) const { return peers_[static_cast<size_t>(peer)].btl; }
  /// Every loaded backend, whether or not it serves a peer.
  const std::vector<Btl*>& loaded() const { return loaded_; }
  /// Those serving at least one peer (after connect()), in load order.
  const std::vector<Btl*>& used() const { return used_; }
  /// The slot of a loaded backend (see kMaxSlots).
  int slot(const Btl* b) const;
  int npeers() const { return static_cast<int>(peers_.size()); }

  /// Done when an active message handed to send_or_queue() has left.
  using SentFn = void (*)(void* ctx, void* arg);

  /// True while messages to `peer` wait in the backlog: anything sent to it now must queue
  /// behind them (per-peer order), so callers with a direct path check this first.
  bool backlogged(int peer) const { return !peers_[static_cast<size_t>(peer)].backlog.empty(); }
  bool backlog_empty() const { return backlogged_peers_.empty(); }
  /// The backlog is empty and every backend in use has written what it accepted.
  bool flushed() const {
    if (!backlog_empty()) return false;
    for (Btl* b : used_)
      if (!b->flushed()) return false;
    return true;
  }
  size_t backlog_size() const;

  /// Send an active message now, or queue it behind the peer's backlog (the header is copied;
  /// `data` must stay valid until it has left). `sent(ctx, arg)` is called once it has left:
  /// before return when it went at once, else from a later progress(). Never fails; a
  /// backend error is thrown by the backend.
  void send_or_queue(int peer, int am_id, const void* hdr, size_t hdr_len, const void* data,
                     size_t len, SentFn sent = nullptr, void* ctx = nullptr, void* arg = nullptr) {
    assert(hdr_len <= kMaxQueuedHdr);
    Peer& p = peers_[static_cast<size_t>(peer)];
    if (p.backlog.empty()) {
      iovec iov{const_cast<void*>(data), len};
      if (p.btl->send_am(peer, am_id, hdr, hdr_len, &iov, len ? 1 : 0) != Status::kRetry) {
        if (sent) sent(ctx, arg);
        return;
      }
      backlogged_peers_.push_back(peer);
    }
    queue(p, am_id, hdr, hdr_len, data, len, sent, ctx, arg);
  }

  /// Poll every backend in use and send what the backlog holds. Returns the number of events.
  int progress() {
    int events = 0;
    for (Btl* b : used_) events += b->progress();
    if (!backlogged_peers_.empty()) events += drain();
    return events;
  }

  /// MPI_Alloc_mem: register [addr, addr + len) now with every backend in use that needs
  /// registration. Returns a token for unpin(), nullptr when nothing was registered. Never
  /// throws (memory that cannot be registered is registered on demand later).
  void* pin(void* addr, size_t len);
  /// Drop what pin() registered (before the memory is freed; after finalize() a no-op).
  void unpin(void* token);

  /// At MPI_Finalize, after the caller's final fence: every backend releases its resources.
  void finalize();

  /// For MPR_VERBOSE: one line per loaded backend.
  std::string describe() const;
  /// "name: why" of each backend create() did not load (MPR_BTL, no device, one node...).
  const std::vector<std::string>& declined() const { return declined_; }
  /// For MPR_STATS: the counters of the backends in use (lines, or empty).
  std::string stats() const;

 private:
  struct Queued {
    int am_id = 0;
    uint8_t hdr[kMaxQueuedHdr];
    size_t hdr_len = 0;
    const void* data = nullptr;
    size_t len = 0;
    SentFn sent = nullptr;
    void* ctx = nullptr;
    void* arg = nullptr;
  };
  struct Peer {
    Btl* btl = nullptr;
    std::deque<Queued> backlog;
  };
  /// Picks the backend of `peer` among those loaded; throws std::runtime_error naming the peer
  /// if none reaches it.
  void choose(int peer);
  void queue(Peer& p, int am_id, const void* hdr, size_t hdr_len, const void* data, size_t len,
             SentFn sent, void* ctx, void* arg);
  int drain();

  common::Bootstrap& bs_;
  std::vector<std::unique_ptr<Btl>> owned_;
  std::vector<Btl*> loaded_;
  std::vector<int> slots_;  // by index in loaded_
  std::vector<Btl*> used_;
  std::vector<Peer> peers_;
  std::vector<int> backlogged_peers_;
  std::vector<std::string> declined_;  // "name: why" of each backend create() did not load
  struct Handler {
    AmHandler fn = nullptr;
    void* ctx = nullptr;
  };
  Handler handlers_[kMaxAmIds];  // installed on backends loaded later too (contact())
  bool finalized_ = false;
};

}  // namespace mpr::btl
