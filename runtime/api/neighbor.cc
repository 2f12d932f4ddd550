// Neighborhood collectives (MPI_Neighbor_* and MPI_Ineighbor_*) on Cartesian, graph and
// distributed-graph communicators: one nonblocking receive per in-neighbor and one send per
// out-neighbor on the communicator's collective context (through Comm::internal(), so the
// ordinary point-to-point path handles every datatype), gathered in a compound request.
//
// Matching: a Cartesian neighbor may appear twice (a periodic dimension of size 1 or 2), so
// each transfer is tagged with its direction: what a rank sends to its -1 neighbor in
// dimension d arrives at that neighbor as data from its +1 neighbor (slot 2d+1). Graph
// neighbors repeat only as multi-edges, which MPI pairs in order; one tag suffices.
#include <vector>

#include "runtime/api/check.h"
#include "runtime/api/coll_impl.h"
#include "runtime/coll/schedule.h"
#include "runtime/comm/comm_ctl.h"
#include "runtime/comm/topo.h"
#include "runtime/p2p/p2p.h"
#include "runtime/p2p/request_ext.h"

using namespace mpr::runtime;
using namespace mpr::runtime::api;
namespace ctl = mpr::runtime::ctl;
using mpr::pml::Request;

namespace {

struct Xfer {
  char* buf;
  MPI_Count count;
  Datatype* type;
};

struct Plan {
  Comm* comm = nullptr;
  const Topology* topo = nullptr;
  std::vector<int> in, out;
};

int prepare(const char* fn, MPI_Comm h, const void* sendbuf, Plan* p) {
  MPR_TRY(check_running(fn));
  MPR_TRY(check_comm(fn, h, &p->comm));
  p->topo = p->comm->topo();
  if (!p->topo)
    return raise_error(p->comm, MPI_ERR_TOPOLOGY, fn,
                       "the communicator has no topology (MPI_Cart_create, MPI_Graph_create, "
                       "MPI_Dist_graph_create...)");
  if (sendbuf == MPI_IN_PLACE)
    return raise_error(p->comm, MPI_ERR_BUFFER, fn,
                       "MPI_IN_PLACE is not allowed in neighborhood collectives");
  p->topo->neighbors(p->comm->rank(), &p->in, &p->out);
  return MPI_SUCCESS;
}

int check_xfer(const char* fn, Comm* comm, const void* buf, MPI_Count count, MPI_Datatype type,
               Datatype** dt) {
  MPR_TRY(check_count(fn, comm, count));
  MPR_TRY(check_type(fn, comm, type, dt));
  return check_buffer(fn, comm, buf, count, *dt);
}

// A persistent request's own tags (coll::fixed_tag(), set by MPI_Start) when its directions
// fit them; else the shared ones, which rely on all members starting in the same order.
int tag_base(const Plan& p) {
  const int fixed = coll::fixed_tag();
  return fixed && p.in.size() <= static_cast<size_t>(coll::kNeighborSlots) ? fixed
                                                                           : ctl::kTagNeighbor;
}

int send_tag(const Plan& p, int j) {
  return tag_base(p) + (p.topo->kind == MPI_CART ? (j ^ 1) : 0);
}

int recv_tag(const Plan& p, int i) { return tag_base(p) + (p.topo->kind == MPI_CART ? i : 0); }

// Post everything; the request completes when every transfer did.
CompoundRequest* start(const Plan& p, const std::vector<Xfer>& sends,
                       const std::vector<Xfer>& recvs) {
  Comm* wire = p.comm->internal();
  std::vector<Request*> children;
  for (size_t i = 0; i < recvs.size(); ++i)
    children.push_back(start_recv(wire, recvs[i].buf, recvs[i].count, recvs[i].type, p.in[i],
                                  recv_tag(p, static_cast<int>(i))));
  for (size_t j = 0; j < sends.size(); ++j)
    children.push_back(start_send(wire, sends[j].buf, sends[j].count, sends[j].type, p.out[j],
                                  send_tag(p, static_cast<int>(j)), mpr::pml::SendMode::kStandard));
  return compound_request(p.comm, std::move(children), -1);
}

// Start the transfers. Blocking form: wait, free, report the first failure on the user's
// communicator. The check-only request of a persistent init starts nothing.
int finish(const char* fn, const Plan& p, const std::vector<Xfer>& sends,
           const std::vector<Xfer>& recvs, MPI_Request* request) {
  if (request == check_only_request()) return kChecksPassed;
  CompoundRequest* r = start(p, sends, recvs);
  if (request) {
    *request = to_handle(r);
    return MPI_SUCCESS;
  }
  Comm* comm = p.comm;
  comm->retain();
  request_wait(r);
  int rc = request_finish(fn, r, nullptr);
  rc = raise(comm, rc);
  comm->release();
  return rc;
}

char* at(const void* base, MPI_Aint bytes) {
  return static_cast<char*>(const_cast<void*>(base)) + bytes;
}

int allgather(const char* fn, const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
              void* recvbuf, MPI_Count recvcount, MPI_Datatype recvtype, MPI_Comm h,
              MPI_Request* request) {
  Plan p;
  Datatype *sdt, *rdt;
  MPR_TRY(prepare(fn, h, sendbuf, &p));
  MPR_TRY(check_xfer(fn, p.comm, sendbuf, sendcount, sendtype, &sdt));
  MPR_TRY(check_xfer(fn, p.comm, recvbuf, recvcount, recvtype, &rdt));
  if (request) MPR_TRY(check_arg(fn, p.comm, request, "request is NULL"));
  std::vector<Xfer> sends(p.out.size(), Xfer{at(sendbuf, 0), sendcount, sdt}), recvs;
  for (size_t i = 0; i < p.in.size(); ++i)
    recvs.push_back(
        {at(recvbuf, static_cast<MPI_Aint>(i) * recvcount * rdt->extent), recvcount, rdt});
  return finish(fn, p, sends, recvs, request);
}

int allgatherv(const char* fn, const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
               void* recvbuf, Counts recvcounts, Displs displs, MPI_Datatype recvtype, MPI_Comm h,
               MPI_Request* request) {
  Plan p;
  Datatype *sdt, *rdt;
  MPR_TRY(prepare(fn, h, sendbuf, &p));
  MPR_TRY(check_xfer(fn, p.comm, sendbuf, sendcount, sendtype, &sdt));
  MPR_TRY(check_type(fn, p.comm, recvtype, &rdt));
  MPR_TRY(check_arg(fn, p.comm, p.in.empty() || (recvcounts && displs),
                    "recvcounts or displs is NULL"));
  std::vector<Xfer> sends(p.out.size(), Xfer{at(sendbuf, 0), sendcount, sdt}), recvs;
  for (size_t i = 0; i < p.in.size(); ++i) {
    MPR_TRY(check_xfer(fn, p.comm, recvbuf, recvcounts[i], recvtype, &rdt));
    recvs.push_back(
        {at(recvbuf, static_cast<MPI_Aint>(displs[i]) * rdt->extent), recvcounts[i], rdt});
  }
  return finish(fn, p, sends, recvs, request);
}

int alltoall(const char* fn, const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
             void* recvbuf, MPI_Count recvcount, MPI_Datatype recvtype, MPI_Comm h,
             MPI_Request* request) {
  Plan p;
  Datatype *sdt, *rdt;
  MPR_TRY(prepare(fn, h, sendbuf, &p));
  MPR_TRY(check_xfer(fn, p.comm, sendbuf, sendcount, sendtype, &sdt));
  MPR_TRY(check_xfer(fn, p.comm, recvbuf, recvcount, recvtype, &rdt));
  std::vector<Xfer> sends, recvs;
  for (size_t j = 0; j < p.out.size(); ++j)
    sends.push_back(
        {at(sendbuf, static_cast<MPI_Aint>(j) * sendcount * sdt->extent), sendcount, sdt});
  for (size_t i = 0; i < p.in.size(); ++i)
    recvs.push_back(
        {at(recvbuf, static_cast<MPI_Aint>(i) * recvcount * rdt->extent), recvcount, rdt});
  return finish(fn, p, sends, recvs, request);
}

int alltoallv(const char* fn, const void* sendbuf, Counts sendcounts, Displs sdispls,
              MPI_Datatype sendtype, void* recvbuf, Counts recvcounts, Displs rdispls,
              MPI_Datatype recvtype, MPI_Comm h, MPI_Request* request) {
  Plan p;
  Datatype *sdt, *rdt;
  MPR_TRY(prepare(fn, h, sendbuf, &p));
  MPR_TRY(check_type(fn, p.comm, sendtype, &sdt));
  MPR_TRY(check_type(fn, p.comm, recvtype, &rdt));
  MPR_TRY(check_arg(fn, p.comm, p.out.empty() || (sendcounts && sdispls),
                    "sendcounts or sdispls is NULL"));
  MPR_TRY(check_arg(fn, p.comm, p.in.empty() || (recvcounts && rdispls),
                    "recvcounts or rdispls is NULL"));
  std::vector<Xfer> sends, recvs;
  for (size_t j = 0; j < p.out.size(); ++j) {
    MPR_TRY(check_xfer(fn, p.comm, sendbuf, sendcounts[j], sendtype, &sdt));
    sends.push_back(
        {at(sendbuf, static_cast<MPI_Aint>(sdispls[j]) * sdt->extent), sendcounts[j], sdt});
  }
  for (size_t i = 0; i < p.in.size(); ++i) {
    MPR_TRY(check_xfer(fn, p.comm, recvbuf, recvcounts[i], recvtype, &rdt));
    recvs.push_back(
        {at(recvbuf, static_cast<MPI_Aint>(rdispls[i]) * rdt->extent), recvcounts[i], rdt});
  }
  return finish(fn, p, sends, recvs, request);
}

int alltoallw(const char* fn, const void* sendbuf, Counts sendcounts, const MPI_Aint sdispls[],
              const MPI_Datatype sendtypes[], void* recvbuf, Counts recvcounts,
              const MPI_Aint rdispls[], const MPI_Datatype recvtypes[], MPI_Comm h,
              MPI_Request* request) {
  Plan p;
  MPR_TRY(prepare(fn, h, sendbuf, &p));
  MPR_TRY(check_arg(fn, p.comm, p.out.empty() || (sendcounts && sdispls && sendtypes),
                    "sendcounts, sdispls or sendtypes is NULL"));
  MPR_TRY(check_arg(fn, p.comm, p.in.empty() || (recvcounts && rdispls && recvtypes),
                    "recvcounts, rdispls or recvtypes is NULL"));
  std::vector<Xfer> sends, recvs;
  for (size_t j = 0; j < p.out.size(); ++j) {
    Datatype* dt;
    // The displacements are bytes, so with MPI_BOTTOM they are absolute addresses: check the
    // address they give, not the base.
    MPR_TRY(check_xfer(fn, p.comm, at(sendbuf, sdispls[j]), sendcounts[j], sendtypes[j], &dt));
    sends.push_back({at(sendbuf, sdispls[j]), sendcounts[j], dt});
  }
  for (size_t i = 0; i < p.in.size(); ++i) {
    Datatype* dt;
    MPR_TRY(check_xfer(fn, p.comm, at(recvbuf, rdispls[i]), recvcounts[i], recvtypes[i], &dt));
    recvs.push_back({at(recvbuf, rdispls[i]), recvcounts[i], dt});
  }
  return finish(fn, p, sends, recvs, request);
}

}  // namespace

