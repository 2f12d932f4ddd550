// Control collectives for building communicators: small blocking exchanges over an explicit
// list of processes rather than over a communicator, because the group that must agree is not
// always a communicator (MPI_Comm_create_group's group, an intercommunicator's local side, two
// leaders talking through a peer communicator).
//
// Traffic runs on a collective context id with tags from kTagCtl*, which no collective
// algorithm and no user receive uses. Within one exchange every pair of processes sends in a
// fixed order, and the pml never lets messages of one (source, context) overtake each other,
// so consecutive exchanges with the same tag cannot mix.
#pragma once

#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

namespace mpr::runtime::ctl {

// High tags: the collective algorithms number theirs from 1.
enum Tag : int {
  kTagCtlAgree = 0x7f000001,  ///< context id masks
  kTagCtlGather,              ///< allgather / bcast of split and membership data
  kTagCtlLeader,              ///< leader-to-leader exchanges of intercommunicator setup
  kTagCtlDistGraph,           ///< MPI_Dist_graph_create edge exchange
  kTagNeighbor = 0x7f100000,  ///< neighborhood collectives: + direction slot
};

/// Tags for MPI_Comm_create_group and MPI_Intercomm_create, derived from the user's tag so that
/// concurrent calls with different tags stay apart. Negative: never a user tag or a collective's.
int create_group_tag(int user_tag);
int intercomm_tag(int user_tag);

/// A set of processes that exchange control messages: rank i is job rank peers[i], this process
/// is rank `me` (the source rank receivers see), traffic on context `ctx`.
struct Channel {
  uint32_t ctx;
  int me;
  const std::vector<int>* peers;
  int size() const { return static_cast<int>(peers->size()); }
};

// Every call returns MPI_SUCCESS or an MPI error code (not raised) whose message names `fn`.
int send(const char* fn, const Channel& ch, int dst, int tag, const void* buf, size_t bytes);
int recv(const char* fn, const Channel& ch, int src, int tag, void* buf, size_t bytes);
/// Length-prefixed byte vectors (the receiver does not know the size).
int send_vec(const char* fn, const Channel& ch, int dst, int tag, const std::vector<uint8_t>& v);
int recv_vec(const char* fn, const Channel& ch, int src, int tag, std::vector<uint8_t>* v);
/// Simultaneous exchange with one process (no deadlock whoever sends first).
int exchange_vec(const char* fn, const Channel& ch, int other, int tag,
                 const std::vector<uint8_t>& out, std::vector<uint8_t>* in);

/// Binomial broadcast of a byte vector from `root` (its size travels with it).
int bcast_vec(const char* fn, const Channel& ch, int root, int tag, std::vector<uint8_t>* v);
/// Bitwise AND of `n` words over the channel, result everywhere (reduce to 0, then bcast).
int allreduce_and(const char* fn, const Channel& ch, int tag, uint64_t* words, size_t n);
/// Every rank contributes `each` bytes; `out` gets size() * each bytes in rank order.
int allgather(const char* fn, const Channel& ch, int tag, const void* mine, size_t each, void* out);

/// Element-wise sum of `n` 64-bit counters over the channel, result everywhere.
int allreduce_sum(const char* fn, const Channel& ch, int tag, int64_t* words, size_t n);
/// Sparse all-to-all: out[r] goes to rank r if not empty (own data is handed over locally);
/// *in receives (source rank, data) for every non-empty message addressed to this rank,
/// ordered by source rank. One allreduce of n counters finds how many messages to expect.
int sparse_exchange(const char* fn, const Channel& ch, int tag,
                    const std::vector<std::vector<uint8_t>>& out,
                    std::vector<std::pair<int, std::vector<uint8_t>>>* in);

/// Helpers to move int vectors through byte vectors.
std::vector<uint8_t> to_bytes(const std::vector<int>& v);
std::vector<int> from_bytes(const std::vector<uint8_t>& v);

}  // namespace mpr::runtime::ctl
