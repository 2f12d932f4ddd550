// Communicators: a group of job ranks plus two context ids, one for point-to-point traffic and
// one for collectives, so collective messages can never match a user's receive.
//
// An intercommunicator has a local group (this process's side: rank(), size()) and a remote
// group; point-to-point ranks name processes of the remote group. The pml matches on (context,
// source rank in the sender's local group, tag), so both groups use the same context ids and a
// receiver's "source rank" is naturally a rank in its remote group.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "mpi.h"
#include "runtime/comm/attr.h"
#include "runtime/core/errors.h"

namespace mpr::runtime {

struct Topology;
class BsendBuffer;

class Comm {
 public:
  static constexpr unsigned kMagic = 0x436f6d6d;  // "Comm"

  /// Intracommunicator. `peers[i]` is the job rank of communicator rank i; `my_rank` is this
  /// process's index. A non-predefined communicator owns `ctx` (and ctx + 1) and gives the
  /// pair back to the context id allocator when it is destroyed.
  Comm(std::vector<int> peers, int my_rank, uint32_t ctx, MPI_Comm predefined_handle);
  /// Intercommunicator with local group `local` (this process is local[my_rank]) and remote
  /// group `remote`.
  Comm(std::vector<int> local, int my_rank, std::vector<int> remote, uint32_t ctx);
  Comm(const Comm&) = delete;
  Comm& operator=(const Comm&) = delete;

  bool valid() const { return magic_ == kMagic && !freed_; }
  int rank() const { return rank_; }
  int size() const { return static_cast<int>(peers_.size()); }
  bool is_inter() const { return inter_; }
  int remote_size() const { return static_cast<int>(remote_.size()); }
  /// Number of ranks point-to-point calls can address: size(), or remote_size() for an
  /// intercommunicator.
  int p2p_size() const { return inter_ ? remote_size() : size(); }
  /// Job rank of the process point-to-point rank r (0 <= r < p2p_size()) addresses.
  int peer(int r) const { return inter_ ? remote_[r] : peers_[r]; }
  /// The local group's job ranks, in rank order.
  const std::vector<int>& peers() const { return peers_; }
  /// The remote group's job ranks (empty for an intracommunicator).
  const std::vector<int>& remote_peers() const { return remote_; }
  uint32_t ctx_p2p() const { return ctx_; }
  uint32_t ctx_coll() const { return ctx_ + 1; }
  /// Sequence number of the next collective operation started on this communicator (the tags
  /// of runtime/coll): every member starts collectives in the same order, so the values agree.
  uint32_t next_coll_seq() { return coll_seq_++; }
  bool predefined() const { return handle_ != nullptr; }
  /// The handle users see: the predefined constant or this object's address.
  MPI_Comm handle() const {
    return handle_ ? handle_ : reinterpret_cast<MPI_Comm>(const_cast<Comm*>(this));
  }

  Errhandler* errhandler() const { return errhandler_; }
  void set_errhandler(Errhandler* e);
  const std::string& name() const { return name_; }
  void set_name(std::string n) { name_ = std::move(n); }

  AttrSet& attrs() { return attrs_; }
  const Topology* topo() const { return topo_.get(); }
  const std::shared_ptr<const Topology>& topo_ptr() const { return topo_; }
  void set_topo(std::shared_ptr<const Topology> t) { topo_ = std::move(t); }
  /// Hints given by MPI_Comm_set_info / MPI_Comm_dup_with_info (none change behaviour).
  std::vector<std::pair<std::string, std::string>>& hints() { return hints_; }

  /// A communicator over the same processes whose point-to-point context is this one's
  /// collective context: runtime-internal traffic (neighborhood collectives) goes through the
  /// ordinary point-to-point path with its datatype handling, yet can never match a user's
  /// receive. Created on first use; owned by this communicator.
  Comm* internal();
  /// An intercommunicator's local group as an intracommunicator, for the steps of
  /// intercommunicator collectives that stay inside one group. Its context pair is this one's
  /// plus kLocalCtxOffset: outside the allocator's range, unique because this communicator's
  /// pair is, and shared by the two groups without harm since each group's members only talk
  /// among themselves on it; so it needs no agreement. Created on first use; owned by this
  /// communicator.
  Comm* local_comm();
  static constexpr uint32_t kLocalCtxOffset = 0x40000000;

  /// MPI_Comm_attach_buffer's buffer (made on first attach), and the buffer of the session
  /// the communicator came from (MPI_Session_attach_buffer), for buffered sends (bsend_for).
  std::unique_ptr<BsendBuffer> bsend;
  BsendBuffer* session_bsend = nullptr;

  /// Pending requests keep their communicator alive past MPI_Comm_free.
  void retain() { ++refs_; }
  void release();
  /// MPI_Comm_free: the handle becomes invalid now; the object lives until its last request.
  void mark_freed() { freed_ = true; }

