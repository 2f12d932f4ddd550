#include "runtime/dt/datatype.h"

#include <algorithm>
#include <complex>
#include <cstddef>
#include <cstdio>
#include <cstring>
#include <string>

#include "runtime/dt/cursor.h"

namespace mpr::runtime {

std::atomic<Datatype*> detail::g_predefined{nullptr};

namespace {

// Layouts of the MINLOC/MAXLOC pair types as C lays them out (Fortran's pairs hold two values
// of one type).
template <class V, class I = int>
struct Pair {
  V value;
  I index;
};

template <class T>
Datatype scalar(Basic b, const char* name) {
  Datatype d;
  d.name = name;
  d.size = sizeof(T);
  d.extent = sizeof(T);
  d.true_extent = sizeof(T);
  d.align = alignof(T);
  d.basic = b;
  d.prog = dt::Program::block(0, sizeof(T));
  d.sig = dt::Sig::basic({sizeof(T)});
  return d;
}

template <class V, class I = int>
Datatype pair(Basic b, const char* name) {
  using P = Pair<V, I>;
  Datatype d;
  d.name = name;
  d.size = sizeof(V) + sizeof(I);
  d.extent = sizeof(P);
  d.align = alignof(P);
  d.basic = b;
  constexpr size_t index_at = offsetof(P, index);
  d.true_extent = index_at + sizeof(I);
  d.prog = dt::Program::block(0, sizeof(V));
  d.prog.append(dt::Program::block(static_cast<ptrdiff_t>(index_at), sizeof(I)), 1, 0, 0);
  ptrdiff_t disp;
  size_t len;
  d.contiguous = d.prog.single_block(&disp, &len) && len == static_cast<size_t>(d.extent);
  d.sig = dt::Sig::basic({sizeof(V), sizeof(I)});
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
    add(scalar<std::complex<float>>(B::kCFloatComplex, "MPI_C_COMPLEX"));
    add(scalar<std::complex<double>>(B::kCDoubleComplex, "MPI_C_DOUBLE_COMPLEX"));
    add(scalar<std::complex<long double>>(B::kCLongDoubleComplex, "MPI_C_LONG_DOUBLE_COMPLEX"));
    add(scalar<MPI_Aint>(B::kAint, "MPI_AINT"));
    add(scalar<MPI_Offset>(B::kOffset, "MPI_OFFSET"));
    add(scalar<MPI_Count>(B::kCount, "MPI_COUNT"));
    add(scalar<unsigned char>(B::kPacked, "MPI_PACKED"));
    add(scalar<bool>(B::kCxxBool, "MPI_CXX_BOOL"));
    add(scalar<std::complex<float>>(B::kCxxFloatComplex, "MPI_CXX_FLOAT_COMPLEX"));
    add(scalar<std::complex<double>>(B::kCxxDoubleComplex, "MPI_CXX_DOUBLE_COMPLEX"));
    add(scalar<std::complex<long double>>(B::kCxxLongDoubleComplex, "MPI_CXX_LONG_DOUBLE_COMPLEX"));
    add(pair<float>(B::kFloatInt, "MPI_FLOAT_INT"));
    add(pair<double>(B::kDoubleInt, "MPI_DOUBLE_INT"));
    add(pair<long>(B::kLongInt, "MPI_LONG_INT"));
    add(pair<int>(B::k2Int, "MPI_2INT"));
    add(pair<short>(B::kShortInt, "MPI_SHORT_INT"));
    add(pair<long double>(B::kLongDoubleInt, "MPI_LONG_DOUBLE_INT"));
    add(scalar<int32_t>(B::kInteger, "MPI_INTEGER"));
    add(scalar<float>(B::kReal, "MPI_REAL"));
    add(scalar<double>(B::kDoublePrecision, "MPI_DOUBLE_PRECISION"));
    add(scalar<std::complex<float>>(B::kComplex, "MPI_COMPLEX"));
    add(scalar<std::complex<double>>(B::kDoubleComplex, "MPI_DOUBLE_COMPLEX"));
    add(scalar<int32_t>(B::kLogical, "MPI_LOGICAL"));
    add(scalar<char>(B::kCharacter, "MPI_CHARACTER"));
    add(pair<float, float>(B::k2Real, "MPI_2REAL"));
    add(pair<double, double>(B::k2DoublePrecision, "MPI_2DOUBLE_PRECISION"));
    add(pair<int32_t, int32_t>(B::k2Integer, "MPI_2INTEGER"));
    add(scalar<int8_t>(B::kInteger1, "MPI_INTEGER1"));
    add(scalar<int16_t>(B::kInteger2, "MPI_INTEGER2"));
    add(scalar<int32_t>(B::kInteger4, "MPI_INTEGER4"));
    add(scalar<int64_t>(B::kInteger8, "MPI_INTEGER8"));
    add(scalar<float>(B::kReal4, "MPI_REAL4"));
    add(scalar<double>(B::kReal8, "MPI_REAL8"));
    add(scalar<__float128>(B::kReal16, "MPI_REAL16"));  // IEEE quad, gfortran's REAL(16)
    add(scalar<std::complex<float>>(B::kComplex8, "MPI_COMPLEX8"));
    add(scalar<std::complex<double>>(B::kComplex16, "MPI_COMPLEX16"));
    add(scalar<std::complex<__float128>>(B::kComplex32, "MPI_COMPLEX32"));
    add(scalar<int8_t>(B::kLogical1, "MPI_LOGICAL1"));
    add(scalar<int16_t>(B::kLogical2, "MPI_LOGICAL2"));
    add(scalar<int32_t>(B::kLogical4, "MPI_LOGICAL4"));
    add(scalar<int64_t>(B::kLogical8, "MPI_LOGICAL8"));
    detail::g_predefined.store(types, std::memory_order_release);
  }
};

// buf + off as an integer sum: with MPI_BOTTOM (null) the offset is an absolute address.
char* at(const void* buf, ptrdiff_t off) {
  return reinterpret_cast<char*>(reinterpret_cast<uintptr_t>(buf) + static_cast<uintptr_t>(off));
}

Table& table() {
  static Table t;
  return t;
}

}  // namespace

