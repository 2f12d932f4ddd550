#include "runtime/comm/group.h"

#include <algorithm>
#include <cstdint>
#include <unordered_map>
#include <unordered_set>

#include "runtime/core/state.h"

namespace mpr::runtime {

namespace {

// MPI_GROUP_EMPTY: a static object that reference counting never frees.
Group* g_empty = nullptr;

// Lookup of "is job rank x in this list, at which index" without an O(n) scan per query.
std::unordered_map<int, int> index_of(const std::vector<int>& v) {
  std::unordered_map<int, int> m;
  m.reserve(v.size() * 2);
  for (size_t i = 0; i < v.size(); ++i) m.emplace(v[i], static_cast<int>(i));
  return m;
}

}  // namespace

int Group::rank_of(int job_rank) const {
  auto it = std::find(members_.begin(), members_.end(), job_rank);
  return it == members_.end() ? MPI_UNDEFINED : static_cast<int>(it - members_.begin());
}

int Group::my_rank() const { return rank_of(job_rank()); }

void Group::release() {
  if (this == g_empty) return;
  if (--refs_ == 0) delete this;
}

Group* empty_group() {
  if (!g_empty) g_empty = new Group({});
  return g_empty;
}

Group* to_group(MPI_Group h) {
  if (h == MPI_GROUP_EMPTY) return empty_group();
  if (reinterpret_cast<uintptr_t>(h) < 0x1000) return nullptr;
  auto* g = reinterpret_cast<Group*>(h);
  return g->valid() ? g : nullptr;
}

MPI_Group make_group_handle(std::vector<int> members) {
  if (members.empty()) return MPI_GROUP_EMPTY;
  return (new Group(std::move(members)))->handle();
}

namespace group_ops {

std::vector<int> set_union(const std::vector<int>& a, const std::vector<int>& b) {
  std::unordered_set<int> in_a(a.begin(), a.end());
  std::vector<int> out = a;
  for (int x : b)
    if (!in_a.count(x)) out.push_back(x);
  return out;
}

std::vector<int> set_intersection(const std::vector<int>& a, const std::vector<int>& b) {
  std::unordered_set<int> in_b(b.begin(), b.end());
  std::vector<int> out;
  for (int x : a)
    if (in_b.count(x)) out.push_back(x);
  return out;
}

std::vector<int> set_difference(const std::vector<int>& a, const std::vector<int>& b) {
  std::unordered_set<int> in_b(b.begin(), b.end());
  std::vector<int> out;
  for (int x : a)
    if (!in_b.count(x)) out.push_back(x);
  return out;
}

int compare(const std::vector<int>& a, const std::vector<int>& b) {
  if (a == b) return MPI_IDENT;
  if (a.size() != b.size()) return MPI_UNEQUAL;
  std::vector<int> x = a, y = b;
  std::sort(x.begin(), x.end());
  std::sort(y.begin(), y.end());
  return x == y ? MPI_SIMILAR : MPI_UNEQUAL;
}

int check_ranks(int size, int n, const int* ranks, const char** why, int* bad_index) {
  if (n < 0) {
    *why = "negative number of ranks";
    *bad_index = -1;
    return MPI_ERR_ARG;
  }
  if (n > 0 && !ranks) {
    *why = "ranks is NULL";
    *bad_index = -1;
    return MPI_ERR_ARG;
  }
  std::vector<char> seen(static_cast<size_t>(size), 0);
  for (int i = 0; i < n; ++i) {
    *bad_index = i;
    if (ranks[i] < 0 || ranks[i] >= size) {
      *why = "rank out of range";
      return MPI_ERR_RANK;
    }
    if (seen[ranks[i]]++) {
      *why = "rank listed twice";
      return MPI_ERR_RANK;
    }
  }
  return MPI_SUCCESS;
}

int expand_ranges(int size, int n, const int (*ranges)[3], std::vector<int>* out, const char** why,
                  int* bad_index) {
  *bad_index = -1;
  if (n < 0) {
    *why = "negative number of ranges";
    return MPI_ERR_ARG;
  }
  if (n > 0 && !ranges) {
    *why = "ranges is NULL";
    return MPI_ERR_ARG;
  }
  std::vector<char> seen(static_cast<size_t>(size), 0);
  out->clear();
  for (int i = 0; i < n; ++i) {
    *bad_index = i;
    const int first = ranges[i][0], last = ranges[i][1], stride = ranges[i][2];
    if (stride == 0) {
      *why = "stride is 0";
      return MPI_ERR_ARG;
    }
    if (first < 0 || first >= size || last < 0 || last >= size) {
      *why = "first or last rank out of range";
      return MPI_ERR_RANK;
    }
    if ((stride > 0 && first > last) || (stride < 0 && first < last)) {
      *why = "stride points away from last";
      return MPI_ERR_ARG;
    }
    // 64-bit so first + k*stride cannot overflow before the bound check stops it.
    for (int64_t r = first; stride > 0 ? r <= last : r >= last; r += stride) {
      if (seen[r]++) {
        *why = "rank listed twice";
        return MPI_ERR_RANK;
      }
      out->push_back(static_cast<int>(r));
    }
  }
  return MPI_SUCCESS;
}

std::vector<int> incl(const std::vector<int>& members, const std::vector<int>& ranks) {
  std::vector<int> out;
  out.reserve(ranks.size());
  for (int r : ranks) out.push_back(members[r]);
  return out;
}

std::vector<int> excl(const std::vector<int>& members, const std::vector<int>& ranks) {
  std::vector<char> drop(members.size(), 0);
  for (int r : ranks) drop[r] = 1;
  std::vector<int> out;
  for (size_t i = 0; i < members.size(); ++i)
    if (!drop[i]) out.push_back(members[i]);
  return out;
}

void translate(const std::vector<int>& a, int n, const int* ranks, const std::vector<int>& b,
               int* out) {
  std::unordered_map<int, int> in_b = index_of(b);
  for (int i = 0; i < n; ++i) {
    if (ranks[i] == MPI_PROC_NULL) {
      out[i] = MPI_PROC_NULL;
      continue;
    }
    auto it = in_b.find(a[ranks[i]]);
    out[i] = it == in_b.end() ? MPI_UNDEFINED : it->second;
  }
}

}  // namespace group_ops

}  // namespace mpr::runtime
