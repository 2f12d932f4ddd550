// One-sided communication (MPI RMA): window objects and the operations on them.
//
// Every access to a target's window is one of four primitives on the target's memory -- put,
// get, 64-bit fetch-add and compare-swap -- carried by one of three paths:
//   direct  the memory is mapped here (this rank's own window, or a window in a node-wide
//           shared mapping): plain loads, stores and CPU atomics;
//   btl     the backend serving the target has native one-sided get/put (verbs RDMA, shm
//           cross-memory attach) and, for the control words, native atomics (verbs);
//   am      an active message that the target's progress engine executes (a backend with no
//           one-sided operations; the target must call MPI for these to progress).
// Locks, accumulates and dynamic-window lookups are built on the primitives, so a target takes
// no part in passive-target epochs wherever its data and control words are reachable directly
// or through a backend's native operations. See rma/README.md.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "btl-rdma/btl.h"
#include "btl-rdma/registry.h"
#include "mpi.h"
#include "runtime/comm/attr.h"
#include "runtime/comm/comm.h"
#include "runtime/core/errors.h"
#include "runtime/dt/datatype.h"
#include "runtime/dt/op.h"

#define MPR_RMA_TRY(expr)                               \
  do {                                                  \
    int mpr_rma_rc_ = (expr);                           \
    if (mpr_rma_rc_ != MPI_SUCCESS) return mpr_rma_rc_; \
  } while (0)

namespace mpr::runtime::rma {

/// The keys a rank publishes for its window are indexed by the registry's backend slots, which
/// mean the same backend in every process.
constexpr int kNumSlots = btl::kMaxSlots;

/// Regions a rank may attach to one dynamic window at a time (their table takes
/// kMaxDynRegions * sizeof(DynRegion), about 200 KiB, in each rank's control block of a dynamic
/// window only).
constexpr int kMaxDynRegions = 1024;

/// A region attached to a dynamic window (MPI_Win_attach).
struct DynRegion {
  uint64_t base;
  uint64_t len;
  btl::RemoteKey keys[kNumSlots];
};

/// The words other ranks update on this rank: lock state, the accumulate mutex, and for a
/// dynamic window the table of attached regions, which follows the struct (dyn_table; a
/// seqlock: `dyn_gen` is odd while the owner rewrites the table). One block of ctrl_bytes() per
/// rank, in the node-wide mapping or in registered memory.
struct alignas(64) Ctrl {
  uint64_t lock;      ///< kExclusive | number of shared holders
  uint64_t acc_lock;  ///< 0 free, else 1 + job rank of the holder
  uint64_t dyn_gen;
  uint64_t ndyn;
};
/// Offset of the region table in a control block.
constexpr size_t kDynTableOffset = sizeof(Ctrl);
inline DynRegion* dyn_table(Ctrl* c) {
  return reinterpret_cast<DynRegion*>(reinterpret_cast<char*>(c) + kDynTableOffset);
}
/// Bytes of one rank's control block (a multiple of 64): the table only in dynamic windows.
inline size_t ctrl_bytes(int flavor) {
  size_t n = kDynTableOffset;
  if (flavor == MPI_WIN_FLAVOR_DYNAMIC) n += kMaxDynRegions * sizeof(DynRegion);
  return (n + 63) / 64 * 64;
}
constexpr uint64_t kExclusive = uint64_t{1} << 62;

/// How the control words of every rank of a window are reached (one choice per window, made
/// collectively, so every process updating a word uses the same kind of atomic).
enum class CtrlPath : uint8_t {
  kShared,  ///< all ranks on one node: CPU atomics on the node-wide mapping
  kDevice,  ///< a backend with native atomics reaches everyone (this rank included)
  kAm,      ///< active messages executed by the target
};

/// What one rank publishes when a window is created.
struct PeerInfo {
  uint64_t base = 0;
  uint64_t size = 0;
  int32_t disp_unit = 1;
  int32_t node = 0;  ///< index of the node's leader job rank (same value = same node)
  uint64_t ctrl_addr = 0;
  btl::RemoteKey data_keys[kNumSlots];
  btl::RemoteKey ctrl_keys[kNumSlots];
  uint64_t shm_offset = 0;  ///< of its data in the node-wide mapping (allocate flavors)
};

/// The origin's view of one target.
struct Target {
  PeerInfo info;
  int job_rank = -1;
  btl::Btl* btl = nullptr;  ///< data path when not direct; null: active messages
  char* direct = nullptr;   ///< data reachable with loads/stores here (address of info.base)
  Ctrl* ctrl_direct = nullptr;
  int lock = 0;  ///< 0, MPI_LOCK_SHARED or MPI_LOCK_EXCLUSIVE (held by us)
  bool lock_nocheck = false;
  uint64_t pending = 0;        ///< operations issued and not yet complete
  std::vector<DynRegion> dyn;  ///< cached region table of a dynamic window
  uint64_t dyn_gen = ~uint64_t{0};
};

/// Work that finishes when the operations to `target` complete: a packed origin buffer that
/// must live until then, or data got into a staging buffer to be unpacked into the user's
/// non-contiguous buffer.
struct Deferred {
  int target = 0;
  std::unique_ptr<char[]> tmp;
  const Datatype* type = nullptr;  ///< retained; set when tmp is unpacked into buf
  void* buf = nullptr;
  size_t bytes = 0;
};

class Win {
 public:
  static constexpr unsigned kMagic = 0x57696e5f;  // "Win_"
  unsigned magic = kMagic;