void Datatype::pack(const void* buf, size_t count, void* out) const {
  ptrdiff_t off;
  if (dense(count, &off)) {
    if (count > 0 && size > 0) std::memcpy(out, at(buf, off), count * size);
    return;
  }
  dt::Cursor c(*this, buf, count);
  c.pack(out, c.total());
}

void Datatype::unpack(const void* in, size_t bytes, void* buf) const {
  if (bytes == 0 || size == 0) return;
  size_t count = size ? (bytes + size - 1) / size : 0;
  ptrdiff_t off;
  if (dense(count, &off)) {
    std::memcpy(at(buf, off), in, bytes);
    return;
  }
  dt::Cursor c(*this, buf, count);
  c.unpack(in, bytes);
}

int64_t Datatype::elements_in(size_t bytes) const {
  if (size == 0) return 0;
  auto n = static_cast<int64_t>(bytes / size * sig->elements());
  size_t rest = bytes % size;
  if (rest == 0) return n;
  int64_t more = sig->elements_in(rest);
  return more < 0 ? -1 : n + more;
}

size_t Datatype::bytes_for_elements(int64_t n) const {
  uint64_t per = sig->elements();
  if (per == 0 || n <= 0) return 0;
  auto u = static_cast<uint64_t>(n);
  return static_cast<size_t>(u / per * size + sig->bytes_for(u % per));
}

int64_t Datatype::count_in(size_t bytes) const {
  if (size == 0) return bytes == 0 ? 0 : -1;
  return bytes % size == 0 ? static_cast<int64_t>(bytes / size) : -1;
}

