// Attributes: keyvals with copy/delete callbacks, set/get/delete on communicators and
// datatypes, the predefined attributes every communicator answers, and the deprecated MPI-1
// names. (Window attributes are in api/win.cc.)
#include "runtime/comm/attr.h"
#include "runtime/api/check.h"
#include "runtime/comm/comm.h"
#include "runtime/core/errors_user.h"
#include "runtime/dt/datatype.h"

using namespace mpr::runtime;
using namespace mpr::runtime::api;

namespace {

// MPI_Comm_get_attr hands out pointers to the values, so they need stable storage.
struct PredefinedAttrs {
  int tag_ub = kTagUb;
  int host = MPI_PROC_NULL;  // no process is special
  int io = MPI_ANY_SOURCE;   // every process can do I/O
  int wtime_is_global = 0;   // clocks are per node, not synchronized
  int universe_size = 0;
  int lastusedcode = MPI_ERR_LASTCODE;
  int appnum = 0;
};
PredefinedAttrs g_attrs;

// *value is the address of the predefined value, or nullptr when it is not set.
void predefined(int keyval, int** value) {
  g_attrs.universe_size = g_state.bootstrap->universe_size();
  g_attrs.appnum = g_state.bootstrap->appnum();
  *value = nullptr;
  switch (keyval) {
    case MPI_TAG_UB:
      *value = &g_attrs.tag_ub;
      break;
    case MPI_HOST:
      *value = &g_attrs.host;
      break;
    case MPI_IO:
      *value = &g_attrs.io;
      break;
    case MPI_WTIME_IS_GLOBAL:
      *value = &g_attrs.wtime_is_global;
      break;
    case MPI_UNIVERSE_SIZE:
      if (g_attrs.universe_size > 0) *value = &g_attrs.universe_size;
      break;
    case MPI_LASTUSEDCODE:
      *value = &g_attrs.lastusedcode;
      break;
    case MPI_APPNUM:
      if (g_attrs.appnum >= 0) *value = &g_attrs.appnum;
      break;
    default:
      break;
  }
}

const char* kind_name(AttrKind k) {
  return k == AttrKind::kComm ? "communicator" : k == AttrKind::kWin ? "window" : "datatype";
}

// A keyval of `kind` the user has not freed.
int check_keyval(const char* fn, Comm* comm, int id, Keyval** out,
                 AttrKind kind = AttrKind::kComm) {
  *out = to_keyval(id);
  if (*out && (*out)->kind == kind) return MPI_SUCCESS;
  if (*out)
    return raise_error(comm, MPI_ERR_KEYVAL, fn, "keyval %d is a %s keyval, not a %s keyval", id,
                       kind_name((*out)->kind), kind_name(kind));
  if (kind == AttrKind::kComm && is_predefined_keyval(id))
    return raise_error(comm, MPI_ERR_KEYVAL, fn, "keyval %d is predefined and read-only", id);
  return raise_error(comm, MPI_ERR_KEYVAL, fn, "invalid keyval %d", id);
}

// For get and delete: a keyval the user freed still names the attributes set with it.
int check_keyval_on(const char* fn, Comm* comm, const AttrSet* attrs, int id, Keyval** out,
                    AttrKind kind = AttrKind::kComm) {
  Keyval* kv = find_keyval(id);
  if (kv && kv->freed && kv->kind == kind && attrs &&
      const_cast<AttrSet*>(attrs)->find(id) != nullptr) {
    *out = kv;
    return MPI_SUCCESS;
  }
  return check_keyval(fn, comm, id, out, kind);
}

int create_keyval(const char* fn, MPI_Comm_copy_attr_function* copy_fn,
                  MPI_Comm_delete_attr_function* delete_fn, int* keyval, void* extra_state) {
  MPR_TRY(check_running(fn));
  MPR_TRY(check_arg(fn, nullptr, keyval, "keyval is NULL"));
  *keyval = keyval_create(copy_fn, delete_fn, extra_state);
  return MPI_SUCCESS;
}

int free_keyval(const char* fn, int* keyval, AttrKind kind = AttrKind::kComm) {
  MPR_TRY(check_running(fn));
  MPR_TRY(check_arg(fn, nullptr, keyval, "keyval is NULL"));
  // A keyval already freed whose attributes still live (so its number is not reused) may be
  // freed again, from a delete callback or through a saved copy of the handle: nothing more
  // to do, as with the peers. Once its last attribute is gone, the number is invalid.
  if (Keyval* freed = find_keyval(*keyval); freed && freed->freed && freed->kind == kind) {
    *keyval = MPI_KEYVAL_INVALID;
    return MPI_SUCCESS;
  }
  Keyval* kv;
  MPR_TRY(check_keyval(fn, nullptr, *keyval, &kv, kind));
  keyval_free(kv);
  *keyval = MPI_KEYVAL_INVALID;
  return MPI_SUCCESS;
}

int set_attr(const char* fn, MPI_Comm h, int keyval, void* value) {
  Comm* comm;
  Keyval* kv;
  MPR_TRY(check_running(fn));
  MPR_TRY(check_comm(fn, h, &comm));
  MPR_TRY(check_keyval(fn, comm, keyval, &kv));
  return raise(comm, attr_set(fn, comm, kv, value));
}

int get_attr(const char* fn, MPI_Comm h, int keyval, void* attribute_val, int* flag) {
  Comm* comm;
  MPR_TRY(check_running(fn));
  MPR_TRY(check_comm(fn, h, &comm));
  MPR_TRY(check_arg(fn, comm, attribute_val && flag, "attribute_val or flag is NULL"));
  if (is_predefined_keyval(keyval)) {
    int* value;
    predefined(keyval, &value);
    if (keyval == MPI_LASTUSEDCODE && last_user_code() > g_attrs.lastusedcode)
      g_attrs.lastusedcode = last_user_code();
    *flag = value != nullptr;
    // attribute_val is really an int** for the predefined attributes.
    if (value) *static_cast<int**>(attribute_val) = value;
    return MPI_SUCCESS;
  }
  Keyval* kv;
  MPR_TRY(check_keyval_on(fn, comm, &comm->attrs(), keyval, &kv));
  AttrSet::Entry* e = comm->attrs().find(keyval);
  *flag = e != nullptr;
  // attribute_val is really a void** for user attributes.
  if (e) *static_cast<void**>(attribute_val) = e->value;
  return MPI_SUCCESS;
}

int delete_attr(const char* fn, MPI_Comm h, int keyval) {
  Comm* comm;
  Keyval* kv;
  MPR_TRY(check_running(fn));
  MPR_TRY(check_comm(fn, h, &comm));
  MPR_TRY(check_keyval_on(fn, comm, &comm->attrs(), keyval, &kv));
  return raise(comm, attr_delete(fn, comm, keyval));
}

// ---- datatypes ------------------------------------------------------------------------------

int type_of(const char* fn, MPI_Datatype h, Datatype** out) {
  *out = to_datatype(h);
  if (*out) return MPI_SUCCESS;
  return raise_error(nullptr, MPI_ERR_TYPE, fn, "invalid datatype handle %p",
                     static_cast<void*>(h));
}

AttrOwner type_owner(Datatype* t) {
  if (!t->attrs) t->attrs = new AttrSet;
  return {static_cast<void*>(t->handle), t->attrs};
}

}  // namespace

