// MPI_Comm_idup(_with_info): the context id agreement of a dup as a nonblocking collective
// schedule on the parent. Each member offers a window of pairs it holds for the operation
// (comm.h: ctx_window_take); the schedule ANDs the offers (an allreduce with MPI_BAND; on an
// intercommunicator each group ANDs its own, the leaders swap and combine, each leader
// broadcasts), and its completion hook reserves the lowest common pair and builds the
// communicator. Being a collective on the parent, it takes the parent's next collective tag,
// so it is ordered against the parent's other collectives like any of them.
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "runtime/coll/coll.h"
#include "runtime/comm/attr.h"
#include "runtime/core/errors.h"

namespace mpr::runtime::coll {

namespace {

struct Idup {
  std::vector<uint64_t> window;  // this process's offer, held until the end
  std::vector<uint64_t> agreed;  // the AND of every member's offer
  std::vector<uint64_t> theirs;  // intercommunicator leaders: the other group's AND
  MPI_Comm* newcomm;
  bool set_hints;
  std::vector<std::pair<std::string, std::string>> hints;
};

int idup_done(NbcRequest* r, int err) {
  auto* st = static_cast<Idup*>(r->state.get());
  const char* fn = r->sched.fn();
  if (err != MPI_SUCCESS) {
    ctx_window_release(st->window);
    return err;
  }
  uint32_t ctx = 0;
  int rc = ctx_window_finish(fn, st->window, st->agreed, &ctx);
  if (rc != MPI_SUCCESS) return rc;
  Comm* parent = request_comm(r);
  Comm* c = nullptr;
  rc = comm_dup_finish(fn, parent, comm_clone_on(parent, ctx), &c);
  if (rc != MPI_SUCCESS) return rc;
  if (st->set_hints) c->hints() = std::move(st->hints);
  *st->newcomm = c->handle();
  return MPI_SUCCESS;
}

}  // namespace

int comm_idup(const char* fn, Comm* parent,
              const std::vector<std::pair<std::string, std::string>>* hints, MPI_Comm* newcomm,
              MPI_Request* req) {
  auto* r = new NbcRequest(fn, parent);
  auto st = std::make_shared<Idup>();
  st->window = ctx_window_take();
  const size_t words = st->window.size();
  st->agreed.assign(words, 0);
  st->newcomm = newcomm;
  st->set_hints = hints != nullptr;
  if (hints) st->hints = *hints;
  Schedule& s = r->sched;
  const Datatype* u64 = predefined_datatype(Basic::kUInt64);
  s.set_reducer({predefined_op(OpId::kBand), u64, static_cast<size_t>(u64->extent), false});
  if (!parent->is_inter()) {
    allreduce(s, st->window.data(), st->agreed.data(), words);
  } else {
    s.set_local(true);
    allreduce(s, st->window.data(), st->agreed.data(), words);
    s.fence();
    s.set_local(false);
    if (s.rank() == 0) {
      st->theirs.assign(words, 0);
      s.recv(st->theirs.data(), words * sizeof(uint64_t), 0);
      s.send(st->agreed.data(), words * sizeof(uint64_t), 0);
      s.reduce(st->theirs.data(), st->agreed.data(), words);
    }
    s.fence();
    s.set_local(true);
    bcast(s, st->agreed.data(), words * sizeof(uint64_t), 0);
    s.set_local(false);
  }
  r->state = st;
  r->on_done = &idup_done;
  start_nonblocking(r);
  *req = to_handle(r);
  return MPI_SUCCESS;
}

}  // namespace mpr::runtime::coll
