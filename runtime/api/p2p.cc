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
  return blocking_send("MPI_Send", buf, count, datatype, dest, tag, comm, SendMode::kStandard);
}
MPR_WEAK_ALIAS(Send);

extern "C" int PMPI_Send_c(const void* buf, MPI_Count count, MPI_Datatype datatype, int dest,
                           int tag, MPI_Comm comm) {
  return blocking_send("MPI_Send_c", buf, count, datatype, dest, tag, comm, SendMode::kStandard);
}
MPR_WEAK_ALIAS(Send_c);

extern "C" int PMPI_Ssend(const void* buf, int count, MPI_Datatype datatype, int dest, int tag,
                          MPI_Comm comm) {
  return blocking_send("MPI_Ssend", buf, count, datatype, dest, tag, comm, SendMode::kSync);
}
MPR_WEAK_ALIAS(Ssend);

extern "C" int PMPI_Ssend_c(const void* buf, MPI_Count count, MPI_Datatype datatype, int dest,
                            int tag, MPI_Comm comm) {
  return blocking_send("MPI_Ssend_c", buf, count, datatype, dest, tag, comm, SendMode::kSync);
}
MPR_WEAK_ALIAS(Ssend_c);

extern "C" int PMPI_Rsend(const void* buf, int count, MPI_Datatype datatype, int dest, int tag,
                          MPI_Comm comm) {
  return blocking_send("MPI_Rsend", buf, count, datatype, dest, tag, comm, SendMode::kReady);
}
MPR_WEAK_ALIAS(Rsend);

extern "C" int PMPI_Rsend_c(const void* buf, MPI_Count count, MPI_Datatype datatype, int dest,
                            int tag, MPI_Comm comm) {
  return blocking_send("MPI_Rsend_c", buf, count, datatype, dest, tag, comm, SendMode::kReady);
}
MPR_WEAK_ALIAS(Rsend_c);

extern "C" int PMPI_Isend(const void* buf, int count, MPI_Datatype datatype, int dest, int tag,
                          MPI_Comm comm, MPI_Request* request) {
  return nonblocking_send("MPI_Isend", buf, count, datatype, dest, tag, comm, SendMode::kStandard,
                          request);
}
MPR_WEAK_ALIAS(Isend);

extern "C" int PMPI_Isend_c(const void* buf, MPI_Count count, MPI_Datatype datatype, int dest,
                            int tag, MPI_Comm comm, MPI_Request* request) {
  return nonblocking_send("MPI_Isend_c", buf, count, datatype, dest, tag, comm, SendMode::kStandard,
                          request);
}
MPR_WEAK_ALIAS(Isend_c);

extern "C" int PMPI_Issend(const void* buf, int count, MPI_Datatype datatype, int dest, int tag,
                           MPI_Comm comm, MPI_Request* request) {
  return nonblocking_send("MPI_Issend", buf, count, datatype, dest, tag, comm, SendMode::kSync,
                          request);
}
MPR_WEAK_ALIAS(Issend);

extern "C" int PMPI_Issend_c(const void* buf, MPI_Count count, MPI_Datatype datatype, int dest,
                             int tag, MPI_Comm comm, MPI_Request* request) {
  return nonblocking_send("MPI_Issend_c", buf, count, datatype, dest, tag, comm, SendMode::kSync,
                          request);
}
MPR_WEAK_ALIAS(Issend_c);

extern "C" int PMPI_Irsend(const void* buf, int count, MPI_Datatype datatype, int dest, int tag,
                           MPI_Comm comm, MPI_Request* request) {
  return nonblocking_send("MPI_Irsend", buf, count, datatype, dest, tag, comm, SendMode::kReady,
                          request);
}
MPR_WEAK_ALIAS(Irsend);

extern "C" int PMPI_Irsend_c(const void* buf, MPI_Count count, MPI_Datatype datatype, int dest,
                             int tag, MPI_Comm comm, MPI_Request* request) {
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
  return raise(comm, g_state.bsend->send(fn, comm, buf, count, dt, dest, tag));
}
}  // namespace

extern "C" int PMPI_Bsend(const void* buf, int count, MPI_Datatype datatype, int dest, int tag,
                          MPI_Comm h) {
  return bsend_impl("MPI_Bsend", buf, count, datatype, dest, tag, h);
}
MPR_WEAK_ALIAS(Bsend);

extern "C" int PMPI_Bsend_c(const void* buf, MPI_Count count, MPI_Datatype datatype, int dest,
                            int tag, MPI_Comm h) {
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
  if (dest != MPI_PROC_NULL)
    MPR_TRY(raise(comm, g_state.bsend->send(fn, comm, buf, count, dt, dest, tag)));
  // The message is in the attached buffer: as far as the user is concerned it is sent.
  *request = to_handle(completed_request(comm, MPI_PROC_NULL, MPI_ANY_TAG));
  return MPI_SUCCESS;
}
}  // namespace

extern "C" int PMPI_Ibsend(const void* buf, int count, MPI_Datatype datatype, int dest, int tag,
                           MPI_Comm h, MPI_Request* request) {
  return ibsend_impl("MPI_Ibsend", buf, count, datatype, dest, tag, h, request);
}
MPR_WEAK_ALIAS(Ibsend);

