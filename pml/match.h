// The MPI matching engine: posted receives and unexpected messages per context id.
//
// Rules it implements (MPI 4.1 section 3.5):
//  - a message matches the oldest posted receive whose source and tag accept it;
//  - a receive matches the oldest unexpected message it accepts (for kAnySource: oldest by
//    arrival among all sources);
//  - messages from one source on one context are never overtaken, because arrivals are fed
//    in per-peer sequence order and each queue keeps arrival/post order.
//
// Index: per context, the posted receives sit in one list per source plus one list for
// kAnySource receives; every receive gets a stamp at post time, so an arrival looks at the
// first tag-compatible entry of its source list and of the wildcard list and takes the older.
// Unexpected messages sit in a list per source and in one arrival-order list. The common
// case (specific source, first entry matches) is O(1); only tag mismatches make it scan.
//
// The engine knows nothing of buffers or protocols: callers embed PostedEntry/ArrivedEntry in
// their own objects. Not thread-safe (the pml is driven by one thread at a time).
#pragma once

#include <cstddef>
#include <cstdint>
#include <unordered_map>
#include <vector>

#include "pml/ilist.h"
#include "pml/pml.h"

namespace mpr::pml {

struct PostedTag {};
struct BySourceTag {};
struct ByArrivalTag {};

/// A posted receive as the engine sees it. Caller fills ctx, src, tag before post().
struct PostedEntry : Hook<PostedTag> {
  uint32_t ctx = 0;
  int src = kAnySource;
  int tag = kAnyTag;
  uint64_t stamp = 0;   ///< set by post(): order between source-specific and wildcard lists
  bool queued = false;  ///< true while in the posted queue
};

/// An unexpected message as the engine sees it. Caller fills ctx, src, tag before add.
struct ArrivedEntry : Hook<BySourceTag>, Hook<ByArrivalTag> {
  uint32_t ctx = 0;
  int src = 0;
  int tag = 0;
  uint64_t stamp = 0;
  bool queued = false;
};

class MatchEngine {
 public:
  MatchEngine() = default;
  MatchEngine(const MatchEngine&) = delete;  // caches a pointer into its own map
  MatchEngine& operator=(const MatchEngine&) = delete;

  /// A message (ctx, src, tag) arrived: dequeue and return the receive it matches, or nullptr
  /// (then the caller queues it with add_unexpected()).
  PostedEntry* match_arrival(uint32_t ctx, int src, int tag);
  /// Queue a receive that found no unexpected message.
  void post(PostedEntry* e);
  /// Dequeue `e` if still queued (MPI_Cancel). True if it was removed.
  bool cancel(PostedEntry* e);

  /// Queue a message that matched no posted receive.
  void add_unexpected(ArrivedEntry* e);
  /// Oldest unexpected message a receive (ctx, src, tag) accepts, left in the queue; or nullptr.
  ArrivedEntry* find_unexpected(uint32_t ctx, int src, int tag) const;
  /// Dequeue `e` (found by find_unexpected).
  void remove_unexpected(ArrivedEntry* e);
  /// The queued message from `src` on `ctx` for which pred(entry) is true, or nullptr (a
  /// sender's cancellation looks for its own message this way).
  template <typename Pred>
  ArrivedEntry* find_unexpected_if(uint32_t ctx, int src, Pred pred) {
    Queues* q = find_queues(ctx);
    if (!q || src < 0 || static_cast<size_t>(src) >= q->unexpected_by_src.size()) return nullptr;
    for (ArrivedEntry* e = q->unexpected_by_src[src].front(); e; e = SourceList::next(e))
      if (pred(e)) return e;
    return nullptr;
  }
  /// find_unexpected + remove_unexpected.
  ArrivedEntry* take_unexpected(uint32_t ctx, int src, int tag);
  /// Dequeue and return any unexpected message, or nullptr when none is left (teardown).
  ArrivedEntry* take_any_unexpected();

  size_t posted_count() const { return posted_count_; }
  size_t unexpected_count() const { return unexpected_count_; }

  static bool tag_matches(int want, int have) { return want == kAnyTag || want == have; }

 private:
  using PostedList = IList<PostedEntry, PostedTag>;
  using SourceList = IList<ArrivedEntry, BySourceTag>;
  using ArrivalList = IList<ArrivedEntry, ByArrivalTag>;

  struct Queues {
    std::vector<PostedList> posted_by_src;
    PostedList posted_any;
    std::vector<SourceList> unexpected_by_src;
    ArrivalList unexpected_all;
    uint64_t next_stamp = 1;
  };

  Queues& queues(uint32_t ctx);
  const Queues* find_queues(uint32_t ctx) const;
  Queues* find_queues(uint32_t ctx);

  // Contexts are never removed, and unordered_map keeps values in place, so the queues last
  // looked up stay valid: traffic mostly stays on one context for a while.
  std::unordered_map<uint32_t, Queues> by_ctx_;
  // The two contexts used last (a loop of point-to-point and collective calls alternates a
  // communicator's two), most recent first: their lookups skip the hash.
  mutable uint32_t last_ctx_ = 0;
  mutable Queues* last_ = nullptr;
  mutable uint32_t prev_ctx_ = 0;
  mutable Queues* prev_ = nullptr;
  void remember(uint32_t ctx, Queues* q) const;
  size_t posted_count_ = 0;
  size_t unexpected_count_ = 0;
};

}  // namespace mpr::pml
