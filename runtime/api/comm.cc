// Communicator queries and management: rank/size, dup/free, compare, names, constructors
// (split, split_type, create, create_group, intercommunicators), info hints.
#include <algorithm>
#include <cstring>
#include <string>
#include <utility>
#include <vector>

#include "runtime/api/check.h"
#include "runtime/api/handles.h"
#include "runtime/coll/coll.h"
#include "runtime/comm/comm.h"
#include "runtime/comm/dpm.h"
#include "runtime/p2p/bsend.h"

using namespace mpr::runtime;
using namespace mpr::runtime::api;

extern "C" int PMPI_Comm_rank(MPI_Comm h, int* rank) {
  MPR_ENTRY;
  constexpr const char* fn = "MPI_Comm_rank";
  Comm* comm;
  MPR_TRY(check_running(fn));
  MPR_TRY(check_comm(fn, h, &comm));
  MPR_TRY(check_arg(fn, comm, rank, "rank is NULL"));
  *rank = comm->rank();
  return MPI_SUCCESS;
}
MPR_WEAK_ALIAS(Comm_rank);

extern "C" int PMPI_Comm_size(MPI_Comm h, int* size) {
  MPR_ENTRY;
  constexpr const char* fn = "MPI_Comm_size";
  Comm* comm;
  MPR_TRY(check_running(fn));
  MPR_TRY(check_comm(fn, h, &comm));
  MPR_TRY(check_arg(fn, comm, size, "size is NULL"));
  *size = comm->size();
  return MPI_SUCCESS;
}
MPR_WEAK_ALIAS(Comm_size);

extern "C" int PMPI_Comm_dup(MPI_Comm h, MPI_Comm* newcomm) {
  MPR_ENTRY;
  constexpr const char* fn = "MPI_Comm_dup";
  Comm* comm;
  MPR_TRY(check_running(fn));
  MPR_TRY(check_comm(fn, h, &comm));
  MPR_TRY(check_arg(fn, comm, newcomm, "newcomm is NULL"));
  Comm* dup = nullptr;
  MPR_TRY(raise(comm, comm_dup(comm, &dup)));
  *newcomm = dup->handle();
  return MPI_SUCCESS;
}
MPR_WEAK_ALIAS(Comm_dup);

extern "C" int PMPI_Comm_free(MPI_Comm* h) {
  MPR_ENTRY;
  constexpr const char* fn = "MPI_Comm_free";
  MPR_TRY(check_running(fn));
  MPR_TRY(check_arg(fn, nullptr, h, "comm is NULL"));
  Comm* comm;
  MPR_TRY(check_comm(fn, *h, &comm));
  if (comm->predefined())
    return raise_error(comm, MPI_ERR_COMM, fn, "cannot free %s", comm->name().c_str());
  // Delete callbacks run now, while the communicator is still usable from inside them.
  MPR_TRY(raise(comm, attrs_delete_all(fn, comm)));
  if (comm->bsend) comm->bsend->drain();  // its attached buffer goes with it (MPI 4.1)
  comm->mark_freed();
  if (g_state.parent == comm) g_state.parent = nullptr;  // MPI_Comm_get_parent: null from now
  comm->release();
  *h = MPI_COMM_NULL;
  return MPI_SUCCESS;
}
MPR_WEAK_ALIAS(Comm_free);

extern "C" int PMPI_Comm_compare(MPI_Comm h1, MPI_Comm h2, int* result) {
  MPR_ENTRY;
  constexpr const char* fn = "MPI_Comm_compare";
  Comm *a, *b;
  MPR_TRY(check_running(fn));
  MPR_TRY(check_comm(fn, h1, &a));
  MPR_TRY(check_comm(fn, h2, &b));
  MPR_TRY(check_arg(fn, a, result, "result is NULL"));
  *result = comm_compare(a, b);
  return MPI_SUCCESS;
}
MPR_WEAK_ALIAS(Comm_compare);

