#include "pml/match.h"

#include <cassert>

namespace mpr::pml {

namespace {

template <typename List, typename T>
T* first_with_tag(const List& list, int want_tag) {
  for (T* e = list.front(); e; e = List::next(e))
    if (MatchEngine::tag_matches(want_tag, e->tag)) return e;
  return nullptr;
}

/// First posted receive in `list` that accepts a message with tag `have_tag`.
PostedEntry* first_accepting(const IList<PostedEntry, PostedTag>& list, int have_tag) {
  for (PostedEntry* e = list.front(); e; e = IList<PostedEntry, PostedTag>::next(e))
    if (MatchEngine::tag_matches(e->tag, have_tag)) return e;
  return nullptr;
}

}  // namespace

void MatchEngine::remember(uint32_t ctx, Queues* q) const {
  prev_ = last_;
  prev_ctx_ = last_ctx_;
  last_ = q;
  last_ctx_ = ctx;
}

MatchEngine::Queues& MatchEngine::queues(uint32_t ctx) {
  if (Queues* q = find_queues(ctx)) return *q;
  remember(ctx, &by_ctx_[ctx]);
  return *last_;
}

const MatchEngine::Queues* MatchEngine::find_queues(uint32_t ctx) const {
  if (last_ && last_ctx_ == ctx) return last_;
  if (prev_ && prev_ctx_ == ctx) {
    remember(ctx, prev_);
    return last_;
  }
  auto it = by_ctx_.find(ctx);
  if (it == by_ctx_.end()) return nullptr;
  remember(ctx, const_cast<Queues*>(&it->second));
  return last_;
}

MatchEngine::Queues* MatchEngine::find_queues(uint32_t ctx) {
  return const_cast<Queues*>(static_cast<const MatchEngine*>(this)->find_queues(ctx));
}

PostedEntry* MatchEngine::match_arrival(uint32_t ctx, int src, int tag) {
  assert(src >= 0);
  if (posted_count_ == 0) return nullptr;
  Queues* q = find_queues(ctx);
  if (!q) return nullptr;
  PostedEntry* specific = nullptr;
  if (static_cast<size_t>(src) < q->posted_by_src.size())
    specific = first_accepting(q->posted_by_src[src], tag);
  PostedEntry* wild = first_accepting(q->posted_any, tag);
  PostedEntry* pick = specific;
  if (wild && (!specific || wild->stamp < specific->stamp)) pick = wild;
  if (!pick) return nullptr;
  if (pick == wild)
    q->posted_any.erase(pick);
  else
    q->posted_by_src[src].erase(pick);
  pick->queued = false;
  --posted_count_;
  return pick;
}

void MatchEngine::post(PostedEntry* e) {
  assert(!e->queued);
  Queues& q = queues(e->ctx);
  e->stamp = q.next_stamp++;
  if (e->src == kAnySource) {
    q.posted_any.push_back(e);
  } else {
    assert(e->src >= 0);
    if (static_cast<size_t>(e->src) >= q.posted_by_src.size())
      q.posted_by_src.resize(static_cast<size_t>(e->src) + 1);
    q.posted_by_src[e->src].push_back(e);
  }
  e->queued = true;
  ++posted_count_;
}

bool MatchEngine::cancel(PostedEntry* e) {
  if (!e->queued) return false;
  Queues* q = find_queues(e->ctx);
  assert(q);
  if (e->src == kAnySource)
    q->posted_any.erase(e);
  else
    q->posted_by_src[e->src].erase(e);
  e->queued = false;
  --posted_count_;
  return true;
}

void MatchEngine::add_unexpected(ArrivedEntry* e) {
  assert(!e->queued && e->src >= 0);
  Queues& q = queues(e->ctx);
  e->stamp = q.next_stamp++;
  if (static_cast<size_t>(e->src) >= q.unexpected_by_src.size())
    q.unexpected_by_src.resize(static_cast<size_t>(e->src) + 1);
  q.unexpected_by_src[e->src].push_back(e);
  q.unexpected_all.push_back(e);
  e->queued = true;
  ++unexpected_count_;
}

ArrivedEntry* MatchEngine::find_unexpected(uint32_t ctx, int src, int tag) const {
  const Queues* q = find_queues(ctx);
  if (!q || unexpected_count_ == 0) return nullptr;
  if (src == kAnySource) return first_with_tag<ArrivalList, ArrivedEntry>(q->unexpected_all, tag);
  if (src < 0 || static_cast<size_t>(src) >= q->unexpected_by_src.size()) return nullptr;
  return first_with_tag<SourceList, ArrivedEntry>(q->unexpected_by_src[src], tag);
}

void MatchEngine::remove_unexpected(ArrivedEntry* e) {
  assert(e->queued);
  Queues* q = find_queues(e->ctx);
  assert(q);
  q->unexpected_by_src[e->src].erase(e);
  q->unexpected_all.erase(e);
  e->queued = false;
  --unexpected_count_;
}

ArrivedEntry* MatchEngine::take_any_unexpected() {
  if (unexpected_count_ == 0) return nullptr;
  for (auto& entry : by_ctx_) {
    if (ArrivedEntry* e = entry.second.unexpected_all.front()) {
      remove_unexpected(e);
      return e;
    }
  }
  return nullptr;
}

ArrivedEntry* MatchEngine::take_unexpected(uint32_t ctx, int src, int tag) {
  ArrivedEntry* e = find_unexpected(ctx, src, tag);
  if (e) remove_unexpected(e);
  return e;
}

}  // namespace mpr::pml
