// Communicators: a group of job ranks plus two context ids, one for point-to-point traffic and
// one for collectives, so collective messages can never match a user's receive.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "mpi.h"
#include "runtime/errors.h"

namespace mpr::runtime {

class Comm {
 public:
  static constexpr unsigned kMagic = 0x436f6d6d;  // "Comm"

  /// `peers[i]` is the job rank of communicator rank i; `my_rank` is this process's index.
  Comm(std::vector<int> peers, int my_rank, uint32_t ctx, MPI_Comm predefined_handle);
  ~Comm();
  Comm(const Comm&) = delete;
  Comm& operator=(const Comm&) = delete;

  bool valid() const { return magic_ == kMagic && !freed_; }
  int rank() const { return rank_; }
  int size() const { return static_cast<int>(peers_.size()); }
  /// Job rank of communicator rank r (0 <= r < size()).
  int peer(int r) const { return peers_[r]; }
  const std::vector<int>& peers() const { return peers_; }
  uint32_t ctx_p2p() const { return ctx_; }
  uint32_t ctx_coll() const { return ctx_ + 1; }
  bool predefined() const { return handle_ != nullptr; }
  /// The handle users see: the predefined constant or this object's address.
  MPI_Comm handle() const {
    return handle_ ? handle_ : reinterpret_cast<MPI_Comm>(const_cast<Comm*>(this));
  }

  Errhandler* errhandler() const { return errhandler_; }
  void set_errhandler(Errhandler* e);
  const std::string& name() const { return name_; }
  void set_name(std::string n) { name_ = std::move(n); }

  /// Pending requests keep their communicator alive past MPI_Comm_free.
  void retain() { ++refs_; }
  void release();
  /// MPI_Comm_free: the handle becomes invalid now; the object lives until its last request.
  void mark_freed() { freed_ = true; }

 private:
  unsigned magic_ = kMagic;
  std::vector<int> peers_;
  int rank_;
  uint32_t ctx_;
  MPI_Comm handle_;
  Errhandler* errhandler_;
  std::string name_;
  int refs_ = 1;
  bool freed_ = false;
};

/// The communicator behind a handle, or nullptr if the handle is null or invalid.
Comm* to_comm(MPI_Comm h);

/// Build MPI_COMM_WORLD and MPI_COMM_SELF (at init) and destroy them (at finalize).
void comms_init();
void comms_fini();

/// Collective over `parent`: a context id pair (*out, *out + 1) unused by every member, the
/// maximum of the members' next free ids. Every constructor of a new communicator (dup, and
/// later split/create) goes through this. Returns an MPI error code (not raised).
int agree_context_id(const char* fn, Comm* parent, uint32_t* out);
/// MPI_Comm_dup: same group and error handler as `parent`, fresh context ids.
/// Returns an MPI error code; *out is set on success only.
int comm_dup(Comm* parent, Comm** out);
/// MPI_IDENT / MPI_CONGRUENT / MPI_SIMILAR / MPI_UNEQUAL.
int comm_compare(const Comm* a, const Comm* b);

}  // namespace mpr::runtime
