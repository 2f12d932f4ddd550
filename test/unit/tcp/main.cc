// g++ 12 with -fsanitize=address reports a false -Wmaybe-uninitialized inside <regex>, which
// Catch's runner instantiates; silenced for this translation unit only.
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#define CATCH_CONFIG_MAIN
#include <catch2/catch.hpp>
