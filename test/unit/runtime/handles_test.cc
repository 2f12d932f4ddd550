// Handle encoding as seen from C: constants, status layout, handle ranges.
#include <catch2/catch.hpp>
#include <cstdint>

#include "mpi.h"
#include "pml/pml.h"

extern "C" {
int mpr_c_header_status_size(void);
int mpr_c_header_source_offset(void);
int mpr_c_header_error_offset(void);
int mpr_c_header_types(void);
int mpr_c_header_world_is_predefined(void);
int mpr_c_header_switch(int code);
}

TEST_CASE("mpi.h compiles as C with the same layout as in C++", "[handles]") {
  CHECK(mpr_c_header_status_size() == sizeof(MPI_Status));
  CHECK(sizeof(MPI_Status) == 8 * sizeof(int));  // the MPI 5.0 ABI status shape
  CHECK(mpr_c_header_source_offset() == 0);
  CHECK(mpr_c_header_error_offset() == 2 * sizeof(int));
  CHECK(mpr_c_header_types() == 6);
  CHECK(mpr_c_header_world_is_predefined());
  CHECK(mpr_c_header_switch(MPI_ERR_TRUNCATE) == 1);
  CHECK(mpr_c_header_switch(MPI_ERR_UNSUPPORTED_OPERATION) == 2);
}

TEST_CASE("handles are pointer-sized and predefined ones are small constants", "[handles]") {
  CHECK(sizeof(MPI_Comm) == sizeof(void*));
  CHECK(sizeof(MPI_Datatype) == sizeof(void*));
  CHECK(sizeof(MPI_Request) == sizeof(void*));
  CHECK(sizeof(MPI_Aint) == sizeof(void*));
  CHECK(sizeof(MPI_Count) == 8);
  CHECK(sizeof(MPI_Offset) == 8);
  for (auto h :
       {reinterpret_cast<uintptr_t>(MPI_COMM_WORLD), reinterpret_cast<uintptr_t>(MPI_COMM_SELF),
        reinterpret_cast<uintptr_t>(MPI_LONG_DOUBLE_INT), reinterpret_cast<uintptr_t>(MPI_NO_OP),
        reinterpret_cast<uintptr_t>(MPI_ERRORS_ABORT),
        reinterpret_cast<uintptr_t>(MPI_MESSAGE_NO_PROC)}) {
    CHECK(h > 0);
    CHECK(h < 0x1000);
  }
  CHECK(MPI_COMM_NULL == nullptr);
  CHECK(MPI_REQUEST_NULL == nullptr);
}

TEST_CASE("wildcards match the pml's", "[handles]") {
  CHECK(MPI_ANY_SOURCE == mpr::pml::kAnySource);
  CHECK(MPI_ANY_TAG == mpr::pml::kAnyTag);
  CHECK(MPI_PROC_NULL != MPI_ANY_SOURCE);
  CHECK(MPI_ROOT != MPI_PROC_NULL);
  CHECK(MPI_UNDEFINED < 0);
}
