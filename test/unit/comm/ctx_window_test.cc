// Context id windows of the nonblocking agreement (MPI_Comm_idup): outstanding agreements
// offer disjoint windows, whatever order they finish in, and blocking agreements never offer
// a held pair.
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

bool disjoint(const std::vector<uint64_t>& a, const std::vector<uint64_t>& b) {
  for (size_t i = 0; i < a.size(); ++i)
    if (a[i] & b[i]) return false;
  return true;
}

}  // namespace

TEST_CASE("outstanding context id windows are disjoint and finish in any order", "[ctx]") {
  std::vector<uint64_t> a = ctx_window_take(), b = ctx_window_take();
  CHECK(count_bits(a) == kCtxWindow);
  CHECK(count_bits(b) == kCtxWindow);
  CHECK(disjoint(a, b));
  // Every member offered everything: each takes the lowest pair of its own window.
  std::vector<uint64_t> all(kCtxMaskWords, ~uint64_t{0});
  uint32_t cb = 0, ca = 0;
  REQUIRE(ctx_window_finish("test", b, all, &cb) == MPI_SUCCESS);
  CHECK(cb == kFirstFreeCtx + 2 * kCtxWindow);  // b held the second 256 pairs
  // A window taken now skips a's held pairs and b's reserved one.
  std::vector<uint64_t> c = ctx_window_take();
  CHECK(disjoint(a, c));
  REQUIRE(ctx_window_finish("test", a, all, &ca) == MPI_SUCCESS);
  CHECK(ca == kFirstFreeCtx);
  ctx_window_release(c);
  release_context_id(ca);
  release_context_id(cb);
}

TEST_CASE("a context id window with nothing in common fails with a message", "[ctx]") {
  std::vector<uint64_t> w = ctx_window_take();
  std::vector<uint64_t> none(kCtxMaskWords, 0);
  uint32_t ctx = 0;
  int rc = ctx_window_finish("MPI_Comm_idup", w, none, &ctx);
  CHECK(error_class_of(rc) == MPI_ERR_INTERN);
  // The window is given back either way: the next one starts at the lowest pair again.
  std::vector<uint64_t> again = ctx_window_take();
  CHECK(again == w);
  ctx_window_release(again);
}
