#include "launcher/placement.h"

#include <cstdlib>
#include <new>
#include <stdexcept>

namespace mpr::launch {

namespace {

/// One usable object of the topology: its logical index and its allowed PUs.
struct Obj {
  int index;
  CpuSet cpus;
};

hwloc_obj_type_t core_type(hwloc_topology_t topo) {
  // Some virtual machines expose no cores; then each PU stands for one.
  return hwloc_get_type_depth(topo, HWLOC_OBJ_CORE) == HWLOC_TYPE_DEPTH_UNKNOWN ? HWLOC_OBJ_PU
                                                                                : HWLOC_OBJ_CORE;
}

std::vector<Obj> usable_objects(const Topology& topo, hwloc_obj_type_t type) {
  std::vector<Obj> out;
  int n = hwloc_get_nbobjs_by_type(topo.get(), type);
  for (int i = 0; i < n; ++i) {
    hwloc_obj_t o = hwloc_get_obj_by_type(topo.get(), type, static_cast<unsigned>(i));
    if (!o || !o->cpuset) continue;
    CpuSet s(o->cpuset);
    hwloc_bitmap_and(s.get(), s.get(), topo.allowed().get());
    if (!s.empty()) out.push_back(Obj{static_cast<int>(o->logical_index), s});
  }
  return out;
}

hwloc_obj_type_t group_type(MapBy m) {
  return m == MapBy::kNuma ? HWLOC_OBJ_NUMANODE : HWLOC_OBJ_PACKAGE;
}

/// What one CPU of the mapping is: a core, or a hardware thread with --use-hwthread-cpus,
/// --map-by hwthread or --bind-to hwthread with PE > 1.
hwloc_obj_type_t unit_type(const Topology& topo, const Options& opts) {
  if (opts.use_hwthreads || opts.map_by == MapBy::kHwthread) return HWLOC_OBJ_PU;
  return core_type(topo.get());
}

/// Parses "2", "0-1", "0,2" (unit indexes) or "S:A[-B]" (units of package S) from a rankfile.
std::vector<int> rankfile_units(const Topology& topo, const std::vector<Obj>& units,
                                const std::string& spec, const std::string& file, int rank) {
  auto fail = [&](const std::string& why) {
    return UsageError("rankfile " + file + ": rank " + std::to_string(rank) + " slot=" + spec +
                      ": " + why);
  };
  std::string list = spec;
  int package = -1;
  if (size_t colon = spec.find(':'); colon != std::string::npos) {
    package = std::atoi(spec.substr(0, colon).c_str());
    list = spec.substr(colon + 1);
  }
  std::vector<int> candidates;  // positions into units
  if (package < 0) {
    for (size_t u = 0; u < units.size(); ++u) candidates.push_back(static_cast<int>(u));
  } else {
    std::vector<Obj> packs = usable_objects(topo, HWLOC_OBJ_PACKAGE);
    if (package >= static_cast<int>(packs.size()))
      throw fail("this node has " + std::to_string(packs.size()) + " usable package(s)");
    for (size_t u = 0; u < units.size(); ++u)
      if (hwloc_bitmap_intersects(units[u].cpus.get(),
                                  packs[static_cast<size_t>(package)].cpus.get()))
        candidates.push_back(static_cast<int>(u));
  }
  CpuSet want;
  if (list.empty() || hwloc_bitmap_list_sscanf(want.get(), list.c_str()) != 0 || want.empty())
    throw fail("cannot parse the core list");
  std::vector<int> out;
  unsigned id;
  bool bad = false;
  hwloc_bitmap_foreach_begin(id, want.get()) {
    if (id >= candidates.size())
      bad = true;
    else
      out.push_back(candidates[id]);
  }
  hwloc_bitmap_foreach_end();
  if (bad)
    throw fail("names a core beyond the " + std::to_string(candidates.size()) + " usable here");
  return out;
}

const char* type_word(hwloc_obj_type_t t) {
  switch (t) {
    case HWLOC_OBJ_NUMANODE:
      return "numa";
    case HWLOC_OBJ_PACKAGE:
      return "package";
    case HWLOC_OBJ_PU:
      return "PU";
    default:
      return "core";
  }
}

std::string where(const char* word, const std::vector<int>& indexes) {
  return std::string(word) + (indexes.size() > 1 ? "s " : " ") + rank_list(indexes);
}

/// Groups of core positions (into `cores`) for the mapping: one group for core/node, one per
/// NUMA node or package otherwise (each core in the first group it overlaps).
std::vector<std::vector<int>> mapping_groups(const Topology& topo, MapBy map_by,
                                             const std::vector<Obj>& cores) {
  std::vector<std::vector<int>> groups;
  if (map_by == MapBy::kCore || map_by == MapBy::kNode) {
    groups.emplace_back();
    for (size_t c = 0; c < cores.size(); ++c) groups.back().push_back(static_cast<int>(c));
    return groups;
  }
  std::vector<Obj> objs = usable_objects(topo, group_type(map_by));
  std::vector<bool> taken(cores.size(), false);
  for (const Obj& o : objs) {
    groups.emplace_back();
    for (size_t c = 0; c < cores.size(); ++c) {
      if (taken[c] || !hwloc_bitmap_intersects(cores[c].cpus.get(), o.cpus.get())) continue;
      taken[c] = true;
      groups.back().push_back(static_cast<int>(c));
    }
  }
  // Cores outside every group (no NUMA information) still count, as a group of their own.
  std::vector<int> rest;
  for (size_t c = 0; c < cores.size(); ++c)
    if (!taken[c]) rest.push_back(static_cast<int>(c));
  if (!rest.empty()) groups.push_back(rest);
  return groups;
}

/// Binds one rank to the mapping units at positions `picked` (into `units`) as `binding` says.
void bind_rank(const Topology& topo, BindTo binding, hwloc_obj_type_t utype,
               const std::vector<Obj>& units, const std::vector<int>& picked,
               const std::vector<Obj>& bind_objs, RankPlacement* rank) {
  std::vector<int> mine;
  CpuSet core_set;
  for (int p : picked) {
    const Obj& c = units[static_cast<size_t>(p)];
    mine.push_back(c.index);
    hwloc_bitmap_or(core_set.get(), core_set.get(), c.cpus.get());
  }
  switch (binding) {
    case BindTo::kCore:
      rank->cpus = core_set;
      rank->bound = true;
      rank->where = where(type_word(utype), mine);
      break;
    case BindTo::kHwthread: {
      // The first hardware thread of each unit (a unit already is one with hwthread mapping).
      std::vector<int> pus;
      for (int p : picked) {
        const Obj& c = units[static_cast<size_t>(p)];
        int first = hwloc_bitmap_first(c.cpus.get());
        hwloc_bitmap_set(rank->cpus.get(), static_cast<unsigned>(first));
        hwloc_obj_t pu = hwloc_get_pu_obj_by_os_index(topo.get(), static_cast<unsigned>(first));
        pus.push_back(pu ? static_cast<int>(pu->logical_index) : first);
      }
      rank->bound = true;
      rank->where = where("PU", pus);
      break;
    }
    case BindTo::kNuma:
    case BindTo::kPackage: {
      std::vector<int> hit;
      for (const Obj& o : bind_objs) {
        if (!hwloc_bitmap_intersects(o.cpus.get(), core_set.get())) continue;
        hwloc_bitmap_or(rank->cpus.get(), rank->cpus.get(), o.cpus.get());
        hit.push_back(o.index);
      }
      if (hit.empty()) {
        rank->cpus = core_set;
        hit = mine;
      }
      rank->bound = true;
      rank->where = where(binding == BindTo::kNuma ? "numa" : "package", hit);
      break;
    }
    default:
      rank->cpus = topo.allowed();
      rank->bound = false;
      break;
  }
}

/// The binding to apply (kDefault resolved), oversubscription, one empty entry per rank, and
/// the NUMA nodes or packages to bind to. Ranks that outnumber the cores wrap around them
/// (with map-by core, rank r shares core r mod n with r + n, ...): an even placement that
/// stays the same from run to run. Left unbound, the kernel picks which ranks share a core anew
/// each run, and collectives follow that pairing, up to 3x apart from run to run when
/// oversubscribed (docs/MEASUREMENTS.md).
Placement start_placement(const Topology& topo, const Options& opts, std::vector<Obj>* bind_objs) {
  Placement out;
  out.binding = opts.bind_to == BindTo::kDefault ? BindTo::kCore : opts.bind_to;
  out.oversubscribed = opts.nprocs > topo.pus();
  if (out.binding == BindTo::kNuma || out.binding == BindTo::kPackage)
    *bind_objs =
        usable_objects(topo, out.binding == BindTo::kNuma ? HWLOC_OBJ_NUMANODE : HWLOC_OBJ_PACKAGE);
  out.ranks.resize(static_cast<size_t>(opts.nprocs));
  return out;
}

/// --rankfile: each rank on the units its line names, bound to them (or as --bind-to says).
Placement place_by_rankfile(const Topology& topo, const Options& opts, hwloc_obj_type_t utype,
                            const std::vector<Obj>& units) {
  std::vector<Obj> bind_objs;
  Placement out = start_placement(topo, opts, &bind_objs);
  for (int r = 0; r < opts.nprocs; ++r) {
    std::vector<int> picked =
        rankfile_units(topo, units, opts.rankfile_slots[static_cast<size_t>(r)], opts.rankfile, r);
    bind_rank(topo, out.binding, utype, units, picked, bind_objs,
              &out.ranks[static_cast<size_t>(r)]);
  }
  return out;
}

}  // namespace

CpuSet::CpuSet() : set_(hwloc_bitmap_alloc()) {
  if (!set_) throw std::bad_alloc();
}

CpuSet::CpuSet(hwloc_const_bitmap_t from) : set_(hwloc_bitmap_dup(from)) {
  if (!set_) throw std::bad_alloc();
}

CpuSet::~CpuSet() { hwloc_bitmap_free(set_); }

CpuSet::CpuSet(const CpuSet& other) : CpuSet(other.set_) {}

CpuSet& CpuSet::operator=(const CpuSet& other) {
  if (this != &other) hwloc_bitmap_copy(set_, other.set_);
  return *this;
}

bool CpuSet::empty() const { return hwloc_bitmap_iszero(set_); }

int CpuSet::weight() const { return hwloc_bitmap_weight(set_); }

std::string CpuSet::list() const {
  char* text = nullptr;
  if (hwloc_bitmap_list_asprintf(&text, set_) < 0 || !text) return "?";
  std::string out = text;
  std::free(text);
  return out;
}

std::string CpuSet::mask() const {
  int last = hwloc_bitmap_last(set_);
  if (last < 0) return "0x0";
  std::string hex(static_cast<size_t>(last / 4 + 1), '0');
  unsigned id;
  hwloc_bitmap_foreach_begin(id, set_) {
    size_t digit = hex.size() - 1 - id / 4;
    int v = (hex[digit] <= '9' ? hex[digit] - '0' : hex[digit] - 'a' + 10) | (1 << (id % 4));
    hex[digit] = static_cast<char>(v < 10 ? '0' + v : 'a' + v - 10);
  }
  hwloc_bitmap_foreach_end();
  return "0x" + hex;
}

std::vector<unsigned long> CpuSet::affinity_words() const {
  constexpr unsigned kBits = 8 * sizeof(unsigned long);
  int last = hwloc_bitmap_last(set_);
  std::vector<unsigned long> words(last < 0 ? 1 : static_cast<size_t>(last) / kBits + 1, 0);
  unsigned id;
  hwloc_bitmap_foreach_begin(id, set_) { words[id / kBits] |= 1UL << (id % kBits); }
  hwloc_bitmap_foreach_end();
  return words;
}

void Topology::load(const std::string& synthetic) {
  if (hwloc_topology_init(&topo_) != 0) throw std::runtime_error("hwloc_topology_init failed");
  hwloc_topology_set_io_types_filter(topo_, HWLOC_TYPE_FILTER_KEEP_NONE);
  if (!synthetic.empty() && hwloc_topology_set_synthetic(topo_, synthetic.c_str()) != 0) {
    hwloc_topology_destroy(topo_);
    throw std::runtime_error("hwloc_topology_set_synthetic(" + synthetic + ") failed");
  }
  if (hwloc_topology_load(topo_) != 0) {
    hwloc_topology_destroy(topo_);
    throw std::runtime_error("hwloc_topology_load failed");
  }
}

Topology::Topology(const std::string& synthetic, const std::string& allowed_list) {
  load(synthetic);
  hwloc_bitmap_copy(allowed_.get(), hwloc_topology_get_allowed_cpuset(topo_));
  if (allowed_list.empty()) return;
  CpuSet want;
  if (hwloc_bitmap_list_sscanf(want.get(), allowed_list.c_str()) != 0) {
    hwloc_topology_destroy(topo_);
    throw std::runtime_error("bad PU list '" + allowed_list + "'");
  }
  hwloc_bitmap_and(allowed_.get(), allowed_.get(), want.get());
}

Topology::Topology() {
  load("");
  // Disallowed PUs (outside the cgroup's cpuset) are already gone from the topology; the
  // thread's affinity narrows it further. Read before libpmix starts threads of its own.
  hwloc_bitmap_copy(allowed_.get(), hwloc_topology_get_allowed_cpuset(topo_));
  CpuSet mine;
  if (hwloc_get_cpubind(topo_, mine.get(), HWLOC_CPUBIND_THREAD) == 0 &&
      hwloc_bitmap_intersects(mine.get(), allowed_.get()))
    hwloc_bitmap_and(allowed_.get(), allowed_.get(), mine.get());
}

void Topology::restrict_to(const std::string& list) {
  CpuSet want;
  if (hwloc_bitmap_list_sscanf(want.get(), list.c_str()) != 0 || want.empty())
    throw UsageError("--cpu-set: cannot parse '" + list + "' (a list such as 0-3,6)");
  CpuSet left(allowed_.get());
  hwloc_bitmap_and(left.get(), left.get(), want.get());
  if (left.empty())
    throw UsageError("--cpu-set " + list +
                     ": none of these CPUs is usable here (usable: " + allowed_.list() + ")");
  allowed_ = left;
}

int ppr_slots(const Topology& topo, const Options& opts) {
  std::vector<Obj> units = usable_objects(topo, unit_type(topo, opts));
  size_t objects = 1;
  if (opts.map_by == MapBy::kCore || opts.map_by == MapBy::kHwthread)
    objects = units.size();
  else if (opts.map_by != MapBy::kNode)
    objects = mapping_groups(topo, opts.map_by, units).size();
  return static_cast<int>(std::max<size_t>(1, objects)) * opts.ppr;
}

Topology::~Topology() { hwloc_topology_destroy(topo_); }

int Topology::cores() const {
  return static_cast<int>(usable_objects(*this, core_type(topo_)).size());
}

Placement place_ranks(const Topology& topo, const Options& opts) {
  const hwloc_obj_type_t ctype = unit_type(topo, opts);
  std::vector<Obj> cores = usable_objects(topo, ctype);
  if (cores.empty()) throw UsageError("hwloc finds no usable core on this node");
  const int cpr = opts.cpus_per_rank;
  if (!opts.rankfile_slots.empty()) return place_by_rankfile(topo, opts, ctype, cores);
  std::vector<std::vector<int>> groups;
  if (opts.ppr > 0 && (opts.map_by == MapBy::kCore || opts.map_by == MapBy::kHwthread)) {
    // ppr:N:core: every core is an object of its own.
    for (size_t c = 0; c < cores.size(); ++c) groups.push_back({static_cast<int>(c)});
  } else {
    groups =
        mapping_groups(topo, opts.map_by == MapBy::kHwthread ? MapBy::kCore : opts.map_by, cores);
  }

  std::vector<int> capacity(groups.size()), used(groups.size(), 0);
  int total = 0, largest = 0;
  for (size_t g = 0; g < groups.size(); ++g) {
    int size = static_cast<int>(groups[g].size());
    capacity[g] = opts.ppr > 0 ? opts.ppr : size / cpr;
    total += capacity[g];
    largest = std::max(largest, size);
  }
  if (opts.ppr > 0 && opts.nprocs > total)
    throw UsageError("--map-by ppr:" + std::to_string(opts.ppr) + ":" + map_by_name(opts.map_by) +
                     " places " + std::to_string(opts.ppr) + " rank(s) on each of the " +
                     std::to_string(groups.size()) + " usable " + map_by_name(opts.map_by) +
                     " object(s) here, " + std::to_string(total) + " in all, but the job has " +
                     std::to_string(opts.nprocs) + " ranks");
  if (opts.ppr > 0 && opts.ppr * cpr > largest && groups.size() > 0 && cpr > 1)
    throw UsageError("--map-by ppr:" + std::to_string(opts.ppr) + ":" + map_by_name(opts.map_by) +
                     " with " + std::to_string(cpr) + " cores per rank needs " +
                     std::to_string(opts.ppr * cpr) + " cores in one object, but at most " +
                     std::to_string(largest) + " are usable");
  if (total == 0) {
    const char* unit = opts.map_by == MapBy::kNuma      ? " in one NUMA node"
                       : opts.map_by == MapBy::kPackage ? " in one package"
                                                        : "";
    throw UsageError("--cpus-per-rank " + std::to_string(cpr) + " needs " + std::to_string(cpr) +
                     " cores" + unit + ", but at most " + std::to_string(largest) +
                     " are usable here");
  }

  std::vector<Obj> bind_objs;
  Placement out = start_placement(topo, opts, &bind_objs);

  size_t next = 0;
  for (RankPlacement& rank : out.ranks) {
    // Round-robin over the groups, skipping full ones; when all are full (oversubscribed)
    // start over from the first core of each.
    size_t g = next;
    size_t tries = 0;
    while (used[g] >= capacity[g] && tries < groups.size()) {
      g = (g + 1) % groups.size();
      ++tries;
    }
    if (tries == groups.size()) {
      std::fill(used.begin(), used.end(), 0);
      g = next;
      while (capacity[g] == 0) g = (g + 1) % groups.size();
    }
    std::vector<int> picked;
    const size_t gsize = groups[g].size();
    for (int k = 0; k < cpr; ++k)
      picked.push_back(groups[g][static_cast<size_t>(used[g] * cpr + k) % gsize]);
    ++used[g];
    // ppr fills one object before the next (ranks 0-1 on package 0, 2-3 on package 1).
    next = opts.ppr > 0 ? (used[g] >= capacity[g] ? (g + 1) % groups.size() : g)
                        : (g + 1) % groups.size();
    bind_rank(topo, out.binding, ctype, cores, picked, bind_objs, &rank);
  }
  return out;
}

std::string binding_report(int rank, const RankPlacement& p) {
  std::string pus = "[PU " + p.cpus.list() + "] mask " + p.cpus.mask();
  if (!p.bound) return "rank " + std::to_string(rank) + " not bound " + pus;
  return "rank " + std::to_string(rank) + " bound to " + p.where + " " + pus;
}

}  // namespace mpr::launch
