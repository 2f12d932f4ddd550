// Which algorithm a collective call uses. The decision table (tuning.cc) is the only place that
// chooses; MPR_COLL_<NAME>_ALG forces one algorithm per collective (benchmarks, tests).
#pragma once

#include <cstddef>
#include <cstdint>

namespace mpr::runtime::coll {

enum class Coll : uint8_t {
  kBarrier,
  kBcast,
  kReduce,
  kAllreduce,
  kAllgather,
  kAlltoall,
  kGather,
  kScatter,
  kReduceScatter,
  kNumColl
};

enum class Alg : uint8_t {
  kAuto,               ///< not forced: the table decides
  kDissemination,      ///< barrier
  kBinomial,           ///< bcast, reduce, gather, scatter
  kScatterAllgather,   ///< bcast: binomial scatter + ring allgather
  kRabenseifner,       ///< reduce, allreduce: reduce-scatter by recursive halving + (all)gather
  kRecursiveDoubling,  ///< allreduce, allgather (allgather: power-of-two sizes only)
  kRing,               ///< allreduce, allgather, reduce_scatter
  kBruck,              ///< allgather, alltoall
  kPairwise,           ///< alltoall: n-1 exchange steps
  kLinear,             ///< gather, scatter, alltoall: every transfer posted at once
  kReduceThenScatter,  ///< reduce_scatter: binomial reduce to rank 0, then scatterv
  kNumAlg
};

/// What the choice may depend on. `bytes` is, per collective: bcast the buffer; reduce,
/// allreduce and reduce_scatter the whole vector; allgather the gathered result; alltoall,
/// gather and scatter one rank's block.
struct CallShape {
  int ranks = 1;
  size_t bytes = 0;
  size_t count = 0;         ///< elements of the reduced vector (reductions)
  bool commutative = true;  ///< reductions
};

/// The algorithm for one call: the forced one if it can run this call, else the table's.
Alg choose(Coll c, const CallShape& shape);
/// The algorithm MPR_COLL_<NAME>_ALG forces for `c`, or kAuto.
Alg forced(Coll c);
const char* alg_name(Alg a);
const char* coll_name(Coll c);
/// True when MPR_COLL_ALG_DYNAMIC is set: tunables of the collectives are read at every call.
bool dynamic_tunables();
/// True if algorithm `a` implements collective `c` and can run a call of this shape (e.g.
/// Rabenseifner needs a commutative op and at least one element per rank).
bool applicable(Coll c, Alg a, const CallShape& shape);

}  // namespace mpr::runtime::coll
