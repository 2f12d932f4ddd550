// Point-to-point messaging: MPI matching plus eager and rendezvous protocols over the btl.
// This is the whole interface the runtime (C API, collectives) uses. It knows nothing of
// communicator objects or datatypes: a message is (context id, source rank in the
// communicator, tag) plus contiguous bytes, which a Convertor may produce from or scatter into
// non-contiguous user memory.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "btl-rdma/btl.h"
#include "btl-rdma/registry.h"
#include "common/bootstrap.h"
#include "common/wait.h"

namespace mpr::pml {

constexpr int kAnySource = -1;  // same values as MPI_ANY_SOURCE / MPI_ANY_TAG in mpi.h
constexpr int kAnyTag = -1;

/// Error codes in Status::error (the runtime maps them to MPI error classes).
enum : int {
  kOk = 0,
  kErrTruncate = 1,   ///< message longer than the receive buffer; buffer holds the first bytes
  kErrTransport = 2,  ///< the backend failed (peer gone); the runtime reports it
};

enum class SendMode : uint8_t {
  kStandard,  ///< eager up to the backend's eager limit, rendezvous above
  kSync,      ///< completes only after the receiver matched it (MPI_Ssend / MPI_Issend)
  kReady,     ///< as standard (MPI_Rsend: the receive is known to be posted)
};

struct Status {
  int source = kAnySource;  ///< rank in the communicator that sent it
  int tag = kAnyTag;
  int error = kOk;
  size_t bytes = 0;  ///< bytes delivered into the buffer (<= buffer size)
  bool cancelled = false;
};

/// A nonblocking operation. Owned by the pml; the runtime holds the pointer as MPI_Request.
/// Fields above `impl` are public and read by the runtime; complete is set from progress().
struct Request {
  enum class Kind : uint8_t { kSend, kRecv, kGeneric };
  Kind kind = Kind::kGeneric;
  bool complete = false;
  bool persistent = false;  ///< reserved for the runtime (persistent requests)
  Status status;
  /// kGeneric requests (built by the runtime, e.g. collective schedules): progress() of the pml
  /// does not drive them; the runtime's wait loop calls poll(this) until complete is true.
  /// poll sets `complete` itself; its result only says whether it made progress (so wait()
  /// keeps spinning instead of yielding). kGeneric requests belong to the runtime:
  /// Pml::release() ignores them.
  bool (*poll)(Request* self) = nullptr;
  void* user = nullptr;  ///< free for the runtime's use
  virtual ~Request() = default;
};

/// Moves a message between user memory laid out by a datatype and the contiguous packed bytes
/// the wire carries (MPI derived datatypes). The runtime owns it; it must stay valid until the
/// request it was given to is complete. The pml asks for any range in any order (a rendezvous
/// receive unpacks get() chunks as they complete), mostly in sequence.
class Convertor {
 public:
  virtual ~Convertor() = default;
  /// Copy packed bytes [pos, pos + len) of the message into `out`.
  virtual void pack(size_t pos, void* out, size_t len) = 0;
  /// Store `len` packed bytes from `in`, which start at packed offset `pos`, into user memory.
  virtual void unpack(size_t pos, const void* in, size_t len) = 0;
};

/// A message removed from the queues by improbe (MPI_Mprobe/Improbe), to be received by mrecv.
struct Message;

struct Stats {
  uint64_t eager_msgs = 0, eager_bytes = 0;
  uint64_t rndv_msgs = 0, rndv_bytes = 0;  ///< sent by rendezvous (get by the receiver)
  uint64_t rndv_fallback_msgs = 0;         ///< rendezvous that used the copy pipeline
  uint64_t sync_msgs = 0;
  uint64_t self_msgs = 0;
  uint64_t unexpected_msgs = 0;  ///< arrivals that found no posted receive
  uint64_t unexpected_peak = 0;  ///< deepest unexpected queue seen
};

class Pml {
 public:
  /// Over the backends of `btls` (which must outlive the pml): registers the pml's handlers,
  /// then has the registry fence once through `bs`, wire up and choose one backend per peer.
  /// Throws std::runtime_error naming the cause if a peer cannot be reached by any backend.
  static std::unique_ptr<Pml> create(common::Bootstrap& bs, btl::Registry& btls);
  virtual ~Pml() = default;

  /// Start a send of `bytes` bytes to job rank `dst_peer`; the receiver sees source `src_rank`
  /// (the sender's rank in the communicator) and `tag` on context `ctx`. Never returns null.
  virtual Request* isend(const void* buf, size_t bytes, int dst_peer, int src_rank, int tag,
                         uint32_t ctx, SendMode mode) = 0;
  /// Post a receive for up to `bytes` bytes. src/tag may be kAnySource/kAnyTag.
  virtual Request* irecv(void* buf, size_t bytes, int src, int tag, uint32_t ctx) = 0;

