// Requests as the C API sees them. MPI_Request is a pml::Request*: either the pml's own (a
// plain contiguous send or receive) or a runtime-owned RtRequest (kind kGeneric) for what the
// pml does not see: MPI_PROC_NULL, buffered sends, and transfers of non-contiguous datatypes
// that go through a packed staging buffer. Every request's `user` field is its communicator,
// retained until the request is freed.
#pragma once

#include <cstddef>
#include <memory>

#include "common/entry_lock.h"
#include "mpi.h"
#include "pml/pml.h"
#include "runtime/comm/comm.h"
#include "runtime/core/state.h"
#include "runtime/dt/datatype.h"

namespace mpr::runtime {

struct RtRequest : pml::Request {
  /// Plain: a wrapper or an already complete request. The others are request_ext.h's.
  enum class Sub : uint8_t { kPlain, kPersistent, kGeneralized, kCompound, kBuffered };
  RtRequest() { kind = Kind::kGeneric; }
  Sub sub = Sub::kPlain;
  pml::Request* inner = nullptr;          ///< pml request this one completes with (may be null)
  const Datatype* unpack_type = nullptr;  ///< receive: unpack staging into user_buf
  void* user_buf = nullptr;
  std::unique_ptr<char[]> staging;       ///< packed bytes of a non-contiguous transfer
  std::unique_ptr<pml::Convertor> conv;  ///< non-contiguous transfer moved by the pml
};

inline Comm* request_comm(const pml::Request* r) { return static_cast<Comm*>(r->user); }
/// A send or receive of the pml's own (not persistent) that ended without error: finishing it
/// cannot fail, and needs neither the generalized nor the persistent path.
inline bool pml_ended_well(const pml::Request* r) {
  return r->kind != pml::Request::Kind::kGeneric && !r->persistent && r->status.error == pml::kOk;
}
inline MPI_Request to_handle(pml::Request* r) { return reinterpret_cast<MPI_Request>(r); }
inline pml::Request* from_handle(MPI_Request h) { return reinterpret_cast<pml::Request*>(h); }

/// Attach `comm` to a request the pml created.
pml::Request* adopt(pml::Request* r, Comm* comm);
/// A request that is already complete with the given status (MPI_PROC_NULL, buffered send).
RtRequest* completed_request(Comm* comm, int source, int tag);
/// A runtime request that completes when `inner` does (and then unpacks, if unpack_type).
RtRequest* wrapper_request(Comm* comm, pml::Request* inner);

/// True once `r` is complete. Does not drive progress.
bool request_test(pml::Request* r);
/// Block until `r` is complete (driving progress; spins, then yields the CPU).
void request_wait(pml::Request* r);
/// One round of progress for loops over several requests; yields the CPU after MPR_SPIN_COUNT
/// rounds, or at once when the node is oversubscribed (the pml's wait_policy()).
class Poller {
 public:
  Poller();
  void poll();

 private:
  common::Waiter waiter_;
};

/// The progress poll of a test-style call (MPI_Test*, MPI_Iprobe, MPI_Request_get_status,
/// ...). Such calls come in loops; under MPI_THREAD_MULTIPLE a loop that keeps taking the lock
/// back at once could keep out the thread it waits for, so a poll that found nothing to do
/// lets waiting threads have the lock first (common/entry_lock.h).
inline void test_progress() {
  if (the_pml().progress() == 0) common::EntryLock::let_others_in();
}

/// For a complete request: fill *st (if not null) and return its MPI error code (made with
/// `fn`'s name, not raised). The request stays as it is (MPI_Request_get_status).
int request_status(const char* fn, const pml::Request* r, MPI_Status* st);
/// The same for the status of a pml transfer that completed without a request.
int pml_status(const char* fn, const pml::Status& s, MPI_Status* st);
/// For a complete request: fill *st (if not null), return its MPI error code (made with `fn`'s
/// name, not raised), and free the request; a persistent request becomes inactive instead.
int request_finish(const char* fn, pml::Request* r, MPI_Status* st);
/// MPI_Request_free: release now or, if still active, as soon as it completes.
void request_free(pml::Request* r);
/// Free a request now, whatever its state (it must not be in use by the pml any more unless it
/// is the pml's own, which then frees it when it completes).
void request_destroy(pml::Request* r);
/// Release requests freed while still active that have completed since; `block` waits for all.
void reap_orphans(bool block);

/// Status helpers: the byte count lives in two private slots, the cancelled flag in a third.
void status_set(MPI_Status* st, int source, int tag, size_t bytes, bool cancelled);
size_t status_bytes(const MPI_Status* st);
bool status_cancelled(const MPI_Status* st);
void status_set_bytes(MPI_Status* st, size_t bytes);
void status_set_cancelled(MPI_Status* st, bool cancelled);

}  // namespace mpr::runtime