extern "C" int PMPI_Comm_get_name(MPI_Comm h, char* comm_name, int* resultlen) {
  MPR_ENTRY;
  constexpr const char* fn = "MPI_Comm_get_name";
  Comm* comm;
  MPR_TRY(check_running(fn));
  MPR_TRY(check_comm(fn, h, &comm));
  MPR_TRY(check_arg(fn, comm, comm_name && resultlen, "comm_name or resultlen is NULL"));
  size_t n = comm->name().size();
  if (n > MPI_MAX_OBJECT_NAME - 1) n = MPI_MAX_OBJECT_NAME - 1;
  std::memcpy(comm_name, comm->name().data(), n);
  comm_name[n] = '\0';
  *resultlen = static_cast<int>(n);
  return MPI_SUCCESS;
}
MPR_WEAK_ALIAS(Comm_get_name);

extern "C" int PMPI_Comm_set_name(MPI_Comm h, const char* comm_name) {
  MPR_ENTRY;
  constexpr const char* fn = "MPI_Comm_set_name";
  Comm* comm;
  MPR_TRY(check_running(fn));
  MPR_TRY(check_comm(fn, h, &comm));
  MPR_TRY(check_arg(fn, comm, comm_name, "comm_name is NULL"));
  comm->set_name(std::string(comm_name, strnlen(comm_name, MPI_MAX_OBJECT_NAME - 1)));
  return MPI_SUCCESS;
}
MPR_WEAK_ALIAS(Comm_set_name);

namespace {

// Hand a new communicator (or none) to the user.
int deliver(Comm* c, MPI_Comm* out) {
  *out = c ? c->handle() : MPI_COMM_NULL;
  return MPI_SUCCESS;
}

// MPI_COMM_TYPE_HW_GUIDED / _UNGUIDED: the info key naming the resource and the one resource
// type this runtime knows (a node's shared memory).
constexpr const char* kHwResourceType = "mpi_hw_resource_type";
constexpr const char* kSharedMemory = "mpi_shared_memory";

int copy_hints(Comm* c, const Info* info) {
  c->hints().clear();
  if (info) c->hints() = info->entries();
  return MPI_SUCCESS;
}

}  // namespace

extern "C" int PMPI_Comm_split(MPI_Comm h, int color, int key, MPI_Comm* newcomm) {
  MPR_ENTRY;
  constexpr const char* fn = "MPI_Comm_split";
  Comm* comm;
  MPR_TRY(check_running(fn));
  MPR_TRY(check_comm(fn, h, &comm));
  MPR_TRY(check_arg(fn, comm, newcomm, "newcomm is NULL"));
  MPR_TRY(check_arg(fn, comm, color >= 0 || color == MPI_UNDEFINED,
                    "color must be non-negative or MPI_UNDEFINED"));
  Comm* c = nullptr;
  MPR_TRY(raise(comm, comm_split(fn, comm, color, key, &c)));
  return deliver(c, newcomm);
}
MPR_WEAK_ALIAS(Comm_split);

extern "C" int PMPI_Comm_split_type(MPI_Comm h, int split_type, int key, MPI_Info info,
                                    MPI_Comm* newcomm) {
  MPR_ENTRY;
  constexpr const char* fn = "MPI_Comm_split_type";
  Comm* comm;
  Info* in;
  MPR_TRY(check_running(fn));
  MPR_TRY(check_comm(fn, h, &comm));
  MPR_TRY(check_intra(fn, comm));
  MPR_TRY(check_arg(fn, comm, newcomm, "newcomm is NULL"));
  MPR_TRY(check_info(fn, comm, info, true, &in));
  // The node is the only hardware level below the job this runtime knows of.
  const int node_color = mpr::runtime::node_color(comm);
  int color;
  if (split_type == MPI_UNDEFINED) {
    color = MPI_UNDEFINED;
  } else if (split_type == MPI_COMM_TYPE_SHARED) {
    // One color per node: the lowest job rank among the launcher's local peers of this node.
    color = node_color;
  } else if (split_type == MPI_COMM_TYPE_HW_GUIDED) {
    // The resource type this process asks for; one it does not know gives it MPI_COMM_NULL.
    const std::string* type = in ? in->get(kHwResourceType) : nullptr;
    color = type && *type == kSharedMemory ? node_color : MPI_UNDEFINED;
  } else if (split_type == MPI_COMM_TYPE_HW_UNGUIDED) {
    color = node_color;
  } else {
    return raise_error(comm, MPI_ERR_ARG, fn,
                       "invalid split_type %d (MPI_COMM_TYPE_SHARED, MPI_COMM_TYPE_HW_GUIDED, "
                       "MPI_COMM_TYPE_HW_UNGUIDED or MPI_UNDEFINED)",
                       split_type);
  }
  Comm* c = nullptr;
  MPR_TRY(raise(comm, comm_split(fn, comm, color, key, &c)));
  if (c && split_type == MPI_COMM_TYPE_HW_UNGUIDED && c->size() == comm->size()) {
    // Unguided splits must give a strictly smaller communicator; every member sees the same
    // sizes here, so all of them return MPI_COMM_NULL together.
    c->mark_freed();
    c->release();
    c = nullptr;
  }
  if (c && split_type != MPI_COMM_TYPE_SHARED)
    c->hints().emplace_back(kHwResourceType, kSharedMemory);
  return deliver(c, newcomm);
}
MPR_WEAK_ALIAS(Comm_split_type);

