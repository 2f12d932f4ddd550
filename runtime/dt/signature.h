// The type signature of a datatype element: the sequence of basic elements (by size) its
// packed bytes are made of, kept as runs and shared sub-signatures so that it stays as small as
// the type's constructor arguments. MPI_Get_elements and MPI_Status_set_elements need it: the
// layout program merges blocks and no longer knows where one basic element ends.
#pragma once

#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <memory>
#include <vector>

namespace mpr::runtime::dt {

class Sig {
 public:
  /// A predefined type: its basic elements' sizes in order (one, or two for the pair types).
  static std::shared_ptr<const Sig> basic(std::initializer_list<size_t> elem_sizes);

  /// Append `count` repetitions of `sub`.
  void append(const std::shared_ptr<const Sig>& sub, uint64_t count);

  uint64_t bytes() const { return bytes_; }
  uint64_t elements() const { return elems_; }
  /// Basic elements in the first `bytes` (< bytes()) packed bytes, or -1 if that prefix ends
  /// inside a basic element.
  int64_t elements_in(uint64_t bytes) const;
  /// Packed bytes of the first `n` (< elements()) basic elements.
  uint64_t bytes_for(uint64_t n) const;
  /// Number of runs (for tests: the signature must stay compact).
  size_t runs() const { return items_.size(); }

 private:
  struct Item {
    uint64_t count = 0;
    uint64_t unit_bytes = 0;  ///< one repetition: a basic element, or all of `sub`
    uint64_t unit_elems = 1;
    std::shared_ptr<const Sig> sub;  ///< null for a run of basic elements
  };
  void push(const Item& it);

  std::vector<Item> items_;
  uint64_t bytes_ = 0;
  uint64_t elems_ = 0;
};

}  // namespace mpr::runtime::dt
