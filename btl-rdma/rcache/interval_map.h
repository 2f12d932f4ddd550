// A set of non-overlapping half-open address intervals [lo, hi), each carrying a value.
//
// The registration cache keeps its live registrations here. Keeping the intervals disjoint
// (a new registration first removes everything it overlaps) makes "which registration covers
// [a, b)?" a single ordered-map lookup instead of an interval-tree walk, and makes eviction of
// stale overlapping entries explicit.
#pragma once

#include <cstddef>
#include <cstdint>
#include <iterator>
#include <map>
#include <stdexcept>
#include <vector>

namespace mpr::btl::rcache {

template <typename V>
class IntervalMap {
 public:
  struct Interval {
    uintptr_t lo = 0;
    uintptr_t hi = 0;
    V value{};
  };

  /// Value of the interval that contains all of [lo, hi), or nullptr. Empty queries (lo == hi)
  /// are answered for the single address lo.
  V* find_containing(uintptr_t lo, uintptr_t hi) {
    if (hi < lo) return nullptr;
    auto it = map_.upper_bound(lo);
    if (it == map_.begin()) return nullptr;
    --it;
    const uintptr_t end = hi == lo ? lo + 1 : hi;
    if (it->second.hi < end) return nullptr;
    return &it->second.value;
  }

  /// Every interval that shares at least one address with [lo, hi), in address order.
  std::vector<Interval> overlapping(uintptr_t lo, uintptr_t hi) const {
    std::vector<Interval> out;
    if (hi <= lo) return out;
    auto it = map_.upper_bound(lo);
    // The interval starting at or before lo may reach into the query.
    if (it != map_.begin()) {
      auto prev = std::prev(it);
      if (prev->second.hi > lo) out.push_back({prev->first, prev->second.hi, prev->second.value});
    }
    for (; it != map_.end() && it->first < hi; ++it)
      out.push_back({it->first, it->second.hi, it->second.value});
    return out;
  }

  /// Adds [lo, hi) -> value. Throws std::logic_error if it is empty or overlaps an interval
  /// already present: callers remove overlaps first, so this is a programming error.
  void insert(uintptr_t lo, uintptr_t hi, V value) {
    if (hi <= lo) throw std::logic_error("IntervalMap::insert: empty interval");
    if (!overlapping(lo, hi).empty())
      throw std::logic_error("IntervalMap::insert: interval overlaps an existing one");
    map_.emplace(lo, Node{hi, value});
  }

  /// Removes the interval starting exactly at lo. Returns false if there is none.
  bool erase(uintptr_t lo) { return map_.erase(lo) > 0; }

  size_t size() const { return map_.size(); }
  bool empty() const { return map_.empty(); }

  /// All intervals in address order (for teardown and tests).
  std::vector<Interval> all() const {
    std::vector<Interval> out;
    out.reserve(map_.size());
    for (const auto& [lo, n] : map_) out.push_back({lo, n.hi, n.value});
    return out;
  }

 private:
  struct Node {
    uintptr_t hi;
    V value;
  };
  std::map<uintptr_t, Node> map_;
};

}  // namespace mpr::btl::rcache
