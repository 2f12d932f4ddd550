// Point-to-point core: turns (buffer, count, datatype, communicator rank) into pml calls.
// Arguments are already checked by the API layer.
#pragma once

#include "mpi.h"
#include "pml/pml.h"
#include "runtime/comm/comm.h"
#include "runtime/dt/datatype.h"

namespace mpr::runtime {

/// Start a send; dest may be MPI_PROC_NULL. Never fails (the pml reports transport errors
/// through the request's status).
pml::Request* start_send(Comm* comm, const void* buf, MPI_Count count, const Datatype* type,
                         int dest, int tag, pml::SendMode mode);
/// Start a receive; source may be MPI_ANY_SOURCE or MPI_PROC_NULL, tag may be MPI_ANY_TAG.
pml::Request* start_recv(Comm* comm, void* buf, MPI_Count count, const Datatype* type, int source,
                         int tag);
/// Receive a message dequeued by improbe.
pml::Request* start_mrecv(Comm* comm, void* buf, MPI_Count count, const Datatype* type,
                          pml::Message* msg);

/// Wait for `r`, then request_finish it. Returns its MPI error code (not raised).
int wait_and_finish(const char* fn, pml::Request* r, MPI_Status* st);

/// Blocking send and receive: as start_send/start_recv plus wait_and_finish, but a send that
/// can leave at once and a receive whose message is already here complete without a request.
/// Return the MPI error code (not raised).
int send_blocking(const char* fn, Comm* comm, const void* buf, MPI_Count count,
                  const Datatype* type, int dest, int tag, pml::SendMode mode);
int recv_blocking(const char* fn, Comm* comm, void* buf, MPI_Count count, const Datatype* type,
                  int source, int tag, MPI_Status* st);

/// A message dequeued by MPI_Mprobe/MPI_Improbe, with the communicator it arrived on.
struct MatchedMessage {
  static constexpr unsigned kMagic = 0x4d736721;  // "Msg!"
  unsigned magic = kMagic;
  pml::Message* msg;
  Comm* comm;
};

}  // namespace mpr::runtime