bool Datatype::dense(size_t count, ptrdiff_t* offset) const {
  if (contiguous && size > 0 && count > 0) {  // set when the type was built
    *offset = true_lb;
    return true;
  }
  *offset = 0;
  if (count == 0 || size == 0) return true;
  ptrdiff_t disp;
  size_t len;
  if (!prog.single_block(&disp, &len)) return false;
  if (count > 1 && static_cast<ptrdiff_t>(len) != extent) return false;
  *offset = disp;
  return true;
}

void Datatype::span(size_t count, ptrdiff_t* lo, size_t* bytes) const {
  if (count == 0 || size == 0) {
    *lo = 0;
    *bytes = 0;
    return;
  }
  // Data and bounds both: code that works on elements in place (op kernels, user ops) may
  // touch an element's padding up to its extent, as C struct assignment does.
  ptrdiff_t reach = static_cast<ptrdiff_t>(count - 1) * extent;
  *lo = std::min(true_lb, lb) + std::min<ptrdiff_t>(0, reach);
  ptrdiff_t hi = std::max(true_lb + true_extent, lb + extent) + std::max<ptrdiff_t>(0, reach);
  *bytes = static_cast<size_t>(hi - *lo);
}

void Datatype::copy(const void* src, void* dst, size_t count) const {
  ptrdiff_t off;
  if (dense(count, &off)) {
    if (count > 0 && size > 0) std::memcpy(at(dst, off), at(src, off), count * size);
    return;
  }
  dt::Cursor from(*this, src, count), to(*this, dst, count);
  char chunk[16384];
  while (size_t n = from.pack(chunk, sizeof chunk)) to.unpack(chunk, n);
}

void Datatype::set_name(const char* n) {
  name_storage = n;
  name = name_storage.c_str();
}

void Datatype::retain() const {
  if (!predefined) ++refs;
}

void Datatype::release() const {
  if (predefined || --refs > 0) return;
  for (Datatype* t : types) t->release();
  auto* self = const_cast<Datatype*>(this);
  self->magic = 0;
  delete self;
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

std::string Datatype::label() const {
  if (name && *name) return name;
  const char* how = "derived";
  switch (combiner) {
    case MPI_COMBINER_CONTIGUOUS:
      how = "MPI_Type_contiguous";
      break;
    case MPI_COMBINER_VECTOR:
      how = "MPI_Type_vector";
      break;
    case MPI_COMBINER_HVECTOR:
      how = "MPI_Type_create_hvector";
      break;
    case MPI_COMBINER_INDEXED:
      how = "MPI_Type_indexed";
      break;
    case MPI_COMBINER_HINDEXED:
      how = "MPI_Type_create_hindexed";
      break;
    case MPI_COMBINER_INDEXED_BLOCK:
      how = "MPI_Type_create_indexed_block";
      break;
    case MPI_COMBINER_HINDEXED_BLOCK:
      how = "MPI_Type_create_hindexed_block";
      break;
    case MPI_COMBINER_STRUCT:
      how = "MPI_Type_create_struct";
      break;
    case MPI_COMBINER_SUBARRAY:
      how = "MPI_Type_create_subarray";
      break;
    case MPI_COMBINER_DARRAY:
      how = "MPI_Type_create_darray";
      break;
    case MPI_COMBINER_F90_INTEGER:
      how = "MPI_Type_create_f90_integer";
      break;
    case MPI_COMBINER_F90_REAL:
      how = "MPI_Type_create_f90_real";
      break;
    case MPI_COMBINER_F90_COMPLEX:
      how = "MPI_Type_create_f90_complex";
      break;
    case MPI_COMBINER_RESIZED:
      how = "MPI_Type_create_resized";
      break;
    case MPI_COMBINER_DUP:
      how = "MPI_Type_dup";
      break;
    default:
      break;
  }
  char text[96];
  std::snprintf(text, sizeof text, "(unnamed, from %s, handle %p)", how,
                static_cast<void*>(handle));
  return text;
}

}  // namespace mpr::runtime
