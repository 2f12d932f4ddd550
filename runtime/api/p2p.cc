// Point-to-point: sends, receives, sendrecv, buffered-send buffer.
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

int blocking_send(const char* fn, const void* buf, int count, MPI_Datatype type, int dest, int tag,
                  MPI_Comm h, SendMode mode) {
  Comm* comm;
  Datatype* dt;
  MPR_TRY(check_send(fn, h, buf, count, type, dest, tag, &comm, &dt));
  return raise(comm, send_blocking(fn, comm, buf, count, dt, dest, tag, mode));
}

int nonblocking_send(const char* fn, const void* buf, int count, MPI_Datatype type, int dest,
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
  return blocking_send("MPI_Send", buf, count, datatype, dest, tag, comm, SendMode::kStandard);
}
MPR_WEAK_ALIAS(Send);

extern "C" int PMPI_Ssend(const void* buf, int count, MPI_Datatype datatype, int dest, int tag,
                          MPI_Comm comm) {
  return blocking_send("MPI_Ssend", buf, count, datatype, dest, tag, comm, SendMode::kSync);
}
MPR_WEAK_ALIAS(Ssend);

extern "C" int PMPI_Rsend(const void* buf, int count, MPI_Datatype datatype, int dest, int tag,
                          MPI_Comm comm) {
  return blocking_send("MPI_Rsend", buf, count, datatype, dest, tag, comm, SendMode::kReady);
}
MPR_WEAK_ALIAS(Rsend);

extern "C" int PMPI_Isend(const void* buf, int count, MPI_Datatype datatype, int dest, int tag,
                          MPI_Comm comm, MPI_Request* request) {
  return nonblocking_send("MPI_Isend", buf, count, datatype, dest, tag, comm, SendMode::kStandard,
                          request);
}
MPR_WEAK_ALIAS(Isend);

extern "C" int PMPI_Issend(const void* buf, int count, MPI_Datatype datatype, int dest, int tag,
                           MPI_Comm comm, MPI_Request* request) {
  return nonblocking_send("MPI_Issend", buf, count, datatype, dest, tag, comm, SendMode::kSync,
                          request);
}
MPR_WEAK_ALIAS(Issend);

extern "C" int PMPI_Irsend(const void* buf, int count, MPI_Datatype datatype, int dest, int tag,
                           MPI_Comm comm, MPI_Request* request) {
  return nonblocking_send("MPI_Irsend", buf, count, datatype, dest, tag, comm, SendMode::kReady,
                          request);
}
MPR_WEAK_ALIAS(Irsend);

extern "C" int PMPI_Bsend(const void* buf, int count, MPI_Datatype datatype, int dest, int tag,
                          MPI_Comm h) {
  constexpr const char* fn = "MPI_Bsend";
  Comm* comm;
  Datatype* dt;
  MPR_TRY(check_send(fn, h, buf, count, datatype, dest, tag, &comm, &dt));
  if (dest == MPI_PROC_NULL) return MPI_SUCCESS;
  return raise(comm, g_state.bsend->send(fn, comm, buf, count, dt, dest, tag));
}
MPR_WEAK_ALIAS(Bsend);

extern "C" int PMPI_Ibsend(const void* buf, int count, MPI_Datatype datatype, int dest, int tag,
                           MPI_Comm h, MPI_Request* request) {
  constexpr const char* fn = "MPI_Ibsend";
  Comm* comm;
  Datatype* dt;
  MPR_TRY(check_send(fn, h, buf, count, datatype, dest, tag, &comm, &dt));
  MPR_TRY(check_arg(fn, comm, request, "request is NULL"));
  if (dest != MPI_PROC_NULL)
    MPR_TRY(raise(comm, g_state.bsend->send(fn, comm, buf, count, dt, dest, tag)));
  // The message is in the attached buffer: as far as the user is concerned it is sent.
  *request = to_handle(completed_request(comm, MPI_PROC_NULL, MPI_ANY_TAG));
  return MPI_SUCCESS;
}
MPR_WEAK_ALIAS(Ibsend);

