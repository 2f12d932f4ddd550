// Point-to-point: sends, receives, sendrecv, buffered-send buffer.
#include <climits>
#include <cstring>
#include <memory>

#include "runtime/api/check.h"
#include "runtime/p2p/bsend.h"
#include "runtime/p2p/p2p.h"
#include "runtime/p2p/request.h"

using namespace mpr::runtime;
using namespace mpr::runtime::api;
using mpr::pml::Request;
using mpr::pml::SendMode;

namespace {

int blocking_send(const char* fn, const void* buf, MPI_Count count, MPI_Datatype type, int dest,
                  int tag, MPI_Comm h, SendMode mode) {
  Comm* comm;
  Datatype* dt;
  MPR_TRY(check_send(fn, h, buf, count, type, dest, tag, &comm, &dt));
  return raise(comm, send_blocking(fn, comm, buf, count, dt, dest, tag, mode));
}

int nonblocking_send(const char* fn, const void* buf, MPI_Count count, MPI_Datatype type, int dest,
                     int tag, MPI_Comm h, SendMode mode, MPI_Request* request) {
  Comm* comm;
  Datatype* dt;
  MPR_TRY(check_send(fn, h, buf, count, type, dest, tag, &comm, &dt));
  MPR_TRY(check_arg(fn, comm, request, "request is NULL"));
  *request = to_handle(start_send(comm, buf, count, dt, dest, tag, mode));
  return MPI_SUCCESS;
}

}  // namespace

extern "C" int PMPI_Send(const void* buf, int count, MPI_Datatype datatype, int dest, int tag,
                         MPI_Comm comm) {
  MPR_ENTRY;
  return blocking_send("MPI_Send", buf, count, datatype, dest, tag, comm, SendMode::kStandard);
}
MPR_WEAK_ALIAS(Send);

extern "C" int PMPI_Send_c(const void* buf, MPI_Count count, MPI_Datatype datatype, int dest,
                           int tag, MPI_Comm comm) {
  MPR_ENTRY;
  return blocking_send("MPI_Send_c", buf, count, datatype, dest, tag, comm, SendMode::kStandard);
}
MPR_WEAK_ALIAS(Send_c);

extern "C" int PMPI_Ssend(const void* buf, int count, MPI_Datatype datatype, int dest, int tag,
                          MPI_Comm comm) {
  MPR_ENTRY;
  return blocking_send("MPI_Ssend", buf, count, datatype, dest, tag, comm, SendMode::kSync);
}
MPR_WEAK_ALIAS(Ssend);

extern "C" int PMPI_Ssend_c(const void* buf, MPI_Count count, MPI_Datatype datatype, int dest,
                            int tag, MPI_Comm comm) {
  MPR_ENTRY;
  return blocking_send("MPI_Ssend_c", buf, count, datatype, dest, tag, comm, SendMode::kSync);
}
MPR_WEAK_ALIAS(Ssend_c);

extern "C" int PMPI_Rsend(const void* buf, int count, MPI_Datatype datatype, int dest, int tag,
                          MPI_Comm comm) {
  MPR_ENTRY;
  return blocking_send("MPI_Rsend", buf, count, datatype, dest, tag, comm, SendMode::kReady);
}
MPR_WEAK_ALIAS(Rsend);

extern "C" int PMPI_Rsend_c(const void* buf, MPI_Count count, MPI_Datatype datatype, int dest,
                            int tag, MPI_Comm comm) {
  MPR_ENTRY;
  return blocking_send("MPI_Rsend_c", buf, count, datatype, dest, tag, comm, SendMode::kReady);
}
MPR_WEAK_ALIAS(Rsend_c);

extern "C" int PMPI_Isend(const void* buf, int count, MPI_Datatype datatype, int dest, int tag,
                          MPI_Comm comm, MPI_Request* request) {
  MPR_ENTRY;
  return nonblocking_send("MPI_Isend", buf, count, datatype, dest, tag, comm, SendMode::kStandard,
                          request);
}
MPR_WEAK_ALIAS(Isend);

extern "C" int PMPI_Isend_c(const void* buf, MPI_Count count, MPI_Datatype datatype, int dest,
                            int tag, MPI_Comm comm, MPI_Request* request) {
  MPR_ENTRY;
  return nonblocking_send("MPI_Isend_c", buf, count, datatype, dest, tag, comm, SendMode::kStandard,
                          request);
}
MPR_WEAK_ALIAS(Isend_c);