namespace mpr::runtime::api {

int type_attrs_copy(const char* fn, Datatype* from, Datatype* to) {
  if (!from->attrs || from->attrs->entries().empty()) return MPI_SUCCESS;
  return raise(nullptr, attrs_copy(fn, type_owner(from), type_owner(to)));
}

int type_attrs_delete_all(const char* fn, Datatype* t) {
  if (!t->attrs) return MPI_SUCCESS;
  int rc = attrs_delete_all(fn, type_owner(t));
  delete t->attrs;
  t->attrs = nullptr;
  return raise(nullptr, rc);
}

}  // namespace mpr::runtime::api

extern "C" int PMPI_Type_create_keyval(MPI_Type_copy_attr_function* type_copy_attr_fn,
                                       MPI_Type_delete_attr_function* type_delete_attr_fn,
                                       int* type_keyval, void* extra_state) {
  MPR_ENTRY;
  constexpr const char* fn = "MPI_Type_create_keyval";
  MPR_TRY(check_running(fn));
  MPR_TRY(check_arg(fn, nullptr, type_keyval, "type_keyval is NULL"));
  int id = keyval_create(nullptr, nullptr, extra_state);
  Keyval* kv = to_keyval(id);
  kv->kind = AttrKind::kType;
  kv->type_copy_fn = type_copy_attr_fn;
  kv->type_delete_fn = type_delete_attr_fn;
  *type_keyval = id;
  return MPI_SUCCESS;
}
MPR_WEAK_ALIAS(Type_create_keyval);

extern "C" int PMPI_Type_free_keyval(int* type_keyval) {
  MPR_ENTRY;
  return free_keyval("MPI_Type_free_keyval", type_keyval, AttrKind::kType);
}
MPR_WEAK_ALIAS(Type_free_keyval);

extern "C" int PMPI_Type_set_attr(MPI_Datatype datatype, int type_keyval, void* attribute_val) {
  MPR_ENTRY;
  constexpr const char* fn = "MPI_Type_set_attr";
  Datatype* t;
  Keyval* kv;
  MPR_TRY(check_running(fn));
  MPR_TRY(type_of(fn, datatype, &t));
  MPR_TRY(check_keyval(fn, nullptr, type_keyval, &kv, AttrKind::kType));
  return raise(nullptr, attr_set(fn, type_owner(t), kv, attribute_val));
}
MPR_WEAK_ALIAS(Type_set_attr);

