#include "runtime/coll/call.h"

#include <cstdint>

#include "runtime/core/errors.h"
#include "runtime/p2p/request.h"

namespace mpr::runtime::coll {

Call::Call(const char* fn, Comm* comm, MPI_Request* req) : fn_(fn), comm_(comm), req_(req) {
  if (req) {
    nbc_ = new NbcRequest(fn, comm);
    sched_ = &nbc_->sched;
  } else {
    local_.emplace(fn, comm, Schedule::Mode::kImmediate);
    sched_ = &*local_;
  }
}

Call::~Call() {
  // A request that was never started (an error before finish) is not the user's.
  if (nbc_) request_finish(fn_, nbc_, nullptr);
}

const char* Call::in(const void* buf, size_t count, const Datatype* type) {
  ptrdiff_t off;
  if (count == 0) return static_cast<const char*>(buf);
  if (type->dense(count, &off)) return shifted(buf, off);
  char* packed = sched_->scratch(bytes(count, type));
  type->pack(buf, count, packed);
  return packed;
}

char* Call::out(void* buf, size_t count, const Datatype* type) {
  return inout(buf, count, type, false, true);
}

char* Call::inout(void* buf, size_t count, const Datatype* type, bool read, bool write) {
  ptrdiff_t off;
  if (count == 0) return static_cast<char*>(buf);
  if (type->dense(count, &off)) return shifted(buf, off);
  const size_t n = bytes(count, type);
  char* packed = sched_->scratch(n);
  if (read) type->pack(buf, count, packed);
  if (write) sched_->defer_unpack(type, packed, n, buf);
  return packed;
}

// Predefined types (pairs with padding included) and dense derived types are reduced where
// they lie; other derived types travel packed.
static bool in_layout(const Datatype* type, size_t count, ptrdiff_t* off) {
  *off = 0;
  return type->predefined || type->dense(count > 0 ? count : 1, off);
}

void Call::set_reducer(const Op* op, const Datatype* type, size_t count) {
  ptrdiff_t off;
  const bool layout = in_layout(type, count, &off);
  const size_t esz = type->predefined ? static_cast<size_t>(type->extent) : type->size;
  sched_->set_reducer({op, type, esz, !layout});
}

char* Call::red(void* buf, size_t count, const Datatype* type, bool read, bool write) {
  ptrdiff_t off;
  if (in_layout(type, count, &off)) return shifted(buf, off);
  return inout(buf, count, type, read, write);
}

int Call::finish() {
  if (!nbc_) {
    sched_->seal();
    return raise(comm_, sched_->run());
  }
  start_nonblocking(nbc_);
  *req_ = to_handle(nbc_);
  nbc_ = nullptr;
  return MPI_SUCCESS;
}

}  // namespace mpr::runtime::coll
