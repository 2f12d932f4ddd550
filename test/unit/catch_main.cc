// The Catch2 runner of every unit-test binary that needs no set-up of its own, compiled once
// and linked into each (Catch2's runner is the slowest file of the tests to compile).
// g++ 12 with -fsanitize=address reports a false -Wmaybe-uninitialized inside <regex>, which
// Catch's runner instantiates; silenced for this translation unit only.
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#define CATCH_CONFIG_MAIN
#include <catch2/catch.hpp>
