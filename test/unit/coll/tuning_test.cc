// The decision table and the algorithm overrides.
#include "runtime/coll/tuning.h"

#include <catch2/catch.hpp>
#include <cstdlib>

using namespace mpr::runtime::coll;

namespace {

CallShape shape(int ranks, size_t bytes, size_t count = 0, bool commutative = true) {
  CallShape s;
  s.ranks = ranks;
  s.bytes = bytes;
  s.count = count ? count : bytes / 4;
  s.commutative = commutative;
  return s;
}

// Sets an override for the lifetime of one scope.
struct Force {
  const char* var;
  Force(const char* v, const char* alg) : var(v) { setenv(v, alg, 1); }
  ~Force() { unsetenv(var); }
};

}  // namespace

TEST_CASE("small messages use the latency algorithms", "[coll][tuning]") {
  CHECK(choose(Coll::kBarrier, shape(8, 0)) == Alg::kDissemination);
  CHECK(choose(Coll::kBcast, shape(4, 8)) == Alg::kBinomial);
  CHECK(choose(Coll::kReduce, shape(4, 8)) == Alg::kBinomial);
  CHECK(choose(Coll::kAllreduce, shape(4, 8)) == Alg::kRecursiveDoubling);
  CHECK(choose(Coll::kAllreduce, shape(7, 8)) == Alg::kRecursiveDoubling);
  CHECK(choose(Coll::kAllgather, shape(4, 64)) == Alg::kRecursiveDoubling);
  CHECK(choose(Coll::kAlltoall, shape(16, 16)) == Alg::kBruck);
  CHECK(choose(Coll::kAlltoall, shape(8, 16)) == Alg::kLinear);  // measured: no Bruck up to 8
  CHECK(choose(Coll::kAlltoall, shape(2, 8)) == Alg::kLinear);
  CHECK(choose(Coll::kGather, shape(8, 16)) == Alg::kBinomial);
}

TEST_CASE("large messages use the bandwidth algorithms", "[coll][tuning]") {
  const size_t big = 4u << 20;
  CHECK(choose(Coll::kBcast, shape(4, big)) == Alg::kBinomial);
  CHECK(choose(Coll::kBcast, shape(4, 4 * big)) == Alg::kScatterAllgather);
  CHECK(choose(Coll::kBcast, shape(2, big)) == Alg::kBinomial);  // one message either way
  CHECK(choose(Coll::kReduce, shape(4, big)) == Alg::kRabenseifner);
  CHECK(choose(Coll::kAllgather, shape(5, big)) == Alg::kRing);
  CHECK(choose(Coll::kAlltoall, shape(4, big)) == Alg::kLinear);
  CHECK(choose(Coll::kGather, shape(8, big)) == Alg::kLinear);
  CHECK(choose(Coll::kReduceScatter, shape(4, big)) == Alg::kRing);
  const Alg a = choose(Coll::kAllreduce, shape(4, big));
  CHECK((a == Alg::kRabenseifner || a == Alg::kRing));
}

TEST_CASE("an algorithm that cannot run a call is never chosen", "[coll][tuning]") {
  const size_t big = 4u << 20;
  // Non-commutative: only order-preserving algorithms.
  CHECK(choose(Coll::kAllreduce, shape(8, big, 0, false)) == Alg::kRecursiveDoubling);
  CHECK(choose(Coll::kReduce, shape(8, big, 0, false)) == Alg::kBinomial);
  CHECK(choose(Coll::kReduceScatter, shape(8, big, 0, false)) == Alg::kReduceThenScatter);
  CHECK_FALSE(applicable(Coll::kAllreduce, Alg::kRabenseifner, shape(8, big, 0, false)));
  CHECK_FALSE(applicable(Coll::kAllreduce, Alg::kRing, shape(8, big, 0, false)));
  // Fewer elements than blocks.
  CHECK_FALSE(applicable(Coll::kAllreduce, Alg::kRabenseifner, shape(8, big, 7)));
  CHECK(applicable(Coll::kAllreduce, Alg::kRabenseifner, shape(8, big, 8)));
  CHECK_FALSE(applicable(Coll::kAllreduce, Alg::kRing, shape(5, big, 4)));
  // Recursive doubling allgather needs a power of two.
  CHECK_FALSE(applicable(Coll::kAllgather, Alg::kRecursiveDoubling, shape(6, 64)));
  CHECK(choose(Coll::kAllgather, shape(6, 64)) == Alg::kBruck);
  // An algorithm of another collective.
  CHECK_FALSE(applicable(Coll::kBcast, Alg::kRing, shape(4, 64)));
  CHECK_FALSE(applicable(Coll::kGather, Alg::kPairwise, shape(4, 64)));
}

TEST_CASE("MPR_COLL_<NAME>_ALG forces an algorithm, falling back when it cannot run",
          "[coll][tuning]") {
  {
    Force f("MPR_COLL_ALLREDUCE_ALG", "ring");
    CHECK(choose(Coll::kAllreduce, shape(4, 64)) == Alg::kRing);
    // Forced but not applicable (non-commutative, or fewer elements than ranks): the table.
    CHECK(choose(Coll::kAllreduce, shape(4, 64, 0, false)) == Alg::kRecursiveDoubling);
    CHECK(choose(Coll::kAllreduce, shape(4, 8)) == Alg::kRecursiveDoubling);
  }
  CHECK(choose(Coll::kAllreduce, shape(4, 8)) == Alg::kRecursiveDoubling);
  {
    Force f("MPR_COLL_BCAST_ALG", "scatter_allgather");
    CHECK(choose(Coll::kBcast, shape(2, 8)) == Alg::kScatterAllgather);
  }
  {
    Force f("MPR_COLL_ALLTOALL_ALG", "pairwise");
    CHECK(choose(Coll::kAlltoall, shape(8, 16)) == Alg::kPairwise);
  }
  {
    // A name that is no algorithm of this collective is ignored (with a message).
    Force f("MPR_COLL_GATHER_ALG", "bruck");
    CHECK(choose(Coll::kGather, shape(8, 16)) == Alg::kBinomial);
  }
}

TEST_CASE("every algorithm of the table has a name and every collective one", "[coll][tuning]") {
  for (int a = 0; a < static_cast<int>(Alg::kNumAlg); ++a)
    CHECK(alg_name(static_cast<Alg>(a))[0] != '\0');
  CHECK(std::string(coll_name(Coll::kReduceScatter)) == "reduce_scatter");
  CHECK(std::string(alg_name(Alg::kScatterAllgather)) == "scatter_allgather");
}
