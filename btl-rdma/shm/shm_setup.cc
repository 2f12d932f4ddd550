// Control path of the shm backend: tunables, segment creation (factory), attach and CMA probe
// (wire_up), teardown.
#include <sys/prctl.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <stdexcept>
#include <utility>

#include "btl-rdma/shm/shm_btl.h"
#include "common/log.h"
#include "common/params.h"

namespace mpr::btl::shm {

namespace {

constexpr int64_t kMinSlots = 2;
constexpr int64_t kMaxSlots = 65536;
constexpr int64_t kMinSlotSize = 256;
constexpr int64_t kMaxSlotSize = int64_t{1} << 20;
constexpr const char* kModexKey = "mpr.shm";

int64_t round_up_pow2(int64_t v) {
  int64_t p = 1;
  while (p < v) p <<= 1;
  return p;
}

bool shm_requested_explicitly() {
  std::string list = common::param_string("MPR_BTL");
  size_t pos = 0;
  while (pos <= list.size()) {
    size_t end = list.find(',', pos);
    if (end == std::string::npos) end = list.size();
    if (list.compare(pos, end - pos, "shm") == 0) return true;
    pos = end + 1;
  }
  return false;
}

std::vector<uint8_t> encode_entry(const std::string& segment_name) {
  ModexEntry e{kModexMagic, uint64_t(getpid()), cma_probe_address(), uint32_t(segment_name.size()),
               0};
  std::vector<uint8_t> out(sizeof e + segment_name.size());
  std::memcpy(out.data(), &e, sizeof e);
  std::memcpy(out.data() + sizeof e, segment_name.data(), segment_name.size());
  return out;
}

bool decode_entry(const std::vector<uint8_t>& v, ModexEntry* e, std::string* name) {
  if (v.size() < sizeof(ModexEntry)) return false;
  std::memcpy(e, v.data(), sizeof *e);
  if (e->magic != kModexMagic || v.size() != sizeof(ModexEntry) + e->name_len) return false;
  name->assign(reinterpret_cast<const char*>(v.data()) + sizeof *e, e->name_len);
  return true;
}

std::string size_text(size_t bytes) {
  if (bytes % (size_t{1} << 20) == 0) return std::to_string(bytes >> 20) + "MiB";
  if (bytes % 1024 == 0) return std::to_string(bytes >> 10) + "KiB";
  return std::to_string(bytes) + "B";
}

}  // namespace

ShmConfig read_config() {
  ShmConfig cfg;
  int64_t slots = common::param_int("MPR_SHM_RING_SLOTS");
  int64_t fixed = round_up_pow2(std::clamp(slots, kMinSlots, kMaxSlots));
  if (fixed != slots)
    cfg.notes += "MPR_SHM_RING_SLOTS " + std::to_string(slots) + " -> " + std::to_string(fixed) +
                 " (power of two in [2, 65536]); ";
  cfg.geometry.slots = uint32_t(fixed);

  int64_t size = common::param_int("MPR_SHM_SLOT_SIZE");
  fixed = (std::clamp(size, kMinSlotSize, kMaxSlotSize) + int64_t(kCacheLine) - 1) /
          int64_t(kCacheLine) * int64_t(kCacheLine);
  if (fixed != size)
    cfg.notes += "MPR_SHM_SLOT_SIZE " + std::to_string(size) + " -> " + std::to_string(fixed) +
                 " (multiple of 64 in [256, 1MiB]); ";
  cfg.geometry.slot_size = uint32_t(fixed);

  cfg.eager_limit = size_t(common::param_int("MPR_SHM_EAGER_LIMIT"));
  cfg.cma_enabled = common::param_bool("MPR_SHM_CMA");
  cfg.cma_min = size_t(common::param_int("MPR_SHM_CMA_MIN"));
  cfg.cma_duplex_min = size_t(common::param_int("MPR_SHM_CMA_DUPLEX_MIN"));
  cfg.cma_duplex_max = size_t(common::param_int("MPR_SHM_CMA_DUPLEX_MAX"));
  return cfg;
}

ShmBtl::ShmBtl(common::Bootstrap& bs, ShmConfig cfg, Segment seg)
    : rank_(bs.rank()),
      local_rank_(bs.local_rank()),
      pid_(getpid()),
      local_peers_(bs.local_peers()),
      local_of_rank_(size_t(bs.size()), -1),
      cfg_(std::move(cfg)),
      seg_(std::move(seg)) {
  for (size_t i = 0; i < local_peers_.size(); ++i) local_of_rank_[size_t(local_peers_[i])] = int(i);
  cma_state_ = cfg_.cma_enabled ? "CMA (not probed yet)" : "copy (MPR_SHM_CMA=0)";
  set_caps(false);
}

ShmBtl::~ShmBtl() { release(); }

void ShmBtl::set_caps(bool cma_ok) {
  caps_.name = "shm";
  caps_.rank = 10;
  caps_.rkey_size = 2 * sizeof(uint64_t);  // owner pid, kRkeyTag
  caps_.max_am_size = cfg_.geometry.payload_bytes();
  caps_.eager_limit = std::min(cfg_.eager_limit, caps_.max_am_size - kProtocolHeaderReserve);
  caps_.native_get = cma_ok;
  caps_.rndv_get_min = cfg_.cma_min;
  caps_.rndv_get_duplex_min = cfg_.cma_duplex_min;
  caps_.rndv_get_duplex_max = cfg_.cma_duplex_max;
  caps_.native_put = cma_ok;
  caps_.needs_registration = false;
  caps_.native_atomics = false;  // CMA copies bytes; it has no remote read-modify-write
}

void ShmBtl::wire_up(common::Bootstrap& bs) {
  if (wired_) return;
  size_t n = local_peers_.size();
  std::vector<ModexEntry> entries(n);
  std::vector<bool> present(n, false);
  std::string leader_segment;
  for (size_t li = 0; li < n; ++li) {
    if (int(li) == local_rank_) continue;
    std::vector<uint8_t> value;
    std::string name;
    if (bs.get(local_peers_[li], kModexKey, &value) && decode_entry(value, &entries[li], &name)) {
      present[li] = true;
      if (li == 0) leader_segment = name;
    } else {
      common::log_verbose(
          "shm: rank %d: local rank %zu (job rank %d) published no shm address; "
          "not reachable through shm",
          rank_, li, local_peers_[li]);
    }
  }

  if (local_rank_ != 0) {
    if (leader_segment.empty()) {
      common::log_verbose(
          "shm: rank %d: the node's leader (job rank %d) created no segment; shm "
          "reaches no peer",
          rank_, local_peers_[0]);
      wired_ = true;
      return;
    }
    try {
      seg_ = Segment::attach(leader_segment, uint32_t(n));
    } catch (const std::exception& e) {
      throw std::runtime_error("shm: rank " + std::to_string(rank_) +
                               ": attaching the segment of job rank " +
                               std::to_string(local_peers_[0]) + " failed: " + e.what());
    }
    // The creator's geometry wins, so ranks with different environments still agree.
    const RingGeometry& g = seg_.header().geometry;
    if (g.slots != cfg_.geometry.slots || g.slot_size != cfg_.geometry.slot_size)
      cfg_.notes += "ring " + std::to_string(g.slots) + "x" + size_text(g.slot_size) +
                    " as in the leader's segment; ";
    cfg_.geometry = g;
    set_caps(false);
  }

  out_.assign(n, RingProducer());
  in_.assign(n, RingConsumer());
  poll_order_.clear();
  for (size_t li = 0; li < n; ++li) {
    if (!present[li]) continue;
    out_[li] = RingProducer(seg_.ring(local_rank_, int(li)), cfg_.geometry);
    in_[li] = RingConsumer(seg_.ring(int(li), local_rank_), cfg_.geometry);
    poll_order_.push_back(int(li));
  }
  probe_cma(entries, present);
  if (caps_.eager_limit < cfg_.eager_limit)
    cfg_.notes += "MPR_SHM_EAGER_LIMIT " + std::to_string(cfg_.eager_limit) + " -> " +
                  std::to_string(caps_.eager_limit) + " (largest record minus headers); ";
  if (!cfg_.notes.empty()) {
    cfg_.notes.resize(cfg_.notes.size() - 2);  // the last "; "
    common::log_verbose("shm: rank %d: adjusted %s", rank_, cfg_.notes.c_str());
  }
  wired_ = true;
}

void ShmBtl::probe_cma(const std::vector<ModexEntry>& entries, const std::vector<bool>& present) {
  if (!cfg_.cma_enabled) {
    common::log_verbose("shm: rank %d: MPR_SHM_CMA=0: large messages use the copy pipeline", rank_);
    set_caps(false);
    return;
  }
  // Probe every local peer: one syscall each, and it also catches a mixed policy where only
  // some peers may be read.
  for (size_t li = 0; li < entries.size(); ++li) {
    if (!present[li]) continue;
    uint64_t word = 0;
    int err =
        cma_copy(pid_t(entries[li].pid), &word, entries[li].probe_addr, sizeof word, CmaDir::kRead);
    if (err == 0 && word != kCmaProbeValue) err = EFAULT;
    if (err != 0) {
      char why[160];
      std::snprintf(why, sizeof why, "copy (CMA read of job rank %d, pid %llu, failed: %s)",
                    local_peers_[li], static_cast<unsigned long long>(entries[li].pid),
                    std::strerror(err));
      cma_state_ = why;
      common::log_verbose("shm: rank %d: get=%s; large messages use the copy pipeline", rank_, why);
      set_caps(false);
      return;
    }
  }
  cma_state_ = "CMA";
  set_caps(true);
}

void ShmBtl::release() {
  if (!copies_.empty())
    common::log_verbose("shm: rank %d: %zu get/put operations still pending at teardown", rank_,
                        copies_.size());
  copies_.clear();
  out_.clear();
  in_.clear();
  poll_order_.clear();
  seg_.release();
  wired_ = false;
}

void ShmBtl::finalize() { release(); }

bool ShmBtl::reachable(int peer) const {
  if (peer < 0 || size_t(peer) >= local_of_rank_.size() || peer == rank_) return false;
  int li = local_of_rank_[size_t(peer)];
  return li >= 0 && size_t(li) < out_.size() && out_[size_t(li)].attached();
}

std::string ShmBtl::describe() const {
  char buf[256];
  std::snprintf(buf, sizeof buf, "shm: %zu local ranks, ring %ux%s, eager %zu B, get=%s",
                local_peers_.size(), cfg_.geometry.slots,
                size_text(cfg_.geometry.slot_size).c_str(), caps_.eager_limit, cma_state_.c_str());
  return buf;
}

}  // namespace mpr::btl::shm

