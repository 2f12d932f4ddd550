// Persistent requests (MPI_*_init, MPI_Start, MPI_Startall), nonblocking sendrecv
// (MPI_Isendrecv, MPI_Isendrecv_replace) and generalized requests (MPI_Grequest_*).
#include <memory>

#include "runtime/api/check.h"
#include "runtime/p2p/p2p.h"
#include "runtime/p2p/request_ext.h"

using namespace mpr::runtime;
using namespace mpr::runtime::api;
using mpr::pml::SendMode;
using POp = PersistentRequest::Op;

namespace {

int send_init(const char* fn, const void* buf, MPI_Count count, MPI_Datatype type, int dest,
              int tag, MPI_Comm h, POp op, SendMode mode, MPI_Request* request) {
  Comm* comm;
  Datatype* dt;
  MPR_TRY(check_send(fn, h, buf, count, type, dest, tag, &comm, &dt));
  MPR_TRY(check_arg(fn, comm, request, "request is NULL"));
  *request = to_handle(persistent_request(comm, op, mode, buf, count, dt, dest, tag));
  return MPI_SUCCESS;
}

int start_one(const char* fn, MPI_Request* h) {
  if (!h || *h == MPI_REQUEST_NULL)
    return raise_error(nullptr, MPI_ERR_REQUEST, fn, "invalid request MPI_REQUEST_NULL");
  PersistentRequest* p = as_persistent(from_handle(*h));
  if (!p)
    return raise_error(nullptr, MPI_ERR_REQUEST, fn,
                       "the request is not persistent (made by MPI_Send_init, MPI_Recv_init...)");
  bool raised;
  int rc = persistent_start(fn, p, &raised);
  return raised ? rc : raise(request_comm(p), rc);
}

}  // namespace

extern "C" int PMPI_Send_init(const void* buf, int count, MPI_Datatype datatype, int dest, int tag,
                              MPI_Comm comm, MPI_Request* request) {
  MPR_ENTRY;
  return send_init("MPI_Send_init", buf, count, datatype, dest, tag, comm, POp::kSend,
                   SendMode::kStandard, request);
}
MPR_WEAK_ALIAS(Send_init);

extern "C" int PMPI_Send_init_c(const void* buf, MPI_Count count, MPI_Datatype datatype, int dest,
                                int tag, MPI_Comm comm, MPI_Request* request) {
  MPR_ENTRY;
  return send_init("MPI_Send_init_c", buf, count, datatype, dest, tag, comm, POp::kSend,
                   SendMode::kStandard, request);
}
MPR_WEAK_ALIAS(Send_init_c);

extern "C" int PMPI_Ssend_init(const void* buf, int count, MPI_Datatype datatype, int dest, int tag,
                               MPI_Comm comm, MPI_Request* request) {
  MPR_ENTRY;
  return send_init("MPI_Ssend_init", buf, count, datatype, dest, tag, comm, POp::kSend,
                   SendMode::kSync, request);
}
MPR_WEAK_ALIAS(Ssend_init);

extern "C" int PMPI_Ssend_init_c(const void* buf, MPI_Count count, MPI_Datatype datatype, int dest,
                                 int tag, MPI_Comm comm, MPI_Request* request) {
  MPR_ENTRY;
  return send_init("MPI_Ssend_init_c", buf, count, datatype, dest, tag, comm, POp::kSend,
                   SendMode::kSync, request);
}
MPR_WEAK_ALIAS(Ssend_init_c);

extern "C" int PMPI_Rsend_init(const void* buf, int count, MPI_Datatype datatype, int dest, int tag,
                               MPI_Comm comm, MPI_Request* request) {
  MPR_ENTRY;
  return send_init("MPI_Rsend_init", buf, count, datatype, dest, tag, comm, POp::kSend,
                   SendMode::kReady, request);
}
MPR_WEAK_ALIAS(Rsend_init);

extern "C" int PMPI_Rsend_init_c(const void* buf, MPI_Count count, MPI_Datatype datatype, int dest,
                                 int tag, MPI_Comm comm, MPI_Request* request) {
  MPR_ENTRY;
  return send_init("MPI_Rsend_init_c", buf, count, datatype, dest, tag, comm, POp::kSend,
                   SendMode::kReady, request);
}
MPR_WEAK_ALIAS(Rsend_init_c);

