#include "runtime/p2p/request.h"

#include <cstdint>
#include <vector>

#include "common/params.h"
#include "runtime/core/errors.h"
#include "runtime/core/state.h"
#include "runtime/p2p/request_ext.h"

namespace mpr::runtime {

namespace {

std::vector<RtRequest*> g_orphans;

// Finish a wrapper whose inner request completed: take its status, unpack, let the pml go.
void finish_wrapper(RtRequest* w) {
  w->status = w->inner->status;
  if (w->unpack_type && w->status.bytes > 0)
    w->unpack_type->unpack(w->staging.get(), w->status.bytes, w->user_buf);
  the_pml().release(w->inner);
  w->inner = nullptr;
  w->complete = true;
}

}  // namespace

void request_destroy(pml::Request* r) {
  Comm* comm = request_comm(r);
  if (r->kind == pml::Request::Kind::kGeneric)
    delete static_cast<RtRequest*>(r);  // virtual: the subtypes free their children
  else
    the_pml().release(r);
  if (comm) comm->release();
}

pml::Request* adopt(pml::Request* r, Comm* comm) {
  comm->retain();
  r->user = comm;
  return r;
}

RtRequest* completed_request(Comm* comm, int source, int tag) {
  auto* r = new RtRequest;
  adopt(r, comm);
  r->status.source = source;
  r->status.tag = tag;
  r->complete = true;
  return r;
}

RtRequest* wrapper_request(Comm* comm, pml::Request* inner) {
  auto* r = new RtRequest;
  adopt(r, comm);
  r->inner = inner;
  return r;
}

bool request_test(pml::Request* r) {
  if (r->complete) return true;
  if (r->kind != pml::Request::Kind::kGeneric) return false;
  auto* w = static_cast<RtRequest*>(r);
  if (w->inner) {
    if (!w->inner->complete) return false;
    finish_wrapper(w);
    return true;
  }
  // poll() sets complete itself; its result only reports progress.
  if (w->poll) w->poll(w);
  return w->complete;
}

void request_wait(pml::Request* r) {
  if (request_test(r)) return;
  if (r->kind == pml::Request::Kind::kGeneric) {
    auto* w = static_cast<RtRequest*>(r);
    if (w->inner) {
      the_pml().wait(w->inner);
      finish_wrapper(w);
      return;
    }
  }
  the_pml().wait(r);
}

Poller::Poller() : waiter_(the_pml().wait_policy(), common::WaitKind::kCounted) {}

void Poller::poll() {
  // Counted in rounds, not idle polls: the caller checks its own condition between rounds.
  the_pml().progress();
  waiter_.idle();
}

int request_status(const char* fn, const pml::Request* r, MPI_Status* st) {
  if (auto* g = as_generalized(const_cast<pml::Request*>(r))) {
    // The user's query callback fills the status; its return value is the request's error.
    MPI_Status tmp;
    status_set(&tmp, MPI_ANY_SOURCE, MPI_ANY_TAG, 0, false);
    tmp.MPI_ERROR = st ? st->MPI_ERROR : MPI_SUCCESS;
    int code = g->query_fn ? g->query_fn(g->extra_state, &tmp) : MPI_SUCCESS;
    if (st) {
      const int error = st->MPI_ERROR;  // only the multiple-completion calls set it
      *st = tmp;
      st->MPI_ERROR = error;
    }
    return code;
  }
  return pml_status(fn, r->status, st);
}

int pml_status(const char* fn, const pml::Status& s, MPI_Status* st) {
  int code = MPI_SUCCESS;
  if (s.error == pml::kErrTruncate)
    code = make_error(MPI_ERR_TRUNCATE, fn,
                      "message from rank %d (tag %d) is longer than the %zu-byte receive buffer",
                      s.source, s.tag, s.bytes);
  else if (s.error != pml::kOk)
    code = make_error(MPI_ERR_OTHER, fn, "transport failure on the message with rank %d", s.source);
  status_set(st, s.source, s.tag, s.bytes, s.cancelled);
  return code;
}

int request_finish(const char* fn, pml::Request* r, MPI_Status* st) {
  if (pml_ended_well(r)) {
    const pml::Status& s = r->status;
    status_set(st, s.source, s.tag, s.bytes, s.cancelled);
    Comm* comm = request_comm(r);
    the_pml().release(r);
    if (comm) comm->release();
    return MPI_SUCCESS;
  }
  int code = request_status(fn, r, st);
  if (auto* p = as_persistent(r)) {
    // Inactive again: later waits see an empty status until the next MPI_Start.
    p->started = false;
    p->status = pml::Status{};
    return code;
  }
  request_destroy(r);
  return code;
}

void request_free(pml::Request* r) {
  if (auto* p = as_persistent(r); p && !p->started) {
    request_destroy(r);
    return;
  }
  if (r->kind == pml::Request::Kind::kGeneric && !request_test(r)) {
    // Its staging buffer is still in use by the pml: keep it until the transfer ends.
    g_orphans.push_back(static_cast<RtRequest*>(r));
    return;
  }
  request_destroy(r);
}

void reap_orphans(bool block) {
  for (size_t i = 0; i < g_orphans.size();) {
    RtRequest* r = g_orphans[i];
    if (block) request_wait(r);
    if (request_test(r)) {
      request_destroy(r);
      g_orphans[i] = g_orphans.back();
      g_orphans.pop_back();
    } else {
      ++i;
    }
  }
}

void status_set(MPI_Status* st, int source, int tag, size_t bytes, bool cancelled) {
  if (!st) return;
  st->MPI_SOURCE = source;
  st->MPI_TAG = tag;
  status_set_bytes(st, bytes);
  status_set_cancelled(st, cancelled);
}

void status_set_bytes(MPI_Status* st, size_t bytes) {
  auto v = static_cast<uint64_t>(bytes);
  st->mpi_abi_slot[0] = static_cast<int>(static_cast<uint32_t>(v));
  st->mpi_abi_slot[1] = static_cast<int>(static_cast<uint32_t>(v >> 32));
}

size_t status_bytes(const MPI_Status* st) {
  uint64_t lo = static_cast<uint32_t>(st->mpi_abi_slot[0]);
  uint64_t hi = static_cast<uint32_t>(st->mpi_abi_slot[1]);
  return static_cast<size_t>(lo | (hi << 32));
}

void status_set_cancelled(MPI_Status* st, bool cancelled) { st->mpi_abi_slot[2] = cancelled; }
bool status_cancelled(const MPI_Status* st) { return st->mpi_abi_slot[2] != 0; }

}  // namespace mpr::runtime