extern "C" int PMPI_Neighbor_allgather(const void* sendbuf, int sendcount, MPI_Datatype sendtype,
                                       void* recvbuf, int recvcount, MPI_Datatype recvtype,
                                       MPI_Comm comm) {
  MPR_ENTRY;
  return allgather("MPI_Neighbor_allgather", sendbuf, sendcount, sendtype, recvbuf, recvcount,
                   recvtype, comm, nullptr);
}
MPR_WEAK_ALIAS(Neighbor_allgather);

extern "C" int PMPI_Neighbor_allgather_c(const void* sendbuf, MPI_Count sendcount,
                                         MPI_Datatype sendtype, void* recvbuf, MPI_Count recvcount,
                                         MPI_Datatype recvtype, MPI_Comm comm) {
  MPR_ENTRY;
  return allgather("MPI_Neighbor_allgather_c", sendbuf, sendcount, sendtype, recvbuf, recvcount,
                   recvtype, comm, nullptr);
}
MPR_WEAK_ALIAS(Neighbor_allgather_c);

extern "C" int PMPI_Neighbor_allgatherv(const void* sendbuf, int sendcount, MPI_Datatype sendtype,
                                        void* recvbuf, const int recvcounts[], const int displs[],
                                        MPI_Datatype recvtype, MPI_Comm comm) {
  MPR_ENTRY;
  return allgatherv("MPI_Neighbor_allgatherv", sendbuf, sendcount, sendtype, recvbuf, recvcounts,
                    displs, recvtype, comm, nullptr);
}
MPR_WEAK_ALIAS(Neighbor_allgatherv);

