// Partitioned point-to-point (MPI-4): MPI_Psend_init / MPI_Precv_init, MPI_Pready(_range,
// _list), MPI_Parrived. Each send partition travels as its own message as soon as it may: the
// sender sends partition k once partitions 0..k are ready, so the messages of one channel
// arrive in partition order. The two sides may cut the buffer into different numbers of
// partitions (MPI 4.1, 4.2), and neither knows the other's: the receiver takes the messages one
// after the other, each into the rest of its buffer from where the previous one ended, and a
// receive partition has arrived once the elements received cover it. (With zero elements in
// all there is nothing to cut: one empty receive per partition, as many as the sender sends
// when both sides agree.) The channel is the communicator's collective context with a
// negative tag made from the user's (internal traffic there uses only positive tags and never
// MPI_ANY_TAG); sends of several requests to one (peer, tag) leave in the order they were
// started, which is the order their receives are posted.
#include <algorithm>
#include <climits>
#include <deque>
#include <map>
#include <memory>
#include <tuple>

#include "runtime/api/check.h"
#include "runtime/core/info.h"
#include "runtime/p2p/p2p.h"
#include "runtime/p2p/request_ext.h"

using namespace mpr::runtime;
using namespace mpr::runtime::api;

namespace {

struct Partitioned {
  bool send = false;
  char* buf = nullptr;
  int partitions = 0;
  MPI_Count count = 0;  ///< elements per partition
  const Datatype* type = nullptr;
  int peer = 0;
  int tag = 0;
  // The current round (from MPI_Start): which partitions are ready, the first one not sent.
  std::vector<char> ready;
  int next = 0;
  // The receiver's round: elements received so far.
  MPI_Count got = 0;
  MPI_Count total() const { return count * partitions; }
};

// The channel's tag: users' tags 0..INT_MAX map below zero (INT_MAX - 1 and INT_MAX share one).
int channel_tag(int tag) { return INT_MIN + (tag < INT_MAX ? tag : INT_MAX - 1); }

// Element n of the buffer (counted in the request's datatype).
char* element_at(const Partitioned& p, MPI_Count n) {
  return p.buf + static_cast<ptrdiff_t>(n) * p.type->extent;
}

char* partition_at(const Partitioned& p, int k) { return element_at(p, MPI_Count{k} * p.count); }

// Channels: (collective context, peer, tag).
using Key = std::tuple<uint32_t, int, int>;

struct ReceiveRound;
void start_next_receive(ReceiveRound* c);

// Started receive rounds per channel, oldest first: only the first takes messages, since a
// receive for "the rest of the buffer" would take the next round's messages as well.
std::map<Key, std::deque<ReceiveRound*>>& receive_queues() {
  static std::map<Key, std::deque<ReceiveRound*>> q;
  return q;
}

// A partitioned receive's round: children[0] is the receive for the next message, taking the
// rest of the buffer; the round completes when the elements received fill it.
struct ReceiveRound : CompoundRequest {
  Partitioned* p = nullptr;
  Comm* wire = nullptr;
  Key key;
  bool queued = false;
  ~ReceiveRound() override { leave_queue(); }
  // Done (or freed): the next round of the channel may take its messages.
  void leave_queue() {
    if (!queued) return;
    queued = false;
    auto it = receive_queues().find(key);
    auto& q = it->second;
    const bool was_first = q.front() == this;
    q.erase(std::find(q.begin(), q.end(), this));
    if (q.empty()) {
      receive_queues().erase(it);
    } else if (was_first) {
      start_next_receive(q.front());
    }
  }
};

void start_next_receive(ReceiveRound* c) {
  Partitioned* p = c->p;
  c->children[0] = start_recv(c->wire, element_at(*p, p->got), p->total() - p->got, p->type,
                              p->peer, channel_tag(p->tag));
}

bool poll_receive_round(mpr::pml::Request* self) {
  auto* c = static_cast<ReceiveRound*>(self);
  Partitioned* p = c->p;
  bool progressed = false;
  while (c->children[0] && request_test(c->children[0])) {
    mpr::pml::Request* r = c->children[0];
    c->children[0] = nullptr;
    progressed = true;
    const size_t size = p->type->size;  // > 0: start_round takes this path only then
    if (r->status.error != mpr::pml::kOk || r->status.bytes % size != 0) {
      // Too long for the rest of the buffer, a peer gone, or a message that ends inside an
      // element of this side's type: the round ends with that error.
      c->status = r->status;
      if (c->status.error == mpr::pml::kOk) c->status.error = mpr::pml::kErrTruncate;
      request_destroy(r);
      c->held = 0;
      break;
    }
    p->got += static_cast<MPI_Count>(r->status.bytes / size);
    request_destroy(r);
    if (p->got < p->total())
      start_next_receive(c);
    else
      c->held = 0;
  }
  if (c->held == 0 && !c->children[0]) {
    c->complete = true;
    c->leave_queue();
  }
  return progressed;
}

CompoundRequest* start_receive_round(Comm* comm, Partitioned* p) {
  p->got = 0;
  auto* c = new ReceiveRound;
  adopt(c, comm);
  c->sub = RtRequest::Sub::kCompound;
  c->poll = poll_receive_round;
  c->p = p;
  c->wire = comm->internal();
  c->status = mpr::pml::Status{};
  c->held = 1;
  c->children.push_back(nullptr);
  c->key = Key{comm->ctx_coll(), p->peer, p->tag};
  c->queued = true;
  auto& q = receive_queues()[c->key];
  q.push_back(c);
  if (q.size() == 1) start_next_receive(c);
  poll_receive_round(c);
  return c;
}

// Started sends per channel, oldest first.
std::map<Key, std::deque<PersistentRequest*>>& send_queues() {
  static std::map<Key, std::deque<PersistentRequest*>> q;
  return q;
}

Partitioned* state_of(PersistentRequest* r) { return static_cast<Partitioned*>(r->ext.get()); }

// Send what may leave: the oldest started request's ready prefix, then the next request's.
void flush(const Key& key) {
  auto& queues = send_queues();
  auto it = queues.find(key);
  if (it == queues.end()) return;
  auto& q = it->second;
  while (!q.empty()) {
    PersistentRequest* r = q.front();
    Partitioned* p = state_of(r);
    auto* c = static_cast<CompoundRequest*>(r->child);
    Comm* wire = request_comm(r)->internal();
    while (p->next < p->partitions && p->ready[p->next]) {
      c->children[p->next] = start_send(wire, partition_at(*p, p->next), p->count, p->type, p->peer,
                                        channel_tag(p->tag), mpr::pml::SendMode::kStandard);
      --c->held;
      ++p->next;
    }
    if (p->next < p->partitions) break;
    q.pop_front();
  }
  if (q.empty()) queues.erase(it);
}

// MPI_Start of a partitioned request.
int start_round(PersistentRequest* self, MPI_Request* out) {
  Partitioned* p = state_of(self);
  Comm* comm = request_comm(self);
  if (p->peer == MPI_PROC_NULL) {
    *out = to_handle(completed_request(comm, MPI_PROC_NULL, MPI_ANY_TAG));
    return MPI_SUCCESS;
  }
  if (!p->send && p->total() > 0 && p->type->size > 0) {
    *out = to_handle(start_receive_round(comm, p));
    return MPI_SUCCESS;
  }
  std::vector<mpr::pml::Request*> children(p->partitions, nullptr);
  if (!p->send)
    for (int k = 0; k < p->partitions; ++k)
      children[k] = start_recv(comm->internal(), partition_at(*p, k), p->count, p->type, p->peer,
                               channel_tag(p->tag));
  CompoundRequest* c = compound_request(comm, std::move(children), -1);
  if (p->send) {
    c->held = p->partitions;
    c->complete = false;  // compound_request saw no children yet
    p->ready.assign(p->partitions, 0);
    p->next = 0;
  }
  *out = to_handle(c);
  return MPI_SUCCESS;
}

int init(const char* fn, bool send, const void* buf, int partitions, MPI_Count count,
         MPI_Datatype datatype, int peer, int tag, MPI_Comm h, MPI_Info info,
         MPI_Request* request) {
  Comm* comm;
  Datatype* dt;
  if (send)
    MPR_TRY(check_send(fn, h, buf, count, datatype, peer, tag, &comm, &dt));
  else
    MPR_TRY(check_recv(fn, h, buf, count, datatype, peer, tag, &comm, &dt));
  if (!send && peer == MPI_ANY_SOURCE)
    return raise_error(comm, MPI_ERR_RANK, fn,
                       "MPI_ANY_SOURCE is not allowed in partitioned communication");
  if (!send && tag == MPI_ANY_TAG)
    return raise_error(comm, MPI_ERR_TAG, fn,
                       "MPI_ANY_TAG is not allowed in partitioned communication");
  if (partitions < 1)
    return raise_error(comm, MPI_ERR_ARG, fn, "invalid partitions %d (must be >= 1)", partitions);
  if (info != MPI_INFO_NULL && !to_info(info))
    return raise_error(comm, MPI_ERR_INFO, fn, "invalid info handle %p", static_cast<void*>(info));
  MPR_TRY(check_arg(fn, comm, request, "request is NULL"));
  auto state = std::make_shared<Partitioned>();
  state->send = send;
  state->buf = static_cast<char*>(const_cast<void*>(buf));
  state->partitions = partitions;
  state->count = count;
  state->type = dt;
  state->peer = peer;
  state->tag = tag;
  PersistentRequest* r = persistent_coll_request(comm, nullptr, {dt});
  r->start_coll = [r, key = Key{comm->ctx_coll(), peer, tag}](MPI_Request* out) {
    int rc = start_round(r, out);
    // A send joins its channel's queue; MPI_Start makes *out its child right after this, and
    // partitions leave from the first MPI_Pready on.
    if (rc == MPI_SUCCESS && state_of(r)->send && state_of(r)->peer != MPI_PROC_NULL)
      send_queues()[key].push_back(r);
    return rc;
  };
  r->ext = state;
  *request = to_handle(r);
  return MPI_SUCCESS;
}

// The partitioned request behind a handle, active.
int check_partitioned(const char* fn, MPI_Request h, bool want_send, PersistentRequest** out) {
  MPR_TRY(check_running(fn));
  PersistentRequest* r = h == MPI_REQUEST_NULL ? nullptr : as_persistent(from_handle(h));
  Partitioned* p = r ? state_of(r) : nullptr;
  if (!p)
    return raise_error(nullptr, MPI_ERR_REQUEST, fn,
                       "the request was not made by MPI_Psend_init or MPI_Precv_init");
  if (p->send != want_send)
    return raise_error(request_comm(r), MPI_ERR_REQUEST, fn, "the request is a partitioned %s",
                       p->send ? "send" : "receive");
  if (!r->started)
    return raise_error(request_comm(r), MPI_ERR_REQUEST, fn,
                       "the request is inactive (start it with MPI_Start first)");
  *out = r;
  return MPI_SUCCESS;
}

int mark_ready(const char* fn, PersistentRequest* r, int k) {
  Partitioned* p = state_of(r);
  if (k < 0 || k >= p->partitions)
    return raise_error(request_comm(r), MPI_ERR_ARG, fn,
                       "invalid partition %d (the request has %d)", k, p->partitions);
  if (p->peer == MPI_PROC_NULL) return MPI_SUCCESS;
  if (p->ready[k])
    return raise_error(request_comm(r), MPI_ERR_ARG, fn,
                       "partition %d is already marked ready in this round", k);
  p->ready[k] = 1;
  return MPI_SUCCESS;
}

int pready(const char* fn, const int* list, int lo, int hi, MPI_Request request) {
  PersistentRequest* r;
  MPR_TRY(check_partitioned(fn, request, true, &r));
  for (int i = lo; i <= hi; ++i) MPR_TRY(mark_ready(fn, r, list ? list[i] : i));
  flush(Key{request_comm(r)->ctx_coll(), state_of(r)->peer, state_of(r)->tag});
  return MPI_SUCCESS;
}

}  // namespace

