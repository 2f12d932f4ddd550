#include "runtime/dt/external32.h"

#include <bit>
#include <cstdint>
#include <cstring>
#include <vector>

namespace mpr::runtime::dt {

namespace {

// How one component of a basic element converts.
enum class Kind : uint8_t {
  kBytes,       // as it is (characters, bytes, bools)
  kSigned,      // two's complement integer, sign-extended when read back wider
  kUnsigned,    // integer, zero-extended when read back wider
  kFloat,       // IEEE binary32/64/128 in memory: only the byte order changes
  kLongDouble,  // x87 extended precision in memory, IEEE binary128 in external32
};

struct Part {
  uint8_t native;  // bytes in memory (the packed native form)
  uint8_t ext;     // bytes in external32
  Kind kind;
};

// A basic type is one or two parts (pairs and complex numbers: two), each repeated `n` times.
struct Layout {
  Part a, b;
  uint8_t parts;
};

template <class T>
constexpr Part integer() {
  return {sizeof(T), sizeof(T), std::is_signed_v<T> ? Kind::kSigned : Kind::kUnsigned};
}
constexpr Part kByte{1, 1, Kind::kBytes};
constexpr Part kLong{sizeof(long), 4, Kind::kSigned};
constexpr Part kULong{sizeof(unsigned long), 4, Kind::kUnsigned};
constexpr Part kF4{4, 4, Kind::kFloat};
constexpr Part kF8{8, 8, Kind::kFloat};
constexpr Part kF16{16, 16, Kind::kFloat};
constexpr Part kLd{sizeof(long double), 16, Kind::kLongDouble};
constexpr Part kInt = integer<int>();

constexpr Layout one(Part p) { return {p, p, 1}; }
constexpr Layout two(Part p, Part q) { return {p, q, 2}; }

Layout layout_of(Basic b) {
  using B = Basic;
  switch (b) {
    case B::kChar:
    case B::kByte:
    case B::kPacked:
    case B::kCharacter:
      return one(kByte);
    case B::kCBool:
    case B::kCxxBool:
      return one({sizeof(bool), 1, Kind::kUnsigned});
    case B::kSignedChar:
    case B::kInt8:
    case B::kInteger1:
    case B::kLogical1:
      return one(integer<int8_t>());
    case B::kUnsignedChar:
    case B::kUInt8:
      return one(integer<uint8_t>());
    case B::kWchar:
      return one({sizeof(wchar_t), 4, Kind::kSigned});
    case B::kShort:
    case B::kInt16:
    case B::kInteger2:
    case B::kLogical2:
      return one(integer<int16_t>());
    case B::kUShort:
    case B::kUInt16:
      return one(integer<uint16_t>());
    case B::kInt:
    case B::kInt32:
    case B::kInteger:
    case B::kInteger4:
    case B::kLogical:
    case B::kLogical4:
      return one(integer<int32_t>());
    case B::kUInt:
    case B::kUInt32:
      return one(integer<uint32_t>());
    case B::kLong:
      return one(kLong);
    case B::kULong:
      return one(kULong);
    case B::kLongLong:
    case B::kInt64:
    case B::kAint:
    case B::kOffset:
    case B::kCount:
    case B::kInteger8:
    case B::kLogical8:
      return one(integer<int64_t>());
    case B::kULongLong:
    case B::kUInt64:
      return one(integer<uint64_t>());
    case B::kFloat:
    case B::kReal:
    case B::kReal4:
      return one(kF4);
    case B::kDouble:
    case B::kDoublePrecision:
    case B::kReal8:
      return one(kF8);
    case B::kReal16:
      return one(kF16);
    case B::kLongDouble:
      return one(kLd);
    case B::kCFloatComplex:
    case B::kCxxFloatComplex:
    case B::kComplex:
    case B::kComplex8:
    case B::k2Real:
      return two(kF4, kF4);
    case B::kCDoubleComplex:
    case B::kCxxDoubleComplex:
    case B::kDoubleComplex:
    case B::kComplex16:
    case B::k2DoublePrecision:
      return two(kF8, kF8);
    case B::kComplex32:
      return two(kF16, kF16);
    case B::kCLongDoubleComplex:
    case B::kCxxLongDoubleComplex:
      return two(kLd, kLd);
    case B::kFloatInt:
      return two(kF4, kInt);
    case B::kDoubleInt:
      return two(kF8, kInt);
    case B::kLongInt:
      return two(kLong, kInt);
    case B::k2Int:
    case B::k2Integer:
      return two(kInt, kInt);
    case B::kShortInt:
      return two(integer<int16_t>(), kInt);
    case B::kLongDoubleInt:
      return two(kLd, kInt);
    case B::kNone:
    case B::kNumBasic:
      break;
  }
  return {kByte, kByte, 0};
}

size_t ext_bytes(Basic b) {
  Layout l = layout_of(b);
  return l.parts == 1 ? l.a.ext : l.a.ext + l.b.ext;
}

// Basic elements of a type in type-map order, as runs of one basic type.
struct Run {
  Basic basic;
  uint64_t n;
};

void add_run(std::vector<Run>& out, Basic b, uint64_t n) {
  if (n == 0) return;
  if (!out.empty() && out.back().basic == b)
    out.back().n += n;
  else
    out.push_back({b, n});
}

// The runs of `times` elements of `t`, found from what built it: a type of one basic type
// is one run; a struct is its members in order; any other constructor repeats its one old
// type size / old size times.
void runs_of(const Datatype* t, uint64_t times, std::vector<Run>& out) {
  if (t->size == 0 || times == 0) return;
  if (t->basic != Basic::kNone) {
    add_run(out, t->basic, times * (t->size / predefined_datatype(t->basic)->size));
    return;
  }
  if (t->combiner == MPI_COMBINER_STRUCT) {
    std::vector<Run> one;
    // Block lengths follow the count: in ints from MPI_Type_create_struct, in large_counts
    // from MPI_Type_create_struct_c.
    const bool large = !t->large_counts.empty();
    for (size_t i = 0; i < t->types.size(); ++i)
      runs_of(t->types[i], static_cast<uint64_t>(large ? t->large_counts[1 + i] : t->ints[1 + i]),
              one);
    for (uint64_t k = 0; k < times; ++k)
      for (const Run& r : one) add_run(out, r.basic, r.n);
    return;
  }
  const Datatype* old = t->types.at(0);
  runs_of(old, times * (t->size / old->size), out);
}

// Big-endian bytes of an integer or IEEE value whose memory form is `native` bytes.
void put(const Part& p, const unsigned char* in, unsigned char* out) {
  switch (p.kind) {
    case Kind::kBytes:
      std::memcpy(out, in, p.ext);
      return;
    case Kind::kSigned:
    case Kind::kUnsigned:
    case Kind::kFloat:
      if (p.native <= 8) {
        uint64_t v = 0;
        if constexpr (std::endian::native == std::endian::little)
          std::memcpy(&v, in, p.native);
        else
          std::memcpy(reinterpret_cast<unsigned char*>(&v) + 8 - p.native, in, p.native);
        for (int i = 0; i < p.ext; ++i)
          out[p.ext - 1 - i] = static_cast<unsigned char>(v >> (8 * i));
        return;
      }
      break;  // binary128
    case Kind::kLongDouble: {
      long double x;
      std::memcpy(&x, in, sizeof x);
      auto q = static_cast<__float128>(x);
      unsigned char b[16];
      std::memcpy(b, &q, 16);
      for (int i = 0; i < 16; ++i)
        out[i] = std::endian::native == std::endian::little ? b[15 - i] : b[i];
      return;
    }
  }
  for (int i = 0; i < 16; ++i)
    out[i] = std::endian::native == std::endian::little ? in[15 - i] : in[i];
}

void get(const Part& p, const unsigned char* in, unsigned char* out) {
  switch (p.kind) {
    case Kind::kBytes:
      std::memcpy(out, in, p.native);
      return;
    case Kind::kSigned:
    case Kind::kUnsigned:
    case Kind::kFloat:
      if (p.native <= 8) {
        uint64_t v = 0;
        for (int i = 0; i < p.ext; ++i) v = v << 8 | in[i];
        if (p.kind == Kind::kSigned && p.ext < 8 && (in[0] & 0x80))
          v |= ~uint64_t{0} << (8 * p.ext);
        if constexpr (std::endian::native == std::endian::little)
          std::memcpy(out, &v, p.native);
        else
          std::memcpy(out, reinterpret_cast<unsigned char*>(&v) + 8 - p.native, p.native);
        return;
      }
      break;
    case Kind::kLongDouble: {
      unsigned char b[16];
      for (int i = 0; i < 16; ++i)
        b[i] = std::endian::native == std::endian::little ? in[15 - i] : in[i];
      __float128 q;
      std::memcpy(&q, b, 16);
      auto x = static_cast<long double>(q);
      std::memset(out, 0, p.native);
      std::memcpy(out, &x, sizeof(long double) < 10 ? sizeof(long double) : 10);
      return;
    }
  }
  for (int i = 0; i < 16; ++i)
    out[i] = std::endian::native == std::endian::little ? in[15 - i] : in[i];
}

std::vector<Run> runs_for(const Datatype* type, size_t count) {
  std::vector<Run> runs;
  runs_of(type, count, runs);
  return runs;
}

}  // namespace

size_t external32_size(const Datatype* type, size_t count) {
  size_t bytes = 0;
  for (const Run& r : runs_for(type, count)) bytes += r.n * ext_bytes(r.basic);
  return bytes;
}

void external32_pack(const Datatype* type, const void* buf, size_t count, void* out) {
  std::vector<unsigned char> native(count * type->size);
  type->pack(buf, count, native.data());
  const unsigned char* in = native.data();
  auto* o = static_cast<unsigned char*>(out);
  for (const Run& r : runs_for(type, count)) {
    const Layout l = layout_of(r.basic);
    for (uint64_t k = 0; k < r.n; ++k) {
      put(l.a, in, o);
      in += l.a.native;
      o += l.a.ext;
      if (l.parts == 2) {
        put(l.b, in, o);
        in += l.b.native;
        o += l.b.ext;
      }
    }
  }
}

void external32_unpack(const Datatype* type, const void* in, size_t count, void* buf) {
  std::vector<unsigned char> native(count * type->size);
  unsigned char* n = native.data();
  const auto* i = static_cast<const unsigned char*>(in);
  for (const Run& r : runs_for(type, count)) {
    const Layout l = layout_of(r.basic);
    for (uint64_t k = 0; k < r.n; ++k) {
      get(l.a, i, n);
      n += l.a.native;
      i += l.a.ext;
      if (l.parts == 2) {
        get(l.b, i, n);
        n += l.b.native;
        i += l.b.ext;
      }
    }
  }
  type->unpack(native.data(), native.size(), buf);
}

}  // namespace mpr::runtime::dt