extern "C" int PMPI_Neighbor_allgatherv_c(const void* sendbuf, MPI_Count sendcount,
                                          MPI_Datatype sendtype, void* recvbuf,
                                          const MPI_Count recvcounts[], const MPI_Aint displs[],
                                          MPI_Datatype recvtype, MPI_Comm comm) {
  MPR_ENTRY;
  return allgatherv("MPI_Neighbor_allgatherv_c", sendbuf, sendcount, sendtype, recvbuf, recvcounts,
                    displs, recvtype, comm, nullptr);
}
MPR_WEAK_ALIAS(Neighbor_allgatherv_c);

extern "C" int PMPI_Neighbor_alltoall(const void* sendbuf, int sendcount, MPI_Datatype sendtype,
                                      void* recvbuf, int recvcount, MPI_Datatype recvtype,
                                      MPI_Comm comm) {
  MPR_ENTRY;
  return alltoall("MPI_Neighbor_alltoall", sendbuf, sendcount, sendtype, recvbuf, recvcount,
                  recvtype, comm, nullptr);
}
MPR_WEAK_ALIAS(Neighbor_alltoall);

extern "C" int PMPI_Neighbor_alltoall_c(const void* sendbuf, MPI_Count sendcount,
                                        MPI_Datatype sendtype, void* recvbuf, MPI_Count recvcount,
                                        MPI_Datatype recvtype, MPI_Comm comm) {
  MPR_ENTRY;
  return alltoall("MPI_Neighbor_alltoall_c", sendbuf, sendcount, sendtype, recvbuf, recvcount,
                  recvtype, comm, nullptr);
}
MPR_WEAK_ALIAS(Neighbor_alltoall_c);

