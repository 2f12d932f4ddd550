// A collective operation as a schedule of point-to-point steps and local steps (copy, reduce,
// unpack), built once by an algorithm and then run: to completion by a blocking call, or a bit
// at a time by the progress engine for a nonblocking one. Every algorithm is written once and
// serves both.
//
// Ordering: consecutive send/recv steps form one group, posted together; a local step runs only
// after every transfer before it completed; fence() separates two groups of transfers. So a
// schedule reads like blocking code in which each group is one "post all, wait all".
//
// Tags: every operation instance takes the next value of its communicator's collective counter
// (all members start collectives in the same order, so the values agree), and all its messages
// carry that tag on the collective context. Several outstanding operations on one communicator
// therefore never take each other's messages, whatever order they progress in. Inside one
// operation, two messages between the same pair of ranks are always posted in the same order on
// both sides, and the pml never lets them overtake each other.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

#include "common/wait.h"
#include "pml/pml.h"
#include "runtime/comm/comm.h"
#include "runtime/core/state.h"
#include "runtime/dt/datatype.h"
#include "runtime/dt/op.h"
#include "runtime/p2p/request.h"

namespace mpr::runtime::coll {

/// How a reduction combines buffers: `op` over elements of `type` that lie `esz` bytes apart.
/// Predefined and dense types stay in their memory layout (MAXLOC/MINLOC kernels see C
/// structs); other derived types travel packed (`packed`: esz = size) and are laid out again
/// around each application of the op.
struct Reducer {
  const Op* op = nullptr;
  const Datatype* type = nullptr;
  size_t esz = 0;
  bool packed = false;
  bool commutative() const { return op->commute; }
  /// inout[i] = in[i] op inout[i] for `count` elements: `in` holds the lower ranks.
  void apply(const void* in, void* inout, size_t count) const;

 private:
  void apply_packed(const void* in, void* inout, size_t count) const;
};

class Schedule {
 public:
  /// kDeferred: steps are stored and run later by advance() (nonblocking calls).
  /// kImmediate: each step starts as it is added, after waiting for what it depends on, so a
  /// blocking call neither stores nor revisits its steps; run() then waits for the last group.
  /// Both give the same order of transfers and local steps.
  enum class Mode : uint8_t { kDeferred, kImmediate };
  /// A schedule for one collective call on `comm` named `fn` (for error messages); takes the
  /// communicator's next collective tag.
  Schedule(const char* fn, Comm* comm, Mode mode = Mode::kDeferred);
  ~Schedule();
  Schedule(const Schedule&) = delete;
  Schedule& operator=(const Schedule&) = delete;

  Comm* comm() const { return comm_; }
  int rank() const { return comm_->rank(); }
  int size() const { return comm_->size(); }
  const char* fn() const { return fn_; }
  int tag() const { return tag_; }

  // ---- building ----
  void send(const void* buf, size_t bytes, int peer);
  void recv(void* buf, size_t bytes, int peer);
  /// Transfers added after this start a new group (they wait for the ones before).
  void fence() { group_break_ = true; }
  /// Intercommunicators: while `on`, the peers of added transfers are ranks of the local group
  /// (on its own context, Comm::local_comm()), else of the remote group. rank() and size() are
  /// the local group's either way, so the intracommunicator algorithms run unchanged over the
  /// local group inside an intercommunicator's schedule.
  void set_local(bool on) { local_ = on; }
  void copy(void* dst, const void* src, size_t bytes);
  /// inout = in op inout over `count` elements, with the reducer set by set_reducer.
  void reduce(const void* in, void* inout, size_t count);
  /// Unpack `bytes` packed bytes of `type` into user memory (staging of non-contiguous types).
  void unpack(const Datatype* type, const void* packed, size_t bytes, void* out);
  /// Uninitialized scratch memory (16-byte aligned) that lives as long as the schedule.
  char* scratch(size_t bytes);
  void set_reducer(const Reducer& r) {
    reducer_ = r;
    keep(r.type);
  }
  /// The schedule uses `type` until it is destroyed: a nonblocking call's datatype may be freed
  /// by the user before the call completes.
  void keep(const Datatype* type);
  const Reducer& reducer() const { return reducer_; }
  /// Steps to run after everything the algorithm adds (unpacking staged receive buffers).
  void defer_unpack(const Datatype* type, const void* packed, size_t bytes, void* out);
  /// Move the deferred steps to the end; called once, before running.
  void seal();

