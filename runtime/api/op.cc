// User-defined reduction operations.
#include "runtime/dt/op.h"
#include "runtime/api/check.h"

using namespace mpr::runtime;
using namespace mpr::runtime::api;

namespace {

int op_create(const char* fn, MPI_User_function* user_fn, MPI_User_function_c* user_fn_c,
              int commute, MPI_Op* op) {
  MPR_TRY(check_running(fn));
  MPR_TRY(check_arg(fn, nullptr, (user_fn || user_fn_c) && op, "user_fn or op is NULL"));
  auto* o = new Op;
  o->fn = user_fn;
  o->fn_c = user_fn_c;
  o->commute = commute != 0;
  o->handle = reinterpret_cast<MPI_Op>(o);
  *op = o->handle;
  return MPI_SUCCESS;
}

}  // namespace

extern "C" int PMPI_Op_create(MPI_User_function* user_fn, int commute, MPI_Op* op) {
  return op_create("MPI_Op_create", user_fn, nullptr, commute, op);
}
MPR_WEAK_ALIAS(Op_create);

extern "C" int PMPI_Op_create_c(MPI_User_function_c* user_fn, int commute, MPI_Op* op) {
  return op_create("MPI_Op_create_c", nullptr, user_fn, commute, op);
}
MPR_WEAK_ALIAS(Op_create_c);

extern "C" int PMPI_Op_free(MPI_Op* op) {
  constexpr const char* fn = "MPI_Op_free";
  MPR_TRY(check_running(fn));
  MPR_TRY(check_arg(fn, nullptr, op, "op is NULL"));
  Op* o;
  MPR_TRY(check_op(fn, nullptr, *op, &o));
  if (o->predefined)
    return raise_error(nullptr, MPI_ERR_OP, fn, "cannot free predefined op %s", o->name);
  o->magic = 0;
  delete o;
  *op = MPI_OP_NULL;
  return MPI_SUCCESS;
}
MPR_WEAK_ALIAS(Op_free);

extern "C" int PMPI_Op_commutative(MPI_Op op, int* commute) {
  constexpr const char* fn = "MPI_Op_commutative";
  MPR_TRY(check_running(fn));
  MPR_TRY(check_arg(fn, nullptr, commute, "commute is NULL"));
  Op* o;
  MPR_TRY(check_op(fn, nullptr, op, &o));
  *commute = o->commute;
  return MPI_SUCCESS;
}
MPR_WEAK_ALIAS(Op_commutative);
