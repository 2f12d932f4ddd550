// Collective data access (MPI_File_*_all, *_at_all, *_ordered, and their nonblocking and split
// forms) as a sequence of rounds: each round is a schedule of MPR's own point-to-point
// transfers (runtime/coll/schedule.h, so shm, verbs and tcp all carry it), followed by local
// work. The blocking calls run the rounds in place; the nonblocking ones run them from the
// progress engine as a nonblocking collective (coll::NbcRequest's on_done starts each next
// round), so the same code serves both. Every round of one operation uses the tag the
// operation reserved when it started, so operations started in the same order everywhere
// (as MPI requires of collectives) may progress in any order.
//
// Rounds:
//  1. ordered only: the ranks' sizes go to rank 0, which advances the shared file pointer by
//     their sum once, and their offsets come back (gather, fetch-and-add, scatter);
//  2. every rank's file range [start, end), whether it is one block, the file size (reads);
//  3. unless two-phase I/O pays (ranges interleave, the romio_cb_* hint is "automatic"; or it
//     is "enable"), each rank moves its own data now, with data sieving: done;
//  4. two-phase: [min start, max end) is cut into one file domain per aggregator (per node by
//     default, cb_nodes), aligned to the stripe or block size; the ranks that access more than
//     one block send the aggregators their block lists (a count, then the list);
//  5. cycles of cb_buffer_size per aggregator: writes send each aggregator the bytes of its
//     window, which it writes as one sieved range; reads have the aggregator read the window
//     and send each rank its bytes;
//  6. two-phase only: the ranks agree on the outcome (a failed aggregator write fails every
//     rank's call).
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "io/access.h"
#include "io/file.h"
#include "runtime/coll/schedule.h"

namespace mpr::io {

class CollOp {
 public:
  /// `s`: the stream offset (unused for kOrdered). `atomic`: the file's mode at the call.
  CollOp(const char* fn, File* f, std::shared_ptr<const View> v, Dir dir, Where where,
         uint64_t s, const MemSide& m, bool atomic);
  ~CollOp();
  CollOp(const CollOp&) = delete;
  CollOp& operator=(const CollOp&) = delete;

  int tag() const { return tag_; }
  /// Add the next round's transfers to `s`; false once the operation is over.
  bool build(runtime::coll::Schedule& s);
  /// The round's transfers are done (`err`: their MPI error code): its local work.
  void after(int err);

  /// The outcome, once build() returned false: an MPI error code (not raised) and the bytes
  /// moved in the stream and in memory's own representation.
  int code() const { return code_; }
  uint64_t stream_bytes() const { return done_bytes_; }
  uint64_t native_bytes() const { return m_.native_bytes(done_bytes_); }
  /// Stream bytes this rank asked for.
  uint64_t requested() const { return m_.bytes(); }
  File* file() const { return f_; }
  const char* fn() const { return fn_; }

 private:
  enum class Phase : uint8_t {
    kOrderedGather,
    kOrderedScatter,
    kMeta,
    kListCounts,
    kLists,
    kCycle,
    kAgree,
    kDone
  };
  struct Meta {
    uint64_t start, end;  // file range; start == end: no data
    uint64_t file_size;   // reads: this rank's view of the file's size
    uint32_t blocks;      // 1: the range is one block (its list need not travel)
    uint32_t overlap;     // blocks overlap (a filetype read twice): no two-phase I/O
  };
  struct Ordered {
    int64_t offset;  // etypes
    int32_t err;     // errno of rank 0's shared pointer update
    int32_t pad;
  };
  struct Domain {
    uint64_t lo, hi;
  };
  // A rank's blocks inside this aggregator's domain, walked window by window.
  struct Peer {
    std::vector<Block> blocks;
    size_t next = 0;                 // first block not wholly before the current window
    std::vector<char> stage;         // its bytes of a window when they are not one block
    std::vector<Piece> pieces;       // its pieces of the current window (into cb)
    uint64_t bytes = 0;              // its bytes in the current window
  };

  void add_meta_round(runtime::coll::Schedule& s);
  void decide();
  void independent();
  void materialize_blocks();
  uint64_t window_lo(size_t a, uint64_t cycle) const;
  uint64_t window_hi(size_t a, uint64_t cycle) const;
  /// This rank's bytes in [lo, hi): the stream slice [*pos, *pos + return value).
  uint64_t my_slice(uint64_t lo, uint64_t hi, uint64_t* pos) const;
  void build_cycle(runtime::coll::Schedule& s);
  void after_cycle();
  /// Aggregator: each peer's pieces of window [lo, hi) (pieces point into cb_).
  void collect_pieces(uint64_t lo, uint64_t hi);
  char* my_data(uint64_t pos, uint64_t len, std::vector<char>* stage);
  void fail(int code);
  void fail_sys(const SysError& e);

  const char* fn_;
  File* f_;
  std::shared_ptr<const View> v_;
  Dir dir_;
  Where where_;
  uint64_t s_;
  MemSide m_;
  bool atomic_;
  int tag_;
  Phase phase_;
  int code_ = MPI_SUCCESS;
  int local_class_ = MPI_SUCCESS;  // this rank's first failure's class (for the agreement)
  uint64_t done_bytes_ = 0;

  // Ordered
  std::vector<int64_t> counts_;
  std::vector<Ordered> offsets_;
  int64_t my_count_ = 0;
  Ordered my_ordered_{};

  // Meta
  Meta mine_{};
  std::vector<Meta> all_;
  std::vector<Block> my_blocks_;
  std::vector<uint64_t> my_prefix_;  // stream offset (from s_) of each block's start
  bool stage_all_ = false;           // converted data: the whole stream lives in stage_
  std::vector<char> stage_;
  uint64_t eof_stream_ = 0;          // reads: my stream bytes that lie before the end of file

  // Two-phase
  std::vector<Domain> domains_;  // per aggregator
  int my_aggr_ = -1;             // my index among the aggregators, or -1
  uint64_t cycles_ = 0, cycle_ = 0;
  bool lists_needed_ = false;
  std::vector<uint64_t> list_counts_;  // aggregator: blocks each rank sends
  std::vector<uint64_t> my_counts_;    // my blocks in each aggregator's domain
  std::vector<std::vector<Block>> my_lists_;
  std::vector<Peer> peers_;
  std::vector<char>* cb_ = nullptr;  // the file's collective buffer or own_cb_
  std::vector<char> own_cb_;
  // Per cycle, this rank as a sender (writes) or receiver (reads): per aggregator.
  struct Part {
    uint64_t pos = 0, len = 0;
    char* mem = nullptr;          // where the bytes are (writes) or land (reads)
    std::vector<char> stage;      // when they cannot go straight from or to memory
    bool staged = false;
  };
  std::vector<Part> parts_;
  int agree_[1] = {0};
  std::vector<int> agree_all_;
};

/// Run every round of `op` now (blocking calls).
void run_blocking(CollOp& op);
/// Start `op` as a nonblocking collective: a runtime request that completes when its rounds
/// are done (then op->code() and the byte counts are final). When it ends, the file's
/// `pending` count drops by one.
pml::Request* start_coll(std::shared_ptr<CollOp> op);

}  // namespace mpr::io
