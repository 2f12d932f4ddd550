// Runs the [verbs] tests against the real backend; they need an RDMA device (soft-RoCE in the
// VM of test/rdma-vm/). Without one the whole binary is skipped: "SKIP verbs: <reason>" and
// exit code 77 (the automake convention for a skipped test).
#define CATCH_CONFIG_RUNNER
#include <catch2/catch.hpp>
#include <cstdio>
#include <string>

#include "test/verbs/verbs_pair.h"

int main(int argc, char** argv) {
  std::string why;
  if (!mpr::verbs_test::device_available(&why)) {
    std::printf("SKIP verbs: %s (run test/rdma-vm/run-verbs-suite.sh for the soft-RoCE VM)\n",
                why.c_str());
    return 77;
  }
  return Catch::Session().run(argc, argv);
}
