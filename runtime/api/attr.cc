// Attributes: the predefined ones every communicator carries.
#include "runtime/api/check.h"
#include "runtime/comm.h"

using namespace mpr::runtime;
using namespace mpr::runtime::api;

namespace {

// MPI_Comm_get_attr hands out pointers to the values, so they need stable storage.
struct PredefinedAttrs {
  int tag_ub = kTagUb;
  int host = MPI_PROC_NULL;  // no process is special
  int io = MPI_ANY_SOURCE;   // every process can do I/O
  int wtime_is_global = 0;   // clocks are per node, not synchronized
  int universe_size = 0;
  int lastusedcode = MPI_ERR_LASTCODE;
  int appnum = 0;
};
PredefinedAttrs g_attrs;

}  // namespace

extern "C" int PMPI_Comm_get_attr(MPI_Comm h, int keyval, void* attribute_val, int* flag) {
  constexpr const char* fn = "MPI_Comm_get_attr";
  Comm* comm;
  MPR_TRY(check_running(fn));
  MPR_TRY(check_comm(fn, h, &comm));
  MPR_TRY(check_arg(fn, comm, attribute_val && flag, "attribute_val or flag is NULL"));
  g_attrs.universe_size = g_state.bootstrap->universe_size();
  g_attrs.appnum = g_state.bootstrap->appnum();
  int* value = nullptr;
  switch (keyval) {
    case MPI_TAG_UB: value = &g_attrs.tag_ub; break;
    case MPI_HOST: value = &g_attrs.host; break;
    case MPI_IO: value = &g_attrs.io; break;
    case MPI_WTIME_IS_GLOBAL: value = &g_attrs.wtime_is_global; break;
    case MPI_UNIVERSE_SIZE:
      if (g_attrs.universe_size > 0) value = &g_attrs.universe_size;
      break;
    case MPI_LASTUSEDCODE: value = &g_attrs.lastusedcode; break;
    case MPI_APPNUM:
      if (g_attrs.appnum >= 0) value = &g_attrs.appnum;
      break;
    default:
      return raise_error(comm, MPI_ERR_KEYVAL, fn, "invalid keyval %d", keyval);
  }
  *flag = value != nullptr;
  // attribute_val is really an int** for the predefined attributes.
  if (value) *static_cast<int**>(attribute_val) = value;
  return MPI_SUCCESS;
}
MPR_WEAK_ALIAS(Comm_get_attr);
