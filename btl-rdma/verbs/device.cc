// Device discovery: which RDMA device and port this rank uses, and how it is addressed
// (IB: LID; RoCE: a GID index, preferring the RoCE v2 IPv4-mapped entry, which routes over
// IP like the rest of the cluster's traffic and is the one soft-RoCE always has).
#include <fcntl.h>
#include <hwloc.h>
#include <hwloc/openfabrics-verbs.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <stdexcept>
#include <string>
#include <vector>

#include "btl-rdma/verbs/verbs_btl.h"
#include "common/log.h"
#include "mpr_config.h"

namespace mpr::btl::verbs {

namespace {

struct DeviceList {
  ibv_device** list = nullptr;
  int n = 0;
  DeviceList() { list = ibv_get_device_list(&n); }
  ~DeviceList() {
    if (list) ibv_free_device_list(list);
  }
  DeviceList(const DeviceList&) = delete;
  DeviceList& operator=(const DeviceList&) = delete;
};

std::string device_names(const DeviceList& dl) {
  std::string out;
  for (int i = 0; i < dl.n; ++i)
    out += std::string(i ? ", " : "") + ibv_get_device_name(dl.list[i]);
  return out.empty() ? "none" : out;
}

bool is_ipv4_mapped(const ibv_gid& g) {
  static const uint8_t kPrefix[12] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff};
  return std::memcmp(g.raw, kPrefix, sizeof kPrefix) == 0;
}

bool is_zero(const ibv_gid& g) {
  static const uint8_t kZero[16] = {};
  return std::memcmp(g.raw, kZero, sizeof kZero) == 0;
}

// Type of GID table entry `idx` (IBV_GID_TYPE_*), or -1 if the entry is empty.
int gid_entry(ibv_context* ctx, [[maybe_unused]] const std::string& dev, uint8_t port, int idx,
              ibv_gid* gid) {
#if HAVE_DECL_IBV_QUERY_GID_EX
  ibv_gid_entry e{};
  if (ibv_query_gid_ex(ctx, port, static_cast<uint32_t>(idx), &e, 0) != 0) return -1;
  *gid = e.gid;
  return is_zero(e.gid) ? -1 : static_cast<int>(e.gid_type);
#else
  // Older rdma-core: the kernel exposes the type in sysfs ("IB/RoCE v1" or "RoCE v2").
  if (ibv_query_gid(ctx, port, idx, gid) != 0 || is_zero(*gid)) return -1;
  std::string path = "/sys/class/infiniband/" + dev + "/ports/" + std::to_string(port) +
                     "/gid_attrs/types/" + std::to_string(idx);
  char text[32] = {};
  int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return IBV_GID_TYPE_ROCE_V1;
  ssize_t got = read(fd, text, sizeof text - 1);
  close(fd);
  if (got > 0 && std::strncmp(text, "RoCE v2", 7) == 0) return IBV_GID_TYPE_ROCE_V2;
  return IBV_GID_TYPE_ROCE_V1;
#endif
}

const char* gid_type_name(int type) {
  switch (type) {
    case IBV_GID_TYPE_ROCE_V2:
      return "RoCE v2";
    case IBV_GID_TYPE_ROCE_V1:
      return "RoCE v1";
    default:
      return "IB";
  }
}

// RoCE: choose the GID index. Preference: configured index, RoCE v2 IPv4-mapped, any RoCE v2,
// RoCE v1 IPv4-mapped, any non-empty entry.
void choose_gid(Device& d, const Config& cfg, int rank) {
  const int len = d.port_attr.gid_tbl_len;
  if (cfg.gid_index >= 0) {
    if (cfg.gid_index >= len)
      throw std::runtime_error("rank " + std::to_string(rank) +
                               ": verbs: MPR_VERBS_GID_INDEX=" + std::to_string(cfg.gid_index) +
                               " but " + d.name + " port " + std::to_string(d.port) + " has " +
                               std::to_string(len) + " GID entries");
    ibv_gid g{};
    int t = gid_entry(d.ctx.get(), d.name, d.port, cfg.gid_index, &g);
    if (t < 0)
      throw std::runtime_error("rank " + std::to_string(rank) + ": verbs: MPR_VERBS_GID_INDEX=" +
                               std::to_string(cfg.gid_index) + " is empty on " + d.name);
    d.gid_index = cfg.gid_index;
    d.gid = g;
    d.gid_type = gid_type_name(t);
    return;
  }
  int best = -1, best_rank = 99, best_type = 0;
  ibv_gid best_gid{};
  for (int i = 0; i < len && best_rank > 0; ++i) {
    ibv_gid g{};
    int t = gid_entry(d.ctx.get(), d.name, d.port, i, &g);
    if (t < 0) continue;
    int r = 4;
    if (t == IBV_GID_TYPE_ROCE_V2)
      r = is_ipv4_mapped(g) ? 0 : 1;
    else if (t == IBV_GID_TYPE_ROCE_V1 && is_ipv4_mapped(g))
      r = 2;
    if (r < best_rank) {
      best = i;
      best_rank = r;
      best_gid = g;
      best_type = t;
    }
  }
  if (best < 0)
    throw std::runtime_error("rank " + std::to_string(rank) + ": verbs: " + d.name + " port " +
                             std::to_string(d.port) +
                             " has no GID (RoCE needs an IP address on its netdev)");
  d.gid_index = best;
  d.gid = best_gid;
  d.gid_type = gid_type_name(best_type);
}

int first_active_port(ibv_context* ctx, const ibv_device_attr& attr) {
  for (int p = 1; p <= attr.phys_port_cnt; ++p) {
    ibv_port_attr pa{};
    if (ibv_query_port(ctx, static_cast<uint8_t>(p), &pa) == 0 && pa.state == IBV_PORT_ACTIVE)
      return p;
  }
  return 0;
}

// How near each device is to the cores this rank runs on: 0 near, 1 far, 2 unknown (virtual
// devices such as rxe have no PCI locality).
std::vector<int> locality(const std::vector<ibv_device*>& devs) {
  std::vector<int> score(devs.size(), 2);
  hwloc_topology_t topo;
  if (hwloc_topology_init(&topo) != 0) return score;
  hwloc_topology_set_io_types_filter(topo, HWLOC_TYPE_FILTER_KEEP_IMPORTANT);
  if (hwloc_topology_load(topo) == 0) {
    hwloc_bitmap_t bound = hwloc_bitmap_alloc();
    if (hwloc_get_cpubind(topo, bound, HWLOC_CPUBIND_PROCESS) != 0)
      hwloc_bitmap_copy(bound, hwloc_topology_get_topology_cpuset(topo));
    for (size_t i = 0; i < devs.size(); ++i) {
      hwloc_obj_t os = hwloc_ibv_get_device_osdev(topo, devs[i]);
      hwloc_obj_t anc = os ? hwloc_get_non_io_ancestor_obj(topo, os) : nullptr;
      if (anc && anc->cpuset) score[i] = hwloc_bitmap_intersects(anc->cpuset, bound) ? 0 : 1;
    }
    hwloc_bitmap_free(bound);
  }
  hwloc_topology_destroy(topo);
  return score;
}

// The port's default GRH traffic class, where the driver publishes one (mlx5:
// /sys/class/infiniband/<dev>/tc/<port>/traffic_class holds "Global tclass=N" once an
// administrator set it for a lossless RoCE fabric); 0 otherwise.
int default_traffic_class(const std::string& dev, int port) {
  const std::string path =
      "/sys/class/infiniband/" + dev + "/tc/" + std::to_string(port) + "/traffic_class";
  const int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return 0;
  char buf[128] = {};
  const ssize_t n = read(fd, buf, sizeof buf - 1);
  close(fd);
  if (n <= 0) return 0;
  const char* at = std::strstr(buf, "tclass=");
  if (!at) return 0;
  const long tc = std::strtol(at + 7, nullptr, 10);
  return tc >= 0 && tc <= 255 ? static_cast<int>(tc) : 0;
}

void fill_attrs(Device& d, const Config& cfg, int rank) {
  ibv_context* const ctx = d.ctx.get();
  if (int rc = ibv_query_device(ctx, &d.attr))
    throw_verbs_error(rank, "ibv_query_device", d.name, rc);
  if (int rc = ibv_query_port(ctx, d.port, &d.port_attr))
    throw_verbs_error(rank, "ibv_query_port", d.name + " port " + std::to_string(d.port), rc);
  d.roce = d.port_attr.link_layer == IBV_LINK_LAYER_ETHERNET;
  d.traffic_class = default_traffic_class(d.name, d.port);
  if (d.roce) {
    choose_gid(d, cfg, rank);
  } else {
    d.gid_index = 0;
    d.gid_type = "IB";
    if (ibv_query_gid(ctx, d.port, 0, &d.gid) != 0) d.gid = ibv_gid{};
  }
  ibv_device_attr_ex ex{};
  if (ibv_query_device_ex(ctx, nullptr, &ex) == 0) {
    const uint32_t need =
        IBV_ODP_SUPPORT_SEND | IBV_ODP_SUPPORT_RECV | IBV_ODP_SUPPORT_WRITE | IBV_ODP_SUPPORT_READ;
    d.odp_rc = (ex.odp_caps.general_caps & IBV_ODP_SUPPORT) &&
               (ex.odp_caps.per_transport_caps.rc_odp_caps & need) == need;
    d.odp_atomic =
        d.odp_rc && (ex.odp_caps.per_transport_caps.rc_odp_caps & IBV_ODP_SUPPORT_ATOMIC);
  }
}

Device open_named(const Config& cfg, const DeviceList& dl, int rank) {
  std::string name = cfg.device;
  int port = 0;
  if (auto colon = name.find(':'); colon != std::string::npos) {
    port = std::atoi(name.c_str() + colon + 1);
    name.resize(colon);
  }
  const std::string who =
      "rank " + std::to_string(rank) + ": verbs: MPR_VERBS_DEVICE=" + cfg.device + ": ";
  ibv_device* dev = nullptr;
  for (int i = 0; i < dl.n; ++i)
    if (name == ibv_get_device_name(dl.list[i])) dev = dl.list[i];
  if (!dev)
    throw std::runtime_error(who + "no RDMA device named " + name +
                             " on this node (found: " + device_names(dl) + ")");
  // d owns the context from here: a throw below closes it.
  Device d;
  d.name = name;
  d.ctx = adopt(ibv_open_device(dev));
  if (!d.ctx) throw_verbs_error(rank, "ibv_open_device", name, errno);
  ibv_device_attr attr{};
  if (int rc = ibv_query_device(d.ctx.get(), &attr))
    throw_verbs_error(rank, "ibv_query_device", name, rc);
  if (port == 0) port = first_active_port(d.ctx.get(), attr);
  if (port == 0) throw std::runtime_error(who + name + " has no active port");
  if (port > attr.phys_port_cnt)
    throw std::runtime_error(who + name + " has no port " + std::to_string(port) + " (it has " +
                             std::to_string(attr.phys_port_cnt) + ")");
  d.port = static_cast<uint8_t>(port);
  fill_attrs(d, cfg, rank);
  if (d.port_attr.state != IBV_PORT_ACTIVE)
    throw std::runtime_error(who + name + " port " + std::to_string(port) + " is " +
                             ibv_port_state_str(d.port_attr.state));
  d.why = "named by MPR_VERBS_DEVICE";
  return d;
}

}  // namespace

