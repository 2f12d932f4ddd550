#include "runtime/dt/convertor.h"

#include <vector>

namespace mpr::runtime::dt {

TypeConvertor::TypeConvertor(const Datatype* type, const void* buf, size_t count)
    : type_(type), cursor_(*type, buf, count) {
  type_->retain();
}

TypeConvertor::~TypeConvertor() { type_->release(); }

void TypeConvertor::pack(size_t pos, void* out, size_t len) {
  if (pos != cursor_.pos()) cursor_.seek(pos);
  cursor_.pack(out, len);
}

void TypeConvertor::unpack(size_t pos, const void* in, size_t len) {
  if (pos != cursor_.pos()) cursor_.seek(pos);
  cursor_.unpack(in, len);
}

void apply_kernel(void (*kernel)(const void*, void*, size_t), const void* in, void* inout,
                  size_t count, const Datatype* type) {
  const Datatype* basic = predefined_datatype(type->basic);
  const size_t bytes = count * type->size;
  const size_t n = bytes / basic->size;
  std::vector<char> a(bytes), b(bytes);
  type->pack(in, count, a.data());
  type->pack(inout, count, b.data());
  if (basic->contiguous) {
    kernel(a.data(), b.data(), n);
  } else {
    // Pair types (MPI_DOUBLE_INT, ...): kernels expect the C struct layout with its padding.
    const size_t span = n * static_cast<size_t>(basic->extent);
    std::vector<char> sa(span), sb(span);
    basic->unpack(a.data(), bytes, sa.data());
    basic->unpack(b.data(), bytes, sb.data());
    kernel(sa.data(), sb.data(), n);
    basic->pack(sb.data(), n, b.data());
  }
  type->unpack(b.data(), bytes, inout);
}

}  // namespace mpr::runtime::dt