extern "C" int PMPI_Psend_init(const void* buf, int partitions, MPI_Count count,
                               MPI_Datatype datatype, int dest, int tag, MPI_Comm comm,
                               MPI_Info info, MPI_Request* request) {
  MPR_ENTRY;
  return init("MPI_Psend_init", true, buf, partitions, count, datatype, dest, tag, comm, info,
              request);
}
MPR_WEAK_ALIAS(Psend_init);

extern "C" int PMPI_Precv_init(void* buf, int partitions, MPI_Count count, MPI_Datatype datatype,
                               int source, int tag, MPI_Comm comm, MPI_Info info,
                               MPI_Request* request) {
  MPR_ENTRY;
  return init("MPI_Precv_init", false, buf, partitions, count, datatype, source, tag, comm, info,
              request);
}
MPR_WEAK_ALIAS(Precv_init);

extern "C" int PMPI_Pready(int partition, MPI_Request request) {
  MPR_ENTRY;
  return pready("MPI_Pready", nullptr, partition, partition, request);
}
MPR_WEAK_ALIAS(Pready);

extern "C" int PMPI_Pready_range(int partition_low, int partition_high, MPI_Request request) {
  MPR_ENTRY;
  constexpr const char* fn = "MPI_Pready_range";
  if (partition_low > partition_high && running())
    return raise_error(nullptr, MPI_ERR_ARG, fn, "partition_low %d is above partition_high %d",
                       partition_low, partition_high);
  return pready(fn, nullptr, partition_low, partition_high, request);
}
MPR_WEAK_ALIAS(Pready_range);

