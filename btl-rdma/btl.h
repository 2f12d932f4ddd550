// The byte transfer layer interface. RDMA-shaped: active messages plus one-sided get/put on
// registered memory. Backends (self, shm, verbs, tcp) implement it; the registry (registry.h) owns
// them, and the pml and one-sided communication reach them only through it.
//
// Peers are job ranks (0..job size-1), then the processes of other jobs this one connected to
// (MPI_Comm_connect/accept, spawn), numbered from the job size on (common::Bootstrap::npeers). A
// backend never knows about MPI tags, communicators or datatypes. All calls are made from one
// thread at a time (the MPI runtime serializes them).
#pragma once

#include <sys/uio.h>

#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "common/bootstrap.h"

namespace mpr::btl {

/// Result of a nonblocking operation. kRetry means "no resources right now, call again after
/// progress()"; it is not an error and is never logged. Errors are thrown (setup) or reported
/// through the completion status (data path).
enum class Status { kDone, kPosted, kRetry };

struct Caps {
  const char* name = "";  ///< for messages and MPR_BTL only; no layer switches on it
  /// Preference when several backends reach a peer: the registry picks the lowest. The
  /// loopback backend ranks first, shared memory before the network, RDMA before TCP.
  int rank = 100;
  /// Bytes of RemoteKey this backend fills (the rest is zero); wire headers carry only these.
  size_t rkey_size = sizeof(uint64_t);
  size_t max_am_size = 0;   ///< header + payload bytes one active message can carry
  size_t eager_limit = 0;   ///< pml sends messages up to this size eagerly
  bool native_get = false;  ///< get() is one-sided (RDMA READ / CMA), not emulated
  bool native_put = false;
  /// get()/put() move data with messages that the peer's progress() serves (tcp): fine for
  /// a rendezvous, whose sender waits in MPI, but not one-sided for windows, whose target
  /// may be computing.
  bool emulated_rdma = false;
  bool needs_registration = false;  ///< reg() does real work (verbs); pml may cache it
  /// Rendezvous messages of at least this many bytes are read with get(); smaller ones go
  /// through the copy pipeline (where get() has a high fixed cost, as CMA system calls do).
  size_t rndv_get_min = 0;
  /// Below rndv_get_min, messages in [rndv_get_duplex_min, rndv_get_duplex_max] are read with
  /// get() when the receiver is itself sending to the sender: with both directions busy the
  /// copy pipeline spends two copies per message on each side, get() one (0 = never).
  size_t rndv_get_duplex_min = 0;
  size_t rndv_get_duplex_max = 0;
  /// atomic() is one-sided (device atomics) and also accepts peer == this rank, so that every
  /// process updating a word (the owner included) goes through the same agent: device atomics
  /// are not guaranteed to be atomic with respect to CPU atomics on the same word.
  bool native_atomics = false;
  /// Reaches processes of other jobs (peers from the job size on, added while the job runs)
  /// with the entries they hand over: add_peers() and contact() work.
  bool other_jobs = false;
};

/// 64-bit remote atomic operations (MPI RMA locks and counters).
enum class AtomicOp : uint8_t {
  kFetchAdd,     ///< *remote += operand (wrapping)
  kCompareSwap,  ///< if (*remote == compare) *remote = operand
};

/// Opaque remote access key: what a peer needs to get/put our registered memory (shm: the
/// owner's pid and a tag; verbs: the rkey). A backend declares how many of its bytes it uses
/// (Caps::rkey_size); kRemoteKeyWords is the capacity, large enough for a libfabric key or a
/// packed UCX rkey of one transport; a backend with larger keys raises it here.
constexpr int kRemoteKeyWords = 4;
struct RemoteKey {
  uint64_t words[kRemoteKeyWords] = {};
};
static_assert(sizeof(RemoteKey) == 32);

/// Where registered memory lives. Host memory only today; device memory (GPU) gets its own
/// kind so that backends and the registration cache can tell the two apart.
enum class MemKind : uint8_t { kHost };

/// A registration of [addr, addr+len). Returned by reg(), released by dereg().
struct Registration {
  void* addr = nullptr;
  size_t len = 0;
  MemKind kind = MemKind::kHost;
  RemoteKey rkey;     ///< send this to peers
  uint64_t lkey = 0;  ///< local key (verbs lkey); 0 where unused
  void* backend_data = nullptr;
};

/// Completion of a get/put. The backend calls fn(this, 0) on success or fn(this, errno-like
/// code) on failure, from inside progress() (never from inside get/put itself).
struct Completion {
  void (*fn)(Completion* self, int status) = nullptr;
};

/// Active-message handler: called from inside progress() for each message, in the order the
/// sender sent them (per-peer FIFO is guaranteed by every backend). `hdr`/`payload` are valid
/// only during the call.
using AmHandler = void (*)(void* ctx, int src_peer, const void* hdr, size_t hdr_len,
                           const void* payload, size_t payload_len);

constexpr int kMaxAmIds = 16;

class Btl {
 public:
  virtual ~Btl() = default;