extern "C" int PMPI_Issend(const void* buf, int count, MPI_Datatype datatype, int dest, int tag,
                           MPI_Comm comm, MPI_Request* request) {
  MPR_ENTRY;
  return nonblocking_send("MPI_Issend", buf, count, datatype, dest, tag, comm, SendMode::kSync,
                          request);
}
MPR_WEAK_ALIAS(Issend);

extern "C" int PMPI_Issend_c(const void* buf, MPI_Count count, MPI_Datatype datatype, int dest,
                             int tag, MPI_Comm comm, MPI_Request* request) {
  MPR_ENTRY;
  return nonblocking_send("MPI_Issend_c", buf, count, datatype, dest, tag, comm, SendMode::kSync,
                          request);
}
MPR_WEAK_ALIAS(Issend_c);

extern "C" int PMPI_Irsend(const void* buf, int count, MPI_Datatype datatype, int dest, int tag,
                           MPI_Comm comm, MPI_Request* request) {
  MPR_ENTRY;
  return nonblocking_send("MPI_Irsend", buf, count, datatype, dest, tag, comm, SendMode::kReady,
                          request);
}
MPR_WEAK_ALIAS(Irsend);

extern "C" int PMPI_Irsend_c(const void* buf, MPI_Count count, MPI_Datatype datatype, int dest,
                             int tag, MPI_Comm comm, MPI_Request* request) {
  MPR_ENTRY;
  return nonblocking_send("MPI_Irsend_c", buf, count, datatype, dest, tag, comm, SendMode::kReady,
                          request);
}
MPR_WEAK_ALIAS(Irsend_c);

namespace {
int bsend_impl(const char* fn, const void* buf, MPI_Count count, MPI_Datatype datatype, int dest,
               int tag, MPI_Comm h) {
  Comm* comm;
  Datatype* dt;
  MPR_TRY(check_send(fn, h, buf, count, datatype, dest, tag, &comm, &dt));
  if (dest == MPI_PROC_NULL) return MPI_SUCCESS;
  return raise(comm, bsend_for(comm)->send(fn, comm, buf, count, dt, dest, tag));
}
}  // namespace

extern "C" int PMPI_Bsend(const void* buf, int count, MPI_Datatype datatype, int dest, int tag,
                          MPI_Comm h) {
  MPR_ENTRY;
  return bsend_impl("MPI_Bsend", buf, count, datatype, dest, tag, h);
}
MPR_WEAK_ALIAS(Bsend);

extern "C" int PMPI_Bsend_c(const void* buf, MPI_Count count, MPI_Datatype datatype, int dest,
                            int tag, MPI_Comm h) {
  MPR_ENTRY;
  return bsend_impl("MPI_Bsend_c", buf, count, datatype, dest, tag, h);
}
MPR_WEAK_ALIAS(Bsend_c);

namespace {
int ibsend_impl(const char* fn, const void* buf, MPI_Count count, MPI_Datatype datatype, int dest,
                int tag, MPI_Comm h, MPI_Request* request) {
  Comm* comm;
  Datatype* dt;
  MPR_TRY(check_send(fn, h, buf, count, datatype, dest, tag, &comm, &dt));
  MPR_TRY(check_arg(fn, comm, request, "request is NULL"));
  if (dest == MPI_PROC_NULL) {
    *request = to_handle(completed_request(comm, MPI_PROC_NULL, MPI_ANY_TAG));
    return MPI_SUCCESS;
  }
  BsendBuffer* b = bsend_for(comm);
  uint64_t ticket = 0;
  MPR_TRY(raise(comm, b->send(fn, comm, buf, count, dt, dest, tag, &ticket)));
  // The message is in the attached buffer: as far as the user is concerned it is sent (and
  // MPI_Cancel may still withdraw it).
  *request = to_handle(buffered_request(comm, b, ticket));
  return MPI_SUCCESS;
}
}  // namespace

extern "C" int PMPI_Ibsend(const void* buf, int count, MPI_Datatype datatype, int dest, int tag,
                           MPI_Comm h, MPI_Request* request) {
  MPR_ENTRY;
  return ibsend_impl("MPI_Ibsend", buf, count, datatype, dest, tag, h, request);
}
MPR_WEAK_ALIAS(Ibsend);

extern "C" int PMPI_Ibsend_c(const void* buf, MPI_Count count, MPI_Datatype datatype, int dest,
                             int tag, MPI_Comm h, MPI_Request* request) {
  MPR_ENTRY;
  return ibsend_impl("MPI_Ibsend_c", buf, count, datatype, dest, tag, h, request);
}
MPR_WEAK_ALIAS(Ibsend_c);

// ---- buffers for buffered sends: the process's (MPI_Buffer_*), and MPI 4.1's per
// communicator (MPI_Comm_*_buffer; the session forms are in session.cc) ---------------------