 private:
  ~Comm();

  unsigned magic_ = kMagic;
  std::vector<int> peers_;
  std::vector<int> remote_;
  int rank_;
  bool inter_ = false;
  bool owns_ctx_ = false;
  uint32_t ctx_;
  MPI_Comm handle_;
  Errhandler* errhandler_;
  std::string name_;
  AttrSet attrs_;
  std::shared_ptr<const Topology> topo_;
  std::vector<std::pair<std::string, std::string>> hints_;
  Comm* internal_ = nullptr;
  Comm* local_ = nullptr;
  int refs_ = 1;
  uint32_t coll_seq_ = 0;
  bool freed_ = false;
};

/// The communicator behind a handle, or nullptr if the handle is null or invalid.
Comm* to_comm(MPI_Comm h);

/// Build MPI_COMM_WORLD and MPI_COMM_SELF (at init) and destroy them (at finalize).
void comms_init();
void comms_fini();
/// Start of MPI_Finalize, while communication still works: run the delete callbacks of the
/// attributes on MPI_COMM_SELF (then MPI_COMM_WORLD), as MPI requires.
void comms_finalize_attrs();

/// Collective over `parent` (both groups of an intercommunicator): a context id pair
/// (*out, *out + 1) that no live communicator of any member uses, now reserved in every
/// member. The caller passes it to a Comm constructor (which then owns it) or gives it back
/// with release_context_id. Returns an MPI error code (not raised).
int agree_context_id(const char* fn, Comm* parent, uint32_t* out);
void release_context_id(uint32_t ctx);

/// Nonblocking agreement (MPI_Comm_idup), whose allreduce of masks runs as a collective
/// schedule. ctx_window_take: every pair this process has free that no other holder holds
/// (except the pairs kept for blocking agreements, comm_impl.h), now held (no other agreement, blocking or not, offers them) until ctx_window_finish or
/// ctx_window_release; coll/idup.cc lets one agreement at a time hold them.
std::vector<uint64_t> ctx_window_take();
void ctx_window_release(const std::vector<uint64_t>& window);
/// True when no agreement holds pairs: an offer taken now is everything free.
bool ctx_nothing_held();
/// MPI_Comm_idup counts its outstanding agreements (+1 posted, -1 done): while there are any,
/// blocking agreements offer only the pairs kept for them (comm_impl.h), so the idups can
/// agree first and a blocking call still completes when an idup needs it to.
void ctx_idup_waiting(int delta);
/// Let go of `window` and reserve the lowest pair of window AND `agreed` (the AND of every
/// member's offer). Returns an MPI error code (not raised): MPI_ERR_INTERN when no pair is
/// left.
int ctx_window_finish(const char* fn, const std::vector<uint64_t>& window,
                      const std::vector<uint64_t>& agreed, uint32_t* out);

/// MPI_Comm_dup: same group(s), topology and error handler as `parent`, fresh context ids,
/// attributes through their copy callbacks. Returns an MPI error code; *out set on success.
int comm_dup(Comm* parent, Comm** out);
/// A new communicator over the same group(s) with fresh context ids and the parent's error
/// handler, but no attributes or topology (the topology constructors' base).
int comm_clone(const char* fn, Comm* parent, Comm** out);
/// The communicator comm_clone builds, on the already agreed pair `ctx`.
Comm* comm_clone_on(const Comm* parent, uint32_t ctx);
/// The rest of a dup for `c` (a clone of `parent`): topology, attributes through their copy
/// callbacks. On failure `c` is freed. Returns an MPI error code; *out = c on success.
int comm_dup_finish(const char* fn, Comm* parent, Comm* c, Comm** out);
/// MPI_IDENT / MPI_CONGRUENT / MPI_SIMILAR / MPI_UNEQUAL.
int comm_compare(const Comm* a, const Comm* b);

/// MPI_Comm_split (also the engine of Comm_create, Cart_create, Cart_sub, ...): collective
/// over `parent`. *out is nullptr for MPI_UNDEFINED colors. Intercommunicators split into
/// intercommunicators (local and remote processes of one color).
int comm_split(const char* fn, Comm* parent, int color, int key, Comm** out);
/// MPI_Comm_create_group: collective over the members of `group` (job ranks) only.
int comm_create_group(const char* fn, Comm* parent, const std::vector<int>& group, int tag,
                      Comm** out);
/// MPI_Intercomm_create.
int intercomm_create(const char* fn, Comm* local, int local_leader, Comm* peer_comm,
                     int remote_leader, int tag, Comm** out);
/// MPI_Intercomm_merge.
int intercomm_merge(const char* fn, Comm* inter, bool high, Comm** out);

}  // namespace mpr::runtime
