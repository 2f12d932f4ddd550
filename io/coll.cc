#include "io/coll.h"

#include <sys/stat.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "runtime/coll/coll.h"

namespace mpr::io {

namespace rc = runtime::coll;
using runtime::make_error;

CollOp::CollOp(const char* fn, File* f, std::shared_ptr<const View> v, Dir dir, Where where,
               uint64_t s, const MemSide& m, bool atomic)
    : fn_(fn),
      f_(f),
      v_(std::move(v)),
      dir_(dir),
      where_(where),
      s_(s),
      m_(m),
      atomic_(atomic),
      tag_(rc::reserve_tag(f->comm)),
      phase_(where == Where::kOrdered ? Phase::kOrderedGather : Phase::kMeta) {
  f_->retain();
  m_.type->retain();
}

CollOp::~CollOp() {
  if (cb_ == &f_->cb_buf) f_->cb_busy = false;
  m_.type->release();
  f_->release();
}

void CollOp::fail(int code) {
  if (code_ == MPI_SUCCESS) code_ = code;
  if (local_class_ == MPI_SUCCESS) local_class_ = runtime::error_class_of(code);
}

void CollOp::fail_sys(const SysError& e) {
  fail(make_error(error_class_for_errno(e.err), fn_, "%s at offset %llu of \"%s\": %s", e.op,
                  static_cast<unsigned long long>(e.off), f_->name.c_str(),
                  std::strerror(e.err)));
}

// ---- rounds -----------------------------------------------------------------------------------

bool CollOp::build(rc::Schedule& s) {
  const int n = f_->comm->size();
  switch (phase_) {
    case Phase::kOrderedGather:
      my_count_ = static_cast<int64_t>(m_.bytes() / v_->esize());
      if (f_->comm->rank() == 0) counts_.resize(static_cast<size_t>(n));
      rc::gather(s, &my_count_, counts_.data(), sizeof my_count_, 0);
      return true;
    case Phase::kOrderedScatter:
      rc::scatter(s, offsets_.data(), &my_ordered_, sizeof my_ordered_, 0);
      return true;
    case Phase::kMeta:
      add_meta_round(s);
      return true;
    case Phase::kListCounts: {
      const int me = f_->comm->rank();
      for (size_t i = 0; i < f_->aggregators.size(); ++i) {
        const int ar = f_->aggregators[i];
        if (ar == me)
          list_counts_[static_cast<size_t>(me)] = my_counts_[i];
        else
          s.send(&my_counts_[i], sizeof(uint64_t), ar);
      }
      if (my_aggr_ >= 0)
        for (int r = 0; r < n; ++r)
          if (r != me) s.recv(&list_counts_[static_cast<size_t>(r)], sizeof(uint64_t), r);
      return true;
    }
    case Phase::kLists: {
      const int me = f_->comm->rank();
      for (size_t i = 0; i < f_->aggregators.size(); ++i) {
        const int ar = f_->aggregators[i];
        if (ar != me && !my_lists_[i].empty())
          s.send(my_lists_[i].data(), my_lists_[i].size() * sizeof(Block), ar);
      }
      if (my_aggr_ >= 0) {
        for (int r = 0; r < n; ++r) {
          Peer& p = peers_[static_cast<size_t>(r)];
          if (r == me) {
            p.blocks = my_lists_[static_cast<size_t>(my_aggr_)];
            continue;
          }
          p.blocks.resize(list_counts_[static_cast<size_t>(r)]);
          if (!p.blocks.empty()) s.recv(p.blocks.data(), p.blocks.size() * sizeof(Block), r);
        }
      }
      return true;
    }
    case Phase::kCycle:
      build_cycle(s);
      return true;
    case Phase::kAgree:
      agree_[0] = local_class_;
      agree_all_.resize(static_cast<size_t>(n));
      rc::allgather(s, agree_, agree_all_.data(), sizeof(int));
      return true;
    case Phase::kDone:
      break;
  }
  return false;
}

void CollOp::after(int err) {
  if (err != MPI_SUCCESS) fail(err);
  switch (phase_) {
    case Phase::kOrderedGather:
      if (f_->comm->rank() == 0) {
        int64_t total = 0;
        for (int64_t c : counts_) total += c;
        int64_t base = 0;
        SysError e = f_->shfp.fetch_add(total, &base);
        offsets_.resize(counts_.size());
        for (size_t r = 0; r < counts_.size(); ++r) {
          offsets_[r] = {base, e.err, 0};
          base += counts_[r];
        }
      }
      phase_ = Phase::kOrderedScatter;
      return;
    case Phase::kOrderedScatter:
      if (my_ordered_.err) {  // every rank got the same answer: all stop here
        fail(make_error(error_class_for_errno(my_ordered_.err), fn_,
                        "the shared file pointer of \"%s\" could not be updated: %s",
                        f_->name.c_str(), std::strerror(my_ordered_.err)));
        phase_ = Phase::kDone;
        return;
      }
      s_ = static_cast<uint64_t>(my_ordered_.offset) * v_->esize();
      phase_ = Phase::kMeta;
      return;
    case Phase::kMeta:
      decide();
      return;
    case Phase::kListCounts:
      phase_ = Phase::kLists;
      return;
    case Phase::kLists:
      phase_ = cycles_ ? Phase::kCycle : Phase::kAgree;
      return;
    case Phase::kCycle:
      after_cycle();
      if (++cycle_ == cycles_) phase_ = Phase::kAgree;
      return;
    case Phase::kAgree:
      for (size_t r = 0; r < agree_all_.size(); ++r)
        if (agree_all_[r] != MPI_SUCCESS && code_ == MPI_SUCCESS)
          code_ = make_error(agree_all_[r], fn_,
                             "rank %zu failed its part of the collective access of \"%s\"", r,
                             f_->name.c_str());
      if (code_ != MPI_SUCCESS && dir_ == Dir::kWrite) done_bytes_ = 0;
      phase_ = Phase::kDone;
      return;
    case Phase::kDone:
      return;
  }
}

void CollOp::materialize_blocks() {
  my_blocks_.clear();
  my_prefix_.clear();
  const uint64_t total = m_.bytes();
  if (total == 0) return;
  View::Blocks it(*v_, s_, total);
  Block b;
  uint64_t pos = 0;
  while (it.next(&b)) {
    my_blocks_.push_back(b);
    my_prefix_.push_back(pos);
    pos += b.len;
  }
}

void CollOp::add_meta_round(rc::Schedule& s) {
  materialize_blocks();
  mine_ = {};
  if (!my_blocks_.empty()) {
    mine_.start = my_blocks_.front().off;
    mine_.end = my_blocks_.back().end();
    for (const Block& b : my_blocks_) mine_.end = std::max(mine_.end, b.end());
  }
  mine_.blocks = static_cast<uint32_t>(std::min<size_t>(my_blocks_.size(), UINT32_MAX));
  for (size_t i = 1; i < my_blocks_.size(); ++i)
    if (my_blocks_[i].off < my_blocks_[i - 1].end()) mine_.overlap = 1;
  if (dir_ == Dir::kRead) {
    struct stat st;
    mine_.file_size = ::fstat(f_->fd, &st) == 0 ? static_cast<uint64_t>(st.st_size) : 0;
  }
  all_.resize(static_cast<size_t>(f_->comm->size()));
  rc::allgather(s, &mine_, all_.data(), sizeof mine_);
}

void CollOp::decide() {
  struct Range {
    uint64_t lo, hi;
  };
  std::vector<Range> ranges;
  uint64_t eof = 0;
  bool overlap = false;
  for (const Meta& m : all_) {
    if (m.start < m.end) ranges.push_back({m.start, m.end});
    eof = std::max(eof, m.file_size);
    overlap = overlap || m.overlap;
  }
  if (ranges.empty()) {
    phase_ = Phase::kDone;
    return;
  }
  std::sort(ranges.begin(), ranges.end(),
            [](const Range& a, const Range& b) { return a.lo < b.lo; });
  bool interleaved = false;
  for (size_t i = 1; i < ranges.size(); ++i)
    if (ranges[i].lo < ranges[i - 1].hi) interleaved = true;
  const Tri hint = dir_ == Dir::kRead ? f_->hints.cb_read : f_->hints.cb_write;
  // Two-phase I/O walks each rank's blocks in file order, which overlapping blocks lack.
  const bool two_phase =
      !atomic_ && !overlap && (hint == Tri::kEnable || (hint == Tri::kAuto && interleaved));
  if (!two_phase) {
    independent();
    phase_ = Phase::kDone;
    return;
  }

  // File domains: [lo, hi) cut into one piece per aggregator at multiples of the stripe or
  // block size, so no two aggregators write into one file system block.
  uint64_t lo = ranges.front().lo, hi = 0;
  for (const Range& r : ranges) hi = std::max(hi, r.hi);
  const size_t na = f_->aggregators.size();
  const uint64_t align = f_->hints.striping_unit ? f_->hints.striping_unit : f_->fs_block;
  const uint64_t per = (hi - lo + na - 1) / na;
  domains_.assign(na, Domain{lo, lo});
  uint64_t at = lo;
  for (size_t a = 0; a < na; ++a) {
    uint64_t end = a + 1 == na ? hi : lo + per * (a + 1);
    if (a + 1 < na && align > 1) end = end / align * align;
    end = std::clamp(end, at, hi);
    domains_[a] = {at, end};
    at = end;
  }
  const uint64_t cb = f_->hints.cb_buffer_size;
  cycles_ = 0;
  for (const Domain& d : domains_) cycles_ = std::max(cycles_, (d.hi - d.lo + cb - 1) / cb);
  const int me = f_->comm->rank();
  my_aggr_ = -1;
  for (size_t a = 0; a < na; ++a)
    if (f_->aggregators[a] == me) my_aggr_ = static_cast<int>(a);

  // Reads: how much of my stream lies before the end of the file.
  if (dir_ == Dir::kRead) {
    eof_stream_ = 0;
    for (const Block& b : my_blocks_) {
      if (b.off >= eof) break;
      const uint64_t in = std::min(b.len, eof - b.off);
      eof_stream_ += in;
      if (in < b.len) break;
    }
  }
  // Converted data travels whole: all of it is converted (writes) before the first cycle or
  // (reads) after the last.
  if (!m_.rep->native()) {
    stage_all_ = true;
    stage_.resize(m_.bytes());
    if (dir_ == Dir::kWrite) {
      if (int cls = to_file(*m_.rep, m_.type, m_.buf, 0, m_.count, stage_.data());
          cls != MPI_SUCCESS)
        fail(make_error(cls, fn_, "data conversion to \"%s\" failed", m_.rep->name.c_str()));
    }
  }

  lists_needed_ = false;
  for (const Meta& m : all_)
    if (m.start < m.end && m.blocks != 1) lists_needed_ = true;
  my_counts_.assign(na, 0);
  my_lists_.assign(na, {});
  for (size_t a = 0; a < na; ++a) {
    const Domain d = domains_[a];
    for (const Block& b : my_blocks_) {
      const uint64_t l = std::max(b.off, d.lo), h = std::min(b.end(), d.hi);
      if (l < h) my_lists_[a].push_back({l, h - l});
    }
    my_counts_[a] = my_lists_[a].size();
  }
  if (my_aggr_ >= 0) {
    const Domain d = domains_[static_cast<size_t>(my_aggr_)];
    peers_.assign(all_.size(), Peer{});
    list_counts_.assign(all_.size(), 0);
    if (!lists_needed_) {
      for (size_t r = 0; r < all_.size(); ++r) {
        const uint64_t l = std::max(all_[r].start, d.lo), h = std::min(all_[r].end, d.hi);
        if (all_[r].start < all_[r].end && l < h) peers_[r].blocks.push_back({l, h - l});
      }
    }
    cb_ = f_->cb_busy ? &own_cb_ : &f_->cb_buf;
    if (cb_ == &f_->cb_buf) f_->cb_busy = true;
    cb_->resize(std::min<uint64_t>(cb, d.hi - d.lo));
  }
  parts_.assign(na, Part{});
  phase_ = lists_needed_ ? Phase::kListCounts : cycles_ ? Phase::kCycle : Phase::kAgree;
}

void CollOp::independent() {
  AccessResult r = run_access(f_, *v_, atomic_, dir_, s_, m_);
  done_bytes_ = r.bytes;
  if (r.sys || r.conv != MPI_SUCCESS) fail(access_error(f_, fn_, r));
}

// ---- cycles -----------------------------------------------------------------------------------

uint64_t CollOp::window_lo(size_t a, uint64_t cycle) const {
  return std::min(domains_[a].hi, domains_[a].lo + cycle * f_->hints.cb_buffer_size);
}

uint64_t CollOp::window_hi(size_t a, uint64_t cycle) const {
  return std::min(domains_[a].hi, window_lo(a, cycle) + f_->hints.cb_buffer_size);
}

uint64_t CollOp::my_slice(uint64_t lo, uint64_t hi, uint64_t* pos) const {
  auto it = std::partition_point(my_blocks_.begin(), my_blocks_.end(),
                                 [lo](const Block& b) { return b.end() <= lo; });
  uint64_t bytes = 0;
  for (size_t i = static_cast<size_t>(it - my_blocks_.begin()); i < my_blocks_.size(); ++i) {
    const Block& b = my_blocks_[i];
    if (b.off >= hi) break;
    const uint64_t l = std::max(b.off, lo), h = std::min(b.end(), hi);
    if (l >= h) continue;
    if (bytes == 0) *pos = my_prefix_[i] + (l - b.off);
    bytes += h - l;
  }
  return bytes;
}

char* CollOp::my_data(uint64_t pos, uint64_t len, std::vector<char>* stage) {
  if (stage_all_) return stage_.data() + pos;
  char* direct = nullptr;
  if (m_.direct(&direct)) return direct + pos;
  stage->resize(len);
  mem_produce(m_, pos, len, stage->data());
  return stage->data();
}

void CollOp::collect_pieces(uint64_t lo, uint64_t hi) {
  char* cb = cb_->data();
  for (Peer& p : peers_) {
    p.pieces.clear();
    p.bytes = 0;
    while (p.next < p.blocks.size() && p.blocks[p.next].end() <= lo) ++p.next;
    for (size_t k = p.next; k < p.blocks.size() && p.blocks[k].off < hi; ++k) {
      const uint64_t l = std::max(p.blocks[k].off, lo), h = std::min(p.blocks[k].end(), hi);
      if (l >= h) continue;
      p.pieces.push_back({l, h - l, cb + (l - lo)});
      p.bytes += h - l;
    }
  }
}

namespace {

// Copy consecutive stream bytes into or out of pieces.
void scatter_into(const std::vector<Piece>& pieces, const char* src) {
  for (const Piece& p : pieces) {
    std::memcpy(p.mem, src, p.len);
    src += p.len;
  }
}

void gather_from(const std::vector<Piece>& pieces, char* dst) {
  for (const Piece& p : pieces) {
    std::memcpy(dst, p.mem, p.len);
    dst += p.len;
  }
}

// Every peer's pieces of a window in file order, adjacent and overlapping ones merged (they
// all point into the collective buffer at their offset from the window's start).
std::vector<Piece> merged(const std::vector<std::vector<Piece>*>& lists) {
  std::vector<Piece> all;
  for (const auto* l : lists) all.insert(all.end(), l->begin(), l->end());
  std::sort(all.begin(), all.end(), [](const Piece& a, const Piece& b) { return a.off < b.off; });
  std::vector<Piece> out;
  for (const Piece& p : all) {
    if (!out.empty() && p.off <= out.back().off + out.back().len) {
      const uint64_t end = std::max(out.back().off + out.back().len, p.off + p.len);
      out.back().len = end - out.back().off;
      continue;
    }
    out.push_back(p);
  }
  return out;
}

}  // namespace

void CollOp::build_cycle(rc::Schedule& s) {
  const int me = f_->comm->rank();
  const size_t na = f_->aggregators.size();
  if (dir_ == Dir::kWrite) {
    for (size_t a = 0; a < na; ++a) {
      Part& P = parts_[a];
      P.len = my_slice(window_lo(a, cycle_), window_hi(a, cycle_), &P.pos);
      if (P.len == 0) continue;
      P.mem = my_data(P.pos, P.len, &P.stage);
      if (f_->aggregators[a] != me) s.send(P.mem, P.len, f_->aggregators[a]);
    }
    if (my_aggr_ < 0) return;
    const auto a = static_cast<size_t>(my_aggr_);
    collect_pieces(window_lo(a, cycle_), window_hi(a, cycle_));
    for (size_t r = 0; r < peers_.size(); ++r) {
      Peer& p = peers_[r];
      if (p.bytes == 0) continue;
      if (static_cast<int>(r) == me) {
        scatter_into(p.pieces, parts_[a].mem);
      } else if (p.pieces.size() == 1) {
        s.recv(p.pieces[0].mem, p.bytes, static_cast<int>(r));
      } else {
        p.stage.resize(p.bytes);
        s.recv(p.stage.data(), p.bytes, static_cast<int>(r));
      }
    }
    return;
  }

  // Reads: the aggregator reads its window and sends each rank its bytes; each rank receives
  // its bytes of every aggregator's window.
  if (my_aggr_ >= 0) {
    const auto a = static_cast<size_t>(my_aggr_);
    collect_pieces(window_lo(a, cycle_), window_hi(a, cycle_));
    std::vector<std::vector<Piece>*> lists;
    for (Peer& p : peers_) lists.push_back(&p.pieces);
    std::vector<Piece> runs = merged(lists);
    if (!runs.empty()) {
      std::lock_guard<std::mutex> lock(f_->io_mu);
      uint64_t got = 0;
      if (SysError e = read_pieces(f_->target(false), runs.data(), runs.size(), &got))
        fail_sys(e);
    }
    for (size_t r = 0; r < peers_.size(); ++r) {
      Peer& p = peers_[r];
      if (p.bytes == 0 || static_cast<int>(r) == me) continue;
      if (p.pieces.size() == 1) {
        s.send(p.pieces[0].mem, p.bytes, static_cast<int>(r));
      } else {
        p.stage.resize(p.bytes);
        gather_from(p.pieces, p.stage.data());
        s.send(p.stage.data(), p.bytes, static_cast<int>(r));
      }
    }
  }
  char* direct = nullptr;
  const bool is_direct = !stage_all_ && m_.direct(&direct);
  for (size_t a = 0; a < na; ++a) {
    Part& P = parts_[a];
    P.staged = false;
    P.len = my_slice(window_lo(a, cycle_), window_hi(a, cycle_), &P.pos);
    if (P.len == 0) continue;
    if (stage_all_) {
      P.mem = stage_.data() + P.pos;
    } else if (is_direct && P.pos + P.len <= eof_stream_) {
      P.mem = direct + P.pos;
    } else {
      P.stage.resize(P.len);
      P.mem = P.stage.data();
      P.staged = true;
    }
    if (f_->aggregators[a] == me)
      gather_from(peers_[static_cast<size_t>(me)].pieces, P.mem);
    else
      s.recv(P.mem, P.len, f_->aggregators[a]);
  }
}

void CollOp::after_cycle() {
  if (dir_ == Dir::kWrite) {
    for (const Part& P : parts_) done_bytes_ += P.len;
    if (my_aggr_ < 0) return;
    std::vector<std::vector<Piece>*> lists;
    for (size_t r = 0; r < peers_.size(); ++r) {
      Peer& p = peers_[r];
      if (p.bytes == 0) continue;
      if (p.pieces.size() > 1 && static_cast<int>(r) != f_->comm->rank())
        scatter_into(p.pieces, p.stage.data());
      lists.push_back(&p.pieces);
    }
    std::vector<Piece> runs = merged(lists);
    if (runs.empty()) return;
    std::lock_guard<std::mutex> lock(f_->io_mu);
    if (SysError e = write_pieces(f_->target(false), runs.data(), runs.size())) fail_sys(e);
    return;
  }
  for (const Part& P : parts_) {
    if (!P.staged || P.len == 0) continue;
    const uint64_t usable = P.pos < eof_stream_ ? std::min(P.len, eof_stream_ - P.pos) : 0;
    mem_consume(m_, P.pos, usable, P.mem);
  }
  if (cycle_ + 1 == cycles_) {
    done_bytes_ = std::min(m_.bytes(), eof_stream_);
    if (stage_all_) {
      done_bytes_ = done_bytes_ / m_.fsize * m_.fsize;
      if (int cls = from_file(*m_.rep, m_.type, m_.buf, 0, done_bytes_ / m_.fsize, stage_.data());
          cls != MPI_SUCCESS)
        fail(make_error(cls, fn_, "data conversion from \"%s\" failed", m_.rep->name.c_str()));
    }
  }
}

// ---- drivers ----------------------------------------------------------------------------------

void run_blocking(CollOp& op) {
  for (;;) {
    rc::FixedTag tag(op.tag());
    rc::Schedule s(op.fn(), op.file()->comm, rc::Schedule::Mode::kImmediate);
    if (!op.build(s)) return;
    op.after(s.run());
  }
}

namespace {

int next_round(rc::NbcRequest* req, int err) {
  auto* op = static_cast<CollOp*>(req->state.get());
  op->after(err);
  rc::restart_schedule(req);
  if (op->build(req->sched)) return rc::kRunAgain;
  --op->file()->pending;
  return MPI_SUCCESS;
}

}  // namespace

pml::Request* start_coll(std::shared_ptr<CollOp> op) {
  rc::FixedTag tag(op->tag());
  auto* req = new rc::NbcRequest(op->fn(), op->file()->comm);
  req->on_done = &next_round;
  CollOp* raw = op.get();
  req->state = std::move(op);
  ++raw->file()->pending;
  if (!raw->build(req->sched)) {  // nothing to do (cannot happen: there is always a first round)
    --raw->file()->pending;
    req->on_done = nullptr;
  }
  rc::start_nonblocking(req);
  return req;
}

}  // namespace mpr::io
