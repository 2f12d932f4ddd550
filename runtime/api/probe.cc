// Probes and matched receives (MPI_Probe, MPI_Iprobe, MPI_Mprobe, MPI_Improbe, MPI_Mrecv,
// MPI_Imrecv).
#include "runtime/api/check.h"
#include "runtime/p2p/p2p.h"
#include "runtime/p2p/request.h"

using namespace mpr::runtime;
using namespace mpr::runtime::api;

namespace {

int check_probe(const char* fn, MPI_Comm h, int source, int tag, Comm** comm) {
  MPR_TRY(check_running(fn));
  MPR_TRY(check_comm(fn, h, comm));
  MPR_TRY(check_source(fn, *comm, source));
  return check_recv_tag(fn, *comm, tag);
}

void set_probe_status(MPI_Status* st, const mpr::pml::Status& s) {
  status_set(st, s.source, s.tag, s.bytes, false);
}

void set_proc_null_status(MPI_Status* st) { status_set(st, MPI_PROC_NULL, MPI_ANY_TAG, 0, false); }

MPI_Message wrap(mpr::pml::Message* msg, Comm* comm) {
  comm->retain();
  return reinterpret_cast<MPI_Message>(new MatchedMessage{MatchedMessage::kMagic, msg, comm});
}

// Takes the message out of *message (which becomes MPI_MESSAGE_NULL) and starts its receive.
int start_matched(const char* fn, void* buf, MPI_Count count, MPI_Datatype type,
                  MPI_Message* message, mpr::pml::Request** out) {
  MPR_TRY(check_running(fn));
  MPR_TRY(check_arg(fn, nullptr, message, "message is NULL"));
  if (*message == MPI_MESSAGE_NO_PROC) {
    Datatype* dt;
    MPR_TRY(check_type(fn, nullptr, type, &dt));
    *out = completed_request(g_state.self, MPI_PROC_NULL, MPI_ANY_TAG);
    *message = MPI_MESSAGE_NULL;
    return MPI_SUCCESS;
  }
  auto* m = reinterpret_cast<MatchedMessage*>(*message);
  if (!m || m->magic != MatchedMessage::kMagic)
    return raise_error(nullptr, MPI_ERR_REQUEST, fn,
                       "invalid message handle %p (not from MPI_Mprobe/MPI_Improbe)",
                       static_cast<void*>(*message));
  Comm* comm = m->comm;
  Datatype* dt;
  MPR_TRY(check_count(fn, comm, count));
  MPR_TRY(check_type(fn, comm, type, &dt));
  MPR_TRY(check_buffer(fn, comm, buf, count, dt));
  *out = start_mrecv(comm, buf, count, dt, m->msg);
  m->magic = 0;
  comm->release();
  delete m;
  *message = MPI_MESSAGE_NULL;
  return MPI_SUCCESS;
}

}  // namespace

extern "C" int PMPI_Iprobe(int source, int tag, MPI_Comm h, int* flag, MPI_Status* status) {
  MPR_ENTRY;
  constexpr const char* fn = "MPI_Iprobe";
  Comm* comm;
  MPR_TRY(check_probe(fn, h, source, tag, &comm));
  MPR_TRY(check_arg(fn, comm, flag, "flag is NULL"));
  if (source == MPI_PROC_NULL) {
    *flag = 1;
    set_proc_null_status(status);
    return MPI_SUCCESS;
  }
  mpr::pml::Status s;
  test_progress();
  *flag = the_pml().iprobe(source, tag, comm->ctx_p2p(), &s);
  if (*flag) set_probe_status(status, s);
  return MPI_SUCCESS;
}
MPR_WEAK_ALIAS(Iprobe);

extern "C" int PMPI_Probe(int source, int tag, MPI_Comm h, MPI_Status* status) {
  MPR_ENTRY;
  constexpr const char* fn = "MPI_Probe";
  Comm* comm;
  MPR_TRY(check_probe(fn, h, source, tag, &comm));
  if (source == MPI_PROC_NULL) {
    set_proc_null_status(status);
    return MPI_SUCCESS;
  }
  mpr::pml::Status s;
  Poller poller;
  while (!the_pml().iprobe(source, tag, comm->ctx_p2p(), &s)) poller.poll();
  set_probe_status(status, s);
  return MPI_SUCCESS;
}
MPR_WEAK_ALIAS(Probe);

