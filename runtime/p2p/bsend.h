// Buffered sends: MPI_Bsend copies the message into the user-attached buffer and returns;
// the copy travels as an ordinary send whose space is reclaimed once it completes.
#pragma once

#include <cstddef>
#include <vector>

#include "pml/pml.h"
#include "runtime/comm/comm.h"
#include "runtime/dt/datatype.h"

namespace mpr::runtime {

class BsendBuffer {
 public:
  bool attached() const { return base_ != nullptr; }
  /// Size of the attached buffer in bytes.
  size_t capacity() const { return size_; }
  void attach(void* buf, size_t size);
  /// Wait until every buffered message has been sent, then forget the buffer.
  void detach(void** buf, size_t* size);
  /// Copy and start the send. Returns MPI_SUCCESS or an MPI_ERR_BUFFER code (not raised) when
  /// no buffer is attached or the free space is too small.
  int send(const char* fn, Comm* comm, const void* buf, MPI_Count count, const Datatype* type,
           int dest, int tag);
  /// Wait for every buffered message (MPI_Finalize, MPI_Buffer_detach).
  void drain();

 private:
  struct Segment {
    size_t off;
    size_t len;
    pml::Request* req;
  };
  void reclaim();
  bool alloc(size_t len, size_t* off) const;

  char* base_ = nullptr;
  size_t size_ = 0;
  std::vector<Segment> segs_;  // sorted by offset
};

}  // namespace mpr::runtime
