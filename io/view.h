// A file view (MPI_File_set_view): the data a process sees in a file is a stream of bytes
// laid out by the filetype, tiled from the displacement on. Stream offset s (in bytes of the
// file's representation; an etype offset o is s = o * etype size) lies in tile s / size at
// the filetype's block holding byte s % size. Filetypes have non-negative, non-decreasing
// displacements (checked at set_view), so stream order is file order and every stream range
// maps to ascending, non-overlapping file blocks.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>

#include "io/datarep.h"
#include "runtime/dt/cursor.h"

namespace mpr::io {

/// A run of bytes of the file.
struct Block {
  uint64_t off = 0;
  uint64_t len = 0;
  uint64_t end() const { return off + len; }
};

class View {
 public:
  /// The view a file opens with: displacement 0, etype and filetype MPI_BYTE, native.
  View();
  ~View();
  View(const View&) = delete;
  View& operator=(const View&) = delete;

  /// Build a view; etype/filetype are retained. Returns an MPI error class with *why set:
  /// MPI_ERR_TYPE for a filetype not made of etypes or a conversion error, MPI_ERR_IO for a
  /// type map a view may not have (a negative displacement, displacements that go backwards,
  /// overlapping tiles, and in a file open for writing (`writable`) any byte covered twice).
  static int make(MPI_Offset disp, const Datatype* etype, const Datatype* filetype,
                  const Datarep* rep, bool writable, std::unique_ptr<View>* out,
                  const char** why);

  MPI_Offset disp() const { return disp_; }
  const Datatype* etype() const { return etype_; }
  const Datatype* filetype() const { return filetype_; }
  const Datarep& rep() const { return *rep_; }
  /// Bytes of one etype in the file (the unit of offsets and file pointers).
  uint64_t esize() const { return esize_; }
  /// Data bytes of one filetype tile in the file, and the tile's extent.
  uint64_t tile_size() const { return ftype_->size; }
  uint64_t tile_extent() const { return static_cast<uint64_t>(ftype_->extent); }
  /// The stream is one run of the file: stream offset s is file offset first() + s.
  bool linear() const { return linear_; }
  uint64_t first() const { return first_; }

  /// File offset of stream byte s.
  uint64_t file_offset(uint64_t s) const;
  /// Stream bytes lying before file offset `off` (the inverse of file_offset, for
  /// MPI_SEEK_END and end-of-file arithmetic).
  uint64_t stream_before(uint64_t off) const;
  /// The file range [lo, hi) covering stream range [s, s + len) (len > 0).
  void file_range(uint64_t s, uint64_t len, uint64_t* lo, uint64_t* hi) const;

  /// Walks the file blocks of stream range [s, s + len) in order, merging adjacent ones.
  class Blocks {
   public:
    Blocks(const View& v, uint64_t s, uint64_t len);
    /// The next block, at most `max` bytes; false at the end.
    bool next(Block* b, uint64_t max = UINT64_MAX);

   private:
    const View& v_;
    uint64_t left_;
    uint64_t lin_off_ = 0;  // linear views
    runtime::dt::Cursor cur_;
    Block pending_;
    bool has_pending_ = false;
  };

 private:
  /// Takes over the reference on `ftype`; retains etype and filetype.
  View(MPI_Offset disp, const Datatype* etype, const Datatype* filetype, const Datatype* ftype,
       const Datarep* rep, uint64_t esize);

  MPI_Offset disp_ = 0;
  const Datatype* etype_;
  const Datatype* filetype_;
  const Datatype* ftype_;  // the filetype's layout in the file (io/datarep.h)
  const Datarep* rep_;
  uint64_t esize_ = 1;
  bool linear_ = true;
  uint64_t first_ = 0;
};

}  // namespace mpr::io