extern "C" int PMPI_Improbe(int source, int tag, MPI_Comm h, int* flag, MPI_Message* message,
                            MPI_Status* status) {
  MPR_ENTRY;
  constexpr const char* fn = "MPI_Improbe";
  Comm* comm;
  MPR_TRY(check_probe(fn, h, source, tag, &comm));
  MPR_TRY(check_arg(fn, comm, flag && message, "flag or message is NULL"));
  if (source == MPI_PROC_NULL) {
    *flag = 1;
    *message = MPI_MESSAGE_NO_PROC;
    set_proc_null_status(status);
    return MPI_SUCCESS;
  }
  mpr::pml::Status s;
  test_progress();
  mpr::pml::Message* msg = the_pml().improbe(source, tag, comm->ctx_p2p(), &s);
  *flag = msg != nullptr;
  if (msg) {
    *message = wrap(msg, comm);
    set_probe_status(status, s);
  }
  return MPI_SUCCESS;
}
MPR_WEAK_ALIAS(Improbe);

extern "C" int PMPI_Mprobe(int source, int tag, MPI_Comm h, MPI_Message* message,
                           MPI_Status* status) {
  MPR_ENTRY;
  constexpr const char* fn = "MPI_Mprobe";
  Comm* comm;
  MPR_TRY(check_probe(fn, h, source, tag, &comm));
  MPR_TRY(check_arg(fn, comm, message, "message is NULL"));
  if (source == MPI_PROC_NULL) {
    *message = MPI_MESSAGE_NO_PROC;
    set_proc_null_status(status);
    return MPI_SUCCESS;
  }
  mpr::pml::Status s;
  Poller poller;
  mpr::pml::Message* msg;
  while (!(msg = the_pml().improbe(source, tag, comm->ctx_p2p(), &s))) poller.poll();
  *message = wrap(msg, comm);
  set_probe_status(status, s);
  return MPI_SUCCESS;
}
MPR_WEAK_ALIAS(Mprobe);

namespace {
int mrecv_impl(const char* fn, void* buf, MPI_Count count, MPI_Datatype datatype,
               MPI_Message* message, MPI_Status* status) {
  mpr::pml::Request* r;
  MPR_TRY(start_matched(fn, buf, count, datatype, message, &r));
  Comm* comm = request_comm(r);
  comm->retain();  // the request releases its reference when it finishes
  int rc = wait_and_finish(fn, r, status);
  rc = raise(comm, rc);
  comm->release();
  return rc;
}
}  // namespace

extern "C" int PMPI_Mrecv(void* buf, int count, MPI_Datatype datatype, MPI_Message* message,
                          MPI_Status* status) {
  MPR_ENTRY;
  return mrecv_impl("MPI_Mrecv", buf, count, datatype, message, status);
}
MPR_WEAK_ALIAS(Mrecv);

extern "C" int PMPI_Mrecv_c(void* buf, MPI_Count count, MPI_Datatype datatype, MPI_Message* message,
                            MPI_Status* status) {
  MPR_ENTRY;
  return mrecv_impl("MPI_Mrecv_c", buf, count, datatype, message, status);
}
MPR_WEAK_ALIAS(Mrecv_c);

namespace {
int imrecv_impl(const char* fn, void* buf, MPI_Count count, MPI_Datatype datatype,
                MPI_Message* message, MPI_Request* request) {
  MPR_TRY(check_arg(fn, nullptr, request, "request is NULL"));
  mpr::pml::Request* r;
  MPR_TRY(start_matched(fn, buf, count, datatype, message, &r));
  *request = to_handle(r);
  return MPI_SUCCESS;
}
}  // namespace

extern "C" int PMPI_Imrecv(void* buf, int count, MPI_Datatype datatype, MPI_Message* message,
                           MPI_Request* request) {
  MPR_ENTRY;
  return imrecv_impl("MPI_Imrecv", buf, count, datatype, message, request);
}
MPR_WEAK_ALIAS(Imrecv);

extern "C" int PMPI_Imrecv_c(void* buf, MPI_Count count, MPI_Datatype datatype,
                             MPI_Message* message, MPI_Request* request) {
  MPR_ENTRY;
  return imrecv_impl("MPI_Imrecv_c", buf, count, datatype, message, request);
}
MPR_WEAK_ALIAS(Imrecv_c);
