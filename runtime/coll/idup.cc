// MPI_Comm_idup(_with_info): the context id agreement of a dup as a nonblocking collective
// schedule on the parent, in rounds. In a round each member offers a mask of pairs (comm.h:
// ctx_window_take) and one flag word, and the schedule ANDs the offers (an allreduce with
// MPI_BAND; on an intercommunicator each group ANDs its own, the leaders swap and combine,
// each leader broadcasts). The round's completion hook reserves the lowest common pair and
// builds the communicator, or, when the AND is empty, starts the next round on the same tag.
//
// Offers of outstanding agreements must never overlap (whatever order they finish in, two of
// them must not pick one pair), and members may start the agreements of different parents in
// different orders. So, as in MPICH, a process lets one agreement at a time hold its free pairs:
// the outstanding one of highest priority (lowest parent context id, then lowest tag: the same
// order in every member) when the mask is not held; the others offer nothing for that round.
// An agreement holding the mask releases it at the end of each round. The highest-priority
// agreement thus holds the mask in every member from some round on, and succeeds then; the flag
// word tells whether every member offered, so an empty AND of full offers is a real shortage
// of context ids and fails rather than retrying forever.
//
// Being a collective on the parent, it takes the parent's next collective tag, so it is ordered
// against the parent's other collectives like any of them.
#include <algorithm>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "runtime/coll/coll.h"
#include "runtime/comm/attr.h"
#include "runtime/comm/comm_impl.h"
#include "runtime/core/errors.h"

namespace mpr::runtime::coll {

namespace {

struct Idup {
  uint64_t priority;             // parent context id, then tag: lower goes first
  std::vector<uint64_t> offer;   // this round: the held pairs or nothing, and the flag word
  std::vector<uint64_t> agreed;  // the AND of every member's offer
  std::vector<uint64_t> theirs;  // intercommunicator leaders: the other group's AND
  bool holds = false;            // `offer` holds this process's free pairs
  MPI_Comm* newcomm;
  bool set_hints;
  std::vector<std::pair<std::string, std::string>> hints;
};

// This process's outstanding agreements, and the one holding its free pairs.
std::vector<Idup*> g_waiting;
Idup* g_holder = nullptr;

void build_round(Schedule& s, Idup* st, Comm* parent) {
  const size_t words = st->offer.size();
  std::fill(st->offer.begin(), st->offer.end(), 0);
  std::fill(st->agreed.begin(), st->agreed.end(), 0);
  Idup* first = *std::min_element(g_waiting.begin(), g_waiting.end(),
                                  [](Idup* a, Idup* b) { return a->priority < b->priority; });
  if (!g_holder && first == st) {
    // The flag word: this member offered every pair it has free (a blocking agreement may
    // hold some right now; coll/comm.cc).
    st->offer[words - 1] = ctx_nothing_held() ? 1 : 0;
    std::vector<uint64_t> held = ctx_window_take();
    std::copy(held.begin(), held.end(), st->offer.begin());
    st->holds = true;
    g_holder = st;
  }
  const Datatype* u64 = predefined_datatype(Basic::kUInt64);
  s.set_reducer({predefined_op(OpId::kBand), u64, static_cast<size_t>(u64->extent), false});
  if (!parent->is_inter()) {
    allreduce(s, st->offer.data(), st->agreed.data(), words);
    return;
  }
  s.set_local(true);
  allreduce(s, st->offer.data(), st->agreed.data(), words);
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

// Let go of the held pairs (if any) and stop waiting.
std::vector<uint64_t> leave(Idup* st) {
  std::vector<uint64_t> held(st->offer.begin(), st->offer.end() - 1);
  if (st->holds) {
    g_holder = nullptr;
    st->holds = false;
  } else {
    held.assign(held.size(), 0);
  }
  return held;
}

int idup_done(NbcRequest* r, int err) {
  auto* st = static_cast<Idup*>(r->state.get());
  const char* fn = r->sched.fn();
  const bool all_offered = st->agreed.back() != 0;
  bool any = false;
  for (size_t w = 0; w + 1 < st->agreed.size(); ++w) any |= st->agreed[w] != 0;
  if (err == MPI_SUCCESS && !any && !all_offered) {
    // Someone's pairs were held by another agreement: everyone saw the same AND, so everyone
    // runs another round.
    if (st->holds) ctx_window_release(leave(st));
    Comm* parent = request_comm(r);
    restart_schedule(r);
    build_round(r->sched, st, parent);
    return kRunAgain;
  }
  std::vector<uint64_t> held = leave(st);
  g_waiting.erase(std::find(g_waiting.begin(), g_waiting.end(), st));
  ctx_idup_waiting(-1);
  if (err != MPI_SUCCESS) {
    ctx_window_release(held);
    return err;
  }
  // Every member offered: an empty AND is a real shortage, which ctx_window_finish reports.
  uint32_t ctx = 0;
  int rc = ctx_window_finish(fn, held, st->agreed, &ctx);
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
  st->priority = uint64_t{parent->ctx_p2p()} << 32 | static_cast<uint32_t>(r->sched.tag());
  const size_t words = kCtxMaskWords + 1;
  st->offer.assign(words, 0);
  st->agreed.assign(words, 0);
  st->newcomm = newcomm;
  st->set_hints = hints != nullptr;
  if (hints) st->hints = *hints;
  g_waiting.push_back(st.get());
  ctx_idup_waiting(+1);
  build_round(r->sched, st.get(), parent);
  r->state = st;
  r->on_done = &idup_done;
  start_nonblocking(r);
  *req = to_handle(r);
  return MPI_SUCCESS;
}

}  // namespace mpr::runtime::coll
