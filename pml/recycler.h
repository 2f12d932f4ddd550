// Free lists for the objects the pml creates per message (requests, unexpected messages).
// A small message costs a handful of pointer moves instead of a malloc/free pair per object;
// on the unexpected path of a stream of eager messages that was the largest single cost.
//
// Each PmlImpl owns its own lists (unit tests run several pmls in threads of one process).
// Sanitizer builds keep nothing, so every object is freed at once and use-after-free of a
// request or message is still reported.
#pragma once

#include <cstddef>
#include <new>
#include <vector>

namespace mpr::pml {

#if defined(__SANITIZE_ADDRESS__)
inline constexpr bool kRecycle = false;
#else
inline constexpr bool kRecycle = true;
#endif

/// Keeps the memory of up to `keep` destroyed T objects for the next make().
template <typename T>
class Recycler {
 public:
  explicit Recycler(size_t keep) : keep_(kRecycle ? keep : 0) { free_.reserve(keep_); }
  ~Recycler() {
    for (void* p : free_) ::operator delete(p);
  }
  Recycler(const Recycler&) = delete;
  Recycler& operator=(const Recycler&) = delete;

  /// A default-initialized T (every member of the pml's types has an initializer).
  T* make() {
    void* p;
    if (free_.empty()) {
      p = ::operator new(sizeof(T));
    } else {
      p = free_.back();
      free_.pop_back();
    }
    return new (p) T;
  }

  /// Destroy `t` (made by make()) and keep or free its memory.
  void drop(T* t) {
    t->~T();
    if (free_.size() < keep_)
      free_.push_back(t);
    else
      ::operator delete(t);
  }

 private:
  size_t keep_;
  std::vector<void*> free_;
};

}  // namespace mpr::pml
