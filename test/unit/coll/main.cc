// The decision table reads MPR_COLL_ALG_DYNAMIC once, at its first use: switch it on before any
// test runs so the override tests can change MPR_COLL_*_ALG between calls.
#define CATCH_CONFIG_RUNNER
#include <catch2/catch.hpp>
#include <cstdlib>

int main(int argc, char** argv) {
  setenv("MPR_COLL_ALG_DYNAMIC", "1", 1);
  return Catch::Session().run(argc, argv);
}