extern "C" int PMPI_Pready_list(int length, const int array_of_partitions[], MPI_Request request) {
  MPR_ENTRY;
  constexpr const char* fn = "MPI_Pready_list";
  if (running() && (length < 0 || (length > 0 && !array_of_partitions)))
    return raise_error(nullptr, MPI_ERR_ARG, fn, "invalid length %d or NULL array_of_partitions",
                       length);
  if (length == 0) return check_running(fn);
  return pready(fn, array_of_partitions, 0, length - 1, request);
}
MPR_WEAK_ALIAS(Pready_list);

extern "C" int PMPI_Parrived(MPI_Request request, int partition, int* flag) {
  MPR_ENTRY;
  constexpr const char* fn = "MPI_Parrived";
  PersistentRequest* r;
  MPR_TRY(check_partitioned(fn, request, false, &r));
  MPR_TRY(check_arg(fn, request_comm(r), flag, "flag is NULL"));
  Partitioned* p = state_of(r);
  if (partition < 0 || partition >= p->partitions)
    return raise_error(request_comm(r), MPI_ERR_ARG, fn,
                       "invalid partition %d (the request has %d)", partition, p->partitions);
  test_progress();
  // A finished round (its child is gone) or a partition whose receive has finished.
  auto* c = static_cast<CompoundRequest*>(r->child);
  if (!c || p->peer == MPI_PROC_NULL) {
    *flag = 1;
    return MPI_SUCCESS;
  }
  c->poll(c);
  if (c->poll == poll_receive_round)
    *flag = c->complete || p->got >= (partition + MPI_Count{1}) * p->count ? 1 : 0;
  else
    *flag = c->children[partition] == nullptr ? 1 : 0;
  return MPI_SUCCESS;
}
MPR_WEAK_ALIAS(Parrived);
