// Completion: wait/test families, request free/cancel, status queries.
#include <climits>
#include <vector>

#include "runtime/api/check.h"
#include "runtime/p2p/request.h"
#include "runtime/p2p/request_ext.h"

using namespace mpr::runtime;
using namespace mpr::runtime::api;
using mpr::pml::Request;

namespace {

void empty_status(MPI_Status* st) { status_set(st, MPI_ANY_SOURCE, MPI_ANY_TAG, 0, false); }

MPI_Status* status_at(MPI_Status* array, int i) { return array ? &array[i] : nullptr; }

// Only the calls that complete several requests write statuses' MPI_ERROR (MPI 4.1 3.2.5);
// the others leave it as the caller had it.
int with_error(MPI_Status* st, int code) {
  if (st) st->MPI_ERROR = code;
  return code;
}

int check_array(const char* fn, int count, const MPI_Request* reqs) {
  if (count < 0) return raise_error(nullptr, MPI_ERR_COUNT, fn, "invalid count %d", count);
  if (count > 0 && !reqs)
    return raise_error(nullptr, MPI_ERR_REQUEST, fn, "array_of_requests is NULL");
  return MPI_SUCCESS;
}

// Finish the complete request *h: status, MPI_REQUEST_NULL. Returns its code, not raised;
// *comm gets the communicator (retained) when the code is an error, for raising later.
int finish_one(const char* fn, MPI_Request* h, MPI_Status* st, Comm** comm) {
  Request* r = from_handle(*h);
  if (pml_ended_well(r)) {  // the common case: nothing to raise, no reference to hold
    *h = MPI_REQUEST_NULL;
    return request_finish(fn, r, st);
  }
  Comm* c = request_comm(r);
  c->retain();
  const bool keep = r->persistent;  // persistent requests only become inactive
  int code = request_finish(fn, r, st);
  if (!keep) *h = MPI_REQUEST_NULL;
  if (code != MPI_SUCCESS && !*comm) {
    *comm = c;
    return code;
  }
  c->release();
  return code;
}

// Raise `code` on `comm` (from finish_one) and drop the reference.
int raise_on(Comm* comm, int code) {
  if (!comm) return code;
  int rc = raise(comm, code);
  comm->release();
  return rc;
}

// Completion of several requests with at least one error: MPI_ERR_IN_STATUS on the first
// failing request's communicator.
int raise_in_status(const char* fn, Comm* comm, int failed) {
  return raise_on(comm, make_error(MPI_ERR_IN_STATUS, fn,
                                   "%d request(s) failed; see the statuses' MPI_ERROR", failed));
}

// The "any" and "some" families skip null and inactive persistent requests alike.
bool live(MPI_Request h) { return h != MPI_REQUEST_NULL && request_active(from_handle(h)); }

// Finish every complete request of the array (Waitsome/Testsome).
int finish_some(const char* fn, int incount, MPI_Request* reqs, int* outcount, int* indices,
                MPI_Status* statuses) {
  Comm* failed_comm = nullptr;
  int failed = 0, n = 0;
  for (int i = 0; i < incount; ++i) {
    if (!live(reqs[i]) || !request_test(from_handle(reqs[i]))) continue;
    MPI_Status* st = status_at(statuses, n);
    if (with_error(st, finish_one(fn, &reqs[i], st, &failed_comm)) != MPI_SUCCESS) ++failed;
    indices[n++] = i;
  }
  *outcount = n;
  return failed ? raise_in_status(fn, failed_comm, failed) : MPI_SUCCESS;
}

bool any_active(int count, const MPI_Request* reqs) {
  for (int i = 0; i < count; ++i)
    if (live(reqs[i])) return true;
  return false;
}

}  // namespace

extern "C" int PMPI_Wait(MPI_Request* request, MPI_Status* status) {
  MPR_ENTRY;
  constexpr const char* fn = "MPI_Wait";
  MPR_TRY(check_running(fn));
  MPR_TRY(check_arg(fn, nullptr, request, "request is NULL"));
  if (*request == MPI_REQUEST_NULL) {
    empty_status(status);
    return MPI_SUCCESS;
  }
  request_wait(from_handle(*request));
  Comm* comm = nullptr;
  int code = finish_one(fn, request, status, &comm);
  return raise_on(comm, code);
}
MPR_WEAK_ALIAS(Wait);

