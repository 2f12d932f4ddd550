// Requests the pml never sees, built from runtime requests:
//  - persistent (MPI_Send_init & co., and the collectives' MPI_*_init): an argument list that
//    MPI_Start turns into a fresh operation (the child); completing the child makes the request
//    inactive, not free;
//  - generalized (MPI_Grequest_start): completed by the user, status from the query callback;
//  - compound: completes when all its children do (MPI_Isendrecv, nonblocking neighborhood
//    collectives); its status is one designated child's.
// All are RtRequests of kind kGeneric whose poll hook drives the children, so every wait and
// test path (and pml::Pml::wait) handles them without knowing them.
#pragma once

#include <atomic>
#include <functional>
#include <memory>
#include <vector>

#include "mpi.h"
#include "runtime/p2p/request.h"

namespace mpr::runtime {

struct PersistentRequest : RtRequest {
  enum class Op : uint8_t { kSend, kBsend, kRecv, kColl };
  Op op = Op::kSend;
  pml::SendMode mode = pml::SendMode::kStandard;
  const void* buf = nullptr;
  MPI_Count count = 0;
  const Datatype* type = nullptr;
  int peer = 0;  ///< dest or source rank
  int tag = 0;
  /// kColl: starts the collective's nonblocking form, storing its request; returns an MPI
  /// error code already raised on the communicator.
  std::function<int(MPI_Request*)> start_coll;
  std::vector<const Datatype*> kept_types;  ///< kColl: retained for the request's life
  pml::Request* child = nullptr;            ///< the running operation, until it completes
  bool started = false;       ///< from MPI_Start until its completion is reported (active)
  std::shared_ptr<void> ext;  ///< kColl: state of the call behind start_coll (partitioned)
  ~PersistentRequest() override;
};

struct GeneralizedRequest : RtRequest {
  MPI_Grequest_query_function* query_fn = nullptr;
  MPI_Grequest_free_function* free_fn = nullptr;
  MPI_Grequest_cancel_function* cancel_fn = nullptr;
  void* extra_state = nullptr;
  /// Set by MPI_Grequest_complete, possibly from another thread.
  std::atomic<bool> done{false};
  ~GeneralizedRequest() override;
};

struct CompoundRequest : RtRequest {
  std::vector<pml::Request*> children;  ///< nullptr once finished
  int status_child = -1;                ///< whose status the request reports (-1: empty)
  int held = 0;  ///< children not issued yet (partitioned sends): incomplete until 0
  std::unique_ptr<char[]> buffer;  ///< staging owned for the children (send copies)
  ~CompoundRequest() override;
};

PersistentRequest* persistent_request(Comm* comm, PersistentRequest::Op op, pml::SendMode mode,
                                      const void* buf, MPI_Count count, const Datatype* type,
                                      int peer, int tag);
/// A persistent collective (kColl) whose MPI_Start calls `start`; `types` are retained.
PersistentRequest* persistent_coll_request(Comm* comm, std::function<int(MPI_Request*)> start,
                                           std::vector<const Datatype*> types);
/// MPI_Start. Returns MPI_SUCCESS or an error code (not raised): already active, or a buffered
/// send that does not fit the attached buffer. A collective's own errors come back raised
/// (*raised is then true).
int persistent_start(const char* fn, PersistentRequest* r, bool* raised);

GeneralizedRequest* generalized_request(Comm* comm, MPI_Grequest_query_function* query_fn,
                                        MPI_Grequest_free_function* free_fn,
                                        MPI_Grequest_cancel_function* cancel_fn, void* extra_state);

/// A compound request over `children` (adopted: it finishes and frees them).
CompoundRequest* compound_request(Comm* comm, std::vector<pml::Request*> children,
                                  int status_child);

/// The request's own subtype, or nullptr.
PersistentRequest* as_persistent(pml::Request* r);
GeneralizedRequest* as_generalized(pml::Request* r);

/// False for a persistent request that is not started (MPI calls it inactive): the wait and
/// test families treat it like MPI_REQUEST_NULL.
bool request_active(pml::Request* r);
/// MPI_Cancel on any request: receives not yet matched are cancelled; a send's message is
/// withdrawn if its receiver has not matched it (the request completes when the receiver has
/// answered, MPI_Test_cancelled telling which); generalized requests call the user's cancel
/// callback.
void request_cancel(pml::Request* r);

}  // namespace mpr::runtime