  // ---- running ----
  /// Start what can start and finish what has finished, never blocking. True once complete.
  bool advance();
  /// kImmediate only: wait for the last group, driving progress (spins, then yields like a
  /// blocking receive). Returns MPI_SUCCESS or the first error (not raised).
  int run();
  bool done() const { return done_; }
  int error() const { return error_; }

 private:
  enum class Kind : uint8_t { kSend, kRecv, kCopy, kReduce, kUnpack };
  struct Step {
    Kind kind;
    bool new_group;  // transfer that must wait for the transfers before it
    bool local;      // intercommunicator: the peer is in the local group
    int peer;
    size_t n;  // bytes, or elements for kReduce
    const void* src;
    void* dst;
    const Datatype* type;  // kUnpack
  };
  void add(const Step& s);
  /// kImmediate: start `s` now (a local step or a new group first waits for the transfers
  /// before it).
  void execute(const Step& s);
  /// Block until every posted transfer completed, then reap them.
  void wait_inflight();
  /// Poll progress until done() returns true, spinning or yielding by the wait policy.
  template <typename Done>
  void block_until(Done done);
  void transfer(Kind kind, const void* src, void* dst, size_t bytes, int peer);
  bool is_transfer(const Step& s) const { return s.kind == Kind::kSend || s.kind == Kind::kRecv; }
  void post(const Step& s);
  void run_local(const Step& s);
  /// Record the outcome of a finished transfer and let the pml have the request back.
  void reap(pml::Request* r);
  /// Keep the first failure a finished transfer reports.
  /// `expected`: a receive's length, or kNoLength for a send.
  void note_status(const pml::Status& st, size_t expected);
  static constexpr size_t kNoLength = ~size_t{0};

  const char* fn_;
  Comm* comm_;
  Comm* local_comm_;  // comm_ itself, or an intercommunicator's local group
  int tag_;
  Reducer reducer_;
  // Small schedules are the latency-critical ones: their steps, requests and scratch live in
  // memory the previous schedule gave back (one Memory, handed over as one pointer), so a
  // small blocking collective does not touch the heap.
  // Large scratch is kept too: a fresh multi-MiB buffer costs a page fault per 4 KiB, which
  // at 4 MiB is as much as moving the data.
  struct Buffer {
    std::unique_ptr<char[]> mem;
    size_t size = 0;
    bool used = false;
  };
  struct Memory {
    std::vector<Step> steps;
    std::vector<pml::Request*> inflight;
    std::unique_ptr<char[]> arena;
    std::vector<Buffer> buffers;
  };
  static constexpr size_t kMaxKeptBytes = 16u << 20;
  static constexpr size_t kArenaBytes = 4096;
  /// Memory of finished schedules, for the next ones (at most kSpares kept).
  static std::vector<Memory*> spares_;
  static constexpr size_t kSpares = 4;
  /// Keep the largest scratch buffers up to kMaxKeptBytes, free the rest.
  static void trim(std::vector<Buffer>& bufs, bool keep_any);

