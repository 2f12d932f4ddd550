#include "runtime/datatype.h"

#include <complex>
#include <cstddef>
#include <cstring>

namespace mpr::runtime {

namespace {

// Layouts of the MINLOC/MAXLOC pair types as C lays them out.
template <class V>
struct Pair {
  V value;
  int index;
};

template <class T>
Datatype scalar(Basic b, const char* name) {
  Datatype d;
  d.name = name;
  d.size = sizeof(T);
  d.extent = sizeof(T);
  d.basic = b;
  d.blocks = {{0, sizeof(T)}};
  d.element_sizes = {static_cast<uint16_t>(sizeof(T))};
  return d;
}

template <class V>
Datatype pair(Basic b, const char* name) {
  Datatype d;
  d.name = name;
  d.size = sizeof(V) + sizeof(int);
  d.extent = sizeof(Pair<V>);
  d.basic = b;
  constexpr size_t index_at = offsetof(Pair<V>, index);
  if (index_at == sizeof(V))
    d.blocks = {{0, sizeof(V) + sizeof(int)}};
  else
    d.blocks = {{0, sizeof(V)}, {static_cast<ptrdiff_t>(index_at), sizeof(int)}};
  d.contiguous = d.blocks.size() == 1 && d.size == static_cast<size_t>(d.extent);
  d.element_sizes = {static_cast<uint16_t>(sizeof(V)), static_cast<uint16_t>(sizeof(int))};
  return d;
}

struct Table {
  Datatype types[static_cast<int>(Basic::kNumBasic)];

  void add(Datatype d) {
    int i = static_cast<int>(d.basic);
    d.handle = reinterpret_cast<MPI_Datatype>(kDatatypeHandleBase + i);
    types[i] = std::move(d);
  }