extern "C" int PMPI_Ibsend_c(const void* buf, MPI_Count count, MPI_Datatype datatype, int dest,
                             int tag, MPI_Comm h, MPI_Request* request) {
  return ibsend_impl("MPI_Ibsend_c", buf, count, datatype, dest, tag, h, request);
}
MPR_WEAK_ALIAS(Ibsend_c);

namespace {

int buffer_attach(const char* fn, void* buffer, MPI_Count size) {
  MPR_TRY(check_running(fn));
  if (size < 0)
    return raise_error(nullptr, MPI_ERR_ARG, fn, "invalid size %lld", static_cast<long long>(size));
  if (!buffer && size > 0)
    return raise_error(nullptr, MPI_ERR_BUFFER, fn, "NULL buffer with size %lld",
                       static_cast<long long>(size));
  if (g_state.bsend->attached())
    return raise_error(nullptr, MPI_ERR_BUFFER, fn,
                       "a buffer is already attached (detach it first)");
  g_state.bsend->attach(buffer, static_cast<size_t>(size));
  return MPI_SUCCESS;
}

/// `int_size`: the int form, which cannot report a buffer of INT_MAX bytes or more (the
/// buffer then stays attached).
int buffer_detach(const char* fn, void* buffer_addr, size_t* size, bool int_size) {
  MPR_TRY(check_running(fn));
  MPR_TRY(check_arg(fn, nullptr, buffer_addr && size, "buffer_addr or size is NULL"));
  if (!g_state.bsend->attached())
    return raise_error(nullptr, MPI_ERR_BUFFER, fn, "no buffer is attached");
  if (int_size && g_state.bsend->capacity() > static_cast<size_t>(INT_MAX))
    return raise_error(
        nullptr, MPI_ERR_VALUE_TOO_LARGE, fn,
        "the attached buffer's size %zu does not fit an int (use MPI_Buffer_detach_c)",
        g_state.bsend->capacity());
  void* buf = nullptr;
  g_state.bsend->detach(&buf, size);
  // buffer_addr is really a void** (C binding quirk of MPI).
  std::memcpy(buffer_addr, &buf, sizeof buf);
  return MPI_SUCCESS;
}

}  // namespace

extern "C" int PMPI_Buffer_attach(void* buffer, int size) {
  return buffer_attach("MPI_Buffer_attach", buffer, size);
}
MPR_WEAK_ALIAS(Buffer_attach);

extern "C" int PMPI_Buffer_attach_c(void* buffer, MPI_Count size) {
  return buffer_attach("MPI_Buffer_attach_c", buffer, size);
}
MPR_WEAK_ALIAS(Buffer_attach_c);

extern "C" int PMPI_Buffer_detach(void* buffer_addr, int* size) {
  size_t n = 0;
  MPR_TRY(buffer_detach("MPI_Buffer_detach", buffer_addr, size ? &n : nullptr, true));
  *size = static_cast<int>(n);
  return MPI_SUCCESS;
}
MPR_WEAK_ALIAS(Buffer_detach);

extern "C" int PMPI_Buffer_detach_c(void* buffer_addr, MPI_Count* size) {
  size_t n = 0;
  MPR_TRY(buffer_detach("MPI_Buffer_detach_c", buffer_addr, size ? &n : nullptr, false));
  *size = static_cast<MPI_Count>(n);
  return MPI_SUCCESS;
}
MPR_WEAK_ALIAS(Buffer_detach_c);

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
  return recv_impl("MPI_Recv", buf, count, datatype, source, tag, h, status);
}
MPR_WEAK_ALIAS(Recv);

extern "C" int PMPI_Recv_c(void* buf, MPI_Count count, MPI_Datatype datatype, int source, int tag,
                           MPI_Comm h, MPI_Status* status) {
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
  return irecv_impl("MPI_Irecv", buf, count, datatype, source, tag, h, request);
}
MPR_WEAK_ALIAS(Irecv);

extern "C" int PMPI_Irecv_c(void* buf, MPI_Count count, MPI_Datatype datatype, int source, int tag,
                            MPI_Comm h, MPI_Request* request) {
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
  return sendrecv_impl("MPI_Sendrecv", sendbuf, sendcount, sendtype, dest, sendtag, recvbuf,
                       recvcount, recvtype, source, recvtag, h, status);
}
MPR_WEAK_ALIAS(Sendrecv);

extern "C" int PMPI_Sendrecv_c(const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                               int dest, int sendtag, void* recvbuf, MPI_Count recvcount,
                               MPI_Datatype recvtype, int source, int recvtag, MPI_Comm h,
                               MPI_Status* status) {
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
  return sendrecv_replace_impl("MPI_Sendrecv_replace", buf, count, datatype, dest, sendtag, source,
                               recvtag, h, status);
}
MPR_WEAK_ALIAS(Sendrecv_replace);

extern "C" int PMPI_Sendrecv_replace_c(void* buf, MPI_Count count, MPI_Datatype datatype, int dest,
                                       int sendtag, int source, int recvtag, MPI_Comm h,
                                       MPI_Status* status) {
  return sendrecv_replace_impl("MPI_Sendrecv_replace_c", buf, count, datatype, dest, sendtag,
                               source, recvtag, h, status);
}
MPR_WEAK_ALIAS(Sendrecv_replace_c);