extern "C" int PMPI_Neighbor_alltoallv(const void* sendbuf, const int sendcounts[],
                                       const int sdispls[], MPI_Datatype sendtype, void* recvbuf,
                                       const int recvcounts[], const int rdispls[],
                                       MPI_Datatype recvtype, MPI_Comm comm) {
  MPR_ENTRY;
  return alltoallv("MPI_Neighbor_alltoallv", sendbuf, sendcounts, sdispls, sendtype, recvbuf,
                   recvcounts, rdispls, recvtype, comm, nullptr);
}
MPR_WEAK_ALIAS(Neighbor_alltoallv);

extern "C" int PMPI_Neighbor_alltoallv_c(const void* sendbuf, const MPI_Count sendcounts[],
                                         const MPI_Aint sdispls[], MPI_Datatype sendtype,
                                         void* recvbuf, const MPI_Count recvcounts[],
                                         const MPI_Aint rdispls[], MPI_Datatype recvtype,
                                         MPI_Comm comm) {
  MPR_ENTRY;
  return alltoallv("MPI_Neighbor_alltoallv_c", sendbuf, sendcounts, sdispls, sendtype, recvbuf,
                   recvcounts, rdispls, recvtype, comm, nullptr);
}
MPR_WEAK_ALIAS(Neighbor_alltoallv_c);