  int flavor = MPI_WIN_FLAVOR_CREATE;
  Comm* comm = nullptr;  ///< private duplicate of the user's communicator
  void* base = nullptr;
  MPI_Aint size = 0;
  int disp_unit = 1;
  std::string name;
  Errhandler* errhandler = nullptr;
  AttrSet attrs;
  std::vector<std::pair<std::string, std::string>> hints;
  CtrlPath ctrl_path = CtrlPath::kAm;
  /// Some target is reached by active messages: flushes must serve other ranks' requests.
  bool uses_am = false;
  std::vector<Target> targets;  ///< by window rank
  int rank = 0;

  // Epochs.
  bool fence_epoch = false;  ///< a fence opened an epoch (no MPI_MODE_NOSUCCEED)
  int nlocked = 0;           ///< targets locked with MPI_Win_lock
  bool lock_all = false;
  bool lock_all_nocheck = false;    ///< MPI_Win_lock_all(MPI_MODE_NOCHECK): no lock words taken
  std::vector<int> access_group;    ///< MPI_Win_start targets (window ranks)
  std::vector<int> exposure_group;  ///< MPI_Win_post origins still to report completion
  bool access_started = false;
  bool exposure_posted = false;

  // Resources.
  Ctrl* ctrl = nullptr;    ///< this rank's control words
  size_t ctrl_stride = 0;  ///< ctrl_bytes(flavor): control blocks lie this far apart
  std::unique_ptr<char[]> ctrl_storage;
  void* shm_base = nullptr;  ///< the node-wide mapping (kShared), or null
  size_t shm_bytes = 0;
  void* own_alloc = nullptr;  ///< MPI_Win_allocate memory outside the mapping
  size_t own_alloc_bytes = 0;
  struct Reg {
    btl::Btl* btl;
    btl::Registration reg;
  };
  std::vector<Reg> regs;  ///< of base/size and of ctrl, with each backend that registers
  std::vector<std::pair<void*, std::vector<Reg>>> dyn_regs;  ///< attached regions
  btl::Btl* atomic_btl = nullptr;     ///< kDevice: the backend doing every control atomic
  uint64_t* atomic_result = nullptr;  ///< registered 8-byte slot for device atomics
  btl::Registration atomic_result_reg;
  bool atomic_busy = false;  ///< an atomic on a control word waits for atomic_result
  std::vector<std::unique_ptr<Deferred>> deferred;  ///< finishes at the next flush
  int error = MPI_SUCCESS;                          ///< first failed transfer since the last flush