  /// Request-free fast paths for calls that would complete at once. send_now: a standard-mode
  /// send small enough to go eagerly, handed to the backend now because nothing is queued to
  /// that peer; false means nothing was sent (use isend). recv_now: a matching message already
  /// arrived eagerly; it is copied into `buf` and described in *st (as a receive request's
  /// status); false means nothing was received (use irecv).
  virtual bool send_now(const void* buf, size_t bytes, int dst_peer, int src_rank, int tag,
                        uint32_t ctx) = 0;
  virtual bool recv_now(void* buf, size_t bytes, int src, int tag, uint32_t ctx, Status* st) = 0;

  /// As isend/irecv/imrecv, for a message of `bytes` packed bytes that `cv` packs from or
  /// unpacks into user memory. A small message is packed into a temporary buffer and sent
  /// eagerly; a large one is never packed whole: the sender packs one fragment at a time into
  /// the copy pipeline, and a receiver that reads with get() does so through a few bounded
  /// bounce buffers (MPR_PML_PACK_CHUNK) and unpacks each chunk as it lands.
  virtual Request* isend_conv(Convertor* cv, size_t bytes, int dst_peer, int src_rank, int tag,
                              uint32_t ctx, SendMode mode) = 0;
  virtual Request* irecv_conv(Convertor* cv, size_t bytes, int src, int tag, uint32_t ctx) = 0;
  virtual Request* imrecv_conv(Convertor* cv, size_t bytes, Message* msg) = 0;

  /// Nonblocking probe: true and fills *st (bytes = full message size) if a matching message
  /// has arrived; it stays queued.
  virtual bool iprobe(int src, int tag, uint32_t ctx, Status* st) = 0;
  /// Matched probe: dequeues the message so only mrecv can receive it. nullptr if none.
  virtual Message* improbe(int src, int tag, uint32_t ctx, Status* st) = 0;
  virtual Request* imrecv(void* buf, size_t bytes, Message* msg) = 0;

  /// Cancel a receive that has not matched yet: true if cancelled (request completes with
  /// status.cancelled). A send (even a completed eager one) asks its receiver to withdraw the
  /// message if it is still unmatched and returns false: the request is incomplete until the
  /// answer, then completes with status.cancelled set if the message was withdrawn.
  virtual bool cancel(Request* req) = 0;
  /// The runtime is done with `req`. If it is not complete yet, it is released when it
  /// completes (MPI_Request_free semantics).
  virtual void release(Request* req) = 0;

  /// Drive every backend and the protocol state machines. Returns the number of events.
  virtual int progress() = 0;
  /// Block until req->complete: poll, spin briefly, then yield the CPU (wait_policy()).
  /// Drives kGeneric requests through their poll hook.
  virtual void wait(Request* req) = 0;
  /// When every blocking wait of this process yields the CPU, the runtime's included: set once
  /// at creation from the tunables and the bootstrap's oversubscribed() (common/wait.h).
  const common::WaitPolicy& wait_policy() const { return wait_policy_; }

  /// Processes of other jobs became peers, and the registry chose their backends
  /// (Registry::add_peers): set up the pml's state for every peer it does not know yet.
  virtual void add_peers() = 0;
  /// Called at MPI_Finalize after all user requests completed: drains, fences, tears down.
  virtual void finalize() = 0;

  virtual const Stats& stats() const = 0;
  /// For MPR_VERBOSE: which backend serves each peer, eager/rendezvous thresholds.
  virtual std::string describe() const = 0;

  /// Called at the end of every progress(), after the backends were polled (so never from
  /// inside a handler): the runtime advances nonblocking collective schedules here, so they
  /// move whenever any MPI call drives progress. It may post and release requests but must not
  /// call progress() or wait(). Returns the number of events.
  using ProgressHook = int (*)();
  /// Add a hook (once: adding one already present does nothing). At most kMaxHooks.
  void add_progress_hook(ProgressHook h) {
    for (int i = 0; i < nhooks_; ++i)
      if (hooks_[i] == h) return;
    if (nhooks_ < kMaxHooks) hooks_[nhooks_++] = h;
  }

 protected:
  int run_hooks() {
    int events = 0;
    for (int i = 0; i < nhooks_; ++i) events += hooks_[i]();
    return events;
  }
  static constexpr int kMaxHooks = 4;
  ProgressHook hooks_[kMaxHooks] = {};
  int nhooks_ = 0;
  common::WaitPolicy wait_policy_;  ///< filled in by the implementation's constructor
};

}  // namespace mpr::pml
