// MPI 4.1's accessors of the public status fields (MPI_SOURCE, MPI_TAG, MPI_ERROR), for
// bindings that cannot reach struct members (like the other status calls they need no
// initialized library), the Fortran 2008 status conversions, and MPI 4.1's
// MPI_Request_get_status_all/_any/_some, which report completion without freeing anything.
#include <cstring>

#include "runtime/api/check.h"
#include "runtime/p2p/request.h"
#include "runtime/p2p/request_ext.h"

using namespace mpr::runtime;
using namespace mpr::runtime::api;

namespace {

int check_status(const char* fn, const MPI_Status* status) {
  return check_arg(fn, nullptr, status && status != MPI_STATUS_IGNORE,
                   "status is NULL or MPI_STATUS_IGNORE");
}

int get_field(const char* fn, const MPI_Status* status, int MPI_Status::*field, int* out) {
  MPR_TRY(check_status(fn, status));
  MPR_TRY(check_arg(fn, nullptr, out, "the output argument is NULL"));
  *out = status->*field;
  return MPI_SUCCESS;
}

int set_field(const char* fn, MPI_Status* status, int MPI_Status::*field, int value) {
  MPR_TRY(check_status(fn, status));
  status->*field = value;
  return MPI_SUCCESS;
}

}  // namespace

extern "C" int PMPI_Status_get_source(MPI_Status* status, int* source) {
  MPR_ENTRY;
  return get_field("MPI_Status_get_source", status, &MPI_Status::MPI_SOURCE, source);
}
MPR_WEAK_ALIAS(Status_get_source);

extern "C" int PMPI_Status_set_source(MPI_Status* status, int source) {
  MPR_ENTRY;
  return set_field("MPI_Status_set_source", status, &MPI_Status::MPI_SOURCE, source);
}
MPR_WEAK_ALIAS(Status_set_source);

extern "C" int PMPI_Status_get_tag(MPI_Status* status, int* tag) {
  MPR_ENTRY;
  return get_field("MPI_Status_get_tag", status, &MPI_Status::MPI_TAG, tag);
}
MPR_WEAK_ALIAS(Status_get_tag);

extern "C" int PMPI_Status_set_tag(MPI_Status* status, int tag) {
  MPR_ENTRY;
  return set_field("MPI_Status_set_tag", status, &MPI_Status::MPI_TAG, tag);
}
MPR_WEAK_ALIAS(Status_set_tag);

extern "C" int PMPI_Status_get_error(MPI_Status* status, int* error) {
  MPR_ENTRY;
  return get_field("MPI_Status_get_error", status, &MPI_Status::MPI_ERROR, error);
}
MPR_WEAK_ALIAS(Status_get_error);

extern "C" int PMPI_Status_set_error(MPI_Status* status, int error) {
  MPR_ENTRY;
  return set_field("MPI_Status_set_error", status, &MPI_Status::MPI_ERROR, error);
}
MPR_WEAK_ALIAS(Status_set_error);

// ---- Fortran 2008 statuses: the same fields as MPI_Status, in the same order ----------------

static_assert(sizeof(MPI_F08_status) == sizeof(MPI_Status));

extern "C" int PMPI_Status_c2f08(const MPI_Status* c_status, MPI_F08_status* f08_status) {
  MPR_ENTRY;
  constexpr const char* fn = "MPI_Status_c2f08";
  MPR_TRY(check_arg(fn, nullptr, c_status && c_status != MPI_STATUS_IGNORE && f08_status,
                    "a status is NULL or MPI_STATUS_IGNORE"));
  std::memcpy(f08_status, c_status, sizeof *f08_status);
  return MPI_SUCCESS;
}
MPR_WEAK_ALIAS(Status_c2f08);

extern "C" int PMPI_Status_f082c(const MPI_F08_status* f08_status, MPI_Status* c_status) {
  MPR_ENTRY;
  constexpr const char* fn = "MPI_Status_f082c";
  MPR_TRY(check_arg(fn, nullptr, f08_status && c_status && c_status != MPI_STATUS_IGNORE,
                    "a status is NULL or MPI_STATUS_IGNORE"));
  std::memcpy(c_status, f08_status, sizeof *c_status);
  return MPI_SUCCESS;
}
MPR_WEAK_ALIAS(Status_f082c);

extern "C" int PMPI_Status_f2f08(const MPI_Fint* f_status, MPI_F08_status* f08_status) {
  MPR_ENTRY;
  constexpr const char* fn = "MPI_Status_f2f08";
  MPR_TRY(check_arg(fn, nullptr, f_status && f08_status, "a status is NULL"));
  std::memcpy(f08_status, f_status, sizeof *f08_status);
  return MPI_SUCCESS;
}
MPR_WEAK_ALIAS(Status_f2f08);

extern "C" int PMPI_Status_f082f(const MPI_F08_status* f08_status, MPI_Fint* f_status) {
  MPR_ENTRY;
  constexpr const char* fn = "MPI_Status_f082f";
  MPR_TRY(check_arg(fn, nullptr, f08_status && f_status, "a status is NULL"));
  std::memcpy(f_status, f08_status, sizeof *f08_status);
  return MPI_SUCCESS;
}
MPR_WEAK_ALIAS(Status_f082f);

// ---- MPI_Request_get_status_all / _any / _some ----------------------------------------------

