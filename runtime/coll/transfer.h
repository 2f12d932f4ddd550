// Blocking point-to-point steps the collective algorithms are made of, on the collective
// context of a communicator. Ranks are communicator ranks.
#pragma once

#include <cstddef>

#include "runtime/comm.h"

namespace mpr::runtime::coll {

enum Tag : int { kTagBarrier = 1, kTagBcast, kTagReduce, kTagReduceToRoot };

/// Each returns MPI_SUCCESS or an MPI error code (not raised) whose message names `fn`.
int send(const char* fn, Comm* comm, const void* buf, size_t bytes, int dst, int tag);
int recv(const char* fn, Comm* comm, void* buf, size_t bytes, int src, int tag);
int sendrecv(const char* fn, Comm* comm, const void* sbuf, size_t sbytes, int dst, void* rbuf,
             size_t rbytes, int src, int tag);
/// Send the same buffer to several ranks at once and wait for all.
int send_many(const char* fn, Comm* comm, const void* buf, size_t bytes, const int* dsts, int n,
              int tag);

}  // namespace mpr::runtime::coll