extern "C" int PMPI_Buffer_attach(void* buffer, int size) {
  constexpr const char* fn = "MPI_Buffer_attach";
  MPR_TRY(check_running(fn));
  if (size < 0) return raise_error(nullptr, MPI_ERR_ARG, fn, "invalid size %d", size);
  if (!buffer && size > 0)
    return raise_error(nullptr, MPI_ERR_BUFFER, fn, "NULL buffer with size %d", size);
  if (g_state.bsend->attached())
    return raise_error(nullptr, MPI_ERR_BUFFER, fn,
                       "a buffer is already attached (detach it first)");
  g_state.bsend->attach(buffer, static_cast<size_t>(size));
  return MPI_SUCCESS;
}
MPR_WEAK_ALIAS(Buffer_attach);

extern "C" int PMPI_Buffer_detach(void* buffer_addr, int* size) {
  constexpr const char* fn = "MPI_Buffer_detach";
  MPR_TRY(check_running(fn));
  MPR_TRY(check_arg(fn, nullptr, buffer_addr && size, "buffer_addr or size is NULL"));
  if (!g_state.bsend->attached())
    return raise_error(nullptr, MPI_ERR_BUFFER, fn, "no buffer is attached");
  void* buf = nullptr;
  size_t n = 0;
  g_state.bsend->detach(&buf, &n);
  // buffer_addr is really a void** (C binding quirk of MPI).
  std::memcpy(buffer_addr, &buf, sizeof buf);
  *size = static_cast<int>(n);
  return MPI_SUCCESS;
}
MPR_WEAK_ALIAS(Buffer_detach);

extern "C" int PMPI_Recv(void* buf, int count, MPI_Datatype datatype, int source, int tag,
                         MPI_Comm h, MPI_Status* status) {
  constexpr const char* fn = "MPI_Recv";
  Comm* comm;
  Datatype* dt;
  MPR_TRY(check_recv(fn, h, buf, count, datatype, source, tag, &comm, &dt));
  return raise(comm, recv_blocking(fn, comm, buf, count, dt, source, tag, status));
}
MPR_WEAK_ALIAS(Recv);

extern "C" int PMPI_Irecv(void* buf, int count, MPI_Datatype datatype, int source, int tag,
                          MPI_Comm h, MPI_Request* request) {
  constexpr const char* fn = "MPI_Irecv";
  Comm* comm;
  Datatype* dt;
  MPR_TRY(check_recv(fn, h, buf, count, datatype, source, tag, &comm, &dt));
  MPR_TRY(check_arg(fn, comm, request, "request is NULL"));
  *request = to_handle(start_recv(comm, buf, count, dt, source, tag));
  return MPI_SUCCESS;
}
MPR_WEAK_ALIAS(Irecv);

extern "C" int PMPI_Sendrecv(const void* sendbuf, int sendcount, MPI_Datatype sendtype, int dest,
                             int sendtag, void* recvbuf, int recvcount, MPI_Datatype recvtype,
                             int source, int recvtag, MPI_Comm h, MPI_Status* status) {
  constexpr const char* fn = "MPI_Sendrecv";
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
MPR_WEAK_ALIAS(Sendrecv);

extern "C" int PMPI_Sendrecv_replace(void* buf, int count, MPI_Datatype datatype, int dest,
                                     int sendtag, int source, int recvtag, MPI_Comm h,
                                     MPI_Status* status) {
  constexpr const char* fn = "MPI_Sendrecv_replace";
  Comm* comm;
  Datatype* dt;
  MPR_TRY(check_send(fn, h, buf, count, datatype, dest, sendtag, &comm, &dt));
  MPR_TRY(check_recv(fn, h, buf, count, datatype, source, recvtag, &comm, &dt));
  // Send a packed copy so the receive can overwrite buf while the send is in flight.
  size_t bytes = static_cast<size_t>(count) * dt->size;
  auto copy = std::make_unique<char[]>(bytes ? bytes : 1);
  dt->pack(buf, static_cast<size_t>(count), copy.get());
  Request* r = start_recv(comm, buf, count, dt, source, recvtag);
  Request* s = start_send(comm, copy.get(), static_cast<int>(bytes),
                          predefined_datatype(Basic::kByte), dest, sendtag, SendMode::kStandard);
  int rc_send = wait_and_finish(fn, s, nullptr);
  int rc_recv = wait_and_finish(fn, r, status);
  return raise(comm, rc_recv != MPI_SUCCESS ? rc_recv : rc_send);
}
MPR_WEAK_ALIAS(Sendrecv_replace);
