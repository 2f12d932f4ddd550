#include "runtime/comm/attr.h"

#include <algorithm>
#include <unordered_map>

#include "runtime/comm/comm.h"
#include "runtime/core/errors.h"

namespace mpr::runtime {

namespace {

std::unordered_map<int, Keyval*> g_keyvals;  // every keyval still alive, by id
int g_next_keyval = kFirstUserKeyval;

// mpi.h spells the predefined callbacks as small constants (the standard ABI's choice):
// MPI_COMM_DUP_FN, MPI_WIN_DUP_FN and MPI_TYPE_DUP_FN are all 1.
template <class F>
bool is_dup_fn(F* f) {
  return reinterpret_cast<uintptr_t>(f) == 1;
}

void keyval_unref(Keyval* kv) {
  if (--kv->refs > 0) return;
  g_keyvals.erase(kv->id);
  delete kv;
}

int run_delete(const char* fn, AttrOwner o, Keyval* kv, void* value) {
  int rc = MPI_SUCCESS;
  switch (kv->kind) {
    case AttrKind::kComm:
      if (kv->delete_fn)
        rc = kv->delete_fn(static_cast<MPI_Comm>(o.handle), kv->id, value, kv->extra_state);
      break;
    case AttrKind::kWin:
      if (kv->win_delete_fn)
        rc = kv->win_delete_fn(static_cast<MPI_Win>(o.handle), kv->id, value, kv->extra_state);
      break;
    case AttrKind::kType:
      if (kv->type_delete_fn)
        rc =
            kv->type_delete_fn(static_cast<MPI_Datatype>(o.handle), kv->id, value, kv->extra_state);
      break;
  }
  if (rc == MPI_SUCCESS) return rc;
  return make_error(error_class_of(rc) == MPI_SUCCESS ? MPI_ERR_OTHER : error_class_of(rc), fn,
                    "the delete callback of keyval %d returned error %d", kv->id, rc);
}

}  // namespace

int keyval_create(MPI_Comm_copy_attr_function* copy_fn, MPI_Comm_delete_attr_function* delete_fn,
                  void* extra_state) {
  auto* kv = new Keyval;
  kv->id = g_next_keyval++;
  kv->copy_fn = copy_fn;
  kv->delete_fn = delete_fn;
  kv->extra_state = extra_state;
  g_keyvals[kv->id] = kv;
  return kv->id;
}

Keyval* to_keyval(int id) {
  auto it = g_keyvals.find(id);
  return it == g_keyvals.end() || it->second->freed ? nullptr : it->second;
}

Keyval* find_keyval(int id) {
  auto it = g_keyvals.find(id);
  return it == g_keyvals.end() ? nullptr : it->second;
}

void keyval_free(Keyval* kv) {
  kv->freed = true;
  keyval_unref(kv);
}

bool is_predefined_keyval(int id) {
  switch (id) {
    case MPI_TAG_UB:
    case MPI_HOST:
    case MPI_IO:
    case MPI_WTIME_IS_GLOBAL:
    case MPI_UNIVERSE_SIZE:
    case MPI_LASTUSEDCODE:
    case MPI_APPNUM:
      return true;
    default:
      return false;
  }
}

AttrSet::~AttrSet() {
  // Callbacks already ran (MPI_Comm_free); only the keyval references are left to drop.
  for (Entry& e : entries_) keyval_unref(e.kv);
}

AttrSet::Entry* AttrSet::find(int id) {
  for (Entry& e : entries_)
    if (e.kv->id == id) return &e;
  return nullptr;
}

void AttrSet::put(Keyval* kv, void* value) {
  if (Entry* e = find(kv->id)) {
    e->value = value;
    return;
  }
  ++kv->refs;
  entries_.push_back({kv, value});
}

void AttrSet::erase(int id) {
  auto it = std::find_if(entries_.begin(), entries_.end(),
                         [id](const Entry& e) { return e.kv->id == id; });
  if (it == entries_.end()) return;
  Keyval* kv = it->kv;
  entries_.erase(it);
  keyval_unref(kv);
}

int attr_set(const char* fn, AttrOwner o, Keyval* kv, void* value) {
  if (AttrSet::Entry* e = o.attrs->find(kv->id)) {
    int rc = run_delete(fn, o, kv, e->value);
    if (rc != MPI_SUCCESS) return rc;
  }
  o.attrs->put(kv, value);
  return MPI_SUCCESS;
}

int attr_delete(const char* fn, AttrOwner o, int id) {
  AttrSet::Entry* e = o.attrs->find(id);
  if (!e) return make_error(MPI_ERR_KEYVAL, fn, "keyval %d has no attribute on this object", id);
  Keyval* kv = e->kv;
  int rc = run_delete(fn, o, kv, e->value);
  if (rc != MPI_SUCCESS) return rc;
  o.attrs->erase(id);
  return MPI_SUCCESS;
}

int attrs_copy(const char* fn, AttrOwner from, AttrOwner to) {
  // A snapshot: a callback may set or delete attributes on the old object.
  std::vector<AttrSet::Entry> snapshot = from.attrs->entries();
  for (const AttrSet::Entry& e : snapshot) {
    Keyval* kv = e.kv;
    if (!from.attrs->find(kv->id)) continue;
    void* out = nullptr;
    int flag = 0;
    int rc = MPI_SUCCESS;
    if (kv->kind == AttrKind::kComm && kv->copy_fn) {
      if (is_dup_fn(kv->copy_fn)) {
        out = e.value;
        flag = 1;
      } else {
        rc = kv->copy_fn(static_cast<MPI_Comm>(from.handle), kv->id, kv->extra_state, e.value, &out,
                         &flag);
      }
    } else if (kv->kind == AttrKind::kType && kv->type_copy_fn) {
      if (is_dup_fn(kv->type_copy_fn)) {
        out = e.value;
        flag = 1;
      } else {
        rc = kv->type_copy_fn(static_cast<MPI_Datatype>(from.handle), kv->id, kv->extra_state,
                              e.value, &out, &flag);
      }
    }
    if (rc != MPI_SUCCESS)
      return make_error(error_class_of(rc) == MPI_SUCCESS ? MPI_ERR_OTHER : error_class_of(rc), fn,
                        "the copy callback of keyval %d returned error %d", kv->id, rc);
    if (flag) to.attrs->put(kv, out);
  }
  return MPI_SUCCESS;
}

int attrs_delete_all(const char* fn, AttrOwner o) {
  // Most recent first; re-read the set each time because a callback may change it.
  while (!o.attrs->entries().empty()) {
    AttrSet::Entry e = o.attrs->entries().back();
    int rc = run_delete(fn, o, e.kv, e.value);
    o.attrs->erase(e.kv->id);
    if (rc != MPI_SUCCESS) return rc;
  }
  return MPI_SUCCESS;
}

namespace {
AttrOwner owner(Comm* c) { return {static_cast<void*>(c->handle()), &c->attrs()}; }
}  // namespace

int attr_set(const char* fn, Comm* c, Keyval* kv, void* value) {
  return attr_set(fn, owner(c), kv, value);
}
int attr_delete(const char* fn, Comm* c, int id) { return attr_delete(fn, owner(c), id); }
int attrs_copy(const char* fn, Comm* from, Comm* to) {
  return attrs_copy(fn, owner(from), owner(to));
}
int attrs_delete_all(const char* fn, Comm* c) { return attrs_delete_all(fn, owner(c)); }

}  // namespace mpr::runtime
