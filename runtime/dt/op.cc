#include "runtime/dt/op.h"

#include <cstdint>

#include "runtime/dt/convertor.h"

namespace mpr::runtime {

std::atomic<Op*> detail::g_predefined_ops{nullptr};

namespace {

struct PredefinedOps {
  Op ops[static_cast<int>(OpId::kNumPredefined)];
  PredefinedOps() {
    static const char* const kNames[] = {
        "MPI_MAX", "MPI_MIN",  "MPI_SUM",  "MPI_PROD",   "MPI_LAND",   "MPI_BAND",    "MPI_LOR",
        "MPI_BOR", "MPI_LXOR", "MPI_BXOR", "MPI_MAXLOC", "MPI_MINLOC", "MPI_REPLACE", "MPI_NO_OP"};
    static_assert(sizeof(kNames) / sizeof(kNames[0]) == static_cast<int>(OpId::kNumPredefined));
    for (int i = 0; i < static_cast<int>(OpId::kNumPredefined); ++i) {
      ops[i].id = static_cast<OpId>(i);
      ops[i].predefined = true;
      ops[i].commute = true;
      ops[i].name = kNames[i];
      ops[i].handle = reinterpret_cast<MPI_Op>(kOpHandleBase + i);
    }
    // REPLACE keeps the left operand: order matters.
    ops[static_cast<int>(OpId::kReplace)].commute = false;
    ops[static_cast<int>(OpId::kNoOp)].commute = false;
    detail::g_predefined_ops.store(ops, std::memory_order_release);
  }
};

PredefinedOps& predefined() {
  static PredefinedOps p;
  return p;
}

}  // namespace

Op* predefined_op(OpId id) { return &predefined().ops[static_cast<int>(id)]; }

Op* to_op(MPI_Op h) {
  auto v = reinterpret_cast<uintptr_t>(h);
  if (v >= kOpHandleBase && v < kOpHandleBase + static_cast<int>(OpId::kNumPredefined))
    return predefined_op(static_cast<OpId>(v - kOpHandleBase));
  if (v < 0x1000) return nullptr;
  auto* op = reinterpret_cast<Op*>(h);
  return op->magic == Op::kMagic ? op : nullptr;
}

bool op_valid_for(const Op* op, const Datatype* type) {
  if (!op->predefined) return true;
  return op_kernel(op->id, type->basic) != nullptr;
}

void op_apply(const Op* op, const void* in, void* inout, int count, const Datatype* type) {
  if (count <= 0) return;
  if (!op->predefined) {
    MPI_Datatype h = type->handle;
    if (op->fn_c) {
      MPI_Count len = count;
      op->fn_c(const_cast<void*>(in), inout, &len, &h);
    } else {
      int len = count;
      op->fn(const_cast<void*>(in), inout, &len, &h);
    }
    return;
  }
  Kernel k = op_kernel(op->id, type->basic);
  if (!type->predefined) {
    // A derived type of one basic type: its elements are scattered over its layout.
    dt::apply_kernel(k, in, inout, static_cast<size_t>(count), type);
    return;
  }
  k(in, inout, static_cast<size_t>(count));
}

}  // namespace mpr::runtime
