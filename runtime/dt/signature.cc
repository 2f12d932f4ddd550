#include "runtime/dt/signature.h"

namespace mpr::runtime::dt {

std::shared_ptr<const Sig> Sig::basic(std::initializer_list<size_t> elem_sizes) {
  auto s = std::make_shared<Sig>();
  for (size_t e : elem_sizes) {
    Item it;
    it.count = 1;
    it.unit_bytes = e;
    s->push(it);
  }
  return s;
}

void Sig::push(const Item& it) {
  bytes_ += it.count * it.unit_bytes;
  elems_ += it.count * it.unit_elems;
  if (!items_.empty()) {
    Item& last = items_.back();
    // Runs of one basic size, or of one shared sub-signature, are one run.
    if (last.sub == it.sub && last.unit_bytes == it.unit_bytes) {
      last.count += it.count;
      return;
    }
  }
  items_.push_back(it);
}

void Sig::append(const std::shared_ptr<const Sig>& sub, uint64_t count) {
  if (count == 0 || sub->bytes_ == 0) return;
  if (sub->items_.size() == 1) {
    Item it = sub->items_.front();
    it.count *= count;
    push(it);
    return;
  }
  if (count == 1) {
    for (const Item& it : sub->items_) push(it);
    return;
  }
  Item it;
  it.count = count;
  it.unit_bytes = sub->bytes_;
  it.unit_elems = sub->elems_;
  it.sub = sub;
  push(it);
}

int64_t Sig::elements_in(uint64_t bytes) const {
  uint64_t n = 0;
  for (const Item& it : items_) {
    uint64_t all = it.count * it.unit_bytes;
    if (bytes >= all) {
      n += it.count * it.unit_elems;
      bytes -= all;
      if (bytes == 0) return static_cast<int64_t>(n);
      continue;
    }
    n += bytes / it.unit_bytes * it.unit_elems;
    uint64_t rest = bytes % it.unit_bytes;
    if (rest == 0) return static_cast<int64_t>(n);
    if (!it.sub) return -1;
    int64_t inner = it.sub->elements_in(rest);
    return inner < 0 ? -1 : static_cast<int64_t>(n) + inner;
  }
  return bytes == 0 ? static_cast<int64_t>(n) : -1;
}

uint64_t Sig::bytes_for(uint64_t n) const {
  uint64_t bytes = 0;
  for (const Item& it : items_) {
    uint64_t all = it.count * it.unit_elems;
    if (n >= all) {
      bytes += it.count * it.unit_bytes;
      n -= all;
      if (n == 0) return bytes;
      continue;
    }
    bytes += n / it.unit_elems * it.unit_bytes;
    uint64_t rest = n % it.unit_elems;
    if (rest == 0) return bytes;
    return bytes + it.sub->bytes_for(rest);
  }
  return bytes;
}

}  // namespace mpr::runtime::dt
