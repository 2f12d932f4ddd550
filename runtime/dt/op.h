// Reduction operations: the predefined ones (kernels generated from templates in
// op_kernels.cc for every type they are defined on) and user functions from MPI_Op_create.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>

#include "mpi.h"
#include "runtime/dt/datatype.h"

namespace mpr::runtime {

/// Predefined operations in handle order: the handle of OpId o is 0x21 + o.
enum class OpId : uint8_t {
  kMax,
  kMin,
  kSum,
  kProd,
  kLand,
  kBand,
  kLor,
  kBor,
  kLxor,
  kBxor,
  kMaxloc,
  kMinloc,
  kReplace,
  kNoOp,
  kNumPredefined,
  kUser = kNumPredefined,
};
constexpr uintptr_t kOpHandleBase = 0x21;

/// inout[i] = in[i] op inout[i] for i < n elements of the kernel's type.
using Kernel = void (*)(const void* in, void* inout, size_t n);

/// The kernel of predefined `op` on basic type `b`, or nullptr where MPI does not define the
/// operation on that type (e.g. MPI_SUM on MPI_WCHAR, MPI_BAND on MPI_FLOAT).
Kernel op_kernel(OpId op, Basic b);

struct Op {
  static constexpr unsigned kMagic = 0x4f705f5f;  // "Op__"
  unsigned magic = kMagic;
  OpId id = OpId::kUser;
  MPI_User_function* fn = nullptr;
  MPI_User_function_c* fn_c = nullptr;  ///< MPI_Op_create_c (then fn is null)
  bool commute = true;
  bool predefined = false;
  const char* name = "user-defined op";
  MPI_Op handle = MPI_OP_NULL;
};

/// The op behind a handle, or nullptr if null or invalid.
Op* to_op(MPI_Op h);

namespace detail {
/// The predefined ops, indexed by OpId, once they exist (their first use builds them).
extern std::atomic<Op*> g_predefined_ops;
}  // namespace detail

/// to_op() for a predefined handle, inline: nullptr for any other handle, and before the
/// predefined ops exist.
inline Op* predefined_op_from_handle(MPI_Op h) {
  const uintptr_t i = reinterpret_cast<uintptr_t>(h) - kOpHandleBase;
  if (i >= static_cast<uintptr_t>(OpId::kNumPredefined)) return nullptr;
  Op* ops = detail::g_predefined_ops.load(std::memory_order_acquire);
  return ops ? ops + i : nullptr;
}
Op* predefined_op(OpId id);

/// True if `op` may reduce elements of `type` (user ops accept any type).
bool op_valid_for(const Op* op, const Datatype* type);
/// inout = in op inout over `count` elements of `type` (in the type's memory layout).
/// Requires op_valid_for(op, type).
void op_apply(const Op* op, const void* in, void* inout, int count, const Datatype* type);

}  // namespace mpr::runtime
