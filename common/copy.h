// memcpy for the few bytes of a typical message header or eager payload: a call into libc's
// memcpy, with its size dispatch, costs more than copying them inline.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>

namespace mpr::common {

/// std::memcpy(dst, src, n), inline up to 32 bytes (two overlapping loads and stores).
inline void copy_small(void* dst, const void* src, size_t n) {
  auto* d = static_cast<uint8_t*>(dst);
  const auto* s = static_cast<const uint8_t*>(src);
  if (n > 32) {
    std::memcpy(d, s, n);
  } else if (n >= 16) {
    uint8_t a[16], b[16];
    std::memcpy(a, s, 16);
    std::memcpy(b, s + n - 16, 16);
    std::memcpy(d, a, 16);
    std::memcpy(d + n - 16, b, 16);
  } else if (n >= 8) {
    uint64_t a, b;
    std::memcpy(&a, s, 8);
    std::memcpy(&b, s + n - 8, 8);
    std::memcpy(d, &a, 8);
    std::memcpy(d + n - 8, &b, 8);
  } else {
    for (size_t i = 0; i < n; ++i) d[i] = s[i];
  }
}

}  // namespace mpr::common