extern "C" int PMPI_Test(MPI_Request* request, int* flag, MPI_Status* status) {
  MPR_ENTRY;
  constexpr const char* fn = "MPI_Test";
  MPR_TRY(check_running(fn));
  MPR_TRY(check_arg(fn, nullptr, request && flag, "request or flag is NULL"));
  if (*request == MPI_REQUEST_NULL) {
    *flag = 1;
    empty_status(status);
    return MPI_SUCCESS;
  }
  Request* r = from_handle(*request);
  if (!request_test(r)) {
    test_progress();
    if (!request_test(r)) {
      *flag = 0;
      return MPI_SUCCESS;
    }
  }
  *flag = 1;
  Comm* comm = nullptr;
  int code = finish_one(fn, request, status, &comm);
  return raise_on(comm, code);
}
MPR_WEAK_ALIAS(Test);

extern "C" int PMPI_Waitall(int count, MPI_Request reqs[], MPI_Status statuses[]) {
  MPR_ENTRY;
  constexpr const char* fn = "MPI_Waitall";
  MPR_TRY(check_running(fn));
  MPR_TRY(check_array(fn, count, reqs));
  for (int i = 0; i < count; ++i)
    if (reqs[i] != MPI_REQUEST_NULL) request_wait(from_handle(reqs[i]));
  Comm* failed_comm = nullptr;
  int failed = 0;
  for (int i = 0; i < count; ++i) {
    MPI_Status* st = status_at(statuses, i);
    if (reqs[i] == MPI_REQUEST_NULL) {
      empty_status(st);
      with_error(st, MPI_SUCCESS);
    } else if (with_error(st, finish_one(fn, &reqs[i], st, &failed_comm)) != MPI_SUCCESS) {
      ++failed;
    }
  }
  return failed ? raise_in_status(fn, failed_comm, failed) : MPI_SUCCESS;
}
MPR_WEAK_ALIAS(Waitall);

extern "C" int PMPI_Testall(int count, MPI_Request reqs[], int* flag, MPI_Status statuses[]) {
  MPR_ENTRY;
  constexpr const char* fn = "MPI_Testall";
  MPR_TRY(check_running(fn));
  MPR_TRY(check_array(fn, count, reqs));
  MPR_TRY(check_arg(fn, nullptr, flag, "flag is NULL"));
  test_progress();
  for (int i = 0; i < count; ++i)
    if (reqs[i] != MPI_REQUEST_NULL && !request_test(from_handle(reqs[i]))) {
      *flag = 0;
      return MPI_SUCCESS;
    }
  *flag = 1;
  Comm* failed_comm = nullptr;
  int failed = 0;
  for (int i = 0; i < count; ++i) {
    MPI_Status* st = status_at(statuses, i);
    if (reqs[i] == MPI_REQUEST_NULL) {
      empty_status(st);
      with_error(st, MPI_SUCCESS);
    } else if (with_error(st, finish_one(fn, &reqs[i], st, &failed_comm)) != MPI_SUCCESS) {
      ++failed;
    }
  }
  return failed ? raise_in_status(fn, failed_comm, failed) : MPI_SUCCESS;
}
MPR_WEAK_ALIAS(Testall);

extern "C" int PMPI_Waitany(int count, MPI_Request reqs[], int* index, MPI_Status* status) {
  MPR_ENTRY;
  constexpr const char* fn = "MPI_Waitany";
  MPR_TRY(check_running(fn));
  MPR_TRY(check_array(fn, count, reqs));
  MPR_TRY(check_arg(fn, nullptr, index, "index is NULL"));
  if (!any_active(count, reqs)) {
    *index = MPI_UNDEFINED;
    empty_status(status);
    return MPI_SUCCESS;
  }
  for (Poller poller;; poller.poll()) {
    for (int i = 0; i < count; ++i) {
      if (!live(reqs[i]) || !request_test(from_handle(reqs[i]))) continue;
      *index = i;
      Comm* comm = nullptr;
      int code = finish_one(fn, &reqs[i], status, &comm);
      return raise_on(comm, code);
    }
  }
}
MPR_WEAK_ALIAS(Waitany);

