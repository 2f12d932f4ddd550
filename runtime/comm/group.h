// Groups: an ordered list of processes, each named by its job rank (the identity every
// communicator translates to). The set operations are pure functions on those lists, so they are
// unit-tested without a running job.
#pragma once

#include <vector>

#include "mpi.h"

namespace mpr::runtime {

class BsendBuffer;

class Group {
 public:
  static constexpr unsigned kMagic = 0x47727570;  // "Grup"

  explicit Group(std::vector<int> members) : members_(std::move(members)) {}
  Group(const Group&) = delete;
  Group& operator=(const Group&) = delete;

  bool valid() const { return magic_ == kMagic; }
  int size() const { return static_cast<int>(members_.size()); }
  /// Job rank of group rank r (0 <= r < size()).
  int member(int r) const { return members_[r]; }
  const std::vector<int>& members() const { return members_; }
  /// Group rank of `job_rank`, or MPI_UNDEFINED.
  int rank_of(int job_rank) const;
  /// MPI_Group_rank: this process's rank in the group, or MPI_UNDEFINED.
  int my_rank() const;

  MPI_Group handle() const { return reinterpret_cast<MPI_Group>(const_cast<Group*>(this)); }
  void retain() { ++refs_; }
  void release();

  /// A process set's group (MPI_Group_from_session_pset): its session's buffer for buffered
  /// sends, which communicators made from the group use (MPI 4.1).
  BsendBuffer* session_bsend = nullptr;

 private:
  ~Group() { magic_ = 0; }
  unsigned magic_ = kMagic;
  std::vector<int> members_;
  int refs_ = 1;
};

/// The group behind a handle (MPI_GROUP_EMPTY included), or nullptr if null or invalid.
Group* to_group(MPI_Group h);
/// The shared empty group (MPI_GROUP_EMPTY); never freed.
Group* empty_group();
/// A handle for a freshly built member list: MPI_GROUP_EMPTY when empty, else a new Group.
MPI_Group make_group_handle(std::vector<int> members);

// Set operations on member lists (job ranks). Inputs are valid groups (no duplicates).
namespace group_ops {

/// MPI_Group_union: all of a, then the members of b not in a, in b's order.
std::vector<int> set_union(const std::vector<int>& a, const std::vector<int>& b);
/// MPI_Group_intersection: members of a that are also in b, in a's order.
std::vector<int> set_intersection(const std::vector<int>& a, const std::vector<int>& b);
/// MPI_Group_difference: members of a not in b, in a's order.
std::vector<int> set_difference(const std::vector<int>& a, const std::vector<int>& b);
/// MPI_IDENT (same members, same order), MPI_SIMILAR (same members), else MPI_UNEQUAL.
int compare(const std::vector<int>& a, const std::vector<int>& b);

/// Checked rank lists. Each returns an MPI error class (MPI_SUCCESS when valid) and writes a
/// human-readable reason into *why on failure.
/// MPI_Group_incl / MPI_Group_excl: ranks must be distinct and in [0, size).
int check_ranks(int size, int n, const int* ranks, const char** why, int* bad_index);
/// Expand MPI_Group_range_incl triplets (first, last, stride) into ranks; validates that every
/// rank is in range, strides are non-zero and no rank appears twice.
int expand_ranges(int size, int n, const int (*ranges)[3], std::vector<int>* out, const char** why,
                  int* bad_index);
/// Members picked by rank (incl) and the complement (excl).
std::vector<int> incl(const std::vector<int>& members, const std::vector<int>& ranks);
std::vector<int> excl(const std::vector<int>& members, const std::vector<int>& ranks);
/// MPI_Group_translate_ranks: ranks of a (already checked) to ranks of b, MPI_UNDEFINED for
/// processes not in b; MPI_PROC_NULL maps to itself.
void translate(const std::vector<int>& a, int n, const int* ranks, const std::vector<int>& b,
               int* out);

}  // namespace group_ops

}  // namespace mpr::runtime
