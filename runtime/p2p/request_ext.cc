#include "runtime/p2p/request_ext.h"

#include "runtime/core/errors.h"
#include "runtime/core/state.h"
#include "runtime/p2p/bsend.h"
#include "runtime/p2p/p2p.h"

namespace mpr::runtime {

namespace {

bool poll_persistent(pml::Request* self) {
  auto* p = static_cast<PersistentRequest*>(self);
  if (!p->child || !request_test(p->child)) return false;
  p->status = p->child->status;
  p->complete = true;
  // A send's round stays cancellable until the user completes it (an eager message is out at
  // once, yet its receiver may not have matched it): its child lives until then.
  if (p->op != PersistentRequest::Op::kSend && p->op != PersistentRequest::Op::kBsend) {
    request_destroy(p->child);
    p->child = nullptr;
  }
  return true;
}

bool poll_generalized(pml::Request* self) {
  auto* g = static_cast<GeneralizedRequest*>(self);
  if (!g->done.load(std::memory_order_acquire)) return false;
  g->complete = true;
  return true;
}

bool poll_compound(pml::Request* self) {
  auto* c = static_cast<CompoundRequest*>(self);
  bool progressed = false, pending = false;
  for (size_t i = 0; i < c->children.size(); ++i) {
    pml::Request*& child = c->children[i];
    if (!child) continue;
    if (!request_test(child)) {
      pending = true;
      continue;
    }
    // The designated child gives the status; any child's failure becomes the request's.
    if (static_cast<int>(i) == c->status_child) {
      int prior_error = c->status.error;
      c->status = child->status;
      if (c->status.error == pml::kOk) c->status.error = prior_error;
    } else if (child->status.error != pml::kOk && c->status.error == pml::kOk) {
      c->status.error = child->status.error;
      // Without a designated child the failure's own status says whose message it was.
      if (c->status_child < 0) c->status = child->status;
    }
    request_destroy(child);
    child = nullptr;
    progressed = true;
  }
  if (!pending && c->held == 0) c->complete = true;
  return progressed;
}

void cancel_one(pml::Request* r) {
  if (!r) return;
  // A send, even one complete here, may still be withdrawn from its receiver: the pml asks
  // and the request completes (cancelled or not) when the answer comes.
  if (r->kind == pml::Request::Kind::kSend) {
    the_pml().cancel(r);
    return;
  }
  if (r->kind == pml::Request::Kind::kGeneric &&
      static_cast<RtRequest*>(r)->sub == RtRequest::Sub::kBuffered) {
    buffered_cancel(static_cast<RtRequest*>(r));
    return;
  }
  if (r->complete) return;
  if (r->kind == pml::Request::Kind::kRecv) {
    the_pml().cancel(r);
    return;
  }
  request_cancel(r);
}

}  // namespace

PersistentRequest::~PersistentRequest() {
  if (child) request_destroy(child);
  if (type) type->release();
  for (const Datatype* t : kept_types) t->release();
}

GeneralizedRequest::~GeneralizedRequest() {
  if (free_fn) free_fn(extra_state);
}

CompoundRequest::~CompoundRequest() {
  for (pml::Request* c : children)
    if (c) request_destroy(c);
}

PersistentRequest* persistent_request(Comm* comm, PersistentRequest::Op op, pml::SendMode mode,
                                      const void* buf, MPI_Count count, const Datatype* type,
                                      int peer, int tag) {
  auto* r = new PersistentRequest;
  adopt(r, comm);
  r->sub = RtRequest::Sub::kPersistent;
  r->persistent = true;
  r->complete = true;  // inactive: waits return at once
  r->poll = poll_persistent;
  r->op = op;
  r->mode = mode;
  r->buf = buf;
  r->count = count;
  r->type = type;
  type->retain();  // MPI_Type_free may come before MPI_Request_free
  r->peer = peer;
  r->tag = tag;
  return r;
}

PersistentRequest* persistent_coll_request(Comm* comm, std::function<int(MPI_Request*)> start,
                                           std::vector<const Datatype*> types) {
  auto* r = new PersistentRequest;
  adopt(r, comm);
  r->sub = RtRequest::Sub::kPersistent;
  r->persistent = true;
  r->complete = true;  // inactive
  r->poll = poll_persistent;
  r->op = PersistentRequest::Op::kColl;
  r->start_coll = std::move(start);
  for (const Datatype* t : types) t->retain();
  r->kept_types = std::move(types);
  return r;
}

int persistent_start(const char* fn, PersistentRequest* r, bool* raised) {
  *raised = false;
  if (r->started)
    return make_error(MPI_ERR_REQUEST, fn,
                      "the persistent request is still active (complete it before restarting)");
  Comm* comm = request_comm(r);
  if (r->child) {  // the previous round's (a send's child lives until the next start)
    request_destroy(r->child);
    r->child = nullptr;
  }
  switch (r->op) {
    case PersistentRequest::Op::kSend:
      r->child = start_send(comm, r->buf, r->count, r->type, r->peer, r->tag, r->mode);
      break;
    case PersistentRequest::Op::kBsend: {
      if (r->peer == MPI_PROC_NULL) {
        r->child = completed_request(comm, MPI_PROC_NULL, MPI_ANY_TAG);
        break;
      }
      BsendBuffer* b = bsend_for(comm);
      uint64_t ticket = 0;
      int rc = b->send(fn, comm, r->buf, r->count, r->type, r->peer, r->tag, &ticket);
      if (rc != MPI_SUCCESS) return rc;
      r->child = buffered_request(comm, b, ticket);
      break;
    }
    case PersistentRequest::Op::kRecv:
      r->child = start_recv(comm, const_cast<void*>(r->buf), r->count, r->type, r->peer, r->tag);
      break;
    case PersistentRequest::Op::kColl: {
      MPI_Request h = MPI_REQUEST_NULL;
      int rc = r->start_coll(&h);
      if (rc != MPI_SUCCESS) {
        *raised = true;
        return rc;
      }
      r->child = from_handle(h);
      break;
    }
  }
  r->started = true;
  r->complete = false;
  r->status = pml::Status{};
  poll_persistent(r);
  return MPI_SUCCESS;
}

GeneralizedRequest* generalized_request(Comm* comm, MPI_Grequest_query_function* query_fn,
                                        MPI_Grequest_free_function* free_fn,
                                        MPI_Grequest_cancel_function* cancel_fn,
                                        void* extra_state) {
  auto* g = new GeneralizedRequest;
  adopt(g, comm);
  g->sub = RtRequest::Sub::kGeneralized;
  g->poll = poll_generalized;
  g->query_fn = query_fn;
  g->free_fn = free_fn;
  g->cancel_fn = cancel_fn;
  g->extra_state = extra_state;
  return g;
}

CompoundRequest* compound_request(Comm* comm, std::vector<pml::Request*> children,
                                  int status_child) {
  auto* c = new CompoundRequest;
  adopt(c, comm);
  c->sub = RtRequest::Sub::kCompound;
  c->poll = poll_compound;
  c->children = std::move(children);
  c->status_child = status_child;
  c->status = pml::Status{};
  poll_compound(c);
  return c;
}

PersistentRequest* as_persistent(pml::Request* r) {
  if (r->kind != pml::Request::Kind::kGeneric) return nullptr;
  auto* rt = static_cast<RtRequest*>(r);
  return rt->sub == RtRequest::Sub::kPersistent ? static_cast<PersistentRequest*>(rt) : nullptr;
}

GeneralizedRequest* as_generalized(pml::Request* r) {
  if (r->kind != pml::Request::Kind::kGeneric) return nullptr;
  auto* rt = static_cast<RtRequest*>(r);
  return rt->sub == RtRequest::Sub::kGeneralized ? static_cast<GeneralizedRequest*>(rt) : nullptr;
}

bool request_active(pml::Request* r) {
  PersistentRequest* p = as_persistent(r);
  return !p || p->started;
}

void request_cancel(pml::Request* r) {
  if (r->kind != pml::Request::Kind::kGeneric) {
    cancel_one(r);
    return;
  }
  auto* rt = static_cast<RtRequest*>(r);
  switch (rt->sub) {
    case RtRequest::Sub::kPlain:
      cancel_one(rt->inner);
      break;
    case RtRequest::Sub::kPersistent: {
      auto* p = static_cast<PersistentRequest*>(rt);
      if (!p->started || !p->child) break;
      cancel_one(p->child);
      // A completed round asked to withdraw its message reports the answer: now when it came
      // at once (a message to oneself), else once it comes.
      if (p->complete) {
        if (request_test(p->child))
          p->status = p->child->status;
        else
          p->complete = false;
      }
      break;
    }
    case RtRequest::Sub::kGeneralized: {
      auto* g = static_cast<GeneralizedRequest*>(rt);
      if (g->cancel_fn) g->cancel_fn(g->extra_state, g->done.load() ? 1 : 0);
      break;
    }
    case RtRequest::Sub::kCompound:
      for (pml::Request* c : static_cast<CompoundRequest*>(rt)->children) cancel_one(c);
      break;
    case RtRequest::Sub::kBuffered:
      buffered_cancel(rt);
      break;
  }
}

}  // namespace mpr::runtime