namespace mpr::btl {

std::unique_ptr<Btl> make_shm_btl(common::Bootstrap& bs) {
  const std::vector<int>& local = bs.local_peers();
  if (local.size() < 2) {
    common::log_verbose("shm: rank %d is alone on its node; shm not used", bs.rank());
    return nullptr;
  }
  shm::ShmConfig cfg = shm::read_config();
  shm::Segment seg;
  if (bs.local_rank() == 0) {
    try {
      seg = shm::Segment::create(bs.job_id(), uint32_t(local.size()), cfg.geometry);
    } catch (const std::exception& e) {
      std::string msg = "shm: rank " + std::to_string(bs.rank()) +
                        ": creating the node's segment failed: " + e.what();
      if (shm::shm_requested_explicitly()) throw std::runtime_error(msg);
      common::log_verbose("%s; shm not used", msg.c_str());
      return nullptr;
    }
  }
  // Under Yama ptrace_scope=1 only ancestors may read our memory; allow our same-user peers
  // so CMA works. Fails harmlessly (EINVAL) where Yama is absent.
  if (cfg.cma_enabled) prctl(PR_SET_PTRACER, PR_SET_PTRACER_ANY, 0, 0, 0);
  std::vector<uint8_t> entry = shm::encode_entry(seg.name());
  auto btl = std::make_unique<shm::ShmBtl>(bs, std::move(cfg), std::move(seg));
  bs.put(shm::kModexKey, entry);
  return btl;
}

}  // namespace mpr::btl
