#include "io/engine.h"

#include <algorithm>
#include <cstring>
#include <memory>

#include "runtime/dt/cursor.h"

namespace mpr::io {

namespace {

// Pieces [i, j) that one sieve window serves: gaps within `gap`, the span within `window`.
size_t window_end(const Piece* p, size_t n, size_t i, uint64_t window, uint64_t gap,
                  uint64_t* span_end, uint64_t* data) {
  const uint64_t start = p[i].off;
  uint64_t end = p[i].off + p[i].len;
  uint64_t bytes = p[i].len;
  size_t j = i + 1;
  for (; j < n; ++j) {
    const uint64_t g = p[j].off > end ? p[j].off - end : 0;
    const uint64_t e = std::max(end, p[j].off + p[j].len);
    if (g > gap || e - start > window) break;
    end = e;
    bytes += p[j].len;
  }
  *span_end = end;
  *data = bytes;
  return j;
}

uint64_t gap_limit(Sieve s) {
  switch (s) {
    case Sieve::kAuto:
      return kSieveGap;
    case Sieve::kEnable:
      return UINT64_MAX;
    case Sieve::kDisable:
      break;
  }
  return 0;
}

// True when the pieces' memory lies exactly as their file bytes do (no gaps either side), so
// one system call moves them straight from or to the first piece's memory.
bool mirrored(const Piece* p, size_t i, size_t j) {
  for (size_t k = i + 1; k < j; ++k)
    if (p[k].off != p[k - 1].off + p[k - 1].len || p[k].mem != p[k - 1].mem + p[k - 1].len)
      return false;
  return true;
}

char* scratch_of(const IoTarget& t, uint64_t bytes) {
  if (t.scratch->size() < bytes) t.scratch->resize(bytes);
  return t.scratch->data();
}

SysError write_one(const IoTarget& t, const Piece& p) {
  SysError e;
  RangeLock lock(t.fd, p.off, t.lock_writes ? p.len : 0, true);
  if (lock.error()) return lock.error();
  pwrite_full(t.fd, p.mem, p.len, p.off, &e);
  return e;
}

}  // namespace

SysError write_pieces(const IoTarget& t, const Piece* p, size_t n) {
  const uint64_t gap = gap_limit(t.ds_write);
  size_t i = 0;
  while (i < n) {
    if (p[i].len == 0) {
      ++i;
      continue;
    }
    uint64_t end = 0, data = 0;
    size_t j = gap ? window_end(p, n, i, t.wr_window, gap, &end, &data) : i + 1;
    if (j == i + 1 || mirrored(p, i, j)) {
      if (j == i + 1) end = p[i].off + p[i].len;
      Piece whole{p[i].off, end - p[i].off, p[i].mem};
      if (SysError e = write_one(t, whole)) return e;
      i = j;
      continue;
    }
    // Read-modify-write of the window under an exclusive lock: the gaps between the pieces
    // are written back as they were (zeros past the end of the file).
    const uint64_t start = p[i].off, span = end - start;
    char* buf = scratch_of(t, span);
    SysError e;
    RangeLock lock(t.fd, start, t.lock_writes ? span : 0, true);
    if (lock.error()) return lock.error();
    if (data < span) {
      size_t got = pread_full(t.fd, buf, span, start, &e);
      if (e) return e;
      std::memset(buf + got, 0, span - got);
    }
    for (size_t k = i; k < j; ++k) std::memcpy(buf + (p[k].off - start), p[k].mem, p[k].len);
    pwrite_full(t.fd, buf, span, start, &e);
    if (e) return e;
    i = j;
  }
  return {};
}

SysError read_pieces(const IoTarget& t, const Piece* p, size_t n, uint64_t* got) {
  const uint64_t gap = gap_limit(t.ds_read);
  *got = 0;
  size_t i = 0;
  while (i < n) {
    uint64_t end = 0, data = 0;
    size_t j = gap ? window_end(p, n, i, t.rd_window, gap, &end, &data) : i + 1;
    SysError e;
    if (j == i + 1 || mirrored(p, i, j)) {
      if (j == i + 1) end = p[i].off + p[i].len;
      const uint64_t span = end - p[i].off;
      const uint64_t r = pread_full(t.fd, p[i].mem, span, p[i].off, &e);
      *got += r;
      if (e || r < span) return e;
      i = j;
      continue;
    }
    const uint64_t start = p[i].off, span = end - start;
    char* buf = scratch_of(t, span);
    const uint64_t r = pread_full(t.fd, buf, span, start, &e);
    for (size_t k = i; k < j; ++k) {
      const uint64_t at = p[k].off - start;
      const uint64_t avail = r > at ? std::min(p[k].len, r - at) : 0;
      std::memcpy(p[k].mem, buf + at, avail);
      *got += avail;
      if (avail < p[k].len) return e;
    }
    if (e) return e;
    i = j;
  }
  return {};
}

namespace {

// Pieces gathered from a view's blocks before one write_pieces / read_pieces call: enough to
// fill sieve windows, few enough to stay small.
constexpr size_t kBatch = 1024;

template <typename Fn>
SysError for_pieces(const View& v, uint64_t s, const char* data, uint64_t len, Fn fn) {
  View::Blocks blocks(v, s, len);
  Piece batch[kBatch];
  size_t n = 0;
  uint64_t pos = 0;
  Block b;
  bool stop = false;
  while (!stop && blocks.next(&b)) {
    batch[n++] = {b.off, b.len, const_cast<char*>(data) + pos};
    pos += b.len;
    if (n == kBatch) {
      if (SysError e = fn(batch, n, &stop)) return e;
      n = 0;
    }
  }
  if (n > 0 && !stop) return fn(batch, n, &stop);
  return {};
}

}  // namespace

SysError write_stream(const IoTarget& t, const View& v, uint64_t s, const char* data,
                      uint64_t len) {
  return for_pieces(v, s, data, len, [&t](const Piece* p, size_t n, bool*) {
    return write_pieces(t, p, n);
  });
}

SysError read_stream(const IoTarget& t, const View& v, uint64_t s, char* data, uint64_t len,
                     uint64_t* got) {
  *got = 0;
  return for_pieces(v, s, data, len, [&t, got](const Piece* p, size_t n, bool* stop) {
    uint64_t want = 0, g = 0;
    for (size_t k = 0; k < n; ++k) want += p[k].len;
    SysError e = read_pieces(t, p, n, &g);
    *got += g;
    if (g < want) *stop = true;  // end of file
    return e;
  });
}

bool MemSide::direct(char** p) const {
  if (!rep->native() || !type->contiguous) return false;
  *p = reinterpret_cast<char*>(reinterpret_cast<uintptr_t>(buf) +
                               static_cast<uintptr_t>(type->true_lb));
  return true;
}

uint64_t MemSide::native_bytes(uint64_t stream) const {
  if (rep->native() || fsize == type->size) return stream;
  return fsize ? stream / fsize * type->size : 0;
}

int mem_produce(const MemSide& m, uint64_t pos, uint64_t len, char* out) {
  if (len == 0) return MPI_SUCCESS;
  if (m.rep->native()) {
    runtime::dt::Cursor c(*m.type, m.buf, m.count);
    c.seek(pos);
    c.pack(out, len);
    return MPI_SUCCESS;
  }
  return to_file(*m.rep, m.type, m.buf, pos / m.fsize, len / m.fsize, out);
}

int mem_consume(const MemSide& m, uint64_t pos, uint64_t len, const char* in) {
  if (len == 0) return MPI_SUCCESS;
  if (m.rep->native()) {
    runtime::dt::Cursor c(*m.type, m.buf, m.count);
    c.seek(pos);
    c.unpack(in, len);
    return MPI_SUCCESS;
  }
  return from_file(*m.rep, m.type, m.buf, pos / m.fsize, len / m.fsize, in);
}

namespace {

// Staging for non-contiguous or converted data: about this much at a time (whole elements
// when converting, so at least one element).
constexpr uint64_t kStage = 4u << 20;

uint64_t stage_step(const MemSide& m) {
  if (m.rep->native()) return kStage;
  return std::max<uint64_t>(1, kStage / m.fsize) * m.fsize;
}

}  // namespace

AccessResult write_access(const IoTarget& t, const View& v, uint64_t s, const MemSide& m) {
  AccessResult r;
  const uint64_t total = m.bytes();
  char* direct = nullptr;
  if (total == 0) return r;
  if (m.direct(&direct)) {
    r.sys = write_stream(t, v, s, direct, total);
    r.bytes = r.sys ? 0 : total;
    return r;
  }
  const uint64_t step = stage_step(m);
  std::unique_ptr<char[]> stage(new char[std::min(step, total)]);
  for (uint64_t pos = 0; pos < total; pos += step) {
    const uint64_t n = std::min(step, total - pos);
    if ((r.conv = mem_produce(m, pos, n, stage.get())) != MPI_SUCCESS) return r;
    if ((r.sys = write_stream(t, v, s + pos, stage.get(), n))) return r;
    r.bytes = pos + n;
  }
  return r;
}

AccessResult read_access(const IoTarget& t, const View& v, uint64_t s, const MemSide& m) {
  AccessResult r;
  const uint64_t total = m.bytes();
  char* direct = nullptr;
  if (total == 0) return r;
  if (m.direct(&direct)) {
    r.sys = read_stream(t, v, s, direct, total, &r.bytes);
    return r;
  }
  const uint64_t step = stage_step(m);
  std::unique_ptr<char[]> stage(new char[std::min(step, total)]);
  for (uint64_t pos = 0; pos < total; pos += step) {
    const uint64_t n = std::min(step, total - pos);
    uint64_t got = 0;
    r.sys = read_stream(t, v, s + pos, stage.get(), n, &got);
    // Converted data is used in whole elements; native bytes as they came.
    const uint64_t usable = m.rep->native() ? got : got / m.fsize * m.fsize;
    if ((r.conv = mem_consume(m, pos, usable, stage.get())) != MPI_SUCCESS) return r;
    r.bytes = pos + usable;
    if (r.sys || got < n) return r;
  }
  return r;
}

}  // namespace mpr::io