extern "C" int PMPI_Bsend_init(const void* buf, int count, MPI_Datatype datatype, int dest, int tag,
                               MPI_Comm comm, MPI_Request* request) {
  MPR_ENTRY;
  return send_init("MPI_Bsend_init", buf, count, datatype, dest, tag, comm, POp::kBsend,
                   SendMode::kStandard, request);
}
MPR_WEAK_ALIAS(Bsend_init);

extern "C" int PMPI_Bsend_init_c(const void* buf, MPI_Count count, MPI_Datatype datatype, int dest,
                                 int tag, MPI_Comm comm, MPI_Request* request) {
  MPR_ENTRY;
  return send_init("MPI_Bsend_init_c", buf, count, datatype, dest, tag, comm, POp::kBsend,
                   SendMode::kStandard, request);
}
MPR_WEAK_ALIAS(Bsend_init_c);

namespace {
int recv_init_impl(const char* fn, void* buf, MPI_Count count, MPI_Datatype datatype, int source,
                   int tag, MPI_Comm h, MPI_Request* request) {
  Comm* comm;
  Datatype* dt;
  MPR_TRY(check_recv(fn, h, buf, count, datatype, source, tag, &comm, &dt));
  MPR_TRY(check_arg(fn, comm, request, "request is NULL"));
  *request = to_handle(
      persistent_request(comm, POp::kRecv, SendMode::kStandard, buf, count, dt, source, tag));
  return MPI_SUCCESS;
}
}  // namespace

extern "C" int PMPI_Recv_init(void* buf, int count, MPI_Datatype datatype, int source, int tag,
                              MPI_Comm h, MPI_Request* request) {
  MPR_ENTRY;
  return recv_init_impl("MPI_Recv_init", buf, count, datatype, source, tag, h, request);
}
MPR_WEAK_ALIAS(Recv_init);

extern "C" int PMPI_Recv_init_c(void* buf, MPI_Count count, MPI_Datatype datatype, int source,
                                int tag, MPI_Comm h, MPI_Request* request) {
  MPR_ENTRY;
  return recv_init_impl("MPI_Recv_init_c", buf, count, datatype, source, tag, h, request);
}
MPR_WEAK_ALIAS(Recv_init_c);

extern "C" int PMPI_Start(MPI_Request* request) {
  MPR_ENTRY;
  constexpr const char* fn = "MPI_Start";
  MPR_TRY(check_running(fn));
  return start_one(fn, request);
}
MPR_WEAK_ALIAS(Start);

extern "C" int PMPI_Startall(int count, MPI_Request array_of_requests[]) {
  MPR_ENTRY;
  constexpr const char* fn = "MPI_Startall";
  MPR_TRY(check_running(fn));
  if (count < 0) return raise_error(nullptr, MPI_ERR_COUNT, fn, "invalid count %d", count);
  if (count > 0 && !array_of_requests)
    return raise_error(nullptr, MPI_ERR_REQUEST, fn, "array_of_requests is NULL");
  for (int i = 0; i < count; ++i) MPR_TRY(start_one(fn, &array_of_requests[i]));
  return MPI_SUCCESS;
}
MPR_WEAK_ALIAS(Startall);

namespace {
int isendrecv_impl(const char* fn, const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                   int dest, int sendtag, void* recvbuf, MPI_Count recvcount, MPI_Datatype recvtype,
                   int source, int recvtag, MPI_Comm h, MPI_Request* request) {
  Comm* comm;
  Datatype *sdt, *rdt;
  MPR_TRY(check_send(fn, h, sendbuf, sendcount, sendtype, dest, sendtag, &comm, &sdt));
  MPR_TRY(check_recv(fn, h, recvbuf, recvcount, recvtype, source, recvtag, &comm, &rdt));
  MPR_TRY(check_arg(fn, comm, request, "request is NULL"));
  // Receive first so a message to ourselves finds its receive posted.
  mpr::pml::Request* r = start_recv(comm, recvbuf, recvcount, rdt, source, recvtag);
  mpr::pml::Request* s =
      start_send(comm, sendbuf, sendcount, sdt, dest, sendtag, SendMode::kStandard);
  *request = to_handle(compound_request(comm, {r, s}, 0));
  return MPI_SUCCESS;
}
}  // namespace

extern "C" int PMPI_Isendrecv(const void* sendbuf, int sendcount, MPI_Datatype sendtype, int dest,
                              int sendtag, void* recvbuf, int recvcount, MPI_Datatype recvtype,
                              int source, int recvtag, MPI_Comm h, MPI_Request* request) {
  MPR_ENTRY;
  return isendrecv_impl("MPI_Isendrecv", sendbuf, sendcount, sendtype, dest, sendtag, recvbuf,
                        recvcount, recvtype, source, recvtag, h, request);
}
MPR_WEAK_ALIAS(Isendrecv);

