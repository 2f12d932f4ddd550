// Where each rank runs: the node's topology (hwloc), the CPUs mprun itself may use, and the
// --map-by / --bind-to / --cpus-per-rank rules that turn them into one CPU set per rank.
#pragma once

#include <hwloc.h>

#include <string>
#include <vector>

#include "launcher/options.h"

namespace mpr::launch {

/// An owned hwloc bitmap (a set of PUs, numbered as the kernel numbers CPUs).
class CpuSet {
 public:
  CpuSet();
  explicit CpuSet(hwloc_const_bitmap_t from);
  ~CpuSet();
  CpuSet(const CpuSet& other);
  CpuSet& operator=(const CpuSet& other);

  hwloc_bitmap_t get() const { return set_; }
  bool empty() const;
  int weight() const;
  /// "0-1,4" (empty string for an empty set).
  std::string list() const;
  /// "0x3": the same set as a hexadecimal mask, bit N for PU N.
  std::string mask() const;
  /// The set as sched_setaffinity wants it: words of bits, bit N for CPU N.
  std::vector<unsigned long> affinity_words() const;

 private:
  hwloc_bitmap_t set_;
};

/// The CPU and memory topology of this node (no I/O devices: that would cost tens of ms) and
/// the part of it mprun may use: the cgroup's cpuset, further narrowed by mprun's own affinity
/// (taskset, numactl, a Slurm step). Ranks are never placed outside it.
class Topology {
 public:
  /// This machine. Throws std::runtime_error naming the hwloc call that failed.
  Topology();
  /// A made-up machine for tests: an hwloc synthetic description ("pack:2 numa:2 core:2
  /// pu:2"), optionally allowing only the PUs in `allowed_list` ("4-11"; empty = all).
  Topology(const std::string& synthetic, const std::string& allowed_list);
  ~Topology();
  Topology(const Topology&) = delete;
  Topology& operator=(const Topology&) = delete;

  hwloc_topology_t get() const { return topo_; }
  /// --cpu-set: narrows the usable PUs to `list` ("0-3,6", as the kernel numbers CPUs).
  /// Throws UsageError when it does not parse or leaves nothing usable.
  void restrict_to(const std::string& list);
  const CpuSet& allowed() const { return allowed_; }
  /// Cores / hardware threads (PUs) with at least one allowed PU.
  int cores() const;
  int pus() const { return allowed_.weight(); }

 private:
  void load(const std::string& synthetic);

  hwloc_topology_t topo_ = nullptr;
  CpuSet allowed_;
};

struct RankPlacement {
  /// Where the rank may run: its binding, or mprun's allowed set when it is not bound.
  CpuSet cpus;
  bool bound = false;
  /// "core 1", "cores 0-1", "numa 0", "package 0" (logical indexes); empty when not bound.
  std::string where;
};

struct Placement {
  std::vector<RankPlacement> ranks;
  BindTo binding = BindTo::kNone;  ///< what was applied (kDefault resolved)
  /// More ranks than usable hardware threads: the ranks take turns on the CPUs.
  bool oversubscribed = false;
};

/// Maps and binds opts.nprocs ranks. Throws UsageError when the options cannot be honoured here
/// (more cores per rank than a mapping object has, --bind-to core on too few cores); the
/// message gives the numbers.
Placement place_ranks(const Topology& topo, const Options& opts);

/// How many ranks --map-by ppr:N:OBJ places here (N times the usable objects).
int ppr_slots(const Topology& topo, const Options& opts);

/// The --report-bindings line for one rank (no newline).
std::string binding_report(int rank, const RankPlacement& p);

}  // namespace mpr::launch