  virtual const Caps& caps() const = 0;

  /// Phase 2 of setup, after the runtime's single bs.fence(): read peers' modex entries (the
  /// factory, phase 1, put this rank's address), attach or prepare connections. No fence here.
  /// Throws std::runtime_error naming the peer and the cause on failure.
  virtual void wire_up(common::Bootstrap& bs) = 0;

  /// Orderly teardown at MPI_Finalize (after the runtime's final fence): release every QP,
  /// MR, mapping. The destructor must also release everything if this was not called.
  virtual void finalize() {}

  /// True if this backend can reach `peer` (e.g. shm: same node).
  virtual bool reachable(int peer) const = 0;
  /// Why reachable(peer) is false, for the "no backend reaches peer N" error (after wire_up).
  virtual std::string why_unreachable(int peer) const {
    (void)peer;
    return "";
  }

  /// Starts the connection to `peer` where this backend makes them on first use, and says
  /// whether it is up (or has failed: then the operations say so). Making a connection needs
  /// the peer's CPU; one-sided operations must not, so window creation, a collective call,
  /// calls this for every target until it returns true, driving progress() in between.
  virtual bool connect(int peer) {
    (void)peer;
    return true;
  }

  /// Peers `first`..bs.npeers()-1 are processes of other jobs that just became peers (only
  /// called where caps().other_jobs): read the entries they handed over (bs.get) and prepare
  /// to reach them; reachable() then says which this backend reaches.
  virtual void add_peers(common::Bootstrap& bs, int first) { (void)bs, (void)first; }
  /// The entries (modex key -> value) a process of another job needs to reach this one
  /// through this backend; they come back to that process's add_peers() (only where
  /// caps().other_jobs).
  virtual void contact(std::map<std::string, std::vector<uint8_t>>* entries) const {
    (void)entries;
  }
  /// Register the handler for am_id (0..kMaxAmIds-1). Must be called before the first progress().
  void set_handler(int am_id, AmHandler fn, void* ctx) { handlers_[am_id] = {fn, ctx}; }

  /// Send an active message: `hdr` (hdr_len bytes) followed by the iov payload, total at most
  /// caps().max_am_size. Data is copied or sent before return when kDone; kRetry means nothing
  /// was sent (resources exhausted: call progress() and retry, keeping per-peer order).
  /// Never returns kPosted.
  virtual Status send_am(int peer, int am_id, const void* hdr, size_t hdr_len,
                         const struct iovec* iov, int iovcnt) = 0;

  /// Register memory for get/put by peers (and as a local target). Throws on failure
  /// (std::system_error with the errno) so the caller can fall back.
  virtual void reg(void* addr, size_t len, Registration* out) = 0;
  virtual void dereg(Registration* reg) = 0;

  /// One-sided read of `len` bytes from the peer's registered memory at `remote_addr` into
  /// `local` (which lies inside `local_reg`, or local_reg may be null where
  /// !caps().needs_registration). kDone: finished now, `c` is not called. kPosted: c->fn is
  /// called from a later progress(). kRetry: nothing started.
  virtual Status get(int peer, void* local, const Registration* local_reg, uint64_t remote_addr,
                     const RemoteKey& rkey, size_t len, Completion* c) = 0;
  virtual Status put(int peer, const void* local, const Registration* local_reg,
                     uint64_t remote_addr, const RemoteKey& rkey, size_t len, Completion* c) = 0;

