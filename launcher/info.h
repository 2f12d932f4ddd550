// mprun --info: how this MPR was built, in the spirit of ompi_info and mpichversion.
#pragma once

#include <cstdio>

namespace mpr::launch {

/// Prints the build report: versions (MPR, the MPI standard, PMIx and hwloc as built and as
/// loaded), configure's prefix and arguments, the compiler, LTO and sanitizers, the backends
/// built, the RDMA devices present now, and the protocol thresholds (defaults and the values
/// this environment sets).
void print_info(std::FILE* out);

}  // namespace mpr::launch
