// Catch2 entry point for test/unit/mpr_unit_comm: groups, MPI_Dims_create, topology
// arithmetic, context id windows, and the exported-function list in docs/MPI_FUNCTIONS.md.
#define CATCH_CONFIG_MAIN
#include <catch2/catch.hpp>