  /// Atomic `op` on the 8-byte aligned word at `remote_addr` in the peer's registered memory
  /// (peer may be this rank). The word's previous value is stored in *result (8-byte aligned,
  /// inside `result_reg` where caps().needs_registration) by the time the operation is done.
  /// Same kDone / kPosted / kRetry contract as get(). Only valid where caps().native_atomics.
  virtual Status atomic(int peer, AtomicOp op, uint64_t remote_addr, const RemoteKey& rkey,
                        uint64_t operand, uint64_t compare, uint64_t* result,
                        const Registration* result_reg, Completion* c) {
    (void)peer, (void)op, (void)remote_addr, (void)rkey, (void)operand, (void)compare;
    (void)result, (void)result_reg, (void)c;
    throw std::logic_error(std::string(caps().name) + " backend has no native atomics");
  }

  /// Poll for incoming messages and completions; calls handlers. Returns the number of events.
  virtual int progress() = 0;

  /// True when nothing send_am() accepted still waits inside this backend to go out (a
  /// backend that queues in user space, as tcp does behind a full socket or an unfinished
  /// handshake, says false until progress() has written it). MPI_Finalize progresses until
  /// every backend is flushed before its fence, where nothing progresses.
  virtual bool flushed() const { return true; }

  /// Called by a handler: return from the current progress() once this message is done and
  /// leave the rest queued for the next call (the pml does so when a message completed a
  /// posted receive). A hint: a backend that delivers in batches may ignore it.
  void yield_progress() { yield_ = true; }

  /// One-line description for MPR_VERBOSE (device, thresholds).
  virtual std::string describe() const = 0;
  /// Counters for MPR_STATS: lines of "  name: counters", or empty.
  virtual std::string stats_text() const { return ""; }

 protected:
  struct HandlerSlot {
    AmHandler fn = nullptr;
    void* ctx = nullptr;
  };
  void dispatch(int am_id, int src, const void* hdr, size_t hdr_len, const void* payload,
                size_t payload_len) {
    const HandlerSlot& h = handlers_[am_id];
    h.fn(h.ctx, src, hdr, hdr_len, payload, payload_len);
  }
  HandlerSlot handlers_[kMaxAmIds];
  bool yield_ = false;  ///< set by yield_progress(); backends clear it when they return
};

/// Thrown by a factory when its backend cannot serve this job on this machine (no device, no
/// usable interface, alone on the node). The registry notes the reason for MPR_VERBOSE and
/// for the error that names a peer no backend reaches.
class Unavailable : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// A backend's connection to `peer` broke while the job runs (not during finalize): the peer
/// process is gone or its node unreachable. The backend reports it here with a sentence naming
/// the peer, its node and the cause; the handler the runtime installed ends the job. Without a
/// handler (unit tests) this throws std::runtime_error.
using PeerLostFn = void (*)(int peer, const char* why);
void set_peer_lost_handler(PeerLostFn fn);
void report_peer_lost(int peer, const std::string& why);

/// Factories: phase 1 of setup, run by the registry (registry.cc holds the table). Each creates
/// local resources and bs.put()s this rank's address under its own key ("mpr.shm",
/// "mpr.verbs", ...); the registry then fences once and calls wire_up() on each. A factory throws
/// Unavailable when the backend cannot be used on this machine for this job, and
/// std::runtime_error when it was explicitly asked for (MPR_BTL / MPR_VERBS_DEVICE) but fails.
/// Factories must not fence.
std::unique_ptr<Btl> make_self_btl(common::Bootstrap& bs);
std::unique_ptr<Btl> make_shm_btl(common::Bootstrap& bs);
std::unique_ptr<Btl> make_verbs_btl(common::Bootstrap& bs);
std::unique_ptr<Btl> make_tcp_btl(common::Bootstrap& bs);
/// The tcp backend for a process whose job did not load it (all its ranks on one node) when it
/// connects to another job: it listens (on the interfaces MPR_TCP_IF_* allow, and on loopback
/// for processes on this host), puts nothing into the modex and serves only processes of
/// other jobs. Throws Unavailable when no address can be used.
std::unique_ptr<Btl> make_tcp_btl_other_jobs(common::Bootstrap& bs);

}  // namespace mpr::btl
