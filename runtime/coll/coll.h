// Blocking collectives over the pml, on each communicator's collective context id. Every rank
// of a communicator calls them in the same order, and messages between two ranks on one context
// never overtake each other, so one tag per algorithm is enough to keep them apart.
//
// Buffers are in the datatype's memory layout: `count` elements, `count * extent` bytes
// (predefined types have lb 0; derived types will need pack/unpack around these).
#pragma once

#include <cstddef>
#include <cstdint>

#include "runtime/comm.h"
#include "runtime/datatype.h"
#include "runtime/op.h"

namespace mpr::runtime::coll {

/// Each returns MPI_SUCCESS or an MPI error code (not raised, message names `fn`).
int barrier(const char* fn, Comm* comm);
int bcast(const char* fn, Comm* comm, void* buf, size_t bytes, int root);
/// `sendbuf` is this rank's input (the API turns MPI_IN_PLACE into recvbuf at the root);
/// `recvbuf` is written at the root only. Non-commutative ops combine in rank order.
int reduce(const char* fn, Comm* comm, const void* sendbuf, void* recvbuf, int count,
           const Datatype* type, const Op* op, int root);
/// `sendbuf` may equal `recvbuf` (MPI_IN_PLACE).
int allreduce(const char* fn, Comm* comm, const void* sendbuf, void* recvbuf, int count,
              const Datatype* type, const Op* op);
/// max over the communicator of one value per rank (context id agreement).
int allreduce_max_u64(const char* fn, Comm* comm, uint64_t in, uint64_t* out);

}  // namespace mpr::runtime::coll
