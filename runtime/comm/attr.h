// Attribute caching on communicators, windows and datatypes: keyvals with copy/delete
// callbacks, run on MPI_Comm_dup / MPI_Type_dup and MPI_Comm_free / MPI_Win_free /
// MPI_Type_free. Predefined attributes (MPI_TAG_UB, MPI_WIN_BASE, ...) are not stored here: the
// API answers them from the job's state (api/attr.cc, api/win.cc).
#pragma once

#include <cstdint>
#include <vector>

#include "mpi.h"

namespace mpr::runtime {

class Comm;

/// The kind of object a keyval's callbacks take.
enum class AttrKind : uint8_t { kComm, kWin, kType };

/// A key created by MPI_Comm_create_keyval (or the deprecated MPI_Keyval_create),
/// MPI_Win_create_keyval or MPI_Type_create_keyval. It lives until it was freed and no
/// attribute uses it any more: objects that still carry its attribute can read and delete it.
struct Keyval {
  int id = MPI_KEYVAL_INVALID;
  AttrKind kind = AttrKind::kComm;
  MPI_Comm_copy_attr_function* copy_fn = nullptr;
  MPI_Comm_delete_attr_function* delete_fn = nullptr;
  MPI_Win_delete_attr_function* win_delete_fn = nullptr;
  MPI_Type_copy_attr_function* type_copy_fn = nullptr;
  MPI_Type_delete_attr_function* type_delete_fn = nullptr;
  void* extra_state = nullptr;
  int refs = 1;  ///< the user's handle plus one per attribute set with it
  bool freed = false;
};

/// User keyvals start above the predefined attribute keys.
constexpr int kFirstUserKeyval = 64;

int keyval_create(MPI_Comm_copy_attr_function* copy_fn, MPI_Comm_delete_attr_function* delete_fn,
                  void* extra_state);
/// The live (not yet freed by the user) keyval with this id, or nullptr.
Keyval* to_keyval(int id);
/// Any keyval with this id that still exists, freed by the user or not, or nullptr.
Keyval* find_keyval(int id);
/// MPI_Comm_free_keyval: the id becomes unusable; attributes set with it stay until deleted.
void keyval_free(Keyval* kv);
/// True for MPI_TAG_UB, MPI_HOST, ... (read-only, answered by the API).
bool is_predefined_keyval(int id);

/// The attributes of one object, in the order they were set.
class AttrSet {
 public:
  struct Entry {
    Keyval* kv;
    void* value;
  };
  AttrSet() = default;
  AttrSet(const AttrSet&) = delete;
  AttrSet& operator=(const AttrSet&) = delete;
  ~AttrSet();

  Entry* find(int id);
  const std::vector<Entry>& entries() const { return entries_; }
  /// Store a value (the caller already ran the delete callback of any previous value).
  void put(Keyval* kv, void* value);
  void erase(int id);

 private:
  std::vector<Entry> entries_;
};

/// An object with attributes, as its callbacks see it: its handle (the MPI_Comm, MPI_Win or
/// MPI_Datatype its keyvals' callbacks take) and its attribute set.
struct AttrOwner {
  void* handle;
  AttrSet* attrs;
};

// Each returns MPI_SUCCESS or an MPI error code (not raised) whose message names `fn`.
/// MPI_*_set_attr: the delete callback runs on a value being replaced.
int attr_set(const char* fn, AttrOwner o, Keyval* kv, void* value);
/// MPI_*_delete_attr (MPI_ERR_KEYVAL code if the attribute is not set).
int attr_delete(const char* fn, AttrOwner o, int id);
/// MPI_Comm_dup / MPI_Type_dup: run each attribute's copy callback; attributes whose callback
/// says "copy" are set on `to`. Stops at the first callback that fails.
int attrs_copy(const char* fn, AttrOwner from, AttrOwner to);
/// MPI_*_free / MPI_Finalize: delete callbacks, most recently set attribute first.
int attrs_delete_all(const char* fn, AttrOwner o);

// The same on a communicator.
int attr_set(const char* fn, Comm* c, Keyval* kv, void* value);
int attr_delete(const char* fn, Comm* c, int id);
int attrs_copy(const char* fn, Comm* from, Comm* to);
int attrs_delete_all(const char* fn, Comm* c);

}  // namespace mpr::runtime