extern "C" int PMPI_Comm_create(MPI_Comm h, MPI_Group group, MPI_Comm* newcomm) {
  MPR_ENTRY;
  constexpr const char* fn = "MPI_Comm_create";
  Comm* comm;
  Group* g;
  MPR_TRY(check_running(fn));
  MPR_TRY(check_comm(fn, h, &comm));
  MPR_TRY(check_group(fn, comm, group, &g));
  MPR_TRY(check_arg(fn, comm, newcomm, "newcomm is NULL"));
  for (int p : g->members())
    if (std::find(comm->peers().begin(), comm->peers().end(), p) == comm->peers().end())
      return raise_error(comm, MPI_ERR_GROUP, fn,
                         "the group contains job rank %d, which is not in the communicator%s", p,
                         comm->is_inter() ? "'s local group" : "");
  // A split: the group's members share a color (disjoint groups given by different processes
  // get different colors: their lowest members differ) and keep the group's order.
  int my = g->my_rank();
  int color = my == MPI_UNDEFINED ? MPI_UNDEFINED : g->member(0);
  if (comm->is_inter() && my != MPI_UNDEFINED) color = 0;
  Comm* c = nullptr;
  MPR_TRY(raise(comm, comm_split(fn, comm, color, my, &c)));
  return deliver(c, newcomm);
}
MPR_WEAK_ALIAS(Comm_create);

extern "C" int PMPI_Comm_create_group(MPI_Comm h, MPI_Group group, int tag, MPI_Comm* newcomm) {
  MPR_ENTRY;
  constexpr const char* fn = "MPI_Comm_create_group";
  Comm* comm;
  Group* g;
  MPR_TRY(check_running(fn));
  MPR_TRY(check_comm(fn, h, &comm));
  MPR_TRY(check_intra(fn, comm));
  MPR_TRY(check_group(fn, comm, group, &g));
  MPR_TRY(check_arg(fn, comm, newcomm, "newcomm is NULL"));
  MPR_TRY(check_send_tag(fn, comm, tag));
  for (int p : g->members())
    if (std::find(comm->peers().begin(), comm->peers().end(), p) == comm->peers().end())
      return raise_error(comm, MPI_ERR_GROUP, fn,
                         "the group contains job rank %d, which is not in the communicator", p);
  // A process outside the group (MPI_GROUP_EMPTY included) gets MPI_COMM_NULL; the call is
  // collective over the group's members only.
  if (g->my_rank() == MPI_UNDEFINED) {
    *newcomm = MPI_COMM_NULL;
    return MPI_SUCCESS;
  }
  Comm* c = nullptr;
  MPR_TRY(raise(comm, comm_create_group(fn, comm, g->members(), tag, &c)));
  return deliver(c, newcomm);
}
MPR_WEAK_ALIAS(Comm_create_group);

