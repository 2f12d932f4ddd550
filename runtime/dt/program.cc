#include "runtime/dt/program.h"

#include <algorithm>

namespace mpr::runtime::dt {

namespace {

using Kind = Seg::Kind;

// A block whose repetitions abut is one longer block.
void normalize(Seg* b) {
  if (b->count > 1 && b->stride == static_cast<ptrdiff_t>(b->len)) {
    b->len *= b->count;
    b->count = 1;
  }
  if (b->count == 1) b->stride = 0;
}

// Merges b into a when b continues a's pattern. A single block has no stride of its own, so
// it takes the other's stride, or the distance between the two.
bool merge(Seg* a, const Seg& b) {
  if (a->count == 1 && b.count == 1 && b.disp == a->disp + static_cast<ptrdiff_t>(a->len)) {
    a->len += b.len;
    return true;
  }
  if (a->len != b.len) return false;
  ptrdiff_t s = a->count > 1 ? a->stride : b.count > 1 ? b.stride : b.disp - a->disp;
  if ((a->count > 1 && a->stride != s) || (b.count > 1 && b.stride != s)) return false;
  if (b.disp != a->disp + static_cast<ptrdiff_t>(a->count) * s) return false;
  a->count += b.count;
  a->stride = s;
  normalize(a);
  return true;
}

ptrdiff_t span_of(size_t count, ptrdiff_t stride) {
  return static_cast<ptrdiff_t>(count - 1) * stride;
}

// Bounds of the body [begin, end) relative to its base.
void bounds(const std::vector<Seg>& segs, size_t begin, size_t end, ptrdiff_t* lo, ptrdiff_t* hi) {
  bool any = false;
  for (size_t i = begin; i < end;) {
    const Seg& s = segs[i];
    ptrdiff_t l, h;
    size_t next;
    if (s.kind == Kind::kBlock) {
      l = 0;
      h = static_cast<ptrdiff_t>(s.len);
      next = i + 1;
    } else {
      bounds(segs, i + 1, s.match, &l, &h);
      next = s.match + 1;
    }
    ptrdiff_t reach = span_of(s.count, s.stride);
    l += s.disp + std::min<ptrdiff_t>(0, reach);
    h += s.disp + std::max<ptrdiff_t>(0, reach);
    *lo = any ? std::min(*lo, l) : l;
    *hi = any ? std::max(*hi, h) : h;
    any = true;
    i = next;
  }
  if (!any) *lo = *hi = 0;
}

}  // namespace

Program Program::block(ptrdiff_t disp, size_t len) {
  Program p;
  if (len == 0) return p;
  Seg b;
  b.len = len;
  b.count = 1;
  b.disp = disp;
  p.segs_.push_back(b);
  p.bytes_ = len;
  return p;
}

void Program::push_block(Seg b) {
  normalize(&b);
  bytes_ += b.bytes();
  // The last segment is a top-level block unless a loop just closed (it ends with kEnd).
  if (!segs_.empty() && segs_.back().kind == Kind::kBlock && merge(&segs_.back(), b)) return;
  segs_.push_back(b);
}

void Program::append_shifted(const Program& body, ptrdiff_t disp) {
  const std::vector<Seg>& in = body.segs_;
  for (size_t i = 0; i < in.size();) {
    if (in[i].kind == Kind::kBlock) {
      Seg b = in[i];
      b.disp += disp;
      push_block(b);
      ++i;
      continue;
    }
    // A whole loop, copied as it is: only its own displacement moves, and its match indices
    // shift by where it lands.
    const size_t end = in[i].match;
    const size_t at = segs_.size();
    for (size_t j = i; j <= end; ++j) {
      Seg s = in[j];
      s.match = static_cast<uint32_t>(s.match + at - i);
      segs_.push_back(s);
    }
    segs_[at].disp += disp;
    bytes_ += in[i].bytes();
    i = end + 1;
  }
  depth_ = std::max(depth_, body.depth_);
}

void Program::append(const Program& body, size_t count, ptrdiff_t disp, ptrdiff_t stride) {
  if (count == 0 || body.bytes_ == 0) return;
  if (count == 1) {
    append_shifted(body, disp);
    return;
  }
  const std::vector<Seg>& in = body.segs_;
  const Seg& first = in.front();
  const bool one_item = first.kind == Kind::kBlock ? in.size() == 1 : first.match + 1 == in.size();
  if (one_item && first.kind == Kind::kBlock) {
    Seg b = first;
    b.disp += disp;
    if (b.count == 1) {
      b.count = count;
      b.stride = stride;
      push_block(b);
      return;
    }
    if (stride == static_cast<ptrdiff_t>(b.count) * b.stride) {
      b.count *= count;
      push_block(b);
      return;
    }
  } else if (one_item && stride == static_cast<ptrdiff_t>(first.count) * first.stride) {
    // A loop whose copies continue its own stride is the same loop, run longer.
    Program longer = body;
    longer.segs_.front().count *= count;
    longer.bytes_ *= count;
    append_shifted(longer, disp);
    return;
  }
  const size_t at = segs_.size();
  Seg loop;
  loop.kind = Kind::kLoop;
  loop.len = body.bytes_;
  loop.count = count;
  loop.disp = disp;
  loop.stride = stride;
  segs_.push_back(loop);
  for (Seg s : in) {
    s.match = static_cast<uint32_t>(s.match + at + 1);
    segs_.push_back(s);
  }
  Seg end;
  end.kind = Kind::kEnd;
  end.match = static_cast<uint32_t>(at);
  segs_[at].match = static_cast<uint32_t>(segs_.size());
  segs_.push_back(end);
  bytes_ += count * body.bytes_;
  depth_ = std::max(depth_, body.depth_ + 1);
}

bool Program::single_block(ptrdiff_t* disp, size_t* len) const {
  if (segs_.size() != 1 || segs_[0].count != 1) return false;
  *disp = segs_[0].disp;
  *len = segs_[0].len;
  return true;
}

void Program::data_bounds(ptrdiff_t* lo, ptrdiff_t* hi) const {
  bounds(segs_, 0, segs_.size(), lo, hi);
}

}  // namespace mpr::runtime::dt