Device open_device(const Config& cfg, int rank, int local_rank) {
  DeviceList dl;
  if (!cfg.device.empty()) return open_named(cfg, dl, rank);
  Device none;
  if (dl.n == 0) {
    none.why = "no RDMA device on this node";
    return none;
  }
  // Usable: an RC-capable (IB or RoCE, not iWARP: its QPs connect only through rdma_cm)
  // device with an active port.
  std::vector<ibv_device*> usable;
  std::vector<int> ports;
  for (int i = 0; i < dl.n; ++i) {
    if (dl.list[i]->transport_type != IBV_TRANSPORT_IB) continue;
    int port = 0;
    if (Context ctx = adopt(ibv_open_device(dl.list[i]))) {  // closed again at once
      ibv_device_attr attr{};
      if (ibv_query_device(ctx.get(), &attr) == 0) port = first_active_port(ctx.get(), attr);
    }
    if (port == 0) continue;
    usable.push_back(dl.list[i]);
    ports.push_back(port);
  }
  if (usable.empty()) {
    none.why = "no InfiniBand/RoCE device with an active port (found: " + device_names(dl) + ")";
    return none;
  }
  size_t pick = 0;
  std::string how = "the only device with an active port";
  if (usable.size() > 1) {
    std::vector<int> score = locality(usable);
    int best = *std::min_element(score.begin(), score.end());
    std::vector<size_t> nearest;
    for (size_t i = 0; i < usable.size(); ++i)
      if (score[i] == best) nearest.push_back(i);
    // Ranks sharing a socket spread over its devices.
    pick = nearest[static_cast<size_t>(local_rank) % nearest.size()];
    how = best == 0   ? "nearest to this rank's cores (hwloc)"
          : best == 1 ? "no device near this rank's cores; first remote one"
                      : "locality unknown; first device with an active port";
  }
  Device d;
  d.name = ibv_get_device_name(usable[pick]);
  d.port = static_cast<uint8_t>(ports[pick]);
  d.ctx = adopt(ibv_open_device(usable[pick]));
  if (!d.ctx) throw_verbs_error(rank, "ibv_open_device", d.name, errno);
  fill_attrs(d, cfg, rank);  // a throw closes the context with d
  d.why = how;
  return d;
}

}  // namespace mpr::btl::verbs