  Table() {
    using B = Basic;
    add(scalar<char>(B::kChar, "MPI_CHAR"));
    add(scalar<signed char>(B::kSignedChar, "MPI_SIGNED_CHAR"));
    add(scalar<unsigned char>(B::kUnsignedChar, "MPI_UNSIGNED_CHAR"));
    add(scalar<unsigned char>(B::kByte, "MPI_BYTE"));
    add(scalar<wchar_t>(B::kWchar, "MPI_WCHAR"));
    add(scalar<short>(B::kShort, "MPI_SHORT"));
    add(scalar<unsigned short>(B::kUShort, "MPI_UNSIGNED_SHORT"));
    add(scalar<int>(B::kInt, "MPI_INT"));
    add(scalar<unsigned>(B::kUInt, "MPI_UNSIGNED"));
    add(scalar<long>(B::kLong, "MPI_LONG"));
    add(scalar<unsigned long>(B::kULong, "MPI_UNSIGNED_LONG"));
    add(scalar<long long>(B::kLongLong, "MPI_LONG_LONG_INT"));
    add(scalar<unsigned long long>(B::kULongLong, "MPI_UNSIGNED_LONG_LONG"));
    add(scalar<float>(B::kFloat, "MPI_FLOAT"));
    add(scalar<double>(B::kDouble, "MPI_DOUBLE"));
    add(scalar<long double>(B::kLongDouble, "MPI_LONG_DOUBLE"));
    add(scalar<bool>(B::kCBool, "MPI_C_BOOL"));
    add(scalar<int8_t>(B::kInt8, "MPI_INT8_T"));
    add(scalar<int16_t>(B::kInt16, "MPI_INT16_T"));
    add(scalar<int32_t>(B::kInt32, "MPI_INT32_T"));
    add(scalar<int64_t>(B::kInt64, "MPI_INT64_T"));
    add(scalar<uint8_t>(B::kUInt8, "MPI_UINT8_T"));
    add(scalar<uint16_t>(B::kUInt16, "MPI_UINT16_T"));
    add(scalar<uint32_t>(B::kUInt32, "MPI_UINT32_T"));
    add(scalar<uint64_t>(B::kUInt64, "MPI_UINT64_T"));
    add(scalar<std::complex<float>>(B::kCFloatComplex, "MPI_C_FLOAT_COMPLEX"));
    add(scalar<std::complex<double>>(B::kCDoubleComplex, "MPI_C_DOUBLE_COMPLEX"));
    add(scalar<std::complex<long double>>(B::kCLongDoubleComplex, "MPI_C_LONG_DOUBLE_COMPLEX"));
    add(scalar<MPI_Aint>(B::kAint, "MPI_AINT"));
    add(scalar<MPI_Offset>(B::kOffset, "MPI_OFFSET"));
    add(scalar<MPI_Count>(B::kCount, "MPI_COUNT"));
    add(scalar<unsigned char>(B::kPacked, "MPI_PACKED"));
    add(scalar<bool>(B::kCxxBool, "MPI_CXX_BOOL"));
    add(scalar<std::complex<float>>(B::kCxxFloatComplex, "MPI_CXX_FLOAT_COMPLEX"));
    add(scalar<std::complex<double>>(B::kCxxDoubleComplex, "MPI_CXX_DOUBLE_COMPLEX"));
    add(scalar<std::complex<long double>>(B::kCxxLongDoubleComplex,
                                          "MPI_CXX_LONG_DOUBLE_COMPLEX"));
    add(pair<float>(B::kFloatInt, "MPI_FLOAT_INT"));
    add(pair<double>(B::kDoubleInt, "MPI_DOUBLE_INT"));
    add(pair<long>(B::kLongInt, "MPI_LONG_INT"));
    add(pair<int>(B::k2Int, "MPI_2INT"));
    add(pair<short>(B::kShortInt, "MPI_SHORT_INT"));
    add(pair<long double>(B::kLongDoubleInt, "MPI_LONG_DOUBLE_INT"));
  }
};

Table& table() {
  static Table t;
  return t;
}

}  // namespace

void Datatype::pack(const void* buf, size_t count, void* out) const {
  auto* src = static_cast<const char*>(buf);
  auto* dst = static_cast<char*>(out);
  if (contiguous) {
    std::memcpy(dst, src, count * size);
    return;
  }
  for (size_t i = 0; i < count; ++i, src += extent)
    for (const Block& b : blocks) {
      std::memcpy(dst, src + b.disp, b.len);
      dst += b.len;
    }
}

void Datatype::unpack(const void* in, size_t bytes, void* buf) const {
  auto* src = static_cast<const char*>(in);
  auto* dst = static_cast<char*>(buf);
  if (contiguous) {
    std::memcpy(dst, src, bytes);
    return;
  }
  for (; bytes > 0; dst += extent)
    for (const Block& b : blocks) {
      size_t n = b.len < bytes ? b.len : bytes;
      std::memcpy(dst + b.disp, src, n);
      src += n;
      bytes -= n;
      if (bytes == 0) return;
    }
}

int64_t Datatype::elements_in(size_t bytes) const {
  if (size == 0) return 0;
  int64_t n = static_cast<int64_t>(bytes / size) * static_cast<int64_t>(element_sizes.size());
  size_t rest = bytes % size;
  for (uint16_t s : element_sizes) {
    if (rest == 0) break;
    if (rest < s) return -1;
    rest -= s;
    ++n;
  }
  return n;
}

size_t Datatype::bytes_for_elements(int64_t n) const {
  if (element_sizes.empty()) return 0;
  auto per = static_cast<int64_t>(element_sizes.size());
  size_t bytes = static_cast<size_t>(n / per) * size;
  for (int64_t i = 0; i < n % per; ++i) bytes += element_sizes[i];
  return bytes;
}

int64_t Datatype::count_in(size_t bytes) const {
  if (size == 0) return bytes == 0 ? 0 : -1;
  return bytes % size == 0 ? static_cast<int64_t>(bytes / size) : -1;
}

Datatype* predefined_datatype(Basic b) { return &table().types[static_cast<int>(b)]; }

Datatype* to_datatype(MPI_Datatype h) {
  auto v = reinterpret_cast<uintptr_t>(h);
  if (v > kDatatypeHandleBase && v < kDatatypeHandleBase + static_cast<int>(Basic::kNumBasic))
    return &table().types[v - kDatatypeHandleBase];
  if (v < 0x1000) return nullptr;
  auto* d = reinterpret_cast<Datatype*>(h);
  return d->magic == Datatype::kMagic ? d : nullptr;
}

}  // namespace mpr::runtime
