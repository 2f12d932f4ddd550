// Internal to the communicator constructors (comm.cc, comm_create.cc, intercomm.cc): the
// context id allocator and the channels constructors talk over.
#pragma once

#include <cstdint>
#include <functional>
#include <vector>

#include "runtime/comm/comm.h"
#include "runtime/comm/comm_ctl.h"

namespace mpr::runtime {

/// Context ids are handed out in pairs (point-to-point, collective) from a fixed range. Every
/// process keeps a bitmap of the pairs its live communicators use; a new communicator takes the
/// lowest pair free in every member, found with one allreduce-AND of the members' free masks
/// over the parent (O(log n) messages of kCtxMaskWords words, no global coordinator). A pair
/// is given back when the last reference to its communicator goes, and only then can an
/// agreement pick it again.
constexpr int kCtxMaskWords = 64;
constexpr int kCtxPairs = kCtxMaskWords * 64;
/// The last word's 64 pairs are offered by blocking agreements only, never by an
/// MPI_Comm_idup: a process with idups outstanding offers just its free pairs there, so a
/// blocking call can agree while an idup waits for members that are still inside that call
/// (MPICH's "eager" context ids serve the same end). Being the highest pairs, they are taken
/// last, so they stay free for that case.
constexpr int kCtxBlockingWord = kCtxMaskWords - 1;
/// Under MPI_THREAD_MULTIPLE the word below is for blocking agreements that are not first in
/// line (comm.cc: HeldOffer): the first never holds it, so an agreement that needs no other
/// process (a dup of MPI_COMM_SELF, say) can finish while the first one's round waits for
/// members whose own threads are in that very call.
constexpr int kCtxEagerWord = kCtxBlockingWord - 1;
constexpr uint32_t kWorldCtx = 0;
constexpr uint32_t kSelfCtx = 2;
constexpr uint32_t kFirstFreeCtx = 4;

/// Channel over a communicator's local group on its collective context.
ctl::Channel local_channel(const Comm* c);
/// Channel from this process to the processes point-to-point ranks of `c` name (the remote
/// group of an intercommunicator), on its collective context.
ctl::Channel p2p_channel(const Comm* c);

/// Agreement among the processes of `ch` (all call it). With keep == false this process takes
/// part but does not reserve the pair (MPI_UNDEFINED color in a split).
int agree_ctx(const char* fn, const ctl::Channel& ch, int tag, bool keep, uint32_t* out);
/// Agreement among the two groups of an (existing or future) intercommunicator: each side ANDs
/// over `local`, the leaders (local rank `leader` on each side) exchange masks over `bridge`
/// with the remote leader `remote_leader` using `bridge_tag`, and the leader broadcasts.
/// `bridge` is only used by the leader.
int agree_ctx_inter(const char* fn, const ctl::Channel& local, int leader,
                    const ctl::Channel* bridge, int remote_leader, int bridge_tag, bool keep,
                    uint32_t* out);

/// The same with the leaders' exchange of masks done by `exchange` (its result is an MPI error
/// code): MPI_Comm_accept/connect, whose leaders talk over a socket before the groups share a
/// communicator.
using LeaderExchange =
    std::function<int(const std::vector<uint8_t>& mine, std::vector<uint8_t>* theirs)>;
int agree_ctx_inter(const char* fn, const ctl::Channel& local, int leader,
                    const LeaderExchange& exchange, bool keep, uint32_t* out);

/// A fresh communicator inherits the parent's error handler (and nothing else).
void inherit(Comm* child, const Comm* parent);

}  // namespace mpr::runtime
