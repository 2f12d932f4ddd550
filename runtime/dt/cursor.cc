#include "runtime/dt/cursor.h"

#include <algorithm>
#include <cstring>

#include "runtime/dt/datatype.h"

namespace mpr::runtime::dt {

namespace {

using Kind = Seg::Kind;

template <bool kPack>
inline void move(char* mem, char* io, size_t n) {
  if constexpr (kPack)
    std::memcpy(io, mem, n);
  else
    std::memcpy(mem, io, n);
}

// n blocks of a fixed size: the size is a compile-time constant, so each copy is a few moves
// instead of a memcpy call (vectors of one double are the common strided case).
template <bool kPack, size_t kLen>
inline void move_fixed(char* mem, ptrdiff_t stride, char* io, size_t n) {
  for (size_t i = 0; i < n; ++i, mem += stride, io += kLen) move<kPack>(mem, io, kLen);
}

template <bool kPack>
void move_blocks(char* mem, ptrdiff_t stride, char* io, size_t len, size_t n) {
  switch (len) {
    case 1:
      return move_fixed<kPack, 1>(mem, stride, io, n);
    case 2:
      return move_fixed<kPack, 2>(mem, stride, io, n);
    case 4:
      return move_fixed<kPack, 4>(mem, stride, io, n);
    case 8:
      return move_fixed<kPack, 8>(mem, stride, io, n);
    case 12:
      return move_fixed<kPack, 12>(mem, stride, io, n);
    case 16:
      return move_fixed<kPack, 16>(mem, stride, io, n);
    default:
      for (size_t i = 0; i < n; ++i, mem += stride, io += len) move<kPack>(mem, io, len);
  }
}

}  // namespace

Cursor::Cursor(const Datatype& type, const void* buf, size_t count) {
  const std::vector<Seg>& segs = type.prog.segs();
  segs_ = segs.data();
  nsegs_ = static_cast<uint32_t>(segs.size());
  elem_bytes_ = type.size;
  extent_ = type.extent;
  buf_ = reinterpret_cast<uintptr_t>(buf);
  total_ = count * type.size;
  stack_.reserve(static_cast<size_t>(type.prog.depth()) + 1);
  stack_.push_back({0, 0, buf_});
}

void Cursor::seek(size_t pos) {
  pos = std::min(pos, total_);
  stack_.resize(1);
  pos_ = pos;
  rep_ = off_ = 0;
  pc_ = 0;
  if (pos == total_) return;  // nothing left to move; run() checks pos_ first
  const size_t elem = pos / elem_bytes_;
  size_t rem = pos % elem_bytes_;
  stack_[0].iter = elem;
  stack_[0].base = buf_ + static_cast<uintptr_t>(static_cast<ptrdiff_t>(elem) * extent_);
  uint32_t i = 0;
  for (;;) {
    const Seg& s = segs_[i];
    const size_t all = s.bytes();
    if (rem >= all) {
      rem -= all;
      i = s.kind == Kind::kLoop ? s.match + 1 : i + 1;
      continue;
    }
    if (s.kind == Kind::kBlock) {
      pc_ = i;
      rep_ = rem / s.len;
      off_ = rem % s.len;
      return;
    }
    const size_t iter = rem / s.len;
    rem %= s.len;
    uintptr_t base = stack_.back().base +
                     static_cast<uintptr_t>(s.disp + static_cast<ptrdiff_t>(iter) * s.stride);
    stack_.push_back({i, iter, base});
    ++i;
  }
}

template <bool kPack>
size_t Cursor::run(char* io, size_t len) {
  len = std::min(len, total_ - pos_);
  size_t done = 0;
  while (done < len) {
    if (pc_ == nsegs_) {  // next element
      Frame& f = stack_.front();
      ++f.iter;
      f.base += static_cast<uintptr_t>(extent_);
      pc_ = 0;
      continue;
    }
    const Seg& s = segs_[pc_];
    if (s.kind == Kind::kBlock) {
      const ptrdiff_t at = s.disp + static_cast<ptrdiff_t>(rep_) * s.stride;
      auto* mem = reinterpret_cast<char*>(stack_.back().base + static_cast<uintptr_t>(at));
      if (off_ == 0 && len - done >= s.len) {
        size_t n = std::min(s.count - rep_, (len - done) / s.len);
        move_blocks<kPack>(mem, s.stride, io + done, s.len, n);
        done += n * s.len;
        rep_ += n;
      } else {
        size_t n = std::min(s.len - off_, len - done);
        move<kPack>(mem + off_, io + done, n);
        done += n;
        off_ += n;
        if (off_ < s.len) break;  // the caller's space ran out inside this block
        off_ = 0;
        ++rep_;
      }
      if (rep_ == s.count) {
        rep_ = 0;
        ++pc_;
      }
    } else if (s.kind == Kind::kLoop) {
      stack_.push_back({pc_, 0, stack_.back().base + static_cast<uintptr_t>(s.disp)});
      ++pc_;
    } else {
      Frame& f = stack_.back();
      const Seg& loop = segs_[f.loop];
      if (++f.iter < loop.count) {
        f.base += static_cast<uintptr_t>(loop.stride);
        pc_ = f.loop + 1;
      } else {
        stack_.pop_back();
        ++pc_;
      }
    }
  }
  pos_ += done;
  return done;
}

size_t Cursor::next_block(uintptr_t* addr, size_t max) {
  while (pos_ < total_) {
    if (pc_ == nsegs_) {  // next element
      Frame& f = stack_.front();
      ++f.iter;
      f.base += static_cast<uintptr_t>(extent_);
      pc_ = 0;
      continue;
    }
    const Seg& s = segs_[pc_];
    if (s.kind == Kind::kBlock) {
      const ptrdiff_t at = s.disp + static_cast<ptrdiff_t>(rep_) * s.stride;
      *addr = stack_.back().base + static_cast<uintptr_t>(at) + off_;
      const size_t n = std::min({s.len - off_, max, total_ - pos_});
      off_ += n;
      pos_ += n;
      if (off_ == s.len) {
        off_ = 0;
        if (++rep_ == s.count) {
          rep_ = 0;
          ++pc_;
        }
      }
      return n;
    }
    if (s.kind == Kind::kLoop) {
      stack_.push_back({pc_, 0, stack_.back().base + static_cast<uintptr_t>(s.disp)});
      ++pc_;
    } else {
      Frame& f = stack_.back();
      const Seg& loop = segs_[f.loop];
      if (++f.iter < loop.count) {
        f.base += static_cast<uintptr_t>(loop.stride);
        pc_ = f.loop + 1;
      } else {
        stack_.pop_back();
        ++pc_;
      }
    }
  }
  return 0;
}

size_t Cursor::pack(void* out, size_t max) { return run<true>(static_cast<char*>(out), max); }

size_t Cursor::unpack(const void* in, size_t len) {
  return run<false>(static_cast<char*>(const_cast<void*>(in)), len);
}

}  // namespace mpr::runtime::dt
