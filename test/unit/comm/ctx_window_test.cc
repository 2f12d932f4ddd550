// Context id masks of the nonblocking agreement (MPI_Comm_idup): a held mask is offered by
// no other agreement until it is released or finished, and finishing reserves the lowest
// common pair.
#include <catch2/catch.hpp>
#include <cstdint>
#include <vector>

#include "runtime/comm/comm.h"
#include "runtime/comm/comm_impl.h"

using namespace mpr::runtime;

namespace {

int count_bits(const std::vector<uint64_t>& m) {
  int n = 0;
  for (uint64_t w : m) n += __builtin_popcountll(w);
  return n;
}

}  // namespace

TEST_CASE("a held context id mask is offered to no other agreement", "[ctx]") {
  std::vector<uint64_t> a = ctx_window_take();
  const int free_pairs = count_bits(a);
  CHECK(free_pairs > 0);
  CHECK((a[0] & 1) == 1);  // nothing uses the lowest pair yet
  std::vector<uint64_t> b = ctx_window_take();
  CHECK(count_bits(b) == 0);  // a holds every free pair
  // Every member offered everything: a takes the lowest pair.
  std::vector<uint64_t> all(kCtxMaskWords, ~uint64_t{0});
  uint32_t ca = 0;
  REQUIRE(ctx_window_finish("test", a, all, &ca) == MPI_SUCCESS);
  CHECK(ca == kFirstFreeCtx);
  // Released: a new holder gets everything again but the reserved pair.
  std::vector<uint64_t> c = ctx_window_take();
  CHECK(count_bits(c) == free_pairs - 1);
  CHECK((c[0] & 1) == 0);
  ctx_window_release(c);
  ctx_window_release(b);
  release_context_id(ca);
}

TEST_CASE("a context id mask with nothing in common fails with a message", "[ctx]") {
  std::vector<uint64_t> w = ctx_window_take();
  std::vector<uint64_t> none(kCtxMaskWords, 0);
  uint32_t ctx = 0;
  int rc = ctx_window_finish("MPI_Comm_idup", w, none, &ctx);
  CHECK(error_class_of(rc) == MPI_ERR_INTERN);
  // The mask is given back either way.
  std::vector<uint64_t> again = ctx_window_take();
  CHECK(again == w);
  ctx_window_release(again);
}
