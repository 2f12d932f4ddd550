// MPI 4.1's accessors of the public status fields (MPI_SOURCE, MPI_TAG, MPI_ERROR), for
// bindings that cannot reach struct members. Like the other status calls they need no
// initialized library.
#include "runtime/api/check.h"

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
  return get_field("MPI_Status_get_source", status, &MPI_Status::MPI_SOURCE, source);
}
MPR_WEAK_ALIAS(Status_get_source);

extern "C" int PMPI_Status_set_source(MPI_Status* status, int source) {
  return set_field("MPI_Status_set_source", status, &MPI_Status::MPI_SOURCE, source);
}
MPR_WEAK_ALIAS(Status_set_source);

extern "C" int PMPI_Status_get_tag(MPI_Status* status, int* tag) {
  return get_field("MPI_Status_get_tag", status, &MPI_Status::MPI_TAG, tag);
}
MPR_WEAK_ALIAS(Status_get_tag);

extern "C" int PMPI_Status_set_tag(MPI_Status* status, int tag) {
  return set_field("MPI_Status_set_tag", status, &MPI_Status::MPI_TAG, tag);
}
MPR_WEAK_ALIAS(Status_set_tag);

extern "C" int PMPI_Status_get_error(MPI_Status* status, int* error) {
  return get_field("MPI_Status_get_error", status, &MPI_Status::MPI_ERROR, error);
}
MPR_WEAK_ALIAS(Status_get_error);

extern "C" int PMPI_Status_set_error(MPI_Status* status, int error) {
  return set_field("MPI_Status_set_error", status, &MPI_Status::MPI_ERROR, error);
}
MPR_WEAK_ALIAS(Status_set_error);
