// Derived types through the runtime core and the pml in one process (a singleton job over the
// self backend, which has the same eager / rendezvous / copy-pipeline protocols as the others):
// non-contiguous senders use the copy pipeline and pack per fragment, non-contiguous receivers
// unpack eager payloads, fragments, or get() chunks landing in bounce buffers.
#include <catch2/catch.hpp>
#include <cstring>
#include <string>
#include <vector>

#include "runtime/core/bootstrap.h"
#include "runtime/core/state.h"
#include "runtime/dt/build.h"
#include "runtime/p2p/p2p.h"
#include "runtime/p2p/request.h"

using namespace mpr::runtime;
namespace pml = mpr::pml;

namespace {

int transfer(Comm* comm, const void* sbuf, int scount, const Datatype* stype, void* rbuf,
             int rcount, const Datatype* rtype, MPI_Status* st) {
  pml::Request* r = start_recv(comm, rbuf, rcount, rtype, 0, 5);
  pml::Request* s = start_send(comm, sbuf, scount, stype, 0, 5, pml::SendMode::kStandard);
  int rc = wait_and_finish("send", s, nullptr);
  int rc2 = wait_and_finish("recv", r, st);
  return rc != MPI_SUCCESS ? rc : rc2;
}

}  // namespace

TEST_CASE("derived types over the pml: eager, copy pipeline and get into bounce buffers",
          "[dtype][transfer]") {
  std::string seen;
  if (launcher_detected(&seen)) {
    WARN("skipped: started under a launcher (" << seen << "); this test needs a singleton");
    return;
  }
  int provided;
  REQUIRE(init("MPI_Init", MPI_THREAD_SINGLE, &provided) == MPI_SUCCESS);
  Comm* world = to_comm(MPI_COMM_WORLD);
  Datatype* dbl = to_datatype(MPI_DOUBLE);
  Datatype* byte = to_datatype(MPI_BYTE);

  for (int n : {16, 1 << 19}) {  // 256 bytes (eager) and 4 MiB (rendezvous)
    INFO("doubles: " << n);
    // Every other double of a 2n array.
    Datatype* every2 = dt::make_vector(n, 1, 2, dbl);
    every2->committed = true;
    // The same signature laid out as pairs of doubles every 3 doubles.
    Datatype* pairs = dt::make_vector(n / 2, 2, 3, dbl);
    pairs->committed = true;
    std::vector<double> src(2 * static_cast<size_t>(n));
    for (size_t i = 0; i < src.size(); ++i) src[i] = static_cast<double>(i) + 0.5;
    const pml::Stats before = the_pml().stats();

    // Non-contiguous sender, contiguous receiver.
    std::vector<double> flat(static_cast<size_t>(n), -1);
    MPI_Status st;
    REQUIRE(transfer(world, src.data(), 1, every2, flat.data(), n * 8, byte, &st) == MPI_SUCCESS);
    CHECK(status_bytes(&st) == static_cast<size_t>(n) * 8);
    bool ok = true;
    for (int i = 0; i < n; ++i) ok = ok && flat[i] == src[2 * i];
    CHECK(ok);

    // Contiguous sender, non-contiguous receiver (gaps stay untouched).
    std::vector<double> spread(2 * static_cast<size_t>(n), -7);
    REQUIRE(transfer(world, flat.data(), n, dbl, spread.data(), 1, every2, &st) == MPI_SUCCESS);
    ok = true;
    for (int i = 0; i < n; ++i) ok = ok && spread[2 * i] == src[2 * i] && spread[2 * i + 1] == -7;
    CHECK(ok);

    // Non-contiguous on both sides, different layouts of one signature.
    std::vector<double> other(3 * static_cast<size_t>(n / 2) + 1, -3);
    REQUIRE(transfer(world, src.data(), 1, every2, other.data(), 1, pairs, &st) == MPI_SUCCESS);
    ok = true;
    for (int i = 0; i < n; ++i) {
      size_t at = static_cast<size_t>(i / 2) * 3 + static_cast<size_t>(i % 2);
      ok = ok && other[at] == src[2 * i];
      if (i % 2 == 1) ok = ok && other[at + 1] == -3;
    }
    CHECK(ok);

    const pml::Stats& after = the_pml().stats();
    if (n > 1000) {
      // The sender's side went through the copy pipeline, packing fragment by fragment.
      CHECK(after.rndv_fallback_msgs >= before.rndv_fallback_msgs + 2);
    } else {
      CHECK(after.eager_msgs >= before.eager_msgs + 3);
    }
    every2->release();
    pairs->release();
  }

  {  // a type freed while its send and receive are pending
    Datatype* v = dt::make_vector(1 << 16, 1, 3, to_datatype(MPI_INT));
    v->committed = true;
    std::vector<int> a(3 << 16), b(3 << 16, 0);
    for (size_t i = 0; i < a.size(); ++i) a[i] = static_cast<int>(i);
    pml::Request* r = start_recv(world, b.data(), 1, v, 0, 9);
    pml::Request* s = start_send(world, a.data(), 1, v, 0, 9, pml::SendMode::kStandard);
    v->release();  // MPI_Type_free with both requests in flight
    CHECK(wait_and_finish("send", s, nullptr) == MPI_SUCCESS);
    CHECK(wait_and_finish("recv", r, nullptr) == MPI_SUCCESS);
    CHECK(b[3 * 1000] == 3000);
    CHECK(b[3 * 1000 + 1] == 0);
  }

  {  // a short message into a derived type: elements and count of what arrived
    int bl[] = {1, 1};
    MPI_Aint d[] = {0, 8};
    Datatype* types[] = {to_datatype(MPI_INT), dbl};
    Datatype* s = dt::make_struct(2, bl, d, types);
    s->committed = true;
    struct Rec {
      int i;
      double x;
    } recs[4] = {};
    char raw[12 + 4];
    int v1 = 5, v2 = 6;
    double x1 = 2.5;
    std::memcpy(raw, &v1, 4);
    std::memcpy(raw + 4, &x1, 8);
    std::memcpy(raw + 12, &v2, 4);
    MPI_Status st;
    REQUIRE(transfer(world, raw, 16, byte, recs, 4, s, &st) == MPI_SUCCESS);
    CHECK(recs[0].i == 5);
    CHECK(recs[0].x == 2.5);
    CHECK(recs[1].i == 6);
    CHECK(recs[1].x == 0);
    CHECK(s->elements_in(status_bytes(&st)) == 3);
    CHECK(s->count_in(status_bytes(&st)) == -1);
    s->release();
  }

  REQUIRE(finalize("MPI_Finalize") == MPI_SUCCESS);
}
