// Collectives on intercommunicators, built from the intracommunicator algorithms run over each
// group (Schedule::set_local) and transfers between the groups, as MPICH builds them: a rooted
// call goes between the root and rank 0 of the other group, which works with its own group;
// an all-to-all-groups call reduces or gathers to each group's rank 0, the two leaders swap,
// and each leader broadcasts to its group. The v-variants and alltoall(v/w) are linear: every
// process exchanges directly with every remote one.
//
// `root` is what the caller passed: MPI_ROOT at the root, MPI_PROC_NULL at the rest of the
// root's group (their schedule stays empty; it still took the operation's tag), otherwise the
// root's rank in the remote group.
#include <vector>

#include "runtime/coll/coll.h"

namespace mpr::runtime::coll {

namespace {

// Transfers added in this scope go between members of the local group.
class LocalGroup {
 public:
  explicit LocalGroup(Schedule& s) : s_(s) {
    s_.fence();
    s_.set_local(true);
  }
  ~LocalGroup() {
    s_.fence();
    s_.set_local(false);
  }
  LocalGroup(const LocalGroup&) = delete;
  LocalGroup& operator=(const LocalGroup&) = delete;

 private:
  Schedule& s_;
};

int remote_size(const Schedule& s) { return s.comm()->remote_size(); }

// The reduction of the local group's `count` elements, at local rank 0 (which gets the
// buffer back; the others nullptr). Rank order is kept, so non-commutative ops are right.
const char* reduce_to_leader(Schedule& s, const void* sendbuf, size_t count) {
  if (s.size() == 1) return static_cast<const char*>(sendbuf);
  char* tmp = s.rank() == 0 ? s.scratch(count * s.reducer().esz) : nullptr;
  LocalGroup local(s);
  reduce(s, sendbuf, tmp, count, 0);
  return tmp;
}

// Leaders only: send `out` to the remote leader and receive its `in`, as one group.
void swap_leaders(Schedule& s, const void* out, size_t out_bytes, void* in, size_t in_bytes) {
  if (s.rank() != 0) return;
  s.fence();
  if (in_bytes) s.recv(in, in_bytes, 0);
  if (out_bytes) s.send(out, out_bytes, 0);
  s.fence();
}

}  // namespace

void inter_barrier(Schedule& s) {
  // Everyone here has arrived once the local barrier ends; the leaders tell each other, then
  // each leader releases its group with a one-byte token.
  {
    LocalGroup local(s);
    barrier(s);
  }
  if (s.rank() == 0) {
    s.fence();
    s.send(nullptr, 0, 0);
    s.recv(nullptr, 0, 0);
  }
  if (s.size() > 1) {
    char* token = s.scratch(1);
    *token = 0;
    LocalGroup local(s);
    bcast(s, token, 1, 0);
  }
}

void inter_bcast(Schedule& s, void* buf, size_t bytes, int root) {
  if (root == MPI_PROC_NULL || bytes == 0) return;
  if (root == MPI_ROOT) {
    s.send(buf, bytes, 0);
    return;
  }
  if (s.rank() == 0) s.recv(buf, bytes, root);
  LocalGroup local(s);
  bcast(s, buf, bytes, 0);
}

void inter_reduce(Schedule& s, const void* sendbuf, void* recvbuf, size_t count, int root) {
  if (root == MPI_PROC_NULL || count == 0) return;
  const size_t bytes = count * s.reducer().esz;
  if (root == MPI_ROOT) {
    s.recv(recvbuf, bytes, 0);
    return;
  }
  const char* sum = reduce_to_leader(s, sendbuf, count);
  if (s.rank() == 0) s.send(sum, bytes, root);
}

void inter_allreduce(Schedule& s, const void* sendbuf, void* recvbuf, size_t count) {
  if (count == 0) return;
  const size_t bytes = count * s.reducer().esz;
  const char* sum = reduce_to_leader(s, sendbuf, count);
  swap_leaders(s, sum, bytes, recvbuf, bytes);
  LocalGroup local(s);
  bcast(s, recvbuf, bytes, 0);
}

void inter_reduce_scatter(Schedule& s, const void* sendbuf, void* recvbuf, const size_t* counts) {
  const int n = s.size();
  const size_t esz = s.reducer().esz;
  size_t total = 0;
  for (int i = 0; i < n; ++i) total += counts[i];
  if (total == 0) return;
  const char* sum = reduce_to_leader(s, sendbuf, total);
  char* theirs = s.rank() == 0 ? s.scratch(total * esz) : nullptr;
  swap_leaders(s, sum, total * esz, theirs, total * esz);
  std::vector<Span> blocks;
  if (s.rank() == 0) {
    blocks.resize(n);
    size_t off = 0;
    for (int i = 0; i < n; ++i) {
      blocks[i] = {theirs + off * esz, counts[i] * esz};
      off += counts[i];
    }
  }
  LocalGroup local(s);
  // At the leader a null recvbuf would read as "in place": its block is copied either way.
  scatterv(s, blocks.data(), recvbuf ? recvbuf : theirs, counts[s.rank()] * esz, 0);
}

void inter_gather(Schedule& s, const void* sendbuf, void* recvbuf, size_t blk, int root) {
  if (root == MPI_PROC_NULL || blk == 0) return;
  if (root == MPI_ROOT) {
    s.recv(recvbuf, remote_size(s) * blk, 0);
    return;
  }
  const char* all = static_cast<const char*>(sendbuf);
  if (s.size() > 1) {
    char* tmp = s.rank() == 0 ? s.scratch(s.size() * blk) : nullptr;
    LocalGroup local(s);
    gather(s, sendbuf, tmp, blk, 0);
    all = tmp;
  }
  if (s.rank() == 0) s.send(all, s.size() * blk, root);
}

void inter_scatter(Schedule& s, const void* sendbuf, void* recvbuf, size_t blk, int root) {
  if (root == MPI_PROC_NULL || blk == 0) return;
  if (root == MPI_ROOT) {
    s.send(sendbuf, remote_size(s) * blk, 0);
    return;
  }
  if (s.size() == 1) {
    s.recv(recvbuf, blk, root);
    return;
  }
  char* all = s.rank() == 0 ? s.scratch(s.size() * blk) : nullptr;
  if (all) s.recv(all, s.size() * blk, root);
  LocalGroup local(s);
  scatter(s, all, recvbuf, blk, 0);
}

void inter_gatherv(Schedule& s, const void* sendbuf, size_t bytes, const Span* blocks, int root) {
  if (root == MPI_PROC_NULL) return;
  if (root == MPI_ROOT) {
    for (int i = 0; i < remote_size(s); ++i)
      if (blocks[i].bytes) s.recv(blocks[i].ptr, blocks[i].bytes, i);
    return;
  }
  if (bytes) s.send(sendbuf, bytes, root);
}

void inter_scatterv(Schedule& s, const Span* blocks, void* recvbuf, size_t bytes, int root) {
  if (root == MPI_PROC_NULL) return;
  if (root == MPI_ROOT) {
    for (int i = 0; i < remote_size(s); ++i)
      if (blocks[i].bytes) s.send(blocks[i].ptr, blocks[i].bytes, i);
    return;
  }
  if (bytes) s.recv(recvbuf, bytes, root);
}

void inter_allgather(Schedule& s, const void* sendbuf, size_t sblk, void* recvbuf, size_t rblk) {
  const int n = s.size(), m = remote_size(s);
  const char* mine = static_cast<const char*>(sendbuf);
  if (n > 1 && sblk) {
    char* tmp = s.rank() == 0 ? s.scratch(n * sblk) : nullptr;
    LocalGroup local(s);
    gather(s, sendbuf, tmp, sblk, 0);
    mine = tmp;
  }
  swap_leaders(s, mine, n * sblk, recvbuf, m * rblk);
  LocalGroup local(s);
  bcast(s, recvbuf, m * rblk, 0);
}

void inter_allgatherv(Schedule& s, const void* sendbuf, size_t bytes, const Span* blocks) {
  for (int i = 0; i < remote_size(s); ++i) {
    if (blocks[i].bytes) s.recv(blocks[i].ptr, blocks[i].bytes, i);
    if (bytes) s.send(sendbuf, bytes, i);
  }
}

void inter_alltoallv(Schedule& s, const Span* sends, const Span* recvs) {
  // Every pair exchanges one message each way, so all can be posted at once.
  for (int i = 0; i < remote_size(s); ++i) {
    if (recvs[i].bytes) s.recv(recvs[i].ptr, recvs[i].bytes, i);
    if (sends[i].bytes) s.send(sends[i].ptr, sends[i].bytes, i);
  }
}

}  // namespace mpr::runtime::coll
