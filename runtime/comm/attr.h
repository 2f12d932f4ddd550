// Attribute caching on communicators: keyvals with copy/delete callbacks, run on MPI_Comm_dup
// and MPI_Comm_free. Predefined attributes (MPI_TAG_UB, ...) are not stored here: they are
// answered by MPI_Comm_get_attr from the job's state (api/attr.cc).
#pragma once

#include <cstdint>
#include <vector>

#include "mpi.h"

namespace mpr::runtime {

class Comm;

/// A key created by MPI_Comm_create_keyval (or the deprecated MPI_Keyval_create). It lives
/// until it was freed and no attribute uses it any more.
struct Keyval {
  int id = MPI_KEYVAL_INVALID;
  MPI_Comm_copy_attr_function* copy_fn = nullptr;
  MPI_Comm_delete_attr_function* delete_fn = nullptr;
  /// MPI_Win_create_keyval: a window keyval (its callbacks take an MPI_Win).
  bool for_win = false;
  MPI_Win_delete_attr_function* win_delete_fn = nullptr;
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

// Each returns MPI_SUCCESS or an MPI error code (not raised) whose message names `fn`.
/// MPI_Comm_set_attr: the delete callback runs on a value being replaced.
int attr_set(const char* fn, Comm* c, Keyval* kv, void* value);
/// MPI_Comm_delete_attr (MPI_ERR_KEYVAL code if the attribute is not set).
int attr_delete(const char* fn, Comm* c, int id);
/// MPI_Comm_dup: run each attribute's copy callback; attributes whose callback says "copy"
/// are set on `to`. Stops at the first callback that fails.
int attrs_copy(const char* fn, Comm* from, Comm* to);
/// MPI_Comm_free / MPI_Finalize: delete callbacks, most recently set attribute first.
int attrs_delete_all(const char* fn, Comm* c);

}  // namespace mpr::runtime