namespace {

// The process's buffer (comm == MPI_COMM_NULL) or comm's own, made on first use; errors are
// raised on comm (nullptr for the process's).
int buffer_of(const char* fn, MPI_Comm h, Comm** comm, BsendBuffer** b) {
  MPR_TRY(check_running(fn));
  *comm = nullptr;
  if (h == MPI_COMM_NULL) {
    *b = g_state.bsend.get();
    return MPI_SUCCESS;
  }
  MPR_TRY(check_comm(fn, h, comm));
  if (!(*comm)->bsend) (*comm)->bsend = std::make_unique<BsendBuffer>();
  *b = (*comm)->bsend.get();
  return MPI_SUCCESS;
}

int attach(const char* fn, MPI_Comm h, void* buffer, MPI_Count size) {
  Comm* comm;
  BsendBuffer* b;
  MPR_TRY(buffer_of(fn, h, &comm, &b));
  return raise(comm, buffer_attach(fn, b, buffer, size));
}

template <typename Size>
int detach(const char* fn, MPI_Comm h, void* buffer_addr, Size* size) {
  Comm* comm;
  BsendBuffer* b;
  MPR_TRY(buffer_of(fn, h, &comm, &b));
  size_t n = 0;
  MPR_TRY(raise(comm, buffer_detach(fn, b, buffer_addr, size ? &n : nullptr,
                                    sizeof(Size) < sizeof(MPI_Count))));
  *size = static_cast<Size>(n);
  return MPI_SUCCESS;
}

int flush(const char* fn, MPI_Comm h, MPI_Request* request) {
  Comm* comm;
  BsendBuffer* b;
  MPR_TRY(buffer_of(fn, h, &comm, &b));
  if (!request) {
    b->drain();
    return MPI_SUCCESS;
  }
  *request = to_handle(flush_request(comm ? comm : g_state.self, b));
  return MPI_SUCCESS;
}

}  // namespace

extern "C" int PMPI_Buffer_attach(void* buffer, int size) {
  MPR_ENTRY;
  return attach("MPI_Buffer_attach", MPI_COMM_NULL, buffer, size);
}
MPR_WEAK_ALIAS(Buffer_attach);

extern "C" int PMPI_Buffer_attach_c(void* buffer, MPI_Count size) {
  MPR_ENTRY;
  return attach("MPI_Buffer_attach_c", MPI_COMM_NULL, buffer, size);
}
MPR_WEAK_ALIAS(Buffer_attach_c);

extern "C" int PMPI_Buffer_detach(void* buffer_addr, int* size) {
  MPR_ENTRY;
  return detach("MPI_Buffer_detach", MPI_COMM_NULL, buffer_addr, size);
}
MPR_WEAK_ALIAS(Buffer_detach);

extern "C" int PMPI_Buffer_detach_c(void* buffer_addr, MPI_Count* size) {
  MPR_ENTRY;
  return detach("MPI_Buffer_detach_c", MPI_COMM_NULL, buffer_addr, size);
}
MPR_WEAK_ALIAS(Buffer_detach_c);

extern "C" int PMPI_Buffer_flush(void) {
  MPR_ENTRY;
  return flush("MPI_Buffer_flush", MPI_COMM_NULL, nullptr);
}
MPR_WEAK_ALIAS(Buffer_flush);

extern "C" int PMPI_Buffer_iflush(MPI_Request* request) {
  MPR_ENTRY;
  if (!request && running())
    return raise_error(nullptr, MPI_ERR_ARG, "MPI_Buffer_iflush", "request is NULL");
  return flush("MPI_Buffer_iflush", MPI_COMM_NULL, request);
}
MPR_WEAK_ALIAS(Buffer_iflush);

extern "C" int PMPI_Comm_attach_buffer(MPI_Comm comm, void* buffer, int size) {
  MPR_ENTRY;
  if (comm == MPI_COMM_NULL && running())
    return raise_error(nullptr, MPI_ERR_COMM, "MPI_Comm_attach_buffer", "comm is MPI_COMM_NULL");
  return attach("MPI_Comm_attach_buffer", comm, buffer, size);
}
MPR_WEAK_ALIAS(Comm_attach_buffer);

extern "C" int PMPI_Comm_attach_buffer_c(MPI_Comm comm, void* buffer, MPI_Count size) {
  MPR_ENTRY;
  if (comm == MPI_COMM_NULL && running())
    return raise_error(nullptr, MPI_ERR_COMM, "MPI_Comm_attach_buffer_c", "comm is MPI_COMM_NULL");
  return attach("MPI_Comm_attach_buffer_c", comm, buffer, size);
}
MPR_WEAK_ALIAS(Comm_attach_buffer_c);

