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
  MPR_ENTRY;
  return op_create("MPI_Op_create", user_fn, nullptr, commute, op);
}
MPR_WEAK_ALIAS(Op_create);

extern "C" int PMPI_Op_create_c(MPI_User_function_c* user_fn, int commute, MPI_Op* op) {
  MPR_ENTRY;
  return op_create("MPI_Op_create_c", nullptr, user_fn, commute, op);
}
MPR_WEAK_ALIAS(Op_create_c);

extern "C" int PMPI_Op_free(MPI_Op* op) {
  MPR_ENTRY;
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
  MPR_ENTRY;
  constexpr const char* fn = "MPI_Op_commutative";
  MPR_TRY(check_running(fn));
  MPR_TRY(check_arg(fn, nullptr, commute, "commute is NULL"));
  Op* o;
  MPR_TRY(check_op(fn, nullptr, op, &o));
  *commute = o->commute;
  return MPI_SUCCESS;
}
MPR_WEAK_ALIAS(Op_commutative);

// MPI 4.1: the predefined pair type MPI_MINLOC/MPI_MAXLOC reduce for (value, index) types, or
// MPI_DATATYPE_NULL where there is none.
extern "C" int PMPI_Type_get_value_index(MPI_Datatype value_type, MPI_Datatype index_type,
                                         MPI_Datatype* pair_type) {
  MPR_ENTRY;
  constexpr const char* fn = "MPI_Type_get_value_index";
  MPR_TRY(check_running(fn));
  Datatype *v, *i;
  MPR_TRY(check_type(fn, nullptr, value_type, &v));
  MPR_TRY(check_type(fn, nullptr, index_type, &i));
  MPR_TRY(check_arg(fn, nullptr, pair_type, "pair_type is NULL"));
  struct Pair {
    MPI_Datatype value, index, pair;
  };
  static const Pair pairs[] = {
      {MPI_FLOAT, MPI_INT, MPI_FLOAT_INT},
      {MPI_DOUBLE, MPI_INT, MPI_DOUBLE_INT},
      {MPI_LONG, MPI_INT, MPI_LONG_INT},
      {MPI_INT, MPI_INT, MPI_2INT},
      {MPI_SHORT, MPI_INT, MPI_SHORT_INT},
      {MPI_LONG_DOUBLE, MPI_INT, MPI_LONG_DOUBLE_INT},
      {MPI_REAL, MPI_REAL, MPI_2REAL},
      {MPI_DOUBLE_PRECISION, MPI_DOUBLE_PRECISION, MPI_2DOUBLE_PRECISION},
      {MPI_INTEGER, MPI_INTEGER, MPI_2INTEGER},
  };
  *pair_type = MPI_DATATYPE_NULL;
  for (const Pair& p : pairs)
    if (p.value == value_type && p.index == index_type) *pair_type = p.pair;
  return MPI_SUCCESS;
}
MPR_WEAK_ALIAS(Type_get_value_index);
