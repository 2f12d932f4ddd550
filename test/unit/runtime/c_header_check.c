/* mpi.h must compile as C with the project's warnings: handles in static initializers, the
 * status layout, and the constants users switch on. */
#include <mpi.h>
#include <stddef.h>

static const MPI_Datatype kTypes[] = {MPI_INT, MPI_DOUBLE, MPI_LONG_LONG, MPI_C_COMPLEX,
                                      MPI_2INT, MPI_DATATYPE_NULL};
static MPI_Comm g_comm = MPI_COMM_WORLD;
static MPI_Request g_req = MPI_REQUEST_NULL;

int mpr_c_header_status_size(void) { return (int)sizeof(MPI_Status); }
int mpr_c_header_source_offset(void) { return (int)offsetof(MPI_Status, MPI_SOURCE); }
int mpr_c_header_error_offset(void) { return (int)offsetof(MPI_Status, MPI_ERROR); }
int mpr_c_header_types(void) { return (int)(sizeof kTypes / sizeof kTypes[0]); }
int mpr_c_header_world_is_predefined(void) {
  return g_comm != MPI_COMM_NULL && g_req == MPI_REQUEST_NULL && kTypes[5] == MPI_DATATYPE_NULL;
}
int mpr_c_header_switch(int code) {
  switch (code) {
    case MPI_SUCCESS: return 0;
    case MPI_ERR_TRUNCATE: return 1;
    case MPI_ERR_UNSUPPORTED_OPERATION: return 2;
    default: return -1;
  }
}