extern "C" int PMPI_Isendrecv_c(const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                                int dest, int sendtag, void* recvbuf, MPI_Count recvcount,
                                MPI_Datatype recvtype, int source, int recvtag, MPI_Comm h,
                                MPI_Request* request) {
  MPR_ENTRY;
  return isendrecv_impl("MPI_Isendrecv_c", sendbuf, sendcount, sendtype, dest, sendtag, recvbuf,
                        recvcount, recvtype, source, recvtag, h, request);
}
MPR_WEAK_ALIAS(Isendrecv_c);

namespace {
int isendrecv_replace_impl(const char* fn, void* buf, MPI_Count count, MPI_Datatype datatype,
                           int dest, int sendtag, int source, int recvtag, MPI_Comm h,
                           MPI_Request* request) {
  Comm* comm;
  Datatype* dt;
  MPR_TRY(check_send(fn, h, buf, count, datatype, dest, sendtag, &comm, &dt));
  MPR_TRY(check_recv(fn, h, buf, count, datatype, source, recvtag, &comm, &dt));
  MPR_TRY(check_arg(fn, comm, request, "request is NULL"));
  // The send travels from a packed copy, so the receive may overwrite buf at any time.
  size_t bytes = static_cast<size_t>(count) * dt->size;
  auto copy = std::make_unique<char[]>(bytes ? bytes : 1);
  dt->pack(buf, static_cast<size_t>(count), copy.get());
  mpr::pml::Request* r = start_recv(comm, buf, count, dt, source, recvtag);
  mpr::pml::Request* s =
      start_send(comm, copy.get(), static_cast<MPI_Count>(bytes), predefined_datatype(Basic::kByte),
                 dest, sendtag, SendMode::kStandard);
  CompoundRequest* c = compound_request(comm, {r, s}, 0);
  c->buffer = std::move(copy);
  *request = to_handle(c);
  return MPI_SUCCESS;
}
}  // namespace

extern "C" int PMPI_Isendrecv_replace(void* buf, int count, MPI_Datatype datatype, int dest,
                                      int sendtag, int source, int recvtag, MPI_Comm h,
                                      MPI_Request* request) {
  MPR_ENTRY;
  return isendrecv_replace_impl("MPI_Isendrecv_replace", buf, count, datatype, dest, sendtag,
                                source, recvtag, h, request);
}
MPR_WEAK_ALIAS(Isendrecv_replace);

extern "C" int PMPI_Isendrecv_replace_c(void* buf, MPI_Count count, MPI_Datatype datatype, int dest,
                                        int sendtag, int source, int recvtag, MPI_Comm h,
                                        MPI_Request* request) {
  MPR_ENTRY;
  return isendrecv_replace_impl("MPI_Isendrecv_replace_c", buf, count, datatype, dest, sendtag,
                                source, recvtag, h, request);
}
MPR_WEAK_ALIAS(Isendrecv_replace_c);

extern "C" int PMPI_Grequest_start(MPI_Grequest_query_function* query_fn,
                                   MPI_Grequest_free_function* free_fn,
                                   MPI_Grequest_cancel_function* cancel_fn, void* extra_state,
                                   MPI_Request* request) {
  MPR_ENTRY;
  constexpr const char* fn = "MPI_Grequest_start";
  MPR_TRY(check_running(fn));
  MPR_TRY(check_arg(fn, nullptr, request, "request is NULL"));
  *request =
      to_handle(generalized_request(g_state.self, query_fn, free_fn, cancel_fn, extra_state));
  return MPI_SUCCESS;
}
MPR_WEAK_ALIAS(Grequest_start);

extern "C" int PMPI_Grequest_complete(MPI_Request request) {
  MPR_ENTRY;
  constexpr const char* fn = "MPI_Grequest_complete";
  MPR_TRY(check_running(fn));
  GeneralizedRequest* g =
      request == MPI_REQUEST_NULL ? nullptr : as_generalized(from_handle(request));
  if (!g)
    return raise_error(nullptr, MPI_ERR_REQUEST, fn,
                       "the request is not a generalized request (MPI_Grequest_start)");
  g->done.store(true, std::memory_order_release);
  return MPI_SUCCESS;
}
MPR_WEAK_ALIAS(Grequest_complete);
