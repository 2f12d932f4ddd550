// Window creation and destruction, dynamic-window regions, shared-memory queries, and the
// window error handler.
#include "runtime/rma/win.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cstdarg>
#include <cstdio>
#include <cstring>
#include <new>

#include "common/params.h"
#include "common/shm_object.h"
#include "runtime/coll/coll.h"
#include "runtime/comm/comm_ctl.h"
#include "runtime/comm/dpm.h"
#include "runtime/core/state.h"

namespace mpr::runtime::rma {

namespace {

constexpr size_t kPage = 4096;
size_t round_up(size_t n, size_t to) { return (n + to - 1) / to * to; }

/// Rank i's control block in the node-wide mapping.
Ctrl* ctrl_of(Win* w, int i) {
  return reinterpret_cast<Ctrl*>(static_cast<char*>(w->shm_base) + w->ctrl_stride * size_t(i));
}

// Tags of the window setup exchanges on the window's private communicator.
enum : int { kTagSetup1 = 0x7e000001, kTagSetup2, kTagSetupName, kTagSetupOk };

ctl::Channel channel(Comm* c) { return ctl::Channel{c->ctx_coll(), c->rank(), &c->peers()}; }

// A node-wide mapping, a job-owned object like the shm backend's segment (the launcher removes
// leftovers of /dev/shm/mpr.<job>.* when a job ends abnormally). The creator unlinks the name
// once every rank has it mapped; release_resources() unmaps it.
void* shm_create(size_t bytes, std::string* name, std::string* err) {
  try {
    common::ShmObject o = common::ShmObject::create(g_state.bootstrap->job_id(), "win.", bytes);
    *name = o.name();
    return o.release();
  } catch (const std::exception& e) {
    *err = "cannot reserve " + std::to_string(bytes >> 10) + " KiB in /dev/shm for the window (" +
           e.what() + "); free space there or use smaller windows";
    return nullptr;
  }
}

void* shm_attach(const std::string& name, size_t bytes, std::string* err) {
  try {
    return common::ShmObject::attach(name, bytes).release();
  } catch (const std::exception& e) {
    *err = e.what();
    return nullptr;
  }
}

// Register [addr, addr + len) with every backend; returns the keys by slot.
void register_all(void* addr, size_t len, std::vector<Win::Reg>* regs, btl::RemoteKey* keys) {
  if (len == 0) return;
  for (btl::Btl* b : the_btls().loaded()) {
    if (b->caps().emulated_rdma) continue;  // windows reach it through active messages
    Win::Reg r{b, {}};
    try {
      b->reg(addr, len, &r.reg);
    } catch (const std::exception&) {
      continue;  // that backend then reaches this memory through active messages
    }
    keys[the_btls().slot(b)] = r.reg.rkey;
    regs->push_back(r);
  }
}

void deregister_all(std::vector<Win::Reg>* regs) {
  for (Win::Reg& r : *regs) r.btl->dereg(&r.reg);
  regs->clear();
}

// A backend with native atomics that reaches every member (this rank through its loopback).
btl::Btl* device_for(Comm* c) {
  for (btl::Btl* b : the_btls().loaded()) {
    if (!b->caps().native_atomics) continue;
    bool all = true;
    for (int p : c->peers())
      if (p != g_state.bootstrap->rank() && !b->reachable(p)) all = false;
    if (all) return b;
  }
  return nullptr;
}

void release_resources(Win* w) {
  deregister_all(&w->regs);
  for (auto& d : w->dyn_regs) deregister_all(&d.second);
  w->dyn_regs.clear();
  if (w->atomic_result) {
    if (w->atomic_btl && w->atomic_result_reg.addr) w->atomic_btl->dereg(&w->atomic_result_reg);
    std::free(w->atomic_result);
    w->atomic_result = nullptr;
  }
  if (w->shm_base) munmap(w->shm_base, w->shm_bytes);
  w->shm_base = nullptr;
  if (w->own_alloc) munmap(w->own_alloc, w->own_alloc_bytes);
  w->own_alloc = nullptr;
}

}  // namespace

Win* to_win(MPI_Win h) {
  auto* w = reinterpret_cast<Win*>(h);
  if (!w || !w->valid()) return nullptr;
  return w;
}

int raise_win(Win* w, int code) {
  if (code == MPI_SUCCESS) return code;
  if (!w) return raise(nullptr, code);
  Errhandler* eh = w->errhandler;
  switch (eh->kind) {
    case Errhandler::Kind::kReturn:
      return code;
    case Errhandler::Kind::kUser: {
      MPI_Win h = w->handle();
      int c = code;
      if (eh->win_fn)
        eh->win_fn(&h, &c);
      else
        return raise(nullptr, code);  // a communicator handler set on a window: not callable
      return code;
    }
    case Errhandler::Kind::kFatal:
    case Errhandler::Kind::kAbort:
      break;
  }
  abort_job(code, error_string(code).c_str());
}

int win_error(Win* w, int err_class, const char* fn, const char* fmt, ...) {
  char msg[512];
  va_list ap;
  va_start(ap, fmt);
  std::vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  return raise_win(w, make_error(err_class, fn, "%s", msg));
}

int create(const char* fn, Comm* user_comm, int flavor, void* base, MPI_Aint size, int disp_unit,
           Win** out) {
  Comm* comm = nullptr;
  if (int rc = comm_clone(fn, user_comm, &comm); rc != MPI_SUCCESS) return raise(user_comm, rc);
  static int windows_created = 0;
  auto* w = new Win;
  w->id = ++windows_created;
  w->flavor = flavor;
  w->ctrl_stride = ctrl_bytes(flavor);
  w->comm = comm;
  w->size = flavor == MPI_WIN_FLAVOR_DYNAMIC ? 0 : size;
  w->disp_unit = disp_unit;
  w->rank = comm->rank();
  w->errhandler = errhandler_fatal();
  errhandler_retain(w->errhandler);
  const int n = comm->size();
  const ctl::Channel ch = channel(comm);
  auto fail = [&](int rc) {
    release_resources(w);
    errhandler_release(w->errhandler);
    w->magic = 0;
    delete w;
    comm->mark_freed();
    comm->release();
    return raise(user_comm, rc);
  };

  // Round 1: where everyone runs, how large its part is, which control path everyone can use.
  struct Round1 {
    int32_t node;
    int32_t device;
    uint64_t size;
  } mine{node_color(comm), device_for(comm) != nullptr, uint64_t(w->size)};
  std::vector<Round1> all(n);
  if (int rc = ctl::allgather(fn, ch, kTagSetup1, &mine, sizeof mine, all.data()); rc)
    return fail(rc);
  bool one_node = true, device = true;
  for (const Round1& r : all) {
    one_node &= r.node == all[0].node;
    device &= r.device != 0;
  }
  // The override is the same in every process of a job (one environment).
  const std::string force = common::param_string("MPR_RMA_PATH");
  const bool force_am = force == "am" && flavor != MPI_WIN_FLAVOR_SHARED;
  if ((force == "btl" || force_am) && flavor != MPI_WIN_FLAVOR_SHARED) one_node = false;
  if (force_am) device = false;
  w->ctrl_path = one_node ? CtrlPath::kShared : device ? CtrlPath::kDevice : CtrlPath::kAm;
  if (flavor == MPI_WIN_FLAVOR_SHARED && !one_node)
    return fail(make_error(MPI_ERR_RMA_SHARED, fn,
                           "the communicator spans several nodes; shared-memory windows need "
                           "a communicator from MPI_Comm_split_type(MPI_COMM_TYPE_SHARED)"));

  // The node-wide mapping: every rank's control words, then the allocate flavors' memory.
  std::vector<uint64_t> data_off(n, 0);
  size_t shm_bytes = 0;
  if (w->ctrl_path == CtrlPath::kShared) {
    size_t at = round_up(w->ctrl_stride * size_t(n), kPage);
    for (int i = 0; i < n; ++i) {
      data_off[i] = at;
      if (flavor == MPI_WIN_FLAVOR_SHARED)
        at += all[i].size;  // contiguous, as MPI_Win_allocate_shared specifies by default
      else if (flavor == MPI_WIN_FLAVOR_ALLOCATE)
        at += round_up(all[i].size, kPage);
    }
    shm_bytes = round_up(std::max<size_t>(at, kPage), kPage);
    std::vector<uint8_t> name;
    std::string err;
    if (w->rank == 0) {
      std::string nm;
      w->shm_base = shm_create(shm_bytes, &nm, &err);
      if (w->shm_base) name.assign(nm.begin(), nm.end());
    }
    if (int rc = ctl::bcast_vec(fn, ch, 0, kTagSetupName, &name); rc) return fail(rc);
    if (w->rank != 0 && !name.empty())
      w->shm_base = shm_attach(std::string(name.begin(), name.end()), shm_bytes, &err);
    if (w->shm_base) w->shm_bytes = shm_bytes;
    uint64_t ok = w->shm_base ? 1 : 0;
    int rc = ctl::allreduce_and(fn, ch, kTagSetupOk, &ok, 1);
    if (w->rank == 0 && !name.empty()) shm_unlink(std::string(name.begin(), name.end()).c_str());
    if (rc) return fail(rc);
    if (!ok)
      return fail(make_error(
          MPI_ERR_NO_MEM, fn, "rank %d: %s", w->rank,
          err.empty() ? "another rank could not map the window's shared memory" : err.c_str()));
    w->ctrl = ctrl_of(w, w->rank);
  } else {
    w->ctrl_storage.reset(new char[w->ctrl_stride + 64]());
    auto a = reinterpret_cast<uintptr_t>(w->ctrl_storage.get());
    w->ctrl = reinterpret_cast<Ctrl*>(round_up(a, 64));
  }

  // This rank's memory.
  if (flavor == MPI_WIN_FLAVOR_CREATE) {
    w->base = base;
  } else if (flavor == MPI_WIN_FLAVOR_ALLOCATE || flavor == MPI_WIN_FLAVOR_SHARED) {
    if (w->shm_base) {
      w->base = static_cast<char*>(w->shm_base) + data_off[w->rank];
    } else {
      w->own_alloc_bytes = round_up(std::max<size_t>(size_t(w->size), 1), kPage);
      w->own_alloc = mmap(nullptr, w->own_alloc_bytes, PROT_READ | PROT_WRITE,
                          MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
      if (w->own_alloc == MAP_FAILED) {
        w->own_alloc = nullptr;
        return fail(make_error(MPI_ERR_NO_MEM, fn, "cannot allocate %zd bytes for the window",
                               size_t(w->size)));
      }
      w->base = w->own_alloc;
    }
  }

  PeerInfo me;
  me.base = reinterpret_cast<uint64_t>(w->base);
  me.size = uint64_t(w->size);
  me.disp_unit = disp_unit;
  me.node = mine.node;
  me.ctrl_addr = reinterpret_cast<uint64_t>(w->ctrl);
  me.shm_offset = data_off[w->rank];
  if (w->size > 0) register_all(w->base, size_t(w->size), &w->regs, me.data_keys);
  register_all(w->ctrl, w->ctrl_stride, &w->regs, me.ctrl_keys);
  if (w->ctrl_path == CtrlPath::kDevice) {
    w->atomic_btl = device_for(comm);
    w->atomic_result = static_cast<uint64_t*>(std::aligned_alloc(64, 64));
    try {
      w->atomic_btl->reg(w->atomic_result, 64, &w->atomic_result_reg);
    } catch (const std::exception& e) {
      return fail(
          make_error(MPI_ERR_OTHER, fn, "cannot register the window's atomic slot: %s", e.what()));
    }
  }

  // Round 2: addresses and keys.
  std::vector<PeerInfo> infos(n);
  if (int rc = ctl::allgather(fn, ch, kTagSetup2, &me, sizeof me, infos.data()); rc)
    return fail(rc);
  w->targets.resize(n);
  for (int i = 0; i < n; ++i) {
    Target& t = w->targets[i];
    t.info = infos[i];
    t.job_rank = comm->peer(i);
    if (w->shm_base) t.ctrl_direct = ctrl_of(w, i);
    if (i == w->rank) {
      t.direct = static_cast<char*>(w->base);
      t.ctrl_direct = w->ctrl;
      continue;
    }
    if (w->shm_base && flavor != MPI_WIN_FLAVOR_CREATE && flavor != MPI_WIN_FLAVOR_DYNAMIC) {
      t.direct = static_cast<char*>(w->shm_base) + t.info.shm_offset;
      continue;
    }
    btl::Btl* b = the_btls().backend(t.job_rank);
    const btl::Caps& c = b->caps();
    // Only use native get/put if the target could register its memory with that backend.
    const btl::RemoteKey& key = t.info.data_keys[the_btls().slot(b)];
    bool keyed = !c.needs_registration || std::any_of(std::begin(key.words), std::end(key.words),
                                                      [](uint64_t w) { return w; });
    if (c.native_get && c.native_put && !c.emulated_rdma && keyed && !force_am) t.btl = b;
  }
  w->uses_am = w->ctrl_path == CtrlPath::kAm;
  for (const Target& t : w->targets) w->uses_am |= !t.direct && !t.btl;

  // Passive target must progress without the target's CPU, but a backend that connects on first
  // use (verbs) needs it to answer: connect to every target now, while every member of the
  // window is inside this call. (Ranks on one node talk through shm and may never have used
  // verbs with each other, yet a window spanning nodes does its control atomics through it.)
  {
    Poller p;
    for (;;) {
      bool up = true;
      for (const Target& t : w->targets) {
        if (t.btl) up &= t.btl->connect(t.job_rank);
        if (w->atomic_btl) up &= w->atomic_btl->connect(t.job_rank);
      }
      if (up) break;
      p.poll();
    }
  }
  *out = w;
  return MPI_SUCCESS;
}

int free_win(const char* fn, Win* w) {
  if (w->nlocked || w->lock_all)
    return win_error(w, MPI_ERR_RMA_SYNC, fn,
                     "window %s freed while %s (call MPI_Win_unlock%s first)", w->label().c_str(),
                     w->lock_all ? "MPI_Win_lock_all is in effect" : "targets are still locked",
                     w->lock_all ? "_all" : "");
  if (w->access_started || w->exposure_posted)
    return win_error(w, MPI_ERR_RMA_SYNC, fn,
                     "window %s freed inside a %s epoch (finish it with %s first)",
                     w->label().c_str(), w->access_started ? "MPI_Win_start" : "MPI_Win_post",
                     w->access_started ? "MPI_Win_complete" : "MPI_Win_wait");
  int rc = wait_pending(w, -1);
  // Nobody may still be reading or writing this rank's memory when it goes away.
  int brc = coll::barrier(fn, w->comm);
  if (rc == MPI_SUCCESS) rc = brc;
  // Delete callbacks of the attributes, most recent first.
  while (!w->attrs.entries().empty()) {
    AttrSet::Entry e = w->attrs.entries().back();
    if (e.kv->win_delete_fn) {
      int crc = e.kv->win_delete_fn(w->handle(), e.kv->id, e.value, e.kv->extra_state);
      if (crc != MPI_SUCCESS && rc == MPI_SUCCESS)
        rc = make_error(MPI_ERR_OTHER, fn, "the delete callback of keyval %d returned error %d",
                        e.kv->id, crc);
    }
    w->attrs.erase(e.kv->id);
  }
  release_resources(w);
  errhandler_release(w->errhandler);
  w->comm->mark_freed();
  w->comm->release();
  w->magic = 0;
  delete w;
  return rc;
}

int attach(const char* fn, Win* w, void* base, MPI_Aint size) {
  if (w->flavor != MPI_WIN_FLAVOR_DYNAMIC)
    return win_error(w, MPI_ERR_RMA_FLAVOR, fn,
                     "window %s was not created by MPI_Win_create_dynamic", w->label().c_str());
  if (size < 0) return win_error(w, MPI_ERR_SIZE, fn, "invalid size %zd", size_t(size));
  Ctrl* c = w->ctrl;
  DynRegion* dyn = dyn_table(c);
  if (c->ndyn >= kMaxDynRegions)
    return win_error(w, MPI_ERR_RMA_ATTACH, fn,
                     "window %s already has %d attached regions (the most it can hold)",
                     w->label().c_str(), kMaxDynRegions);
  auto b = reinterpret_cast<uint64_t>(base);
  for (uint64_t i = 0; i < c->ndyn; ++i)
    if (b < dyn[i].base + dyn[i].len && dyn[i].base < b + uint64_t(size))
      return win_error(w, MPI_ERR_RMA_ATTACH, fn,
                       "region %p (+%zd bytes) overlaps a region already attached to window %s",
                       base, size_t(size), w->label().c_str());
  DynRegion r{};
  r.base = b;
  r.len = uint64_t(size);
  std::vector<Win::Reg> regs;
  register_all(base, size_t(size), &regs, r.keys);
  w->dyn_regs.emplace_back(base, std::move(regs));
  __atomic_fetch_add(&c->dyn_gen, 1, __ATOMIC_SEQ_CST);  // odd: being rewritten
  dyn[c->ndyn] = r;
  __atomic_store_n(&c->ndyn, c->ndyn + 1, __ATOMIC_SEQ_CST);
  __atomic_fetch_add(&c->dyn_gen, 1, __ATOMIC_SEQ_CST);
  return MPI_SUCCESS;
}

int detach(const char* fn, Win* w, const void* base) {
  if (w->flavor != MPI_WIN_FLAVOR_DYNAMIC)
    return win_error(w, MPI_ERR_RMA_FLAVOR, fn,
                     "window %s was not created by MPI_Win_create_dynamic", w->label().c_str());
  Ctrl* c = w->ctrl;
  auto b = reinterpret_cast<uint64_t>(base);
  uint64_t i = 0;
  DynRegion* dyn = dyn_table(c);
  while (i < c->ndyn && dyn[i].base != b) ++i;
  if (i == c->ndyn)
    return win_error(w, MPI_ERR_RMA_ATTACH, fn,
                     "%p is not the start of a region attached to "
                     "window %s",
                     base, w->label().c_str());
  __atomic_fetch_add(&c->dyn_gen, 1, __ATOMIC_SEQ_CST);
  dyn[i] = dyn[c->ndyn - 1];
  __atomic_store_n(&c->ndyn, c->ndyn - 1, __ATOMIC_SEQ_CST);
  __atomic_fetch_add(&c->dyn_gen, 1, __ATOMIC_SEQ_CST);
  for (auto it = w->dyn_regs.begin(); it != w->dyn_regs.end(); ++it)
    if (it->first == base) {
      deregister_all(&it->second);
      w->dyn_regs.erase(it);
      break;
    }
  return MPI_SUCCESS;
}

int shared_query(const char* fn, Win* w, int rank, MPI_Aint* size, int* disp_unit, void* baseptr) {
  if (!w->shm_base || (w->flavor != MPI_WIN_FLAVOR_SHARED && w->flavor != MPI_WIN_FLAVOR_ALLOCATE))
    return win_error(w, MPI_ERR_RMA_FLAVOR, fn,
                     "window %s has no memory shared among its ranks (use "
                     "MPI_Win_allocate_shared on a communicator of one node)",
                     w->label().c_str());
  if (rank == MPI_PROC_NULL) {
    rank = 0;
    while (rank + 1 < w->size_of_group() && w->targets[rank].info.size == 0) ++rank;
  }
  if (rank < 0 || rank >= w->size_of_group())
    return win_error(w, MPI_ERR_RANK, fn, "invalid rank %d (window %s has %d ranks)", rank,
                     w->label().c_str(), w->size_of_group());
  const Target& t = w->targets[rank];
  *size = MPI_Aint(t.info.size);
  *disp_unit = t.info.disp_unit;
  // A segment of size 0 has no memory to point at.
  *static_cast<void**>(baseptr) =
      t.info.size ? static_cast<char*>(w->shm_base) + t.info.shm_offset : nullptr;
  return MPI_SUCCESS;
}

}  // namespace mpr::runtime::rma
