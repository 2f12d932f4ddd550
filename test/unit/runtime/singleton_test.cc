// The runtime core in one process (a singleton job over the pml's self backend): init,
// messages to itself, collectives on one rank, communicator dup, error handlers, finalize.
// MPI can be initialized once per process, so the whole lifecycle is one test case, one
// block per behaviour.
#include <sys/wait.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <cstring>
#include <string>

#include "runtime/coll/coll.h"
#include "runtime/comm/comm.h"
#include "runtime/core/bootstrap.h"
#include "runtime/core/errors.h"
#include "runtime/core/state.h"
#include "runtime/p2p/p2p.h"
#include "runtime/p2p/request.h"

using namespace mpr::runtime;
namespace pml = mpr::pml;

namespace {

// Fork; the child runs `body` and must exit by itself. Returns the child's exit status.
template <class F>
int exit_status_of(F body) {
  pid_t pid = fork();
  if (pid == 0) {
    body();
    _exit(100);
  }
  int status = 0;
  waitpid(pid, &status, 0);
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

}  // namespace

TEST_CASE("singleton lifecycle through the runtime core", "[runtime][singleton]") {
  std::string seen;
  if (launcher_detected(&seen)) {
    WARN("skipped: started under a launcher (" << seen << "); this test needs a singleton");
    return;
  }
  REQUIRE(g_state.phase == Phase::kBefore);
  int provided = -1;
  REQUIRE(init("MPI_Init_thread", MPI_THREAD_MULTIPLE, &provided) == MPI_SUCCESS);
  CHECK(provided == MPI_THREAD_MULTIPLE);
  REQUIRE(running());
  Comm* world = to_comm(MPI_COMM_WORLD);
  Comm* self = to_comm(MPI_COMM_SELF);
  REQUIRE(world != nullptr);
  REQUIRE(self != nullptr);
  CHECK(world->size() == 1);
  CHECK(world->rank() == 0);
  CHECK(world->name() == "MPI_COMM_WORLD");
  CHECK(self->name() == "MPI_COMM_SELF");
  CHECK(world->ctx_p2p() != self->ctx_p2p());
  CHECK(world->ctx_coll() != world->ctx_p2p());
  CHECK(comm_compare(world, self) == MPI_CONGRUENT);
  CHECK(to_comm(reinterpret_cast<MPI_Comm>(0x103)) == nullptr);

  const Datatype* int_t = to_datatype(MPI_INT);
  const Datatype* di_t = to_datatype(MPI_DOUBLE_INT);

  {  // a message to itself, received by wildcard
    int out = 41, in = 0;
    pml::Request* r = start_recv(world, &in, 1, int_t, MPI_ANY_SOURCE, MPI_ANY_TAG);
    pml::Request* s = start_send(world, &out, 1, int_t, 0, 9, pml::SendMode::kStandard);
    MPI_Status st;
    CHECK(wait_and_finish("test", s, nullptr) == MPI_SUCCESS);
    CHECK(wait_and_finish("test", r, &st) == MPI_SUCCESS);
    CHECK(in == 41);
    CHECK(st.MPI_SOURCE == 0);
    CHECK(st.MPI_TAG == 9);
    CHECK(status_bytes(&st) == sizeof(int));
  }

  {  // non-contiguous pairs travel packed and arrive unpacked
    struct DI {
      double v;
      int i;
    } out[2] = {{1.25, 3}, {2.5, 4}}, in[2] = {};
    pml::Request* r = start_recv(world, in, 2, di_t, 0, 1);
    pml::Request* s = start_send(world, out, 2, di_t, 0, 1, pml::SendMode::kSync);
    MPI_Status st;
    CHECK(wait_and_finish("test", s, nullptr) == MPI_SUCCESS);
    CHECK(wait_and_finish("test", r, &st) == MPI_SUCCESS);
    CHECK(in[1].v == 2.5);
    CHECK(in[1].i == 4);
    CHECK(status_bytes(&st) == 2 * di_t->size);
  }

  {  // a truncated receive gives MPI_ERR_TRUNCATE in the code; a single completion leaves the
     // status's MPI_ERROR alone (only the multiple-completion calls set it)
    char big[64], small[8] = {};
    std::memset(big, 7, sizeof big);
    pml::Request* s =
        start_send(world, big, 64, to_datatype(MPI_CHAR), 0, 2, pml::SendMode::kStandard);
    pml::Request* r = start_recv(world, small, 8, to_datatype(MPI_CHAR), 0, 2);
    MPI_Status st;
    st.MPI_ERROR = 4242;
    int code = wait_and_finish("MPI_Recv", r, &st);
    CHECK(error_class_of(code) == MPI_ERR_TRUNCATE);
    CHECK(st.MPI_ERROR == 4242);
    CHECK(error_string(code).rfind("MPI_Recv: ", 0) == 0);
    CHECK(small[7] == 7);
    wait_and_finish("test", s, nullptr);
  }

  {  // MPI_PROC_NULL completes at once
    pml::Request* r = start_recv(world, nullptr, 0, int_t, MPI_PROC_NULL, 0);
    CHECK(request_test(r));
    MPI_Status st;
    CHECK(request_finish("test", r, &st) == MPI_SUCCESS);
    CHECK(st.MPI_SOURCE == MPI_PROC_NULL);
    CHECK(st.MPI_TAG == MPI_ANY_TAG);
    CHECK(status_bytes(&st) == 0);
  }

  {  // collectives on one rank and a dup with fresh context ids
    double in[2] = {1.5, -2}, out[2] = {};
    CHECK(coll::allreduce("test", world, in, out, 2, to_datatype(MPI_DOUBLE), to_op(MPI_SUM)) ==
          MPI_SUCCESS);
    CHECK(out[1] == -2);
    CHECK(coll::barrier("test", world) == MPI_SUCCESS);
    Comm* a = nullptr;
    Comm* b = nullptr;
    REQUIRE(comm_dup(world, &a) == MPI_SUCCESS);
    REQUIRE(comm_dup(a, &b) == MPI_SUCCESS);
    CHECK(a->ctx_p2p() != world->ctx_p2p());
    CHECK(b->ctx_p2p() != a->ctx_p2p());
    CHECK(b->ctx_p2p() != a->ctx_coll());
    CHECK(comm_compare(a, world) == MPI_CONGRUENT);
    CHECK(to_comm(a->handle()) == a);
    a->mark_freed();
    CHECK(to_comm(a->handle()) == nullptr);
    a->release();
    b->mark_freed();
    b->release();
  }

  {  // MPI_ERRORS_RETURN returns the code; the default handler ends the process
    world->set_errhandler(errhandler_return());
    int code = raise_error(world, MPI_ERR_RANK, "MPI_Send", "invalid rank %d", 3);
    CHECK(error_class_of(code) == MPI_ERR_RANK);
    world->set_errhandler(errhandler_fatal());
    int status =
        exit_status_of([&] { raise_error(world, MPI_ERR_TAG, "MPI_Send", "invalid tag %d", -5); });
    CHECK(status == MPI_ERR_TAG);
  }

  CHECK(finalize("MPI_Finalize") == MPI_SUCCESS);
  CHECK(g_state.phase == Phase::kFinalized);
  CHECK_FALSE(running());
}
