// The part of io/access.h every thread may run: one independent access as a unit.
#include "io/access.h"

#include <cstring>
#include <mutex>
#include <optional>

namespace mpr::io {

AccessResult run_access(File* f, const View& v, bool atomic, Dir dir, uint64_t s,
                        const MemSide& m) {
  const uint64_t total = m.bytes();
  if (total == 0) return {};
  std::lock_guard<std::mutex> io(f->io_mu);
  // Atomic mode: the whole access excludes conflicting ones of other processes (readers share
  // the lock), so they see all of it or none of it.
  std::optional<RangeLock> range;
  if (atomic) {
    uint64_t lo = 0, hi = 0;
    v.file_range(s, total, &lo, &hi);
    range.emplace(f->fd, lo, hi - lo, dir == Dir::kWrite);
    if (range->error()) {
      AccessResult r;
      r.sys = range->error();
      return r;
    }
  }
  const IoTarget t = f->target(atomic);
  return dir == Dir::kWrite ? write_access(t, v, s, m) : read_access(t, v, s, m);
}

int access_error(File* f, const char* fn, const AccessResult& r) {
  if (r.conv != MPI_SUCCESS)
    return runtime::make_error(runtime::error_class_of(r.conv), fn,
                               "data conversion for \"%s\" (data representation \"%s\") failed",
                               f->name.c_str(), f->view->rep().name.c_str());
  return runtime::make_error(error_class_for_errno(r.sys.err), fn,
                             "%s at offset %llu of \"%s\": %s", r.sys.op,
                             static_cast<unsigned long long>(r.sys.off), f->name.c_str(),
                             std::strerror(r.sys.err));
}

}  // namespace mpr::io
