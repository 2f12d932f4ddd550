// Intercommunicators: MPI_Intercomm_create and MPI_Intercomm_merge. Each group runs its part
// over its own members; only the two leaders talk across (through the peer communicator at
// creation, through the intercommunicator itself afterwards).
#include <algorithm>

#include "runtime/comm/comm_impl.h"
#include "runtime/comm/dpm.h"
#include "runtime/core/state.h"

namespace mpr::runtime {

int intercomm_create(const char* fn, Comm* local, int local_leader, Comm* peer_comm,
                     int remote_leader, int tag, Comm** out) {
  ctl::Channel lch = local_channel(local);
  const bool leader = local->rank() == local_leader;
  const int bridge_tag = ctl::intercomm_tag(tag);
  ctl::Channel bridge{};
  if (leader) bridge = p2p_channel(peer_comm);
  // The leaders swap their groups' members, then tell their own group. Members travel as (job,
  // rank): the groups may hold processes of other jobs, which each process numbers its own way.
  std::vector<uint8_t> remote_bytes;
  if (leader) {
    int rc = ctl::exchange_vec(fn, bridge, remote_leader, bridge_tag, encode_procs(local->peers()),
                               &remote_bytes);
    if (rc != MPI_SUCCESS) return rc;
  }
  int rc = ctl::bcast_vec(fn, lch, local_leader, ctl::kTagCtlGather, &remote_bytes);
  if (rc != MPI_SUCCESS) return rc;
  std::vector<int> remote;
  rc = decode_procs(fn, remote_bytes, &remote);
  if (rc != MPI_SUCCESS) return rc;
  for (int p : remote)
    if (std::find(local->peers().begin(), local->peers().end(), p) != local->peers().end())
      return make_error(MPI_ERR_COMM, fn,
                        "job rank %d is in both the local and the remote group (the groups of "
                        "an intercommunicator must be disjoint)",
                        p);
  uint32_t ctx = 0;
  rc = agree_ctx_inter(fn, lch, local_leader, leader ? &bridge : nullptr, remote_leader, bridge_tag,
                       true, &ctx);
  if (rc != MPI_SUCCESS) return rc;
  auto* c = new Comm(local->peers(), local->rank(), std::move(remote), ctx);
  inherit(c, local);
  *out = c;
  return MPI_SUCCESS;
}

int intercomm_merge(const char* fn, Comm* inter, bool high, Comm** out) {
  ctl::Channel lch = local_channel(inter);
  ctl::Channel bridge = p2p_channel(inter);
  // The leaders swap their groups' `high` (the leader's value stands for its group).
  std::vector<uint8_t> theirs;
  if (inter->rank() == 0) {
    int rc = ctl::exchange_vec(fn, bridge, 0, ctl::kTagCtlLeader,
                               std::vector<uint8_t>{static_cast<uint8_t>(high)}, &theirs);
    if (rc != MPI_SUCCESS) return rc;
  }
  int rc = ctl::bcast_vec(fn, lch, 0, ctl::kTagCtlGather, &theirs);
  if (rc != MPI_SUCCESS) return rc;
  if (theirs.size() != 1) return make_error(MPI_ERR_INTERN, fn, "malformed merge exchange");
  const bool remote_high = theirs[0] != 0;
  // With equal `high` on both sides, the group whose leader comes first (by job, then rank)
  // goes first: every process computes the same answer from what it already knows.
  bool local_first =
      high != remote_high ? !high : proc_before(inter->peers()[0], inter->remote_peers()[0]);
  uint32_t ctx = 0;
  rc = agree_ctx_inter(fn, lch, 0, &bridge, 0, ctl::kTagCtlLeader, true, &ctx);
  if (rc != MPI_SUCCESS) return rc;
  std::vector<int> all;
  const std::vector<int>& first = local_first ? inter->peers() : inter->remote_peers();
  const std::vector<int>& second = local_first ? inter->remote_peers() : inter->peers();
  all.insert(all.end(), first.begin(), first.end());
  all.insert(all.end(), second.begin(), second.end());
  int my_rank = inter->rank() + (local_first ? 0 : inter->remote_size());
  auto* c = new Comm(std::move(all), my_rank, ctx, MPI_COMM_NULL);
  inherit(c, inter);
  *out = c;
  return MPI_SUCCESS;
}

}  // namespace mpr::runtime