extern "C" int PMPI_Neighbor_alltoallw(const void* sendbuf, const int sendcounts[],
                                       const MPI_Aint sdispls[], const MPI_Datatype sendtypes[],
                                       void* recvbuf, const int recvcounts[],
                                       const MPI_Aint rdispls[], const MPI_Datatype recvtypes[],
                                       MPI_Comm comm) {
  MPR_ENTRY;
  return alltoallw("MPI_Neighbor_alltoallw", sendbuf, sendcounts, sdispls, sendtypes, recvbuf,
                   recvcounts, rdispls, recvtypes, comm, nullptr);
}
MPR_WEAK_ALIAS(Neighbor_alltoallw);

extern "C" int PMPI_Neighbor_alltoallw_c(const void* sendbuf, const MPI_Count sendcounts[],
                                         const MPI_Aint sdispls[], const MPI_Datatype sendtypes[],
                                         void* recvbuf, const MPI_Count recvcounts[],
                                         const MPI_Aint rdispls[], const MPI_Datatype recvtypes[],
                                         MPI_Comm comm) {
  MPR_ENTRY;
  return alltoallw("MPI_Neighbor_alltoallw_c", sendbuf, sendcounts, sdispls, sendtypes, recvbuf,
                   recvcounts, rdispls, recvtypes, comm, nullptr);
}
MPR_WEAK_ALIAS(Neighbor_alltoallw_c);

extern "C" int PMPI_Ineighbor_allgather(const void* sendbuf, int sendcount, MPI_Datatype sendtype,
                                        void* recvbuf, int recvcount, MPI_Datatype recvtype,
                                        MPI_Comm comm, MPI_Request* request) {
  MPR_ENTRY;
  constexpr const char* fn = "MPI_Ineighbor_allgather";
  MPR_TRY(check_arg(fn, nullptr, request, "request is NULL"));
  return allgather(fn, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, request);
}
MPR_WEAK_ALIAS(Ineighbor_allgather);

extern "C" int PMPI_Ineighbor_allgather_c(const void* sendbuf, MPI_Count sendcount,
                                          MPI_Datatype sendtype, void* recvbuf, MPI_Count recvcount,
                                          MPI_Datatype recvtype, MPI_Comm comm,
                                          MPI_Request* request) {
  MPR_ENTRY;
  constexpr const char* fn = "MPI_Ineighbor_allgather_c";
  MPR_TRY(check_arg(fn, nullptr, request, "request is NULL"));
  return allgather(fn, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, request);
}
MPR_WEAK_ALIAS(Ineighbor_allgather_c);

extern "C" int PMPI_Ineighbor_allgatherv(const void* sendbuf, int sendcount, MPI_Datatype sendtype,
                                         void* recvbuf, const int recvcounts[], const int displs[],
                                         MPI_Datatype recvtype, MPI_Comm comm,
                                         MPI_Request* request) {
  MPR_ENTRY;
  constexpr const char* fn = "MPI_Ineighbor_allgatherv";
  MPR_TRY(check_arg(fn, nullptr, request, "request is NULL"));
  return allgatherv(fn, sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, comm,
                    request);
}
MPR_WEAK_ALIAS(Ineighbor_allgatherv);

extern "C" int PMPI_Ineighbor_allgatherv_c(const void* sendbuf, MPI_Count sendcount,
                                           MPI_Datatype sendtype, void* recvbuf,
                                           const MPI_Count recvcounts[], const MPI_Aint displs[],
                                           MPI_Datatype recvtype, MPI_Comm comm,
                                           MPI_Request* request) {
  MPR_ENTRY;
  constexpr const char* fn = "MPI_Ineighbor_allgatherv_c";
  MPR_TRY(check_arg(fn, nullptr, request, "request is NULL"));
  return allgatherv(fn, sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, comm,
                    request);
}
MPR_WEAK_ALIAS(Ineighbor_allgatherv_c);