extern "C" int PMPI_Comm_dup_with_info(MPI_Comm h, MPI_Info info, MPI_Comm* newcomm) {
  MPR_ENTRY;
  constexpr const char* fn = "MPI_Comm_dup_with_info";
  Comm* comm;
  Info* in;
  MPR_TRY(check_running(fn));
  MPR_TRY(check_comm(fn, h, &comm));
  MPR_TRY(check_info(fn, comm, info, true, &in));
  MPR_TRY(check_arg(fn, comm, newcomm, "newcomm is NULL"));
  Comm* dup = nullptr;
  MPR_TRY(raise(comm, comm_dup(comm, &dup)));
  copy_hints(dup, in);
  return deliver(dup, newcomm);
}
MPR_WEAK_ALIAS(Comm_dup_with_info);

extern "C" int PMPI_Comm_idup(MPI_Comm h, MPI_Comm* newcomm, MPI_Request* request) {
  MPR_ENTRY;
  constexpr const char* fn = "MPI_Comm_idup";
  Comm* comm;
  MPR_TRY(check_running(fn));
  MPR_TRY(check_comm(fn, h, &comm));
  MPR_TRY(check_arg(fn, comm, newcomm, "newcomm is NULL"));
  MPR_TRY(check_arg(fn, comm, request, "request is NULL"));
  return raise(comm, coll::comm_idup(fn, comm, nullptr, newcomm, request));
}
MPR_WEAK_ALIAS(Comm_idup);

extern "C" int PMPI_Comm_idup_with_info(MPI_Comm h, MPI_Info info, MPI_Comm* newcomm,
                                        MPI_Request* request) {
  MPR_ENTRY;
  constexpr const char* fn = "MPI_Comm_idup_with_info";
  Comm* comm;
  Info* in;
  MPR_TRY(check_running(fn));
  MPR_TRY(check_comm(fn, h, &comm));
  MPR_TRY(check_info(fn, comm, info, true, &in));
  MPR_TRY(check_arg(fn, comm, newcomm, "newcomm is NULL"));
  MPR_TRY(check_arg(fn, comm, request, "request is NULL"));
  // The hints are copied now: the user may free the info before the request completes.
  std::vector<std::pair<std::string, std::string>> hints;
  if (in) hints = in->entries();
  return raise(comm, coll::comm_idup(fn, comm, &hints, newcomm, request));
}
MPR_WEAK_ALIAS(Comm_idup_with_info);

extern "C" int PMPI_Comm_set_info(MPI_Comm h, MPI_Info info) {
  MPR_ENTRY;
  constexpr const char* fn = "MPI_Comm_set_info";
  Comm* comm;
  Info* in;
  MPR_TRY(check_running(fn));
  MPR_TRY(check_comm(fn, h, &comm));
  MPR_TRY(check_info(fn, comm, info, false, &in));
  return copy_hints(comm, in);
}
MPR_WEAK_ALIAS(Comm_set_info);

extern "C" int PMPI_Comm_get_info(MPI_Comm h, MPI_Info* info_used) {
  MPR_ENTRY;
  constexpr const char* fn = "MPI_Comm_get_info";
  Comm* comm;
  MPR_TRY(check_running(fn));
  MPR_TRY(check_comm(fn, h, &comm));
  MPR_TRY(check_arg(fn, comm, info_used, "info_used is NULL"));
  auto* info = new Info;
  for (const auto& [k, v] : comm->hints()) info->set(k, v);
  *info_used = info->handle();
  return MPI_SUCCESS;
}
MPR_WEAK_ALIAS(Comm_get_info);

extern "C" int PMPI_Comm_test_inter(MPI_Comm h, int* flag) {
  MPR_ENTRY;
  constexpr const char* fn = "MPI_Comm_test_inter";
  Comm* comm;
  MPR_TRY(check_running(fn));
  MPR_TRY(check_comm(fn, h, &comm));
  MPR_TRY(check_arg(fn, comm, flag, "flag is NULL"));
  *flag = comm->is_inter();
  return MPI_SUCCESS;
}
MPR_WEAK_ALIAS(Comm_test_inter);

