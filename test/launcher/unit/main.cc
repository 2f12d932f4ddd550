// mpr_unit_launcher: mprun's pure logic (placement on made-up machines, hostfiles, options).
#define CATCH_CONFIG_MAIN
#include <catch2/catch.hpp>
