// Communicator constructors that pick a subset of a parent: MPI_Comm_split (the engine behind
// Comm_create, Comm_split_type and the topology constructors) and MPI_Comm_create_group.
#include <algorithm>
#include <cstring>

#include "runtime/comm/comm_impl.h"
#include "runtime/core/state.h"

namespace mpr::runtime {

namespace {

struct ColorKey {
  int color;
  int key;
};

// Ranks (indices into `all`) with `color`, ordered by key, ties by rank.
std::vector<int> members_of(const std::vector<ColorKey>& all, int color) {
  std::vector<int> ranks;
  for (int r = 0; r < static_cast<int>(all.size()); ++r)
    if (all[r].color == color) ranks.push_back(r);
  std::stable_sort(ranks.begin(), ranks.end(),
                   [&](int a, int b) { return all[a].key < all[b].key; });
  return ranks;
}

std::vector<int> job_ranks(const std::vector<int>& ranks, const std::vector<int>& peers) {
  std::vector<int> out;
  out.reserve(ranks.size());
  for (int r : ranks) out.push_back(peers[r]);
  return out;
}

int split_intra(const char* fn, Comm* parent, int color, int key, Comm** out) {
  ctl::Channel ch = local_channel(parent);
  std::vector<ColorKey> all(static_cast<size_t>(parent->size()));
  ColorKey mine{color, key};
  int rc = ctl::allgather(fn, ch, ctl::kTagCtlGather, &mine, sizeof mine, all.data());
  if (rc != MPI_SUCCESS) return rc;
  uint32_t ctx = 0;
  // One agreement serves every color: the new communicators are disjoint.
  rc = agree_ctx(fn, ch, ctl::kTagCtlAgree, color != MPI_UNDEFINED, &ctx);
  if (rc != MPI_SUCCESS) return rc;
  *out = nullptr;
  if (color == MPI_UNDEFINED) return MPI_SUCCESS;
  std::vector<int> ranks = members_of(all, color);
  int my_index =
      static_cast<int>(std::find(ranks.begin(), ranks.end(), parent->rank()) - ranks.begin());
  auto* c = new Comm(job_ranks(ranks, parent->peers()), my_index, ctx, MPI_COMM_NULL);
  inherit(c, parent);
  *out = c;
  return MPI_SUCCESS;
}

// Split of an intercommunicator: the processes of one color on both sides form a new
// intercommunicator; a color present on one side only gives MPI_COMM_NULL.
int split_inter(const char* fn, Comm* parent, int color, int key, Comm** out) {
  ctl::Channel local = local_channel(parent);
  ctl::Channel bridge = p2p_channel(parent);
  std::vector<ColorKey> mine_all(static_cast<size_t>(parent->size()));
  ColorKey mine{color, key};
  int rc = ctl::allgather(fn, local, ctl::kTagCtlGather, &mine, sizeof mine, mine_all.data());
  if (rc != MPI_SUCCESS) return rc;
  std::vector<uint8_t> theirs_bytes;
  if (parent->rank() == 0) {
    std::vector<uint8_t> bytes(mine_all.size() * sizeof(ColorKey));
    std::memcpy(bytes.data(), mine_all.data(), bytes.size());
    rc = ctl::exchange_vec(fn, bridge, 0, ctl::kTagCtlLeader, bytes, &theirs_bytes);
    if (rc != MPI_SUCCESS) return rc;
  }
  rc = ctl::bcast_vec(fn, local, 0, ctl::kTagCtlGather, &theirs_bytes);
  if (rc != MPI_SUCCESS) return rc;
  std::vector<ColorKey> theirs(theirs_bytes.size() / sizeof(ColorKey));
  std::memcpy(theirs.data(), theirs_bytes.data(), theirs.size() * sizeof(ColorKey));
  std::vector<int> local_ranks = members_of(mine_all, color);
  std::vector<int> remote_ranks = members_of(theirs, color);
  const bool keep = color != MPI_UNDEFINED && !remote_ranks.empty();
  uint32_t ctx = 0;
  rc = agree_ctx_inter(fn, local, 0, &bridge, 0, ctl::kTagCtlLeader, keep, &ctx);
  if (rc != MPI_SUCCESS) return rc;
  *out = nullptr;
  if (!keep) return MPI_SUCCESS;
  int my_index = static_cast<int>(
      std::find(local_ranks.begin(), local_ranks.end(), parent->rank()) - local_ranks.begin());
  auto* c = new Comm(job_ranks(local_ranks, parent->peers()), my_index,
                     job_ranks(remote_ranks, parent->remote_peers()), ctx);
  inherit(c, parent);
  *out = c;
  return MPI_SUCCESS;
}

}  // namespace

int comm_split(const char* fn, Comm* parent, int color, int key, Comm** out) {
  return parent->is_inter() ? split_inter(fn, parent, color, key, out)
                            : split_intra(fn, parent, color, key, out);
}

int comm_create_group(const char* fn, Comm* parent, const std::vector<int>& group, int tag,
                      Comm** out) {
  const int me =
      static_cast<int>(std::find(group.begin(), group.end(), job_rank()) - group.begin());
  ctl::Channel ch{parent->ctx_coll(), me, &group};
  uint32_t ctx = 0;
  int rc = agree_ctx(fn, ch, ctl::create_group_tag(tag), true, &ctx);
  if (rc != MPI_SUCCESS) return rc;
  auto* c = new Comm(group, me, ctx, MPI_COMM_NULL);
  inherit(c, parent);
  *out = c;
  return MPI_SUCCESS;
}

}  // namespace mpr::runtime