extern "C" int PMPI_Ineighbor_alltoall(const void* sendbuf, int sendcount, MPI_Datatype sendtype,
                                       void* recvbuf, int recvcount, MPI_Datatype recvtype,
                                       MPI_Comm comm, MPI_Request* request) {
  MPR_ENTRY;
  constexpr const char* fn = "MPI_Ineighbor_alltoall";
  MPR_TRY(check_arg(fn, nullptr, request, "request is NULL"));
  return alltoall(fn, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, request);
}
MPR_WEAK_ALIAS(Ineighbor_alltoall);

extern "C" int PMPI_Ineighbor_alltoall_c(const void* sendbuf, MPI_Count sendcount,
                                         MPI_Datatype sendtype, void* recvbuf, MPI_Count recvcount,
                                         MPI_Datatype recvtype, MPI_Comm comm,
                                         MPI_Request* request) {
  MPR_ENTRY;
  constexpr const char* fn = "MPI_Ineighbor_alltoall_c";
  MPR_TRY(check_arg(fn, nullptr, request, "request is NULL"));
  return alltoall(fn, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, request);
}
MPR_WEAK_ALIAS(Ineighbor_alltoall_c);

extern "C" int PMPI_Ineighbor_alltoallv(const void* sendbuf, const int sendcounts[],
                                        const int sdispls[], MPI_Datatype sendtype, void* recvbuf,
                                        const int recvcounts[], const int rdispls[],
                                        MPI_Datatype recvtype, MPI_Comm comm,
                                        MPI_Request* request) {
  MPR_ENTRY;
  constexpr const char* fn = "MPI_Ineighbor_alltoallv";
  MPR_TRY(check_arg(fn, nullptr, request, "request is NULL"));
  return alltoallv(fn, sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls,
                   recvtype, comm, request);
}
MPR_WEAK_ALIAS(Ineighbor_alltoallv);

extern "C" int PMPI_Ineighbor_alltoallv_c(const void* sendbuf, const MPI_Count sendcounts[],
                                          const MPI_Aint sdispls[], MPI_Datatype sendtype,
                                          void* recvbuf, const MPI_Count recvcounts[],
                                          const MPI_Aint rdispls[], MPI_Datatype recvtype,
                                          MPI_Comm comm, MPI_Request* request) {
  MPR_ENTRY;
  constexpr const char* fn = "MPI_Ineighbor_alltoallv_c";
  MPR_TRY(check_arg(fn, nullptr, request, "request is NULL"));
  return alltoallv(fn, sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls,
                   recvtype, comm, request);
}
MPR_WEAK_ALIAS(Ineighbor_alltoallv_c);

extern "C" int PMPI_Ineighbor_alltoallw(const void* sendbuf, const int sendcounts[],
                                        const MPI_Aint sdispls[], const MPI_Datatype sendtypes[],
                                        void* recvbuf, const int recvcounts[],
                                        const MPI_Aint rdispls[], const MPI_Datatype recvtypes[],
                                        MPI_Comm comm, MPI_Request* request) {
  MPR_ENTRY;
  constexpr const char* fn = "MPI_Ineighbor_alltoallw";
  MPR_TRY(check_arg(fn, nullptr, request, "request is NULL"));
  return alltoallw(fn, sendbuf, sendcounts, sdispls, sendtypes, recvbuf, recvcounts, rdispls,
                   recvtypes, comm, request);
}
MPR_WEAK_ALIAS(Ineighbor_alltoallw);

