// Buffered sends: MPI_Bsend copies the message into the user-attached buffer and returns;
// the copy travels as an ordinary send whose space is reclaimed once it completes.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <vector>

#include "pml/pml.h"
#include "runtime/comm/comm.h"
#include "runtime/dt/datatype.h"
#include "runtime/p2p/request.h"

namespace mpr::runtime {

class BsendBuffer {
 public:
  BsendBuffer();
  ~BsendBuffer();
  BsendBuffer(const BsendBuffer&) = delete;
  BsendBuffer& operator=(const BsendBuffer&) = delete;
  /// Wait for the messages of every buffer in the process (the last finalize, before the
  /// pml goes).
  static void drain_all();
  bool attached() const { return base_ != nullptr || automatic_; }
  /// MPI_BUFFER_AUTOMATIC: each message gets its own copy, so no send ever lacks room.
  bool automatic() const { return automatic_; }
  /// Size of the attached buffer in bytes (0 when automatic).
  size_t capacity() const { return size_; }
  void attach(void* buf, size_t size);
  void attach_automatic() { automatic_ = true; }
  /// Wait until every buffered message has been sent, then forget the buffer (*buf is
  /// MPI_BUFFER_AUTOMATIC, *size 0 for an automatic one).
  void detach(void** buf, size_t* size);
  /// True once every buffered message has been sent (drives progress once).
  bool flushed();
  /// Copy and start the send. Returns MPI_SUCCESS or an MPI_ERR_BUFFER code (not raised) when
  /// no buffer is attached or the free space is too small. `ticket`, when given, is set to the
  /// id by which cancel() finds this message.
  int send(const char* fn, Comm* comm, const void* buf, MPI_Count count, const Datatype* type,
           int dest, int tag, uint64_t* ticket = nullptr);
  /// MPI_Cancel of a buffered send: ask the pml to withdraw message `ticket` from its receiver.
  /// False when the message has left for good (sent, and its space reclaimed).
  bool cancel(uint64_t ticket);
  /// After cancel(): true once the answer came, *cancelled telling whether the message was
  /// withdrawn (its space is free again then). Drives progress once.
  bool cancel_result(uint64_t ticket, bool* cancelled);
  /// Wait for every buffered message (MPI_Finalize, MPI_Buffer_detach).
  void drain();

 private:
  struct Segment {
    size_t off;
    size_t len;
    pml::Request* req;
    std::unique_ptr<char[]> own;  ///< the copy of an automatic buffer's message
    uint64_t ticket = 0;
    bool cancelling = false;  ///< cancel() asked: record the answer when it completes
  };
  void reclaim();
  bool alloc(size_t len, size_t* off) const;

  char* base_ = nullptr;
  size_t size_ = 0;
  bool automatic_ = false;
  std::vector<Segment> segs_;  // sorted by offset
  uint64_t next_ticket_ = 1;
  std::map<uint64_t, bool> answers_;  // ticket -> withdrawn, for cancel_result
};

/// The request of a buffered send (MPI_Ibsend, a round of MPI_Bsend_init): complete at once,
/// the message being in the buffer. MPI_Cancel (buffered_cancel) withdraws the message if its
/// receiver has not matched it; the request is then incomplete until the answer comes.
RtRequest* buffered_request(Comm* comm, BsendBuffer* b, uint64_t ticket);
void buffered_cancel(RtRequest* r);

/// MPI_Buffer_attach and the communicator and session forms on `b`: MPI error codes, not
/// raised. `buffer` may be MPI_BUFFER_AUTOMATIC (size ignored).
int buffer_attach(const char* fn, BsendBuffer* b, void* buffer, MPI_Count size);
/// The detach forms: wait for b's messages, give back its address and size. `int_size`: the
/// caller returns the size as an int, so a buffer of INT_MAX bytes or more stays attached
/// (MPI_ERR_VALUE_TOO_LARGE).
int buffer_detach(const char* fn, BsendBuffer* b, void* buffer_addr, size_t* size, bool int_size);

/// The buffer a buffered send on `comm` uses (MPI 4.1): the communicator's own if one is
/// attached, else its session's, else the process's (MPI_Buffer_attach).
BsendBuffer* bsend_for(Comm* comm);

/// A request that completes once every message buffered in `b` has been sent
/// (MPI_Buffer_iflush and the communicator and session forms).
pml::Request* flush_request(Comm* comm, BsendBuffer* b);

}  // namespace mpr::runtime
