#include "io/view.h"

#include <algorithm>

namespace mpr::io {

using runtime::Basic;
using runtime::dt::Cursor;

namespace {

const void* addr_of(uint64_t off) { return reinterpret_cast<const void*>(off); }

}  // namespace

View::View() {
  etype_ = filetype_ = ftype_ = runtime::predefined_datatype(Basic::kByte);
  rep_ = find_datarep("native");
}

View::View(MPI_Offset disp, const Datatype* etype, const Datatype* filetype,
           const Datatype* ftype, const Datarep* rep, uint64_t esize)
    : disp_(disp), etype_(etype), filetype_(filetype), ftype_(ftype), rep_(rep), esize_(esize) {
  etype->retain();
  filetype->retain();
  linear_ = ftype->contiguous && ftype->size > 0;
  first_ = static_cast<uint64_t>(disp + ftype->true_lb);
}

View::~View() {
  ftype_->release();
  filetype_->release();
  etype_->release();
}

namespace {

// Why a type cannot lay out data in a view (nullptr if it can): no displacement below zero,
// runs of adjacent bytes starting in non-decreasing order (stream order is then file order),
// and, in a file open for writing, no byte twice. `what` names the type in the reason.
const char* layout_fault(const Datatype& t, bool writable, const char* what) {
  if (t.size == 0) return nullptr;
  const bool file = what[0] == 'f';
  if (t.true_lb < 0)
    return file ? "the filetype has a negative displacement"
                : "the etype has a negative displacement";
  Cursor c(t, nullptr, 1);
  uintptr_t addr = 0, start = 0, end = 0, reach = 0;
  bool first = true;
  while (size_t n = c.next_block(&addr, SIZE_MAX)) {
    if (!first && addr == end) {  // continues the run
      end += n;
      reach = std::max(reach, end);
      continue;
    }
    if (!first && addr < start)
      return file ? "the filetype's displacements decrease" : "the etype's displacements decrease";
    if (!first && writable && addr < reach)
      return file ? "the filetype covers some bytes twice, which a file open for writing forbids"
                  : "the etype covers some bytes twice, which a file open for writing forbids";
    start = addr;
    end = addr + n;
    reach = std::max(reach, end);
    first = false;
  }
  return nullptr;
}

}  // namespace

int View::make(MPI_Offset disp, const Datatype* etype, const Datatype* filetype,
               const Datarep* rep, bool writable, std::unique_ptr<View>* out, const char** why) {
  uint64_t esize = 0;
  {
    size_t n = 0;
    if (int rc = file_size(*rep, etype, &n); rc != MPI_SUCCESS) {
      *why = "the data representation gives no file extent for the etype";
      return rc;
    }
    esize = n;
  }
  if (esize == 0) {
    *why = "the etype holds no data";
    return MPI_ERR_TYPE;
  }
  const Datatype* ftype = nullptr;
  if (int rc = file_type(*rep, filetype, &ftype); rc != MPI_SUCCESS) {
    *why = "the filetype cannot be laid out in the data representation";
    return rc;
  }
  auto fail = [&](int cls, const char* w) {
    ftype->release();
    *why = w;
    return cls;
  };
  if (ftype->size % esize != 0) return fail(MPI_ERR_TYPE, "the filetype is not made of etypes");
  // A type map the standard forbids in a view is an I/O error, as in ROMIO.
  if (const char* w = layout_fault(*etype, writable, "etype")) return fail(MPI_ERR_IO, w);
  if (ftype->size > 0) {
    if (ftype->true_extent > ftype->extent)
      return fail(MPI_ERR_IO,
                  "the filetype's data reaches past its extent, so its tiles would overlap");
    if (const char* w = layout_fault(*ftype, writable, "filetype")) return fail(MPI_ERR_IO, w);
  }
  std::unique_ptr<View> v(new View(disp, etype, filetype, ftype, rep, esize));
  *out = std::move(v);
  return MPI_SUCCESS;
}

uint64_t View::file_offset(uint64_t s) const {
  if (linear_) return first_ + s;
  const uint64_t size = tile_size();
  const uint64_t tile = s / size;
  Cursor c(*ftype_, addr_of(static_cast<uint64_t>(disp_) + tile * tile_extent()), 1);
  c.seek(s - tile * size);
  uintptr_t addr = 0;
  c.next_block(&addr, 1);
  return addr;
}

uint64_t View::stream_before(uint64_t off) const {
  if (linear_) return off > first_ ? off - first_ : 0;
  const uint64_t size = tile_size();
  const auto disp = static_cast<uint64_t>(disp_);
  if (size == 0) return 0;
  // Tile k's data lies in [base + k * ext, base + k * ext + true extent), and the true extent
  // is at most the extent: tiles before the one whose data starts last below `off` are whole.
  const uint64_t base = disp + static_cast<uint64_t>(ftype_->true_lb);
  if (off <= base) return 0;
  const uint64_t ext = tile_extent();
  const uint64_t tile = (off - base) / ext;
  uint64_t bytes = tile * size;
  Cursor c(*ftype_, addr_of(disp + tile * ext), 1);
  uintptr_t addr = 0;
  while (size_t n = c.next_block(&addr, SIZE_MAX)) {
    if (addr >= off) break;
    bytes += std::min<uint64_t>(n, off - addr);
  }
  return bytes;
}

void View::file_range(uint64_t s, uint64_t len, uint64_t* lo, uint64_t* hi) const {
  *lo = file_offset(s);
  *hi = file_offset(s + len - 1) + 1;
}

View::Blocks::Blocks(const View& v, uint64_t s, uint64_t len) : v_(v), left_(len) {
  if (v.linear_ || len == 0) {
    lin_off_ = v.first_ + s;
    return;
  }
  const uint64_t size = v.tile_size();
  const uint64_t tile0 = s / size;
  const uint64_t tiles = (s + len + size - 1) / size - tile0;
  cur_ = Cursor(*v.ftype_, addr_of(static_cast<uint64_t>(v.disp_) + tile0 * v.tile_extent()),
                tiles);
  cur_.seek(s - tile0 * size);
}

bool View::Blocks::next(Block* b, uint64_t max) {
  // One raw piece of the layout (a whole linear range at once).
  auto fetch = [this](Block* out) {
    if (left_ == 0) return false;
    if (v_.linear_) {
      *out = {lin_off_, left_};
      left_ = 0;
      return true;
    }
    uintptr_t addr = 0;
    size_t n = cur_.next_block(&addr, left_);
    if (n == 0) {
      left_ = 0;
      return false;
    }
    left_ -= n;
    *out = {addr, n};
    return true;
  };
  if (!has_pending_) {
    if (!fetch(&pending_)) return false;
    has_pending_ = true;
  }
  Block nb;
  while (pending_.len < max && fetch(&nb)) {
    if (nb.off == pending_.end()) {
      pending_.len += nb.len;
      continue;
    }
    *b = pending_;
    pending_ = nb;
    return true;
  }
  if (pending_.len > max) {
    *b = {pending_.off, max};
    pending_.off += max;
    pending_.len -= max;
    return true;
  }
  *b = pending_;
  has_pending_ = false;
  return true;
}

}  // namespace mpr::io
