// The decision table: for each collective, rows tried in order; the first row whose rank and
// byte limits hold and whose algorithm can run the call wins (a last catch-all row per
// collective always can).
//
// Measured on this machine (2 cores shared with other builds, load 6-9; examples/bench/
// coll_bench, median of several runs, shm with cross-memory attach). See examples/bench/README.md
// for the tables behind each threshold.
#include "runtime/coll/tuning.h"

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <iterator>
#include <string>

#include "common/log.h"
#include "common/params.h"

namespace mpr::runtime::coll {

namespace {

constexpr int kAnyRanks = 1 << 30;
constexpr size_t kAnyBytes = ~size_t{0};
constexpr size_t KiB = 1024;
constexpr size_t MiB = 1024 * KiB;

struct Row {
  Coll coll;
  int max_ranks;     ///< row applies if ranks <= max_ranks
  size_t max_bytes;  ///< ... and bytes <= max_bytes
  Alg alg;
};

// clang-format off
constexpr Row kTable[] = {
    {Coll::kBarrier, kAnyRanks, kAnyBytes, Alg::kDissemination},

    // Two ranks: one message whatever its size. Above that the binomial tree sends the whole
    // buffer log2(n) times from the root's subtree; scatter + allgather moves each byte about
    // twice in total but takes n-1 more rounds. Measured at 4 and 8 ranks on 2 cores, binomial
    // won at every size up to 4 MiB (docs/MEASUREMENTS.md): with ranks sharing cores each extra round is a context switch, and cross-memory attach
    // makes the tree's copies cheap.
    {Coll::kBcast, 2, kAnyBytes, Alg::kBinomial},
    {Coll::kBcast, kAnyRanks, 8 * MiB, Alg::kBinomial},
    {Coll::kBcast, kAnyRanks, kAnyBytes, Alg::kScatterAllgather},

    {Coll::kReduce, kAnyRanks, 64 * KiB, Alg::kBinomial},
    {Coll::kReduce, kAnyRanks, kAnyBytes, Alg::kRabenseifner},  // commutative only
    {Coll::kReduce, kAnyRanks, kAnyBytes, Alg::kBinomial},

    // Recursive doubling: log2(n) rounds of whole-vector exchanges, best while latency
    // dominates. Above, Rabenseifner halves the data each round. Crossover measured at 16-32 KiB.
    // Ring (n-1 rounds of 1/n of the vector) tied with Rabenseifner at 4 ranks and lost at 2
    // ranks: it stays selectable only. (Numbers: docs/MEASUREMENTS.md.)
    {Coll::kAllreduce, kAnyRanks, 16 * KiB, Alg::kRecursiveDoubling},
    {Coll::kAllreduce, kAnyRanks, kAnyBytes, Alg::kRabenseifner},  // commutative only
    {Coll::kAllreduce, kAnyRanks, kAnyBytes, Alg::kRing},          // commutative only
    {Coll::kAllreduce, kAnyRanks, kAnyBytes, Alg::kRecursiveDoubling},

    {Coll::kAllgather, kAnyRanks, 64 * KiB, Alg::kRecursiveDoubling},  // powers of two only
    {Coll::kAllgather, kAnyRanks, 64 * KiB, Alg::kBruck},
    {Coll::kAllgather, kAnyRanks, kAnyBytes, Alg::kRing},

    // Bruck: ceil(log2 n) messages per rank, for tiny blocks on communicators larger than
    // measured here. Up to 8 ranks on shared memory, everything posted at once (in batches of
    // 32 peers) beat it at every block size: Bruck's rotations and packing are local copies
    // that one message per peer does not need. Linear also beat pairwise exchange at every
    // size: its n-1 lock-step rounds each need both partners running. (Numbers:
    // docs/MEASUREMENTS.md.) Pairwise stays selectable for networks, where it avoids many senders
    // converging on one receiver.
    {Coll::kAlltoall, 8, kAnyBytes, Alg::kLinear},
    {Coll::kAlltoall, kAnyRanks, 256, Alg::kBruck},
    {Coll::kAlltoall, kAnyRanks, kAnyBytes, Alg::kLinear},
    {Coll::kAlltoall, kAnyRanks, kAnyBytes, Alg::kPairwise},

    {Coll::kGather, kAnyRanks, 32 * KiB, Alg::kBinomial},
    {Coll::kGather, kAnyRanks, kAnyBytes, Alg::kLinear},

    {Coll::kScatter, kAnyRanks, 32 * KiB, Alg::kBinomial},
    {Coll::kScatter, kAnyRanks, kAnyBytes, Alg::kLinear},

    {Coll::kReduceScatter, kAnyRanks, 64 * KiB, Alg::kReduceThenScatter},
    {Coll::kReduceScatter, kAnyRanks, kAnyBytes, Alg::kRing},  // commutative only
    {Coll::kReduceScatter, kAnyRanks, kAnyBytes, Alg::kReduceThenScatter},
};
// clang-format on

constexpr const char* kAlgNames[] = {"auto",
                                     "dissemination",
                                     "binomial",
                                     "scatter_allgather",
                                     "rabenseifner",
                                     "recursive_doubling",
                                     "ring",
                                     "bruck",
                                     "pairwise",
                                     "linear",
                                     "reduce_then_scatter"};
static_assert(sizeof(kAlgNames) / sizeof(kAlgNames[0]) == static_cast<size_t>(Alg::kNumAlg));

struct CollInfo {
  const char* name;
  const char* param;
};
constexpr CollInfo kColls[] = {
    {"barrier", "MPR_COLL_BARRIER_ALG"},
    {"bcast", "MPR_COLL_BCAST_ALG"},
    {"reduce", "MPR_COLL_REDUCE_ALG"},
    {"allreduce", "MPR_COLL_ALLREDUCE_ALG"},
    {"allgather", "MPR_COLL_ALLGATHER_ALG"},
    {"alltoall", "MPR_COLL_ALLTOALL_ALG"},
    {"gather", "MPR_COLL_GATHER_ALG"},
    {"scatter", "MPR_COLL_SCATTER_ALG"},
    {"reduce_scatter", "MPR_COLL_REDUCE_SCATTER_ALG"},
};
static_assert(sizeof(kColls) / sizeof(kColls[0]) == static_cast<size_t>(Coll::kNumColl));

bool pow2(int n) { return n > 0 && (n & (n - 1)) == 0; }
int floor_pow2(int n) {
  int p = 1;
  while (p * 2 <= n) p *= 2;
  return p;
}

bool implements(Coll c, Alg a) {
  for (const Row& r : kTable)
    if (r.coll == c && r.alg == a) return true;
  return false;
}

Alg parse(Coll c, const std::string& v) {
  if (v.empty() || v == "auto") return Alg::kAuto;
  for (int a = 1; a < static_cast<int>(Alg::kNumAlg); ++a)
    if (v == kAlgNames[a] && implements(c, static_cast<Alg>(a))) return static_cast<Alg>(a);
  std::string valid;
  for (int a = 1; a < static_cast<int>(Alg::kNumAlg); ++a)
    if (implements(c, static_cast<Alg>(a))) valid += std::string(" ") + kAlgNames[a];
  common::log_error("ignoring %s=%s: %s algorithms are auto%s", kColls[static_cast<int>(c)].param,
                    v.c_str(), kColls[static_cast<int>(c)].name, valid.c_str());
  return Alg::kAuto;
}

Alg read_forced(Coll c) {
  return parse(c, common::param_string(kColls[static_cast<int>(c)].param));
}

struct Forced {
  bool dynamic;
  Alg alg[static_cast<int>(Coll::kNumColl)];
  Forced() : dynamic(common::param_bool("MPR_COLL_ALG_DYNAMIC")) {
    for (int c = 0; c < static_cast<int>(Coll::kNumColl); ++c)
      alg[c] = read_forced(static_cast<Coll>(c));
  }
};

const Forced& forced_all() { return common::tunables_once<Forced>(); }

// Whether `a`, an algorithm of `c`, can run this call.
bool fits(Coll c, Alg a, const CallShape& s) {
  switch (a) {
    case Alg::kRabenseifner:
      // Recursive halving splits the vector into floor_pow2(n) blocks of >= 1 element and
      // combines them in an order that is not rank order.
      return s.commutative && s.ranks > 1 && s.count >= static_cast<size_t>(floor_pow2(s.ranks));
    case Alg::kRing:
      if (c == Coll::kAllgather) return true;
      // Each block is reduced starting at a different rank: commutative ops only.
      return s.commutative &&
             (c == Coll::kReduceScatter || s.count >= static_cast<size_t>(s.ranks));
    case Alg::kRecursiveDoubling:
      return c != Coll::kAllgather || pow2(s.ranks);
    default:
      return true;
  }
}

}  // namespace

bool applicable(Coll c, Alg a, const CallShape& s) { return implements(c, a) && fits(c, a, s); }

// Index of each collective's first row, so choose() scans only that collective's rows.
struct FirstRows {
  size_t at[static_cast<int>(Coll::kNumColl)] = {};
  constexpr FirstRows() {
    for (int c = 0; c < static_cast<int>(Coll::kNumColl); ++c) {
      size_t i = 0;
      while (i < std::size(kTable) && kTable[i].coll != static_cast<Coll>(c)) ++i;
      at[c] = i;
    }
  }
};
constexpr FirstRows kFirstRow;
// ... which needs a collective's rows next to each other.
constexpr bool rows_grouped() {
  for (size_t i = 0; i < std::size(kTable); ++i)
    for (size_t j = i + 2; j < std::size(kTable); ++j)
      if (kTable[j].coll == kTable[i].coll && kTable[j - 1].coll != kTable[i].coll) return false;
  return true;
}
static_assert(rows_grouped(), "keep each collective's rows together in kTable");

Alg forced(Coll c) {
  const Forced& f = forced_all();
  // Tests switch algorithms between calls with setenv; everyone else pays for one read.
  return f.dynamic ? read_forced(c) : f.alg[static_cast<int>(c)];
}

Alg choose(Coll c, const CallShape& shape) {
  Alg f = forced(c);
  if (f != Alg::kAuto && applicable(c, f, shape)) return f;
  for (size_t i = kFirstRow.at[static_cast<int>(c)]; i < std::size(kTable) && kTable[i].coll == c;
       ++i) {
    const Row& r = kTable[i];
    if (shape.ranks <= r.max_ranks && shape.bytes <= r.max_bytes && fits(c, r.alg, shape))
      return r.alg;
  }
  // Unreachable: every collective's last row applies to every call.
  std::fprintf(stderr, "mpr: internal error: no %s algorithm for %d ranks, %zu bytes\n",
               coll_name(c), shape.ranks, shape.bytes);
  std::abort();
}

bool dynamic_tunables() { return forced_all().dynamic; }

const char* alg_name(Alg a) { return kAlgNames[static_cast<int>(a)]; }
const char* coll_name(Coll c) { return kColls[static_cast<int>(c)].name; }

}  // namespace mpr::runtime::coll
