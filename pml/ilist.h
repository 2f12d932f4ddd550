// Intrusive doubly linked list. An element can sit in several lists at once (one Hook base per
// list, told apart by a tag type) and is unlinked in O(1), which is what cancel and matched
// probes need. The list holds head/tail pointers only, so it may be moved (e.g. inside a
// growing std::vector of per-source buckets) while elements are linked.
#pragma once

#include <cassert>
#include <cstddef>

namespace mpr::pml {

template <typename Tag>
struct Hook {
  Hook* prev = nullptr;
  Hook* next = nullptr;
};

template <typename T, typename Tag>
class IList {
 public:
  using H = Hook<Tag>;

  bool empty() const { return head_ == nullptr; }
  size_t size() const { return size_; }
  T* front() const { return head_ ? owner(head_) : nullptr; }
  /// The element after `e` in this list, or nullptr.
  static T* next(T* e) {
    H* n = static_cast<H*>(e)->next;
    return n ? owner(n) : nullptr;
  }

  void push_back(T* e) {
    H* h = static_cast<H*>(e);
    assert(h->prev == nullptr && h->next == nullptr && head_ != h);
    h->prev = tail_;
    h->next = nullptr;
    if (tail_)
      tail_->next = h;
    else
      head_ = h;
    tail_ = h;
    ++size_;
  }

  /// `e` must be linked in this list.
  void erase(T* e) {
    H* h = static_cast<H*>(e);
    if (h->prev)
      h->prev->next = h->next;
    else
      head_ = h->next;
    if (h->next)
      h->next->prev = h->prev;
    else
      tail_ = h->prev;
    h->prev = h->next = nullptr;
    --size_;
  }

 private:
  static T* owner(H* h) { return static_cast<T*>(h); }
  H* head_ = nullptr;
  H* tail_ = nullptr;
  size_t size_ = 0;
};

}  // namespace mpr::pml