extern "C" int PMPI_Comm_detach_buffer(MPI_Comm comm, void* buffer_addr, int* size) {
  MPR_ENTRY;
  if (comm == MPI_COMM_NULL && running())
    return raise_error(nullptr, MPI_ERR_COMM, "MPI_Comm_detach_buffer", "comm is MPI_COMM_NULL");
  return detach("MPI_Comm_detach_buffer", comm, buffer_addr, size);
}
MPR_WEAK_ALIAS(Comm_detach_buffer);

extern "C" int PMPI_Comm_detach_buffer_c(MPI_Comm comm, void* buffer_addr, MPI_Count* size) {
  MPR_ENTRY;
  if (comm == MPI_COMM_NULL && running())
    return raise_error(nullptr, MPI_ERR_COMM, "MPI_Comm_detach_buffer_c", "comm is MPI_COMM_NULL");
  return detach("MPI_Comm_detach_buffer_c", comm, buffer_addr, size);
}
MPR_WEAK_ALIAS(Comm_detach_buffer_c);

extern "C" int PMPI_Comm_flush_buffer(MPI_Comm comm) {
  MPR_ENTRY;
  if (comm == MPI_COMM_NULL && running())
    return raise_error(nullptr, MPI_ERR_COMM, "MPI_Comm_flush_buffer", "comm is MPI_COMM_NULL");
  return flush("MPI_Comm_flush_buffer", comm, nullptr);
}
MPR_WEAK_ALIAS(Comm_flush_buffer);

extern "C" int PMPI_Comm_iflush_buffer(MPI_Comm comm, MPI_Request* request) {
  MPR_ENTRY;
  if ((comm == MPI_COMM_NULL || !request) && running())
    return raise_error(to_comm(comm), comm == MPI_COMM_NULL ? MPI_ERR_COMM : MPI_ERR_ARG,
                       "MPI_Comm_iflush_buffer", "comm is MPI_COMM_NULL or request is NULL");
  return flush("MPI_Comm_iflush_buffer", comm, request);
}
MPR_WEAK_ALIAS(Comm_iflush_buffer);

namespace {
int recv_impl(const char* fn, void* buf, MPI_Count count, MPI_Datatype datatype, int source,
              int tag, MPI_Comm h, MPI_Status* status) {
  Comm* comm;
  Datatype* dt;
  MPR_TRY(check_recv(fn, h, buf, count, datatype, source, tag, &comm, &dt));
  return raise(comm, recv_blocking(fn, comm, buf, count, dt, source, tag, status));
}
}  // namespace

extern "C" int PMPI_Recv(void* buf, int count, MPI_Datatype datatype, int source, int tag,
                         MPI_Comm h, MPI_Status* status) {
  MPR_ENTRY;
  return recv_impl("MPI_Recv", buf, count, datatype, source, tag, h, status);
}
MPR_WEAK_ALIAS(Recv);

extern "C" int PMPI_Recv_c(void* buf, MPI_Count count, MPI_Datatype datatype, int source, int tag,
                           MPI_Comm h, MPI_Status* status) {
  MPR_ENTRY;
  return recv_impl("MPI_Recv_c", buf, count, datatype, source, tag, h, status);
}
MPR_WEAK_ALIAS(Recv_c);

namespace {
int irecv_impl(const char* fn, void* buf, MPI_Count count, MPI_Datatype datatype, int source,
               int tag, MPI_Comm h, MPI_Request* request) {
  Comm* comm;
  Datatype* dt;
  MPR_TRY(check_recv(fn, h, buf, count, datatype, source, tag, &comm, &dt));
  MPR_TRY(check_arg(fn, comm, request, "request is NULL"));
  *request = to_handle(start_recv(comm, buf, count, dt, source, tag));
  return MPI_SUCCESS;
}
}  // namespace

extern "C" int PMPI_Irecv(void* buf, int count, MPI_Datatype datatype, int source, int tag,
                          MPI_Comm h, MPI_Request* request) {
  MPR_ENTRY;
  return irecv_impl("MPI_Irecv", buf, count, datatype, source, tag, h, request);
}
MPR_WEAK_ALIAS(Irecv);

extern "C" int PMPI_Irecv_c(void* buf, MPI_Count count, MPI_Datatype datatype, int source, int tag,
                            MPI_Comm h, MPI_Request* request) {
  MPR_ENTRY;
  return irecv_impl("MPI_Irecv_c", buf, count, datatype, source, tag, h, request);
}
MPR_WEAK_ALIAS(Irecv_c);