  int id = 0;  ///< creation number in this process, for messages about unnamed windows
  MPI_Win handle() { return reinterpret_cast<MPI_Win>(this); }
  /// How messages name the window: its name, or "#<id>" while it has none.
  std::string label() const { return name.empty() ? "#" + std::to_string(id) : name; }
  int size_of_group() const { return static_cast<int>(targets.size()); }
  bool valid() const { return magic == kMagic; }
};

/// The window behind a handle, or nullptr.
Win* to_win(MPI_Win h);

/// Hand `code` to the window's error handler (see raise()).
int raise_win(Win* w, int code);
/// make_error + raise_win.
int win_error(Win* w, int err_class, const char* fn, const char* fmt, ...)
    __attribute__((format(printf, 4, 5)));

// Creation and destruction (win.cc). Each returns an MPI error code, raised on `comm`.
int create(const char* fn, Comm* comm, int flavor, void* base, MPI_Aint size, int disp_unit,
           Win** out);
int free_win(const char* fn, Win* w);
int attach(const char* fn, Win* w, void* base, MPI_Aint size);
int detach(const char* fn, Win* w, const void* base);
/// MPI_Win_shared_query
int shared_query(const char* fn, Win* w, int rank, MPI_Aint* size, int* disp_unit, void* baseptr);

// Synchronization (sync.cc). Errors are raised on the window.
int fence(const char* fn, Win* w, int assert);
int lock(const char* fn, Win* w, int type, int target, int assert);
int unlock(const char* fn, Win* w, int target);
int lock_all(const char* fn, Win* w, int assert);
int unlock_all(const char* fn, Win* w);
/// MPI_Win_flush (target >= 0) or flush_all (target < 0); the local variants are the same.
int flush(const char* fn, Win* w, int target);
int post(const char* fn, Win* w, const std::vector<int>& group, int assert);
int start(const char* fn, Win* w, const std::vector<int>& group, int assert);
int complete(const char* fn, Win* w);
int wait(const char* fn, Win* w);
int test(const char* fn, Win* w, int* flag);
/// MPI_SUCCESS if an epoch lets this process access `target`, else MPI_ERR_RMA_SYNC (raised).
int check_access(const char* fn, Win* w, int target);
/// Complete every operation to `target` (all if < 0): wait for the transfers, then unpack
/// what gets brought into non-contiguous buffers. Returns an MPI code (not raised).
int complete_ops(Win* w, int target);

// Communication (ops.cc). origin/result buffers are described by (count, type) as in MPI.
struct Buf {
  void* addr;
  MPI_Count count;
  const Datatype* type;
};
int put(const char* fn, Win* w, Buf origin, int target, MPI_Aint disp, Buf tgt);
int get(const char* fn, Win* w, Buf origin, int target, MPI_Aint disp, Buf tgt);
/// Accumulate (result.addr == nullptr) or get-accumulate; op may be MPI_REPLACE / MPI_NO_OP.
int accumulate(const char* fn, Win* w, Buf origin, Buf result, int target, MPI_Aint disp, Buf tgt,
               const Op* op);
int compare_and_swap(const char* fn, Win* w, const void* origin, const void* compare, void* result,
                     const Datatype* type, int target, MPI_Aint disp);

// Internal plumbing shared by the files above (transport.cc).
/// Install the active-message handler (once per MPI_Init).
void transport_init();
/// Issue a put/get of contiguous bytes at window offset `off` of `target` (for a dynamic
/// window, an absolute address). Completion is counted in the target's `pending`.
void raw_put(Win* w, int target, uint64_t off, const void* src, size_t len);
void raw_get(Win* w, int target, uint64_t off, void* dst, size_t len);
/// A 64-bit atomic on a control word of `target` (offset inside its Ctrl); blocks until done
/// and returns the previous value.
uint64_t ctrl_atomic(Win* w, int target, size_t word_off, btl::AtomicOp op, uint64_t operand,
                     uint64_t compare);
/// Read `len` bytes of `target`'s Ctrl at `off` (dynamic-window table); blocks.
void ctrl_read(Win* w, int target, size_t off, void* dst, size_t len);
/// Wait until every operation to `target` (all targets if < 0) is complete; returns the first
/// transfer error (an MPI code, not raised) or MPI_SUCCESS.
int wait_pending(Win* w, int target);

}  // namespace mpr::runtime::rma