namespace {

int check_requests(const char* fn, int count, const MPI_Request* reqs) {
  MPR_TRY(check_running(fn));
  if (count < 0) return raise_error(nullptr, MPI_ERR_COUNT, fn, "invalid count %d", count);
  if (count > 0 && !reqs)
    return raise_error(nullptr, MPI_ERR_REQUEST, fn, "array_of_requests is NULL");
  return MPI_SUCCESS;
}

// Null and inactive persistent requests take no part (as in the wait and test families).
bool live(MPI_Request h) { return h != MPI_REQUEST_NULL && request_active(from_handle(h)); }

void empty(MPI_Status* st) {
  if (st && st != MPI_STATUS_IGNORE) {
    status_set(st, MPI_ANY_SOURCE, MPI_ANY_TAG, 0, false);
    st->MPI_ERROR = MPI_SUCCESS;
  }
}

// The status of complete request h, its MPI_ERROR set; the code (not raised).
int status_of(const char* fn, MPI_Request h, MPI_Status* st) {
  MPI_Status tmp;
  MPI_Status* out = st && st != MPI_STATUS_IGNORE ? st : &tmp;
  int code = request_status(fn, from_handle(h), out);
  out->MPI_ERROR = code;
  return code;
}

}  // namespace

extern "C" int PMPI_Request_get_status_all(int count, const MPI_Request array_of_requests[],
                                           int* flag, MPI_Status array_of_statuses[]) {
  MPR_ENTRY;
  constexpr const char* fn = "MPI_Request_get_status_all";
  MPR_TRY(check_requests(fn, count, array_of_requests));
  MPR_TRY(check_arg(fn, nullptr, flag, "flag is NULL"));
  test_progress();
  for (int i = 0; i < count; ++i)
    if (live(array_of_requests[i]) && !request_test(from_handle(array_of_requests[i]))) {
      *flag = 0;
      return MPI_SUCCESS;
    }
  *flag = 1;
  int failed = 0;
  Comm* first = nullptr;
  for (int i = 0; i < count; ++i) {
    MPI_Status* st = array_of_statuses == MPI_STATUSES_IGNORE ? nullptr : &array_of_statuses[i];
    if (!live(array_of_requests[i])) {
      empty(st);
      continue;
    }
    if (status_of(fn, array_of_requests[i], st) != MPI_SUCCESS && !failed++)
      first = request_comm(from_handle(array_of_requests[i]));
  }
  if (!failed) return MPI_SUCCESS;
  return raise(first, make_error(MPI_ERR_IN_STATUS, fn,
                                 "%d request(s) failed; see the statuses' MPI_ERROR", failed));
}
MPR_WEAK_ALIAS(Request_get_status_all);

extern "C" int PMPI_Request_get_status_any(int count, const MPI_Request array_of_requests[],
                                           int* index, int* flag, MPI_Status* status) {
  MPR_ENTRY;
  constexpr const char* fn = "MPI_Request_get_status_any";
  MPR_TRY(check_requests(fn, count, array_of_requests));
  MPR_TRY(check_arg(fn, nullptr, index && flag, "index or flag is NULL"));
  test_progress();
  bool any_live = false;
  for (int i = 0; i < count; ++i) {
    if (!live(array_of_requests[i])) continue;
    any_live = true;
    if (!request_test(from_handle(array_of_requests[i]))) continue;
    *index = i;
    *flag = 1;
    MPI_Status tmp;
    MPI_Status* out = status && status != MPI_STATUS_IGNORE ? status : &tmp;
    const int error = out->MPI_ERROR;  // single-completion calls leave it
    int code = request_status(fn, from_handle(array_of_requests[i]), out);
    out->MPI_ERROR = error;
    return raise(request_comm(from_handle(array_of_requests[i])), code);
  }
  *index = MPI_UNDEFINED;
  *flag = any_live ? 0 : 1;
  if (!any_live) empty(status);
  return MPI_SUCCESS;
}
MPR_WEAK_ALIAS(Request_get_status_any);

extern "C" int PMPI_Request_get_status_some(int incount, const MPI_Request array_of_requests[],
                                            int* outcount, int array_of_indices[],
                                            MPI_Status array_of_statuses[]) {
  MPR_ENTRY;
  constexpr const char* fn = "MPI_Request_get_status_some";
  MPR_TRY(check_requests(fn, incount, array_of_requests));
  MPR_TRY(check_arg(fn, nullptr, outcount && (incount == 0 || array_of_indices),
                    "outcount or array_of_indices is NULL"));
  test_progress();
  bool any_live = false;
  int n = 0, failed = 0;
  Comm* first = nullptr;
  for (int i = 0; i < incount; ++i) {
    if (!live(array_of_requests[i])) continue;
    any_live = true;
    if (!request_test(from_handle(array_of_requests[i]))) continue;
    MPI_Status* st = array_of_statuses == MPI_STATUSES_IGNORE ? nullptr : &array_of_statuses[n];
    array_of_indices[n++] = i;
    if (status_of(fn, array_of_requests[i], st) != MPI_SUCCESS && !failed++)
      first = request_comm(from_handle(array_of_requests[i]));
  }
  *outcount = any_live ? n : MPI_UNDEFINED;
  if (!failed) return MPI_SUCCESS;
  return raise(first, make_error(MPI_ERR_IN_STATUS, fn,
                                 "%d request(s) failed; see the statuses' MPI_ERROR", failed));
}
MPR_WEAK_ALIAS(Request_get_status_some);
