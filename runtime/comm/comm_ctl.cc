#include "runtime/comm/comm_ctl.h"

#include <algorithm>
#include <cstring>

#include "mpi.h"
#include "pml/pml.h"
#include "runtime/core/errors.h"
#include "runtime/core/state.h"

namespace mpr::runtime::ctl {

namespace {

pml::Request* post_send(const Channel& ch, int dst, int tag, const void* buf, size_t bytes) {
  return the_pml().isend(buf, bytes, (*ch.peers)[dst], ch.me, tag, ch.ctx,
                         pml::SendMode::kStandard);
}

pml::Request* post_recv(const Channel& ch, int src, int tag, void* buf, size_t bytes) {
  return the_pml().irecv(buf, bytes, src, tag, ch.ctx);
}

int finish(const char* fn, const Channel& ch, pml::Request* r, int peer) {
  the_pml().wait(r);
  pml::Status s = r->status;
  the_pml().release(r);
  if (s.error == pml::kOk) return MPI_SUCCESS;
  int job_peer = peer >= 0 && peer < ch.size() ? (*ch.peers)[peer] : -1;
  if (s.error == pml::kErrTruncate)
    return make_error(MPI_ERR_INTERN, fn,
                      "control message from job rank %d longer than expected (the processes "
                      "called communicator constructors in different orders?)",
                      job_peer);
  return make_error(MPI_ERR_OTHER, fn, "transport failure with job rank %d", job_peer);
}

int bcast_fixed(const char* fn, const Channel& ch, int root, int tag, void* buf, size_t bytes) {
  const int n = ch.size();
  const int rel = (ch.me - root + n) % n;
  int mask = 1;
  while (mask < n) {
    if (rel & mask) {
      int rc = recv(fn, ch, (rel - mask + root) % n, tag, buf, bytes);
      if (rc != MPI_SUCCESS) return rc;
      break;
    }
    mask <<= 1;
  }
  for (mask >>= 1; mask > 0; mask >>= 1)
    if (rel + mask < n) {
      int rc = send(fn, ch, (rel + mask + root) % n, tag, buf, bytes);
      if (rc != MPI_SUCCESS) return rc;
    }
  return MPI_SUCCESS;
}

}  // namespace

int create_group_tag(int user_tag) { return -2 - (user_tag & 0x3fffffff); }
int intercomm_tag(int user_tag) { return -2 - 0x40000000 - (user_tag & 0x1fffffff); }

int send(const char* fn, const Channel& ch, int dst, int tag, const void* buf, size_t bytes) {
  return finish(fn, ch, post_send(ch, dst, tag, buf, bytes), dst);
}

int recv(const char* fn, const Channel& ch, int src, int tag, void* buf, size_t bytes) {
  return finish(fn, ch, post_recv(ch, src, tag, buf, bytes), src);
}

int send_vec(const char* fn, const Channel& ch, int dst, int tag, const std::vector<uint8_t>& v) {
  uint64_t n = v.size();
  int rc = send(fn, ch, dst, tag, &n, sizeof n);
  if (rc == MPI_SUCCESS && n > 0) rc = send(fn, ch, dst, tag, v.data(), v.size());
  return rc;
}

int recv_vec(const char* fn, const Channel& ch, int src, int tag, std::vector<uint8_t>* v) {
  uint64_t n = 0;
  int rc = recv(fn, ch, src, tag, &n, sizeof n);
  if (rc != MPI_SUCCESS) return rc;
  v->resize(n);
  return n > 0 ? recv(fn, ch, src, tag, v->data(), n) : MPI_SUCCESS;
}

int exchange_vec(const char* fn, const Channel& ch, int other, int tag,
                 const std::vector<uint8_t>& out, std::vector<uint8_t>* in) {
  // Both sides send before receiving: the sends must be nonblocking, or two rendezvous sends
  // would each wait for a receive the other never gets to post.
  uint64_t n_out = out.size(), n_in = 0;
  pml::Request* s1 = post_send(ch, other, tag, &n_out, sizeof n_out);
  pml::Request* s2 = n_out > 0 ? post_send(ch, other, tag, out.data(), out.size()) : nullptr;
  int rc = recv(fn, ch, other, tag, &n_in, sizeof n_in);
  if (rc == MPI_SUCCESS) {
    in->resize(n_in);
    if (n_in > 0) rc = recv(fn, ch, other, tag, in->data(), n_in);
  }
  int rc1 = finish(fn, ch, s1, other);
  int rc2 = s2 ? finish(fn, ch, s2, other) : MPI_SUCCESS;
  if (rc == MPI_SUCCESS) rc = rc1;
  return rc == MPI_SUCCESS ? rc2 : rc;
}

int bcast_vec(const char* fn, const Channel& ch, int root, int tag, std::vector<uint8_t>* v) {
  uint64_t n = v->size();
  int rc = bcast_fixed(fn, ch, root, tag, &n, sizeof n);
  if (rc != MPI_SUCCESS || n == 0) {
    if (rc == MPI_SUCCESS) v->clear();
    return rc;
  }
  v->resize(n);
  return bcast_fixed(fn, ch, root, tag, v->data(), n);
}

namespace {

template <class T, class Combine>
int allreduce(const char* fn, const Channel& ch, int tag, T* words, size_t n, Combine combine) {
  const int size = ch.size();
  std::vector<T> tmp(n);
  for (int mask = 1; mask < size; mask <<= 1) {
    if (ch.me & mask) {
      int rc = send(fn, ch, ch.me - mask, tag, words, n * sizeof(uint64_t));
      if (rc != MPI_SUCCESS) return rc;
      break;
    }
    if (ch.me + mask < size) {
      int rc = recv(fn, ch, ch.me + mask, tag, tmp.data(), n * sizeof(T));
      if (rc != MPI_SUCCESS) return rc;
      for (size_t i = 0; i < n; ++i) words[i] = combine(words[i], tmp[i]);
    }
  }
  return bcast_fixed(fn, ch, 0, tag, words, n * sizeof(T));
}

}  // namespace

int allreduce_and(const char* fn, const Channel& ch, int tag, uint64_t* words, size_t n) {
  return allreduce(fn, ch, tag, words, n, [](uint64_t a, uint64_t b) { return a & b; });
}

int allreduce_sum(const char* fn, const Channel& ch, int tag, int64_t* words, size_t n) {
  return allreduce(fn, ch, tag, words, n, [](int64_t a, int64_t b) { return a + b; });
}

int sparse_exchange(const char* fn, const Channel& ch, int tag,
                    const std::vector<std::vector<uint8_t>>& out,
                    std::vector<std::pair<int, std::vector<uint8_t>>>* in) {
  const int size = ch.size();
  std::vector<int64_t> senders(static_cast<size_t>(size), 0);
  for (int r = 0; r < size; ++r)
    if (r != ch.me && !out[r].empty()) senders[r] = 1;
  // The count uses its own tag: the wildcard receives below must only ever see data messages
  // (no later exchange can send any before this process contributed to its count).
  int rc = allreduce_sum(fn, ch, kTagCtlGather, senders.data(), senders.size());
  if (rc != MPI_SUCCESS) return rc;
  // Post every send first (nonblocking: large ones are rendezvous and complete only when
  // their receiver matches them), then take the expected number of messages from anyone.
  std::vector<uint64_t> lens(static_cast<size_t>(size));
  std::vector<std::pair<pml::Request*, int>> sends;
  for (int r = 0; r < size; ++r) {
    if (r == ch.me || out[r].empty()) continue;
    lens[r] = out[r].size();
    sends.emplace_back(post_send(ch, r, tag, &lens[r], sizeof(uint64_t)), r);
    sends.emplace_back(post_send(ch, r, tag, out[r].data(), out[r].size()), r);
  }
  in->clear();
  if (!out[ch.me].empty()) in->emplace_back(ch.me, out[ch.me]);
  for (int64_t k = 0; k < senders[ch.me] && rc == MPI_SUCCESS; ++k) {
    uint64_t len = 0;
    pml::Request* r = post_recv(ch, pml::kAnySource, tag, &len, sizeof len);
    the_pml().wait(r);
    const int src = r->status.source;
    rc = finish(fn, ch, r, src);
    if (rc != MPI_SUCCESS) break;
    std::vector<uint8_t> data(len);
    rc = recv(fn, ch, src, tag, data.data(), len);
    in->emplace_back(src, std::move(data));
  }
  for (auto& [req, peer] : sends) {
    int one = finish(fn, ch, req, peer);
    if (rc == MPI_SUCCESS) rc = one;
  }
  std::sort(in->begin(), in->end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  return rc;
}

int allgather(const char* fn, const Channel& ch, int tag, const void* mine, size_t each,
              void* out) {
  const int size = ch.size();
  auto* base = static_cast<uint8_t*>(out);
  std::memcpy(base + static_cast<size_t>(ch.me) * each, mine, each);
  // Binomial gather to rank 0: rank r holds the blocks of ranks [r, r + held) at every step.
  int held = 1;
  for (int mask = 1; mask < size; mask <<= 1) {
    if (ch.me & mask) {
      int rc = send(fn, ch, ch.me - mask, tag, base + static_cast<size_t>(ch.me) * each,
                    static_cast<size_t>(held) * each);
      if (rc != MPI_SUCCESS) return rc;
      break;
    }
    int from = ch.me + mask;
    if (from < size) {
      int count = std::min(mask, size - from);
      int rc = recv(fn, ch, from, tag, base + static_cast<size_t>(from) * each,
                    static_cast<size_t>(count) * each);
      if (rc != MPI_SUCCESS) return rc;
      held += count;
    }
  }
  return bcast_fixed(fn, ch, 0, tag, out, static_cast<size_t>(size) * each);
}

std::vector<uint8_t> to_bytes(const std::vector<int>& v) {
  std::vector<uint8_t> out(v.size() * sizeof(int));
  if (!v.empty()) std::memcpy(out.data(), v.data(), out.size());
  return out;
}

std::vector<int> from_bytes(const std::vector<uint8_t>& v) {
  std::vector<int> out(v.size() / sizeof(int));
  if (!out.empty()) std::memcpy(out.data(), v.data(), out.size() * sizeof(int));
  return out;
}

}  // namespace mpr::runtime::ctl
