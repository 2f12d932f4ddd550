#include "io/request.h"

#include <condition_variable>
#include <deque>
#include <mutex>
#include <thread>

#include "runtime/p2p/request.h"

namespace mpr::io {

namespace {

// The I/O thread: independent jobs, first in first out. Its state is never destroyed (the
// thread is detached and may still wait on it while the process exits).
struct IoThread {
  std::mutex mu;
  std::condition_variable cv;
  std::deque<IoRequest*> jobs;
  bool started = false;

  void loop() {
    for (;;) {
      IoRequest* r;
      {
        std::unique_lock<std::mutex> lock(mu);
        cv.wait(lock, [this] { return !jobs.empty(); });
        r = jobs.front();
        jobs.pop_front();
      }
      r->result = run_access(r->file, *r->view, r->atomic, r->dir, r->stream, r->mem);
      --r->file->pending;
      // The caller may free the request as soon as it sees this: nothing touches it after.
      r->done.store(true, std::memory_order_release);
    }
  }

  void submit(IoRequest* r) {
    std::lock_guard<std::mutex> lock(mu);
    jobs.push_back(r);
    if (!started) {
      std::thread([this] { loop(); }).detach();
      started = true;
    }
    cv.notify_one();
  }
};

IoThread& io_thread() {
  static auto* t = new IoThread;
  return *t;
}

int query(void* extra_state, MPI_Status* st) {
  auto* r = static_cast<IoRequest*>(extra_state);
  runtime::status_set(st, MPI_ANY_SOURCE, MPI_ANY_TAG, r->bytes, false);
  return r->code;
}

bool poll_io(pml::Request* self) {
  auto* r = static_cast<IoRequest*>(self);
  if (r->complete) return false;
  if (r->inner) {
    if (!runtime::request_test(r->inner)) return false;
    r->code = r->op->code();
    r->bytes = r->op->native_bytes();
    runtime::request_destroy(r->inner);
    r->inner = nullptr;
    r->op.reset();
    r->done.store(true, std::memory_order_relaxed);
  } else {
    if (!r->done.load(std::memory_order_acquire)) return false;
    const AccessResult& res = r->result;
    if (res.sys || res.conv != MPI_SUCCESS) r->code = access_error(r->file, r->fn, res);
    r->bytes = r->mem.native_bytes(res.bytes);
  }
  r->complete = true;
  return true;
}

IoRequest* make(File* f) {
  auto* r = new IoRequest;
  runtime::adopt(r, f->comm);
  r->sub = runtime::RtRequest::Sub::kGeneralized;
  r->poll = &poll_io;
  r->query_fn = &query;
  r->extra_state = r;
  r->file = f;
  f->retain();
  return r;
}

}  // namespace

IoRequest::~IoRequest() {
  if (inner) runtime::request_destroy(inner);
  if (mem.type) mem.type->release();
  if (file) file->release();
}

IoRequest* completed_io(File* f, int code, uint64_t bytes) {
  IoRequest* r = make(f);
  r->code = code;
  r->bytes = bytes;
  r->done.store(true);
  r->complete = true;
  return r;
}

IoRequest* submit_io(const char* fn, File* f, std::shared_ptr<const View> v, Dir dir,
                     uint64_t s, const MemSide& m, bool atomic) {
  IoRequest* r = make(f);
  r->fn = fn;
  r->view = std::move(v);
  r->mem = m;
  m.type->retain();  // MPI_Type_free may come before the job runs
  r->dir = dir;
  r->stream = s;
  r->atomic = atomic;
  ++f->pending;
  io_thread().submit(r);
  return r;
}

IoRequest* watch_coll(File* f, std::shared_ptr<CollOp> op, pml::Request* inner) {
  IoRequest* r = make(f);
  r->op = std::move(op);
  r->inner = inner;
  poll_io(r);
  return r;
}

}  // namespace mpr::io
