// The memory layout of one datatype element as a compact loop program: blocks of bytes that
// repeat at a stride, nested in loops that repeat a whole sub-layout at a stride. A vector of a
// million doubles is one segment and a 3D subarray is two loops around one block, so a type
// costs memory in proportion to its constructor arguments, never to its element count.
//
// Segments are stored flat, in packing order. A kLoop segment is followed by its body and a
// kEnd segment; displacements of the body are relative to the start of the current iteration.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace mpr::runtime::dt {

struct Seg {
  enum class Kind : uint8_t { kBlock, kLoop, kEnd };
  Kind kind = Kind::kBlock;
  uint32_t match = 0;    ///< kLoop: index of its kEnd; kEnd: index of its kLoop
  size_t len = 0;        ///< kBlock: bytes per block; kLoop: packed bytes of one iteration
  size_t count = 0;      ///< repetitions (>= 1; unused for kEnd)
  ptrdiff_t disp = 0;    ///< start of repetition 0, relative to the enclosing base
  ptrdiff_t stride = 0;  ///< distance between repetitions (meaningless when count == 1)
  /// Packed bytes this segment produces in all its repetitions.
  size_t bytes() const { return kind == Kind::kEnd ? 0 : len * count; }
};

class Program {
 public:
  /// One block of `len` bytes at `disp` (a predefined type, or part of one).
  static Program block(ptrdiff_t disp, size_t len);

  /// Append `count` copies of `body`: the first at `disp`, each next one `stride` further.
  /// Merges with what is already there where the layouts line up (adjacent blocks, a vector
  /// of vectors that is really one vector, a loop around a single block).
  void append(const Program& body, size_t count, ptrdiff_t disp, ptrdiff_t stride);

  const std::vector<Seg>& segs() const { return segs_; }
  /// Packed bytes of one element.
  size_t bytes() const { return bytes_; }
  /// Deepest loop nesting (0: only blocks).
  int depth() const { return depth_; }
  /// True if the element is one run of bytes; *disp and *len say where.
  bool single_block(ptrdiff_t* disp, size_t* len) const;
  /// Lowest and highest byte address (exclusive) the element's data touches, relative to the
  /// element start; both 0 for an empty program.
  void data_bounds(ptrdiff_t* lo, ptrdiff_t* hi) const;

 private:
  void push_block(Seg b);
  void append_shifted(const Program& body, ptrdiff_t disp);

  std::vector<Seg> segs_;
  size_t bytes_ = 0;
  int depth_ = 0;
};

}  // namespace mpr::runtime::dt