  /// The spare memory this schedule took, on first use (a small blocking collective whose
  /// transfers complete at once never needs one).
  Memory& mem();
  Memory* mem_ = nullptr;
  // Scratch of small collectives (a recursive-doubling allreduce's receive buffer).
  alignas(16) char small_[256];
  size_t small_used_ = 0;
  std::vector<Step> deferred_;
  std::vector<const Datatype*> kept_types_;
  size_t arena_used_ = 0;
  size_t pos_ = 0;
  size_t first_open_ = 0;  // inflight[i] for i < first_open_ are known complete
  bool group_break_ = false;
  bool sent_in_group_ = false;  // a send of the current group went out at once (block_until)
  bool immediate_ = false;
  bool local_ = false;
  bool done_ = false;
  int error_ = MPI_SUCCESS;
};

/// Persistent collectives (MPI_*_init): a persistent request keeps one tag for all its starts,
/// reserved when it is made (init calls are ordered like collectives, so every member reserves
/// the same one), so members may start different persistent requests in different orders.
/// Messages of two starts of one request cannot mix: a start completes before the next, and
/// the pml keeps each pair's messages in order.
/// reserve_tag: a tag for schedules; reserve_neighbor_tags: kNeighborSlots consecutive tags for
/// the neighborhood collectives (one per direction), disjoint from every schedule's.
int reserve_tag(Comm* comm);
/// How a blocking collective waits: drive progress until done() holds, polling or yielding as
/// `kind` says (kExchange when our own message of an exchange already went out, else kTimed;
/// see Schedule::block_until).
template <typename Done>
void block_until(common::WaitKind kind, Done done) {
  pml::Pml& p = the_pml();
  common::Waiter waiter(p.wait_policy(), kind);
  for (;;) {
    const int events = p.progress();
    if (done()) return;
    if (events > 0)
      waiter.busy();
    else
      waiter.idle();
  }
}
/// The tag a schedule built now on `comm` takes (fixed_tag() inside a FixedTag, else the next
/// one): for the collectives that send their one message without a schedule.
int call_tag(Comm* comm);
/// MPI_SUCCESS, or the error (made with `fn`'s name, not raised) for a message of a collective
/// that failed or is shorter than `expected` bytes (~size_t{0}: a send, any length).
int message_error(const char* fn, const Comm* comm, const pml::Status& st, size_t expected);
int reserve_neighbor_tags(Comm* comm);
constexpr int kNeighborSlots = 64;
/// While alive, every schedule built on this thread takes `tag` instead of its communicator's
/// next one, and fixed_tag() returns it (0 otherwise): MPI_Start of a persistent collective
/// runs the nonblocking form inside one.
class FixedTag {
 public:
  explicit FixedTag(int tag);
  ~FixedTag();
  FixedTag(const FixedTag&) = delete;
  FixedTag& operator=(const FixedTag&) = delete;

 private:
  int prev_;
};
int fixed_tag();

/// A nonblocking collective: an MPI_Request whose poll hook advances its schedule. Completed
/// by the ordinary Wait/Test calls; every pml progress() advances all outstanding ones.
struct NbcRequest : RtRequest {
  NbcRequest(const char* fn, Comm* comm);
  Schedule sched;
  /// Called once when the schedule has finished, before the request completes, with the
  /// schedule's error (MPI_SUCCESS or a code): the work an operation does with the schedule's
  /// result (MPI_Comm_idup builds the communicator). Returns an MPI error code the request
  /// then reports; `state` is the operation's own data, owned by the request.
  /// It may instead run another round: rebuild the schedule with restart_schedule, add its
  /// steps and return kRunAgain; the new schedule runs and on_done is called again at its end.
  int (*on_done)(NbcRequest* req, int err) = nullptr;
  std::shared_ptr<void> state;
};
constexpr int kRunAgain = -1;

/// From on_done: replace `req`'s finished schedule by an empty one on the same communicator
/// and tag (the members run the same rounds, and the pml keeps each pair's messages of one tag
/// in order, so rounds cannot mix).
void restart_schedule(NbcRequest* req);

/// Seal `req`'s schedule, start it (its first transfers are posted now) and register it with
/// the progress engine. `req` is owned by the caller as an ordinary runtime request.
void start_nonblocking(NbcRequest* req);

}  // namespace mpr::runtime::coll
