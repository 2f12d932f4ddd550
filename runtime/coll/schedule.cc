#include "runtime/coll/schedule.h"

#include <algorithm>
#include <cassert>
#include <cstring>
#include <memory>

#include "common/params.h"
#include "runtime/coll/tuning.h"
#include "runtime/core/errors.h"
#include "runtime/core/state.h"

namespace mpr::runtime::coll {

namespace {

// Collective tags stay in [1, 2^30]: below the communicator-construction tags (comm_ctl.h) and
// never negative. Wrapping needs 2^30 operations outstanding at once, which cannot happen.
constexpr uint32_t kTagSpan = 1u << 30;
// Persistent neighborhood collectives: kNeighborSlots tags each, above the schedules' range.
constexpr int kNeighborTagBase = 0x40001000;
constexpr uint32_t kNeighborTagSets = 1u << 23;  // up to 0x60001000, below comm_ctl.h's tags

thread_local int t_fixed_tag = 0;

// Outstanding nonblocking collectives of this process, advanced on every pml progress().
std::vector<NbcRequest*> g_active;
bool g_in_hook = false;

// The request reports the schedule's first failure through the pml status the wait calls read.
// False when on_done started another round (the request stays outstanding).
bool complete(NbcRequest* r) {
  int err = r->sched.error();
  if (r->on_done) {
    // Runs once per round, also after a failed schedule (so it can give back what it holds).
    int rc = r->on_done(r, err);
    if (rc == kRunAgain) {
      // The next round starts now and is looked at again by the next progress: a round that
      // finishes at once (a communicator of one) must not spin here, where nothing else
      // progresses.
      r->sched.seal();
      r->sched.advance();
      return false;
    }
    r->on_done = nullptr;
    if (err == MPI_SUCCESS) err = rc;
  }
  if (err != MPI_SUCCESS)
    r->status.error =
        error_class_of(err) == MPI_ERR_TRUNCATE ? pml::kErrTruncate : pml::kErrTransport;
  r->complete = true;
  return true;
}

int progress_nonblocking() {
  // A user reduction function that calls back into MPI would re-enter here.
  if (g_in_hook || g_active.empty()) return 0;
  g_in_hook = true;
  int events = 0;
  for (size_t i = 0; i < g_active.size();) {
    NbcRequest* r = g_active[i];
    if (r->sched.advance() && complete(r)) {
      ++events;
      g_active.erase(g_active.begin() + static_cast<ptrdiff_t>(i));
    } else {
      ++i;
    }
  }
  g_in_hook = false;
  return events;
}

// The request's poll hook (Wait/Test on this very request).
bool poll_nonblocking(pml::Request* self) {
  auto* r = static_cast<NbcRequest*>(self);
  if (r->complete) return false;
  if (!r->sched.advance() || !complete(r)) return false;
  auto it = std::find(g_active.begin(), g_active.end(), r);
  if (it != g_active.end()) g_active.erase(it);
  return true;
}

}  // namespace

void Reducer::apply(const void* in, void* inout, size_t count) const {
  // User functions take an int count: hand them at most 2^30 elements at a time.
  constexpr size_t kMaxChunk = 1u << 30;
  const char* a = static_cast<const char*>(in);
  char* b = static_cast<char*>(inout);
  while (count > 0) {
    size_t n = std::min(count, kMaxChunk);
    if (packed)
      apply_packed(a, b, n);
    else
      op_apply(op, a, b, static_cast<int>(n), type);
    a += n * esz;
    b += n * esz;
    count -= n;
  }
}

void Reducer::apply_packed(const void* in, void* inout, size_t count) const {
  ptrdiff_t lo;
  size_t span;
  type->span(count, &lo, &span);
  std::vector<char> a(span), b(span);
  // The span starts `lo` bytes after the elements' origin (integer sum: lo may be positive and
  // point the origin before the allocation).
  auto origin = [lo](std::vector<char>& v) {
    return reinterpret_cast<char*>(reinterpret_cast<uintptr_t>(v.data()) -
                                   static_cast<uintptr_t>(lo));
  };
  type->unpack(in, count * type->size, origin(a));
  type->unpack(inout, count * type->size, origin(b));
  op_apply(op, origin(a), origin(b), static_cast<int>(count), type);
  type->pack(origin(b), count, inout);
}

// Blocking collectives never nest, so one or two spares cover them; nonblocking ones that
// outlive their siblings simply allocate.
std::vector<Schedule::Memory*> Schedule::spares_;

Schedule::Schedule(const char* fn, Comm* comm, Mode mode)
    : fn_(fn),
      comm_(comm),
      local_comm_(comm->is_inter() ? comm->local_comm() : comm),
      tag_(call_tag(comm)),
      immediate_(mode == Mode::kImmediate) {}

int call_tag(Comm* comm) {
  return t_fixed_tag ? t_fixed_tag : static_cast<int>(1 + comm->next_coll_seq() % kTagSpan);
}

int reserve_tag(Comm* comm) { return static_cast<int>(1 + comm->next_coll_seq() % kTagSpan); }

int reserve_neighbor_tags(Comm* comm) {
  return kNeighborTagBase +
         static_cast<int>(comm->next_coll_seq() % kNeighborTagSets) * kNeighborSlots;
}

FixedTag::FixedTag(int tag) : prev_(t_fixed_tag) { t_fixed_tag = tag; }
FixedTag::~FixedTag() { t_fixed_tag = prev_; }
int fixed_tag() { return t_fixed_tag; }

Schedule::Memory& Schedule::mem() {
  if (!mem_) {
    if (spares_.empty()) {
      mem_ = new Memory;
    } else {
      mem_ = spares_.back();
      spares_.pop_back();
    }
  }
  return *mem_;
}

Schedule::~Schedule() {
  for (const Datatype* t : kept_types_) t->release();
  if (!mem_) return;
  if (spares_.size() >= kSpares) {
    delete mem_;
    return;
  }
  mem_->steps.clear();
  mem_->inflight.clear();
  if (!mem_->buffers.empty()) trim(mem_->buffers, spares_.empty());
  spares_.push_back(mem_);
}

void Schedule::trim(std::vector<Buffer>& bufs, bool keep_any) {
  // Only one spare keeps large buffers, the largest up to kMaxKeptBytes in all, so an idle
  // process holds at most that much.
  if (!keep_any) {
    bufs.clear();
    return;
  }
  std::sort(bufs.begin(), bufs.end(),
            [](const Buffer& a, const Buffer& b) { return a.size > b.size; });
  size_t kept = 0, n = 0;
  for (; n < bufs.size() && kept + bufs[n].size <= kMaxKeptBytes; ++n) {
    kept += bufs[n].size;
    bufs[n].used = false;
  }
  bufs.resize(n);
}

void Schedule::add(const Step& s) {
  if (immediate_)
    execute(s);
  else
    mem().steps.push_back(s);
  group_break_ = false;
}

void Schedule::execute(const Step& s) {
  if (!is_transfer(s)) {
    wait_inflight();
    run_local(s);
    return;
  }
  if (s.new_group) wait_inflight();
  post(s);
}

void Schedule::wait_inflight() {
  if (!mem_ || mem_->inflight.empty()) {
    sent_in_group_ = false;  // the group is over either way
    return;
  }
  auto all_done = [this] {
    for (; first_open_ < mem_->inflight.size(); ++first_open_)
      if (!mem_->inflight[first_open_]->complete) return false;
    return true;
  };
  if (!all_done()) block_until(all_done);
  for (pml::Request* r : mem_->inflight) reap(r);
  mem_->inflight.clear();
  first_open_ = 0;
  sent_in_group_ = false;
}

// Transfers in (segment, segment_max] bytes go as segments of `segment` bytes, posted together:
// with the default segment (the shm eager limit) they travel eagerly, and a few eager copies
// beat the rendezvous handshake plus a cross-memory-attach call up to tens of KiB.
struct Segmenting {
  size_t segment = static_cast<size_t>(common::param_int("MPR_COLL_SEGMENT"));
  size_t max = static_cast<size_t>(common::param_int("MPR_COLL_SEGMENT_MAX"));
};
Segmenting segmenting() {
  return dynamic_tunables() ? Segmenting() : common::tunables_once<Segmenting>();
}

void Schedule::transfer(Kind kind, const void* src, void* dst, size_t bytes, int peer) {
  const Segmenting seg = segmenting();
  if (seg.segment == 0 || bytes <= seg.segment || bytes > seg.max) {
    add({kind, group_break_, local_, peer, bytes, src, dst, nullptr});
    return;
  }
  // Both sides cut the same byte count the same way, and the pml keeps the pieces in order.
  for (size_t off = 0; off < bytes; off += seg.segment) {
    const size_t n = std::min(seg.segment, bytes - off);
    add({kind, group_break_, local_, peer, n, src ? static_cast<const char*>(src) + off : nullptr,
         dst ? static_cast<char*>(dst) + off : nullptr, nullptr});
  }
}

void Schedule::send(const void* buf, size_t bytes, int peer) {
  transfer(Kind::kSend, buf, nullptr, bytes, peer);
}

void Schedule::recv(void* buf, size_t bytes, int peer) {
  transfer(Kind::kRecv, nullptr, buf, bytes, peer);
}

void Schedule::copy(void* dst, const void* src, size_t bytes) {
  if (bytes == 0 || dst == src) return;
  add({Kind::kCopy, false, false, -1, bytes, src, dst, nullptr});
}

void Schedule::reduce(const void* in, void* inout, size_t count) {
  if (count == 0) return;
  add({Kind::kReduce, false, false, -1, count, in, inout, nullptr});
}

void Schedule::keep(const Datatype* type) {
  if (!type || type->predefined) return;
  type->retain();
  kept_types_.push_back(type);
}

void Schedule::unpack(const Datatype* type, const void* packed, size_t bytes, void* out) {
  if (bytes == 0) return;
  keep(type);
  add({Kind::kUnpack, false, false, -1, bytes, packed, out, type});
}

void Schedule::defer_unpack(const Datatype* type, const void* packed, size_t bytes, void* out) {
  if (bytes == 0) return;
  keep(type);
  deferred_.push_back({Kind::kUnpack, false, false, -1, bytes, packed, out, type});
}

void Schedule::seal() {
  for (const Step& s : deferred_) add(s);
  deferred_.clear();
}

char* Schedule::scratch(size_t bytes) {
  const size_t rounded = (bytes + 15) & ~size_t{15};
  if (rounded <= sizeof small_ - small_used_) {
    char* p = small_ + small_used_;
    small_used_ += rounded;
    return p;
  }
  Memory& m = mem();
  if (rounded <= kArenaBytes - arena_used_) {
    if (!m.arena) m.arena = std::make_unique_for_overwrite<char[]>(kArenaBytes);
    char* p = m.arena.get() + arena_used_;
    arena_used_ += rounded;
    return p;
  }
  // The smallest kept buffer that fits, else a new one.
  Buffer* best = nullptr;
  for (Buffer& b : m.buffers)
    if (!b.used && b.size >= bytes && (!best || b.size < best->size)) best = &b;
  if (!best) {
    m.buffers.push_back({std::make_unique_for_overwrite<char[]>(rounded), rounded, false});
    best = &m.buffers.back();
  }
  best->used = true;
  return best->mem.get();
}

void Schedule::post(const Step& s) {
  pml::Pml& p = the_pml();
  const Comm* c = s.local ? local_comm_ : comm_;
  const uint32_t ctx = c->ctx_coll();
  // After a failure (a message of the wrong length) this rank forwards empty messages: every
  // rank that expected data from it then fails too, instead of passing on garbage as success.
  const size_t n = s.kind == Kind::kSend && error_ != MPI_SUCCESS ? 0 : s.n;
  // Small sends and receives of messages already here complete without a request.
  if (s.kind == Kind::kSend) {
    if (p.send_now(s.src, n, c->peer(s.peer), c->rank(), tag_, ctx)) {
      sent_in_group_ = true;
      return;
    }
  } else {
    pml::Status st;
    if (p.recv_now(s.dst, s.n, s.peer, tag_, ctx, &st)) {
      note_status(st, s.n);
      return;
    }
  }
  pml::Request* r = s.kind == Kind::kSend ? p.isend(s.src, n, c->peer(s.peer), c->rank(), tag_, ctx,
                                                    pml::SendMode::kStandard)
                                          : p.irecv(s.dst, s.n, s.peer, tag_, ctx);
  // A receive remembers its length, so reap() can tell a short message from a full one.
  r->user = reinterpret_cast<void*>(s.kind == Kind::kSend ? kNoLength : s.n);
  // Eager sends and receives of messages already here are often done at once.
  if (r->complete)
    reap(r);
  else
    mem().inflight.push_back(r);
}

void Schedule::reap(pml::Request* r) {
  note_status(r->status, reinterpret_cast<size_t>(r->user));
  the_pml().release(r);
}

int message_error(const char* fn, const Comm* comm, const pml::Status& st, size_t expected) {
  if (st.error == pml::kOk && (expected == ~size_t{0} || st.bytes >= expected)) return MPI_SUCCESS;
  int peer =
      st.source >= 0 && st.source < std::max(comm->size(), comm->p2p_size()) ? st.source : -1;
  // Every message of a collective has the length both ends computed from their arguments; a
  // shorter one means the ranks passed different counts or datatypes.
  if (st.error == pml::kOk)
    return make_error(MPI_ERR_OTHER, fn,
                      "rank %d: message from rank %d has %zu bytes where %zu were expected "
                      "(ranks called the collective with mismatched counts or datatypes)",
                      comm->rank(), peer, st.bytes, expected);
  return st.error == pml::kErrTruncate
             ? make_error(MPI_ERR_TRUNCATE, fn,
                          "rank %d: message from rank %d longer than expected (ranks "
                          "called the collective with mismatched counts or datatypes)",
                          comm->rank(), peer)
             : make_error(MPI_ERR_OTHER, fn, "rank %d: transport failure with rank %d",
                          comm->rank(), peer);
}

void Schedule::note_status(const pml::Status& st, size_t expected) {
  if (error_ != MPI_SUCCESS) return;
  error_ = message_error(fn_, comm_, st, expected);
}

void Schedule::run_local(const Step& s) {
  switch (s.kind) {
    case Kind::kCopy:
      std::memmove(s.dst, s.src, s.n);
      break;
    case Kind::kReduce:
      reducer_.apply(s.src, s.dst, s.n);
      break;
    case Kind::kUnpack:
      s.type->unpack(s.src, s.n, s.dst);
      break;
    case Kind::kSend:
    case Kind::kRecv:
      break;
  }
}

bool Schedule::advance() {
  while (!done_) {
    if (mem_ && !mem_->inflight.empty()) {
      for (; first_open_ < mem_->inflight.size(); ++first_open_)
        if (!mem_->inflight[first_open_]->complete) return false;
      for (pml::Request* r : mem_->inflight) reap(r);
      mem_->inflight.clear();
      first_open_ = 0;
    }
    if (!mem_ || pos_ == mem_->steps.size()) {
      done_ = true;
      break;
    }
    if (!is_transfer(mem_->steps[pos_])) {
      run_local(mem_->steps[pos_++]);
      continue;
    }
    // Post the whole group; it ends at a local step or a fence.
    do post(mem_->steps[pos_++]);
    while (pos_ < mem_->steps.size() && is_transfer(mem_->steps[pos_]) &&
           !mem_->steps[pos_].new_group);
  }
  return true;
}

int Schedule::run() {
  assert(immediate_ && "a deferred schedule is driven by advance()");
  wait_inflight();
  done_ = true;
  return error_;
}

template <typename Done>
void Schedule::block_until(Done done) {
  // A job with at most one rank per CPU polls for MPR_COLL_SPIN_US before it yields: yielding
  // on a busy machine gives the core to another process for a whole time slice. With more
  // ranks than CPUs it yields whenever a poll found nothing, the peer it waits for may need its
  // CPU; except that a rank whose send of this group went out at once (an exchange: it waits
  // for the answer) first polls MPR_EXCHANGE_SPIN_COUNT times, as the peer may be running on
  // another CPU right now and answer sooner than a yield and the switch back take. A rank that
  // only waits for data (a bcast receiver, a sender waiting for ring space) yields at once.
  // (Measurements: runtime/coll/README.md.)
  coll::block_until(sent_in_group_ ? common::WaitKind::kExchange : common::WaitKind::kTimed, done);
}

NbcRequest::NbcRequest(const char* fn, Comm* comm) : sched(fn, comm) {
  adopt(this, comm);
  poll = &poll_nonblocking;
}

void start_nonblocking(NbcRequest* req) {
  req->sched.seal();
  // Set on every start: the pml is created anew by each MPI_Init (unit tests init repeatedly).
  the_pml().add_progress_hook(&progress_nonblocking);
  if (!req->sched.advance() || !complete(req)) g_active.push_back(req);
}

void restart_schedule(NbcRequest* req) {
  const char* fn = req->sched.fn();
  Comm* comm = req->sched.comm();
  FixedTag same(req->sched.tag());
  std::destroy_at(&req->sched);
  std::construct_at(&req->sched, fn, comm);
}

}  // namespace mpr::runtime::coll
