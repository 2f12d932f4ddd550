// The pml's Convertor for a (buffer, count, datatype) triple: packs and unpacks any range of
// the message through a dt::Cursor, which continues in place when ranges come in order. It
// holds a reference on the datatype, so MPI_Type_free while a request is pending is safe.
#pragma once

#include <cstddef>

#include "pml/pml.h"
#include "runtime/dt/cursor.h"
#include "runtime/dt/datatype.h"

namespace mpr::runtime::dt {

class TypeConvertor final : public pml::Convertor {
 public:
  TypeConvertor(const Datatype* type, const void* buf, size_t count);
  ~TypeConvertor() override;
  TypeConvertor(const TypeConvertor&) = delete;
  TypeConvertor& operator=(const TypeConvertor&) = delete;

  void pack(size_t pos, void* out, size_t len) override;
  void unpack(size_t pos, const void* in, size_t len) override;

 private:
  const Datatype* type_;
  Cursor cursor_;
};

/// inout = in op inout for `count` elements of a derived `type` whose basic elements are all
/// of the predefined type `type->basic`, with that type's kernel: both operands are packed into
/// arrays of the basic type, combined, and the result unpacked into inout's layout.
void apply_kernel(void (*kernel)(const void*, void*, size_t), const void* in, void* inout,
                  size_t count, const Datatype* type);

}  // namespace mpr::runtime::dt
