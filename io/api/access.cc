// The data access calls' common path (io/access.h): checks, the starting position, then
// independent or collective I/O, blocking, nonblocking or split.
#include <cstring>

#include "io/api/check.h"
#include "io/coll.h"
#include "io/request.h"
#include "runtime/p2p/request.h"

namespace mpr::io {

using runtime::make_error;

namespace {

int check_access(const Call& c, File* f, Datatype** type) {
  const char* fn = c.fn;
  if (c.count < 0)
    return file_error(f, MPI_ERR_COUNT, fn, "invalid count %lld (must be >= 0)",
                      static_cast<long long>(c.count));
  MPR_TRY(api::check_type(fn, f, c.type, "datatype", type));
  if (!c.buf && c.count > 0 && (*type)->size > 0 && (*type)->predefined)
    return file_error(f, MPI_ERR_BUFFER, fn, "NULL buffer with count %lld of %s",
                      static_cast<long long>(c.count), (*type)->label().c_str());
  if (c.dir == Dir::kRead && !f->readable())
    return file_error(f, MPI_ERR_ACCESS, fn, "\"%s\" was opened MPI_MODE_WRONLY",
                      f->name.c_str());
  if (c.dir == Dir::kWrite && !f->writable())
    return file_error(f, MPI_ERR_READ_ONLY, fn, "\"%s\" was opened MPI_MODE_RDONLY",
                      f->name.c_str());
  if (f->sequential() && (c.where == Where::kAt || c.where == Where::kIndividual))
    return file_error(f, MPI_ERR_UNSUPPORTED_OPERATION, fn,
                      "\"%s\" was opened MPI_MODE_SEQUENTIAL (only shared file pointers move)",
                      f->name.c_str());
  if (c.where == Where::kAt && c.offset < 0)
    return file_error(f, MPI_ERR_ARG, fn, "negative offset %lld",
                      static_cast<long long>(c.offset));
  if (c.how == How::kSplit && f->split.req != MPI_REQUEST_NULL)
    return file_error(f, MPI_ERR_OTHER, fn,
                      "%s on \"%s\" is still in progress (one split collective at a time)",
                      f->split.begin_fn, f->name.c_str());
  if (c.how == How::kNonblocking && !c.request)
    return file_error(f, MPI_ERR_ARG, fn, "request is NULL");
  return MPI_SUCCESS;
}

void give_request(const Call& c, File* f, pml::Request* r) {
  if (c.how == How::kSplit) {
    f->split.req = runtime::to_handle(r);
    f->split.begin_fn = c.fn;
    f->split.buf = c.buf;
  } else {
    *c.request = runtime::to_handle(r);
  }
}

}  // namespace

int access(const Call& c) {
  const char* fn = c.fn;
  File* f;
  MPR_TRY(api::enter(fn, c.fh, &f));
  Datatype* type;
  MPR_TRY(check_access(c, f, &type));
  std::shared_ptr<const View> view = f->view;
  const View& v = *view;

  MemSide m;
  m.buf = c.buf;
  m.count = static_cast<size_t>(c.count);
  m.type = type;
  m.rep = &v.rep();
  if (int cls = file_size(v.rep(), type, &m.fsize); cls != MPI_SUCCESS)
    return file_error(f, cls, fn, "%s has no size in data representation \"%s\"",
                      type->label().c_str(), v.rep().name.c_str());
  const uint64_t total = m.bytes();
  if (total % v.esize() != 0)
    return file_error(f, MPI_ERR_TYPE, fn,
                      "%llu bytes of %s are not a whole number of etypes (%llu bytes each)",
                      static_cast<unsigned long long>(total), type->label().c_str(),
                      static_cast<unsigned long long>(v.esize()));
  if (total > 0 && v.tile_size() == 0)
    return file_error(f, MPI_ERR_IO, fn, "the view of \"%s\" holds no data (empty filetype)",
                      f->name.c_str());
  const auto etypes = static_cast<int64_t>(total / v.esize());

  const bool coll = c.collective && f->comm->size() > 1;
  Where where = c.where;
  if (where == Where::kOrdered && !coll) where = Where::kShared;
  uint64_t s = 0;
  switch (where) {
    case Where::kAt:
      s = static_cast<uint64_t>(c.offset) * v.esize();
      break;
    case Where::kIndividual:
      s = static_cast<uint64_t>(f->ind_pos) * v.esize();
      // Nonblocking and split calls move the pointer when they start (MPI-4.1 14.4.3);
      // blocking ones by what they moved.
      if (c.how != How::kBlocking) f->ind_pos += etypes;
      break;
    case Where::kShared: {
      int64_t old = 0;
      if (SysError e = f->shfp.fetch_add(etypes, &old)) return sys_error(f, fn, e);
      s = static_cast<uint64_t>(old) * v.esize();
      break;
    }
    case Where::kOrdered:
      break;  // the collective operation asks rank 0
  }

  if (coll) {
    auto op = std::make_shared<CollOp>(fn, f, view, c.dir, where, s, m, f->atomic);
    if (c.how == How::kBlocking) {
      run_blocking(*op);
      if (where == Where::kIndividual)
        f->ind_pos += static_cast<int64_t>(op->stream_bytes() / v.esize());
      runtime::status_set(c.status, MPI_ANY_SOURCE, MPI_ANY_TAG, op->native_bytes(), false);
      return raise_file(f, op->code());
    }
    pml::Request* inner = start_coll(op);
    give_request(c, f, watch_coll(f, op, inner));
    return MPI_SUCCESS;
  }

  if (c.how == How::kBlocking || !v.rep().thread_safe()) {
    AccessResult r = run_access(f, v, f->atomic, c.dir, s, m);
    const uint64_t bytes = m.native_bytes(r.bytes);
    const int code = r.sys || r.conv != MPI_SUCCESS ? access_error(f, fn, r) : MPI_SUCCESS;
    if (c.how == How::kBlocking) {
      if (where == Where::kIndividual) f->ind_pos += static_cast<int64_t>(r.bytes / v.esize());
      runtime::status_set(c.status, MPI_ANY_SOURCE, MPI_ANY_TAG, bytes, false);
      return raise_file(f, code);
    }
    give_request(c, f, completed_io(f, code, bytes));
    return MPI_SUCCESS;
  }
  give_request(c, f, submit_io(fn, f, std::move(view), c.dir, s, m, f->atomic));
  return MPI_SUCCESS;
}

int split_end(const char* fn, MPI_File fh, const void* buf, MPI_Status* status,
              const char* begin_fn) {
  File* f;
  MPR_TRY(api::enter(fn, fh, &f));
  if (f->split.req == MPI_REQUEST_NULL || std::strcmp(f->split.begin_fn, begin_fn) != 0)
    return file_error(f, MPI_ERR_OTHER, fn, "no %s in progress on \"%s\"", begin_fn,
                      f->name.c_str());
  if (buf != f->split.buf)
    return file_error(f, MPI_ERR_BUFFER, fn, "buffer %p is not the one %s was given (%p)", buf,
                      begin_fn, f->split.buf);
  pml::Request* r = runtime::from_handle(f->split.req);
  f->split.req = MPI_REQUEST_NULL;
  runtime::request_wait(r);
  return raise_file(f, runtime::request_finish(fn, r, status));
}

}  // namespace mpr::io
