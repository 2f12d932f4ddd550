#include "runtime/comm/attr.h"

#include <algorithm>
#include <unordered_map>

#include "runtime/comm/comm.h"
#include "runtime/core/errors.h"

namespace mpr::runtime {

namespace {

std::unordered_map<int, Keyval*> g_keyvals;  // every keyval still alive, by id
int g_next_keyval = kFirstUserKeyval;

// mpi.h spells the predefined callbacks as small constants (the standard ABI's choice).
bool is_dup_fn(MPI_Comm_copy_attr_function* f) { return f == MPI_COMM_DUP_FN; }

void keyval_unref(Keyval* kv) {
  if (--kv->refs > 0) return;
  g_keyvals.erase(kv->id);
  delete kv;
}

int run_delete(const char* fn, Comm* c, Keyval* kv, void* value) {
  if (!kv->delete_fn) return MPI_SUCCESS;
  int rc = kv->delete_fn(c->handle(), kv->id, value, kv->extra_state);
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

int attr_set(const char* fn, Comm* c, Keyval* kv, void* value) {
  if (AttrSet::Entry* e = c->attrs().find(kv->id)) {
    int rc = run_delete(fn, c, kv, e->value);
    if (rc != MPI_SUCCESS) return rc;
  }
  c->attrs().put(kv, value);
  return MPI_SUCCESS;
}

int attr_delete(const char* fn, Comm* c, int id) {
  AttrSet::Entry* e = c->attrs().find(id);
  if (!e)
    return make_error(MPI_ERR_KEYVAL, fn, "keyval %d has no attribute on this communicator", id);
  Keyval* kv = e->kv;
  int rc = run_delete(fn, c, kv, e->value);
  if (rc != MPI_SUCCESS) return rc;
  c->attrs().erase(id);
  return MPI_SUCCESS;
}

int attrs_copy(const char* fn, Comm* from, Comm* to) {
  // A snapshot: a callback may set or delete attributes on the old communicator.
  std::vector<AttrSet::Entry> snapshot = from->attrs().entries();
  for (const AttrSet::Entry& e : snapshot) {
    Keyval* kv = e.kv;
    if (!from->attrs().find(kv->id) || !kv->copy_fn) continue;
    void* out = nullptr;
    int flag = 0;
    if (is_dup_fn(kv->copy_fn)) {
      out = e.value;
      flag = 1;
    } else {
      int rc = kv->copy_fn(from->handle(), kv->id, kv->extra_state, e.value, &out, &flag);
      if (rc != MPI_SUCCESS)
        return make_error(error_class_of(rc) == MPI_SUCCESS ? MPI_ERR_OTHER : error_class_of(rc),
                          fn, "the copy callback of keyval %d returned error %d", kv->id, rc);
    }
    if (flag) to->attrs().put(kv, out);
  }
  return MPI_SUCCESS;
}

int attrs_delete_all(const char* fn, Comm* c) {
  // Most recent first; re-read the set each time because a callback may change it.
  while (!c->attrs().entries().empty()) {
    AttrSet::Entry e = c->attrs().entries().back();
    int rc = run_delete(fn, c, e.kv, e.value);
    c->attrs().erase(e.kv->id);
    if (rc != MPI_SUCCESS) return rc;
  }
  return MPI_SUCCESS;
}

}  // namespace mpr::runtime