extern "C" int PMPI_Testany(int count, MPI_Request reqs[], int* index, int* flag,
                            MPI_Status* status) {
  MPR_ENTRY;
  constexpr const char* fn = "MPI_Testany";
  MPR_TRY(check_running(fn));
  MPR_TRY(check_array(fn, count, reqs));
  MPR_TRY(check_arg(fn, nullptr, index && flag, "index or flag is NULL"));
  *index = MPI_UNDEFINED;
  if (!any_active(count, reqs)) {
    *flag = 1;
    empty_status(status);
    return MPI_SUCCESS;
  }
  test_progress();
  for (int i = 0; i < count; ++i) {
    if (!live(reqs[i]) || !request_test(from_handle(reqs[i]))) continue;
    *index = i;
    *flag = 1;
    Comm* comm = nullptr;
    int code = finish_one(fn, &reqs[i], status, &comm);
    return raise_on(comm, code);
  }
  *flag = 0;
  return MPI_SUCCESS;
}
MPR_WEAK_ALIAS(Testany);

extern "C" int PMPI_Waitsome(int incount, MPI_Request reqs[], int* outcount, int indices[],
                             MPI_Status statuses[]) {
  MPR_ENTRY;
  constexpr const char* fn = "MPI_Waitsome";
  MPR_TRY(check_running(fn));
  MPR_TRY(check_array(fn, incount, reqs));
  MPR_TRY(check_arg(fn, nullptr, outcount && (indices || incount == 0),
                    "outcount or array_of_indices is NULL"));
  if (!any_active(incount, reqs)) {
    *outcount = MPI_UNDEFINED;
    return MPI_SUCCESS;
  }
  for (Poller poller;; poller.poll()) {
    int rc = finish_some(fn, incount, reqs, outcount, indices, statuses);
    if (*outcount > 0) return rc;
  }
}
MPR_WEAK_ALIAS(Waitsome);

extern "C" int PMPI_Testsome(int incount, MPI_Request reqs[], int* outcount, int indices[],
                             MPI_Status statuses[]) {
  MPR_ENTRY;
  constexpr const char* fn = "MPI_Testsome";
  MPR_TRY(check_running(fn));
  MPR_TRY(check_array(fn, incount, reqs));
  MPR_TRY(check_arg(fn, nullptr, outcount && (indices || incount == 0),
                    "outcount or array_of_indices is NULL"));
  if (!any_active(incount, reqs)) {
    *outcount = MPI_UNDEFINED;
    return MPI_SUCCESS;
  }
  test_progress();
  return finish_some(fn, incount, reqs, outcount, indices, statuses);
}
MPR_WEAK_ALIAS(Testsome);

extern "C" int PMPI_Request_free(MPI_Request* request) {
  MPR_ENTRY;
  constexpr const char* fn = "MPI_Request_free";
  MPR_TRY(check_running(fn));
  if (!request || *request == MPI_REQUEST_NULL)
    return raise_error(nullptr, MPI_ERR_REQUEST, fn, "invalid request MPI_REQUEST_NULL");
  request_free(from_handle(*request));
  *request = MPI_REQUEST_NULL;
  return MPI_SUCCESS;
}
MPR_WEAK_ALIAS(Request_free);

extern "C" int PMPI_Request_get_status(MPI_Request request, int* flag, MPI_Status* status) {
  MPR_ENTRY;
  constexpr const char* fn = "MPI_Request_get_status";
  MPR_TRY(check_running(fn));
  MPR_TRY(check_arg(fn, nullptr, flag, "flag is NULL"));
  if (request == MPI_REQUEST_NULL) {
    *flag = 1;
    empty_status(status);
    return MPI_SUCCESS;
  }
  Request* r = from_handle(request);
  test_progress();
  *flag = request_test(r);
  if (!*flag) return MPI_SUCCESS;
  return raise(request_comm(r), request_status(fn, r, status));
}
MPR_WEAK_ALIAS(Request_get_status);

extern "C" int PMPI_Cancel(MPI_Request* request) {
  MPR_ENTRY;
  constexpr const char* fn = "MPI_Cancel";
  MPR_TRY(check_running(fn));
  if (!request || *request == MPI_REQUEST_NULL)
    return raise_error(nullptr, MPI_ERR_REQUEST, fn, "invalid request MPI_REQUEST_NULL");
  // Receives not yet matched are cancelled; a send whose message its receiver has not matched
  // is withdrawn (the wait that follows reports which, see request_ext.h).
  request_cancel(from_handle(*request));
  return MPI_SUCCESS;
}
MPR_WEAK_ALIAS(Cancel);