extern "C" int PMPI_Type_get_attr(MPI_Datatype datatype, int type_keyval, void* attribute_val,
                                  int* flag) {
  MPR_ENTRY;
  constexpr const char* fn = "MPI_Type_get_attr";
  Datatype* t;
  Keyval* kv;
  MPR_TRY(check_running(fn));
  MPR_TRY(type_of(fn, datatype, &t));
  MPR_TRY(check_arg(fn, nullptr, attribute_val && flag, "attribute_val or flag is NULL"));
  MPR_TRY(check_keyval_on(fn, nullptr, t->attrs, type_keyval, &kv, AttrKind::kType));
  AttrSet::Entry* e = t->attrs ? t->attrs->find(type_keyval) : nullptr;
  *flag = e != nullptr;
  if (e) *static_cast<void**>(attribute_val) = e->value;
  return MPI_SUCCESS;
}
MPR_WEAK_ALIAS(Type_get_attr);

extern "C" int PMPI_Type_delete_attr(MPI_Datatype datatype, int type_keyval) {
  MPR_ENTRY;
  constexpr const char* fn = "MPI_Type_delete_attr";
  Datatype* t;
  Keyval* kv;
  MPR_TRY(check_running(fn));
  MPR_TRY(type_of(fn, datatype, &t));
  MPR_TRY(check_keyval_on(fn, nullptr, t->attrs, type_keyval, &kv, AttrKind::kType));
  return raise(nullptr, attr_delete(fn, type_owner(t), type_keyval));
}
MPR_WEAK_ALIAS(Type_delete_attr);

extern "C" int PMPI_Comm_create_keyval(MPI_Comm_copy_attr_function* copy_fn,
                                       MPI_Comm_delete_attr_function* delete_fn, int* keyval,
                                       void* extra_state) {
  MPR_ENTRY;
  return create_keyval("MPI_Comm_create_keyval", copy_fn, delete_fn, keyval, extra_state);
}
MPR_WEAK_ALIAS(Comm_create_keyval);

extern "C" int PMPI_Comm_free_keyval(int* keyval) {
  MPR_ENTRY;
  return free_keyval("MPI_Comm_free_keyval", keyval);
}
MPR_WEAK_ALIAS(Comm_free_keyval);

extern "C" int PMPI_Comm_set_attr(MPI_Comm comm, int keyval, void* attribute_val) {
  MPR_ENTRY;
  return set_attr("MPI_Comm_set_attr", comm, keyval, attribute_val);
}
MPR_WEAK_ALIAS(Comm_set_attr);

extern "C" int PMPI_Comm_get_attr(MPI_Comm comm, int keyval, void* attribute_val, int* flag) {
  MPR_ENTRY;
  return get_attr("MPI_Comm_get_attr", comm, keyval, attribute_val, flag);
}
MPR_WEAK_ALIAS(Comm_get_attr);

extern "C" int PMPI_Comm_delete_attr(MPI_Comm comm, int keyval) {
  MPR_ENTRY;
  return delete_attr("MPI_Comm_delete_attr", comm, keyval);
}
MPR_WEAK_ALIAS(Comm_delete_attr);

extern "C" int PMPI_Keyval_create(MPI_Copy_function* copy_fn, MPI_Delete_function* delete_fn,
                                  int* keyval, void* extra_state) {
  MPR_ENTRY;
  return create_keyval("MPI_Keyval_create", copy_fn, delete_fn, keyval, extra_state);
}
MPR_WEAK_ALIAS(Keyval_create);

extern "C" int PMPI_Keyval_free(int* keyval) {
  MPR_ENTRY;
  return free_keyval("MPI_Keyval_free", keyval);
}
MPR_WEAK_ALIAS(Keyval_free);

extern "C" int PMPI_Attr_put(MPI_Comm comm, int keyval, void* attribute_val) {
  MPR_ENTRY;
  return set_attr("MPI_Attr_put", comm, keyval, attribute_val);
}
MPR_WEAK_ALIAS(Attr_put);

extern "C" int PMPI_Attr_get(MPI_Comm comm, int keyval, void* attribute_val, int* flag) {
  MPR_ENTRY;
  return get_attr("MPI_Attr_get", comm, keyval, attribute_val, flag);
}
MPR_WEAK_ALIAS(Attr_get);

extern "C" int PMPI_Attr_delete(MPI_Comm comm, int keyval) {
  MPR_ENTRY;
  return delete_attr("MPI_Attr_delete", comm, keyval);
}
MPR_WEAK_ALIAS(Attr_delete);