extern "C" int PMPI_Ineighbor_alltoallw_c(const void* sendbuf, const MPI_Count sendcounts[],
                                          const MPI_Aint sdispls[], const MPI_Datatype sendtypes[],
                                          void* recvbuf, const MPI_Count recvcounts[],
                                          const MPI_Aint rdispls[], const MPI_Datatype recvtypes[],
                                          MPI_Comm comm, MPI_Request* request) {
  MPR_ENTRY;
  constexpr const char* fn = "MPI_Ineighbor_alltoallw_c";
  MPR_TRY(check_arg(fn, nullptr, request, "request is NULL"));
  return alltoallw(fn, sendbuf, sendcounts, sdispls, sendtypes, recvbuf, recvcounts, rdispls,
                   recvtypes, comm, request);
}
MPR_WEAK_ALIAS(Ineighbor_alltoallw_c);

extern "C" int PMPI_Neighbor_allgather_init(const void* sendbuf, int sendcount,
                                            MPI_Datatype sendtype, void* recvbuf, int recvcount,
                                            MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info,
                                            MPI_Request* request) {
  MPR_ENTRY;
  constexpr const char* fn = "MPI_Neighbor_allgather_init";
  return persistent_init(
      fn, comm, info, true, {sendtype, recvtype},
      [=](MPI_Request* r) {
        return allgather(fn, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, r);
      },
      request);
}
MPR_WEAK_ALIAS(Neighbor_allgather_init);

extern "C" int PMPI_Neighbor_allgather_init_c(const void* sendbuf, MPI_Count sendcount,
                                              MPI_Datatype sendtype, void* recvbuf,
                                              MPI_Count recvcount, MPI_Datatype recvtype,
                                              MPI_Comm comm, MPI_Info info, MPI_Request* request) {
  MPR_ENTRY;
  constexpr const char* fn = "MPI_Neighbor_allgather_init_c";
  return persistent_init(
      fn, comm, info, true, {sendtype, recvtype},
      [=](MPI_Request* r) {
        return allgather(fn, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, r);
      },
      request);
}
MPR_WEAK_ALIAS(Neighbor_allgather_init_c);

extern "C" int PMPI_Neighbor_allgatherv_init(const void* sendbuf, int sendcount,
                                             MPI_Datatype sendtype, void* recvbuf,
                                             const int recvcounts[], const int displs[],
                                             MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info,
                                             MPI_Request* request) {
  MPR_ENTRY;
  constexpr const char* fn = "MPI_Neighbor_allgatherv_init";
  return persistent_init(
      fn, comm, info, true, {sendtype, recvtype},
      [=](MPI_Request* r) {
        return allgatherv(fn, sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype,
                          comm, r);
      },
      request);
}
MPR_WEAK_ALIAS(Neighbor_allgatherv_init);

extern "C" int PMPI_Neighbor_allgatherv_init_c(const void* sendbuf, MPI_Count sendcount,
                                               MPI_Datatype sendtype, void* recvbuf,
                                               const MPI_Count recvcounts[],
                                               const MPI_Aint displs[], MPI_Datatype recvtype,
                                               MPI_Comm comm, MPI_Info info, MPI_Request* request) {
  MPR_ENTRY;
  constexpr const char* fn = "MPI_Neighbor_allgatherv_init_c";
  return persistent_init(
      fn, comm, info, true, {sendtype, recvtype},
      [=](MPI_Request* r) {
        return allgatherv(fn, sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype,
                          comm, r);
      },
      request);
}
MPR_WEAK_ALIAS(Neighbor_allgatherv_init_c);

extern "C" int PMPI_Neighbor_alltoall_init(const void* sendbuf, int sendcount,
                                           MPI_Datatype sendtype, void* recvbuf, int recvcount,
                                           MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info,
                                           MPI_Request* request) {
  MPR_ENTRY;
  constexpr const char* fn = "MPI_Neighbor_alltoall_init";
  return persistent_init(
      fn, comm, info, true, {sendtype, recvtype},
      [=](MPI_Request* r) {
        return alltoall(fn, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, r);
      },
      request);
}
MPR_WEAK_ALIAS(Neighbor_alltoall_init);

