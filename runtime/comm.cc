#include "runtime/comm.h"

#include <algorithm>
#include <cstdint>

#include "runtime/coll/coll.h"
#include "runtime/state.h"

namespace mpr::runtime {

namespace {
// MPI_COMM_WORLD uses context ids 0/1 and MPI_COMM_SELF 2/3 in every process.
constexpr uint32_t kWorldCtx = 0;
constexpr uint32_t kSelfCtx = 2;
constexpr uint32_t kFirstFreeCtx = 4;
}  // namespace

Comm::Comm(std::vector<int> peers, int my_rank, uint32_t ctx, MPI_Comm predefined_handle)
    : peers_(std::move(peers)),
      rank_(my_rank),
      ctx_(ctx),
      handle_(predefined_handle),
      errhandler_(errhandler_fatal()) {}

Comm::~Comm() {
  magic_ = 0;
  errhandler_release(errhandler_);
}

void Comm::set_errhandler(Errhandler* e) {
  errhandler_retain(e);
  errhandler_release(errhandler_);
  errhandler_ = e;
}

void Comm::release() {
  if (--refs_ == 0) delete this;
}

Comm* to_comm(MPI_Comm h) {
  auto v = reinterpret_cast<uintptr_t>(h);
  if (v == reinterpret_cast<uintptr_t>(MPI_COMM_WORLD)) return g_state.world;
  if (v == reinterpret_cast<uintptr_t>(MPI_COMM_SELF)) return g_state.self;
  if (v < 0x1000) return nullptr;
  auto* c = reinterpret_cast<Comm*>(h);
  return c->valid() && !c->predefined() ? c : nullptr;
}

void comms_init() {
  const auto& bs = *g_state.bootstrap;
  std::vector<int> all(bs.size());
  for (int i = 0; i < bs.size(); ++i) all[i] = i;
  g_state.world = new Comm(std::move(all), bs.rank(), kWorldCtx, MPI_COMM_WORLD);
  g_state.world->set_name("MPI_COMM_WORLD");
  g_state.self = new Comm({bs.rank()}, 0, kSelfCtx, MPI_COMM_SELF);
  g_state.self->set_name("MPI_COMM_SELF");
  g_state.next_ctx = kFirstFreeCtx;
}

void comms_fini() {
  if (g_state.world) g_state.world->release();
  if (g_state.self) g_state.self->release();
  g_state.world = g_state.self = nullptr;
}

int agree_context_id(const char* fn, Comm* parent, uint32_t* out) {
  uint64_t want = g_state.next_ctx, agreed = 0;
  int rc = coll::allreduce_max_u64(fn, parent, want, &agreed);
  if (rc != MPI_SUCCESS) return rc;
  if (agreed > UINT32_MAX - 2) return make_error(MPI_ERR_INTERN, fn, "context ids exhausted");
  *out = static_cast<uint32_t>(agreed);
  g_state.next_ctx = *out + 2;
  return MPI_SUCCESS;
}

int comm_dup(Comm* parent, Comm** out) {
  uint32_t ctx = 0;
  int rc = agree_context_id("MPI_Comm_dup", parent, &ctx);
  if (rc != MPI_SUCCESS) return rc;
  auto* c = new Comm(parent->peers(), parent->rank(), ctx, MPI_COMM_NULL);
  c->set_errhandler(parent->errhandler());
  *out = c;
  return MPI_SUCCESS;
}

int comm_compare(const Comm* a, const Comm* b) {
  if (a == b) return MPI_IDENT;
  if (a->peers() == b->peers()) return MPI_CONGRUENT;
  std::vector<int> x = a->peers(), y = b->peers();
  std::sort(x.begin(), x.end());
  std::sort(y.begin(), y.end());
  return x == y ? MPI_SIMILAR : MPI_UNEQUAL;
}

}  // namespace mpr::runtime