extern "C" int PMPI_Test_cancelled(const MPI_Status* status, int* flag) {
  MPR_ENTRY;
  constexpr const char* fn = "MPI_Test_cancelled";
  MPR_TRY(check_arg(fn, nullptr, status && flag, "status or flag is NULL"));
  *flag = status_cancelled(status);
  return MPI_SUCCESS;
}
MPR_WEAK_ALIAS(Test_cancelled);

extern "C" int PMPI_Status_set_cancelled(MPI_Status* status, int flag) {
  MPR_ENTRY;
  constexpr const char* fn = "MPI_Status_set_cancelled";
  MPR_TRY(check_arg(fn, nullptr, status, "status is NULL"));
  status_set_cancelled(status, flag != 0);
  return MPI_SUCCESS;
}
MPR_WEAK_ALIAS(Status_set_cancelled);

namespace {

int get_elements(const char* fn, const MPI_Status* status, MPI_Datatype type, bool whole,
                 MPI_Count* out) {
  MPR_TRY(check_arg(fn, nullptr, status && status != MPI_STATUS_IGNORE, "status is NULL"));
  Datatype* dt;
  MPR_TRY(check_type(fn, nullptr, type, &dt));
  size_t bytes = status_bytes(status);
  int64_t n = whole ? dt->count_in(bytes) : dt->elements_in(bytes);
  *out = n < 0 ? MPI_UNDEFINED : n;
  return MPI_SUCCESS;
}

int to_int_count(MPI_Count n, int* out) {
  *out = n > INT_MAX ? MPI_UNDEFINED : static_cast<int>(n);
  return MPI_SUCCESS;
}

int set_elements(const char* fn, MPI_Status* status, MPI_Datatype type, MPI_Count count) {
  MPR_TRY(check_arg(fn, nullptr, status, "status is NULL"));
  MPR_TRY(check_count(fn, nullptr, count));
  Datatype* dt;
  MPR_TRY(check_type(fn, nullptr, type, &dt));
  status_set_bytes(status, dt->bytes_for_elements(count));
  return MPI_SUCCESS;
}

}  // namespace

extern "C" int PMPI_Get_count(const MPI_Status* status, MPI_Datatype datatype, int* count) {
  MPR_ENTRY;
  MPI_Count n;
  MPR_TRY(get_elements("MPI_Get_count", status, datatype, true, &n));
  return to_int_count(n, count);
}
MPR_WEAK_ALIAS(Get_count);

extern "C" int PMPI_Get_count_c(const MPI_Status* status, MPI_Datatype datatype, MPI_Count* count) {
  MPR_ENTRY;
  return get_elements("MPI_Get_count_c", status, datatype, true, count);
}
MPR_WEAK_ALIAS(Get_count_c);

extern "C" int PMPI_Get_elements(const MPI_Status* status, MPI_Datatype datatype, int* count) {
  MPR_ENTRY;
  MPI_Count n;
  MPR_TRY(get_elements("MPI_Get_elements", status, datatype, false, &n));
  return to_int_count(n, count);
}
MPR_WEAK_ALIAS(Get_elements);

extern "C" int PMPI_Get_elements_x(const MPI_Status* status, MPI_Datatype datatype,
                                   MPI_Count* count) {
  MPR_ENTRY;
  return get_elements("MPI_Get_elements_x", status, datatype, false, count);
}
MPR_WEAK_ALIAS(Get_elements_x);

extern "C" int PMPI_Get_elements_c(const MPI_Status* status, MPI_Datatype datatype,
                                   MPI_Count* count) {
  MPR_ENTRY;
  return get_elements("MPI_Get_elements_c", status, datatype, false, count);
}
MPR_WEAK_ALIAS(Get_elements_c);

extern "C" int PMPI_Status_set_elements(MPI_Status* status, MPI_Datatype datatype, int count) {
  MPR_ENTRY;
  return set_elements("MPI_Status_set_elements", status, datatype, count);
}
MPR_WEAK_ALIAS(Status_set_elements);

extern "C" int PMPI_Status_set_elements_x(MPI_Status* status, MPI_Datatype datatype,
                                          MPI_Count count) {
  MPR_ENTRY;
  return set_elements("MPI_Status_set_elements_x", status, datatype, count);
}
MPR_WEAK_ALIAS(Status_set_elements_x);

extern "C" int PMPI_Status_set_elements_c(MPI_Status* status, MPI_Datatype datatype,
                                          MPI_Count count) {
  MPR_ENTRY;
  return set_elements("MPI_Status_set_elements_c", status, datatype, count);
}
MPR_WEAK_ALIAS(Status_set_elements_c);