extern "C" int PMPI_Comm_remote_size(MPI_Comm h, int* size) {
  MPR_ENTRY;
  constexpr const char* fn = "MPI_Comm_remote_size";
  Comm* comm;
  MPR_TRY(check_running(fn));
  MPR_TRY(check_comm(fn, h, &comm));
  MPR_TRY(check_arg(fn, comm, size, "size is NULL"));
  if (!comm->is_inter()) return raise_error(comm, MPI_ERR_COMM, fn, "not an intercommunicator");
  *size = comm->remote_size();
  return MPI_SUCCESS;
}
MPR_WEAK_ALIAS(Comm_remote_size);

extern "C" int PMPI_Intercomm_create(MPI_Comm local_comm, int local_leader, MPI_Comm peer_comm,
                                     int remote_leader, int tag, MPI_Comm* newintercomm) {
  MPR_ENTRY;
  constexpr const char* fn = "MPI_Intercomm_create";
  Comm *local, *peer = nullptr;
  MPR_TRY(check_running(fn));
  MPR_TRY(check_comm(fn, local_comm, &local));
  MPR_TRY(check_intra(fn, local));
  MPR_TRY(check_arg(fn, local, newintercomm, "newintercomm is NULL"));
  MPR_TRY(check_root(fn, local, local_leader));
  MPR_TRY(check_send_tag(fn, local, tag));
  if (local->rank() == local_leader) {
    // Only the leader uses the peer communicator (MPI: it is significant there only).
    MPR_TRY(check_comm(fn, peer_comm, &peer));
    if (remote_leader < 0 || remote_leader >= peer->p2p_size())
      return raise_error(local, MPI_ERR_RANK, fn,
                         "invalid remote_leader %d (peer communicator size %d)", remote_leader,
                         peer->p2p_size());
    if (peer->peer(remote_leader) == job_rank())
      return raise_error(local, MPI_ERR_RANK, fn, "remote_leader %d is the local leader itself",
                         remote_leader);
  }
  Comm* c = nullptr;
  MPR_TRY(raise(local, intercomm_create(fn, local, local_leader, peer, remote_leader, tag, &c)));
  return deliver(c, newintercomm);
}
MPR_WEAK_ALIAS(Intercomm_create);

extern "C" int PMPI_Intercomm_merge(MPI_Comm h, int high, MPI_Comm* newintracomm) {
  MPR_ENTRY;
  constexpr const char* fn = "MPI_Intercomm_merge";
  Comm* comm;
  MPR_TRY(check_running(fn));
  MPR_TRY(check_comm(fn, h, &comm));
  MPR_TRY(check_arg(fn, comm, newintracomm, "newintracomm is NULL"));
  if (!comm->is_inter()) return raise_error(comm, MPI_ERR_COMM, fn, "not an intercommunicator");
  Comm* c = nullptr;
  MPR_TRY(raise(comm, intercomm_merge(fn, comm, high != 0, &c)));
  return deliver(c, newintracomm);
}
MPR_WEAK_ALIAS(Intercomm_merge);

extern "C" int PMPI_Comm_get_parent(MPI_Comm* parent) {
  MPR_ENTRY;
  constexpr const char* fn = "MPI_Comm_get_parent";
  MPR_TRY(check_running(fn));
  MPR_TRY(check_arg(fn, nullptr, parent, "parent is NULL"));
  *parent = g_state.parent ? g_state.parent->handle() : MPI_COMM_NULL;
  return MPI_SUCCESS;
}
MPR_WEAK_ALIAS(Comm_get_parent);

extern "C" int PMPI_Comm_disconnect(MPI_Comm* h) {
  MPR_ENTRY;
  constexpr const char* fn = "MPI_Comm_disconnect";
  MPR_TRY(check_running(fn));
  MPR_TRY(check_arg(fn, nullptr, h, "comm is NULL"));
  Comm* comm;
  MPR_TRY(check_comm(fn, *h, &comm));
  if (comm->predefined())
    return raise_error(comm, MPI_ERR_COMM, fn, "cannot disconnect %s", comm->name().c_str());
  // Collective: once every process of both groups is here, nothing it sent before is still
  // unreceived by a process that reached this call (message order per pair), so freeing
  // loses nothing. The connection itself stays (other communicators may use it) and ends at
  // MPI_Finalize.
  MPR_TRY(PMPI_Barrier(*h));
  return PMPI_Comm_free(h);
}
MPR_WEAK_ALIAS(Comm_disconnect);