extern "C" int PMPI_Neighbor_alltoall_init_c(const void* sendbuf, MPI_Count sendcount,
                                             MPI_Datatype sendtype, void* recvbuf,
                                             MPI_Count recvcount, MPI_Datatype recvtype,
                                             MPI_Comm comm, MPI_Info info, MPI_Request* request) {
  MPR_ENTRY;
  constexpr const char* fn = "MPI_Neighbor_alltoall_init_c";
  return persistent_init(
      fn, comm, info, true, {sendtype, recvtype},
      [=](MPI_Request* r) {
        return alltoall(fn, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, r);
      },
      request);
}
MPR_WEAK_ALIAS(Neighbor_alltoall_init_c);

extern "C" int PMPI_Neighbor_alltoallv_init(const void* sendbuf, const int sendcounts[],
                                            const int sdispls[], MPI_Datatype sendtype,
                                            void* recvbuf, const int recvcounts[],
                                            const int rdispls[], MPI_Datatype recvtype,
                                            MPI_Comm comm, MPI_Info info, MPI_Request* request) {
  MPR_ENTRY;
  constexpr const char* fn = "MPI_Neighbor_alltoallv_init";
  return persistent_init(
      fn, comm, info, true, {sendtype, recvtype},
      [=](MPI_Request* r) {
        return alltoallv(fn, sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls,
                         recvtype, comm, r);
      },
      request);
}
MPR_WEAK_ALIAS(Neighbor_alltoallv_init);

extern "C" int PMPI_Neighbor_alltoallv_init_c(const void* sendbuf, const MPI_Count sendcounts[],
                                              const MPI_Aint sdispls[], MPI_Datatype sendtype,
                                              void* recvbuf, const MPI_Count recvcounts[],
                                              const MPI_Aint rdispls[], MPI_Datatype recvtype,
                                              MPI_Comm comm, MPI_Info info, MPI_Request* request) {
  MPR_ENTRY;
  constexpr const char* fn = "MPI_Neighbor_alltoallv_init_c";
  return persistent_init(
      fn, comm, info, true, {sendtype, recvtype},
      [=](MPI_Request* r) {
        return alltoallv(fn, sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls,
                         recvtype, comm, r);
      },
      request);
}
MPR_WEAK_ALIAS(Neighbor_alltoallv_init_c);

extern "C" int PMPI_Neighbor_alltoallw_init(const void* sendbuf, const int sendcounts[],
                                            const MPI_Aint sdispls[],
                                            const MPI_Datatype sendtypes[], void* recvbuf,
                                            const int recvcounts[], const MPI_Aint rdispls[],
                                            const MPI_Datatype recvtypes[], MPI_Comm comm,
                                            MPI_Info info, MPI_Request* request) {
  MPR_ENTRY;
  constexpr const char* fn = "MPI_Neighbor_alltoallw_init";
  return persistent_init(
      fn, comm, info, true, {},
      [=](MPI_Request* r) {
        return alltoallw(fn, sendbuf, sendcounts, sdispls, sendtypes, recvbuf, recvcounts, rdispls,
                         recvtypes, comm, r);
      },
      request);
}
MPR_WEAK_ALIAS(Neighbor_alltoallw_init);

extern "C" int PMPI_Neighbor_alltoallw_init_c(const void* sendbuf, const MPI_Count sendcounts[],
                                              const MPI_Aint sdispls[],
                                              const MPI_Datatype sendtypes[], void* recvbuf,
                                              const MPI_Count recvcounts[],
                                              const MPI_Aint rdispls[],
                                              const MPI_Datatype recvtypes[], MPI_Comm comm,
                                              MPI_Info info, MPI_Request* request) {
  MPR_ENTRY;
  constexpr const char* fn = "MPI_Neighbor_alltoallw_init_c";
  return persistent_init(
      fn, comm, info, true, {},
      [=](MPI_Request* r) {
        return alltoallw(fn, sendbuf, sendcounts, sdispls, sendtypes, recvbuf, recvcounts, rdispls,
                         recvtypes, comm, r);
      },
      request);
}
MPR_WEAK_ALIAS(Neighbor_alltoallw_init_c);