namespace {
int sendrecv_impl(const char* fn, const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                  int dest, int sendtag, void* recvbuf, MPI_Count recvcount, MPI_Datatype recvtype,
                  int source, int recvtag, MPI_Comm h, MPI_Status* status) {
  Comm* comm;
  Datatype *sdt, *rdt;
  MPR_TRY(check_send(fn, h, sendbuf, sendcount, sendtype, dest, sendtag, &comm, &sdt));
  MPR_TRY(check_recv(fn, h, recvbuf, recvcount, recvtype, source, recvtag, &comm, &rdt));
  // Receive first so a message to ourselves finds its receive posted.
  Request* r = start_recv(comm, recvbuf, recvcount, rdt, source, recvtag);
  Request* s = start_send(comm, sendbuf, sendcount, sdt, dest, sendtag, SendMode::kStandard);
  int rc_send = wait_and_finish(fn, s, nullptr);
  int rc_recv = wait_and_finish(fn, r, status);
  return raise(comm, rc_recv != MPI_SUCCESS ? rc_recv : rc_send);
}
}  // namespace

extern "C" int PMPI_Sendrecv(const void* sendbuf, int sendcount, MPI_Datatype sendtype, int dest,
                             int sendtag, void* recvbuf, int recvcount, MPI_Datatype recvtype,
                             int source, int recvtag, MPI_Comm h, MPI_Status* status) {
  MPR_ENTRY;
  return sendrecv_impl("MPI_Sendrecv", sendbuf, sendcount, sendtype, dest, sendtag, recvbuf,
                       recvcount, recvtype, source, recvtag, h, status);
}
MPR_WEAK_ALIAS(Sendrecv);

extern "C" int PMPI_Sendrecv_c(const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                               int dest, int sendtag, void* recvbuf, MPI_Count recvcount,
                               MPI_Datatype recvtype, int source, int recvtag, MPI_Comm h,
                               MPI_Status* status) {
  MPR_ENTRY;
  return sendrecv_impl("MPI_Sendrecv_c", sendbuf, sendcount, sendtype, dest, sendtag, recvbuf,
                       recvcount, recvtype, source, recvtag, h, status);
}
MPR_WEAK_ALIAS(Sendrecv_c);

namespace {
int sendrecv_replace_impl(const char* fn, void* buf, MPI_Count count, MPI_Datatype datatype,
                          int dest, int sendtag, int source, int recvtag, MPI_Comm h,
                          MPI_Status* status) {
  Comm* comm;
  Datatype* dt;
  MPR_TRY(check_send(fn, h, buf, count, datatype, dest, sendtag, &comm, &dt));
  MPR_TRY(check_recv(fn, h, buf, count, datatype, source, recvtag, &comm, &dt));
  // Send a packed copy so the receive can overwrite buf while the send is in flight.
  size_t bytes = static_cast<size_t>(count) * dt->size;
  auto copy = std::make_unique<char[]>(bytes ? bytes : 1);
  dt->pack(buf, static_cast<size_t>(count), copy.get());
  Request* r = start_recv(comm, buf, count, dt, source, recvtag);
  Request* s = start_send(comm, copy.get(), static_cast<MPI_Count>(bytes),
                          predefined_datatype(Basic::kByte), dest, sendtag, SendMode::kStandard);
  int rc_send = wait_and_finish(fn, s, nullptr);
  int rc_recv = wait_and_finish(fn, r, status);
  return raise(comm, rc_recv != MPI_SUCCESS ? rc_recv : rc_send);
}
}  // namespace

extern "C" int PMPI_Sendrecv_replace(void* buf, int count, MPI_Datatype datatype, int dest,
                                     int sendtag, int source, int recvtag, MPI_Comm h,
                                     MPI_Status* status) {
  MPR_ENTRY;
  return sendrecv_replace_impl("MPI_Sendrecv_replace", buf, count, datatype, dest, sendtag, source,
                               recvtag, h, status);
}
MPR_WEAK_ALIAS(Sendrecv_replace);

extern "C" int PMPI_Sendrecv_replace_c(void* buf, MPI_Count count, MPI_Datatype datatype, int dest,
                                       int sendtag, int source, int recvtag, MPI_Comm h,
                                       MPI_Status* status) {
  MPR_ENTRY;
  return sendrecv_replace_impl("MPI_Sendrecv_replace_c", buf, count, datatype, dest, sendtag,
                               source, recvtag, h, status);
}
MPR_WEAK_ALIAS(Sendrecv_replace_c);
