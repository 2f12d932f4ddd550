// A position in the packed byte stream of `count` elements of a datatype at some buffer, and
// the single-pass engine that moves bytes between that stream and the buffer's layout.
// Packing or unpacking continues where the last call stopped, so a message can be moved in
// pieces of any size; seek() jumps to any packed offset by descending the loop program
// (cost: the program's depth times the segments of each level, never the element count).
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "runtime/dt/program.h"

namespace mpr::runtime {
class Datatype;
}

namespace mpr::runtime::dt {

class Cursor {
 public:
  Cursor() = default;
  /// Position 0 of `count` elements of `type` at `buf`. `type` must outlive the cursor.
  Cursor(const Datatype& type, const void* buf, size_t count);

  /// Packed bytes of the whole buffer.
  size_t total() const { return total_; }
  /// Packed bytes before the current position.
  size_t pos() const { return pos_; }
  /// Move to packed offset `pos` (clamped to total()).
  void seek(size_t pos);
  /// Copy up to `max` packed bytes from the buffer into `out`; returns the bytes copied.
  size_t pack(void* out, size_t max);
  /// Copy up to `len` packed bytes from `in` into the buffer; returns the bytes consumed.
  size_t unpack(const void* in, size_t len);
  /// The next contiguous piece of the layout, without moving data: its address (buffer plus
  /// displacement, so a null buffer gives displacements) and length (at most `max`). Returns
  /// 0 at the end. One-sided operations use this to address a target's memory.
  size_t next_block(uintptr_t* addr, size_t max);

 private:
  struct Frame {
    uint32_t loop;  // index of the kLoop segment (unused for the element loop)
    size_t iter;
    uintptr_t base;  // start of the current iteration (an integer: MPI_BOTTOM is null)
  };
  template <bool kPack>
  size_t run(char* io, size_t len);

  const Seg* segs_ = nullptr;
  uint32_t nsegs_ = 0;
  size_t elem_bytes_ = 0;
  ptrdiff_t extent_ = 0;
  uintptr_t buf_ = 0;
  size_t total_ = 0;
  size_t pos_ = 0;
  uint32_t pc_ = 0;           // current segment
  size_t rep_ = 0;            // repetition of the current block
  size_t off_ = 0;            // bytes of the current repetition already moved
  std::vector<Frame> stack_;  // [0] walks the elements; one more per loop entered
};

}  // namespace mpr::runtime::dt
