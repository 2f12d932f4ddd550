// Environment: MPI_Alloc_mem / MPI_Free_mem, user error classes and codes, MPI_Pcontrol, and
// the Fortran handle conversions (MPI_*_c2f / MPI_*_f2c).
#include <cstdarg>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <unordered_map>
#include <vector>

#include "runtime/api/handles.h"
#include "runtime/core/errors_user.h"

using namespace mpr::runtime;
using namespace mpr::runtime::api;

namespace {

// Memory from MPI_Alloc_mem, with the pml's pin token for MPI_Free_mem.
std::unordered_map<void*, void*> g_allocs;

// Fortran handles are ints. Predefined handles are small constants and convert to themselves;
// other handles are pointers and get a slot in this table on first conversion (slot i is
// integer kFirstSlot + i). The table only grows: a freed object's integer is never reused.
constexpr MPI_Fint kFirstSlot = 0x1000;
std::vector<void*> g_slots;
std::unordered_map<void*, MPI_Fint> g_slot_of;

MPI_Fint to_fint(void* h) {
  auto v = reinterpret_cast<uintptr_t>(h);
  if (v < static_cast<uintptr_t>(kFirstSlot)) return static_cast<MPI_Fint>(v);
  auto it = g_slot_of.find(h);
  if (it != g_slot_of.end()) return it->second;
  MPI_Fint f = kFirstSlot + static_cast<MPI_Fint>(g_slots.size());
  g_slots.push_back(h);
  g_slot_of.emplace(h, f);
  return f;
}

void* from_fint(MPI_Fint f) {
  if (f >= 0 && f < kFirstSlot) return reinterpret_cast<void*>(static_cast<uintptr_t>(f));
  size_t i = static_cast<size_t>(f - kFirstSlot);
  return f >= kFirstSlot && i < g_slots.size() ? g_slots[i] : nullptr;
}

}  // namespace

extern "C" int PMPI_Alloc_mem(MPI_Aint size, MPI_Info info, void* baseptr) {
  MPR_ENTRY;
  constexpr const char* fn = "MPI_Alloc_mem";
  Info* in;
  MPR_TRY(check_running(fn));
  MPR_TRY(check_info(fn, nullptr, info, true, &in));
  MPR_TRY(check_arg(fn, nullptr, baseptr, "baseptr is NULL"));
  if (size < 0) return raise_error(nullptr, MPI_ERR_SIZE, fn, "negative size %ld", long(size));
  // Page-aligned: registrations cover whole pages, and a buffer of its own pages never shares
  // a registration with unrelated heap data.
  constexpr size_t kAlign = 4096;
  size_t bytes = (static_cast<size_t>(size) + kAlign - 1) / kAlign * kAlign;
  void* p = std::aligned_alloc(kAlign, bytes ? bytes : kAlign);
  if (!p) return raise_error(nullptr, MPI_ERR_NO_MEM, fn, "cannot allocate %ld bytes", long(size));
  g_allocs[p] = the_btls().pin(p, bytes ? bytes : kAlign);
  // baseptr is really a void** (C binding quirk of MPI).
  std::memcpy(baseptr, &p, sizeof p);
  return MPI_SUCCESS;
}
MPR_WEAK_ALIAS(Alloc_mem);

extern "C" int PMPI_Free_mem(void* base) {
  MPR_ENTRY;
  constexpr const char* fn = "MPI_Free_mem";
  MPR_TRY(check_running(fn));
  if (!base) return MPI_SUCCESS;
  auto it = g_allocs.find(base);
  if (it == g_allocs.end())
    return raise_error(nullptr, MPI_ERR_BASE, fn, "%p was not returned by MPI_Alloc_mem", base);
  the_btls().unpin(it->second);
  g_allocs.erase(it);
  std::free(base);
  return MPI_SUCCESS;
}
MPR_WEAK_ALIAS(Free_mem);

extern "C" int PMPI_Add_error_class(int* errorclass) {
  MPR_ENTRY;
  constexpr const char* fn = "MPI_Add_error_class";
  MPR_TRY(check_running(fn));
  MPR_TRY(check_arg(fn, nullptr, errorclass, "errorclass is NULL"));
  int cls = add_error_class();
  if (cls < 0) return raise_error(nullptr, MPI_ERR_OTHER, fn, "no error class numbers left");
  *errorclass = cls;
  return MPI_SUCCESS;
}
MPR_WEAK_ALIAS(Add_error_class);

extern "C" int PMPI_Add_error_code(int errorclass, int* errorcode) {
  MPR_ENTRY;
  constexpr const char* fn = "MPI_Add_error_code";
  MPR_TRY(check_running(fn));
  MPR_TRY(check_arg(fn, nullptr, errorcode, "errorcode is NULL"));
  if (!is_user_class(errorclass) && (errorclass <= MPI_SUCCESS || !error_class_name(errorclass)))
    return raise_error(nullptr, MPI_ERR_ARG, fn, "invalid error class %d", errorclass);
  int code = add_error_code(errorclass);
  if (code < 0) return raise_error(nullptr, MPI_ERR_OTHER, fn, "no error codes left");
  *errorcode = code;
  return MPI_SUCCESS;
}
MPR_WEAK_ALIAS(Add_error_code);

extern "C" int PMPI_Add_error_string(int errorcode, const char* string) {
  MPR_ENTRY;
  constexpr const char* fn = "MPI_Add_error_string";
  MPR_TRY(check_running(fn));
  MPR_TRY(check_arg(fn, nullptr, string, "string is NULL"));
  if (strnlen(string, MPI_MAX_ERROR_STRING) >= MPI_MAX_ERROR_STRING)
    return raise_error(nullptr, MPI_ERR_ARG, fn, "string longer than MPI_MAX_ERROR_STRING - 1");
  if (!set_user_error_string(errorcode, string))
    return raise_error(nullptr, MPI_ERR_ARG, fn,
                       "%d is not a user-defined error class or code (MPI_Add_error_class/_code)",
                       errorcode);
  return MPI_SUCCESS;
}
MPR_WEAK_ALIAS(Add_error_string);

namespace {

int remove_error(const char* fn, int code, std::string (*remove)(int)) {
  MPR_TRY(check_running(fn));
  std::string why = remove(code);
  if (!why.empty()) return raise_error(nullptr, MPI_ERR_ARG, fn, "%s", why.c_str());
  return MPI_SUCCESS;
}

}  // namespace

extern "C" int PMPI_Remove_error_class(int errorclass) {
  MPR_ENTRY;
  return remove_error("MPI_Remove_error_class", errorclass, remove_error_class);
}
MPR_WEAK_ALIAS(Remove_error_class);

extern "C" int PMPI_Remove_error_code(int errorcode) {
  MPR_ENTRY;
  return remove_error("MPI_Remove_error_code", errorcode, remove_error_code);
}
MPR_WEAK_ALIAS(Remove_error_code);

extern "C" int PMPI_Remove_error_string(int errorcode) {
  MPR_ENTRY;
  return remove_error("MPI_Remove_error_string", errorcode, remove_error_string);
}
MPR_WEAK_ALIAS(Remove_error_string);

extern "C" int PMPI_Pcontrol(const int level, ...) {
  MPR_ENTRY;
  // Profiling control is for tools that intercept MPI_Pcontrol; the library itself has no
  // profiling levels to switch.
  (void)level;
  return MPI_SUCCESS;
}
MPR_WEAK_ALIAS(Pcontrol);

#define MPR_HANDLE_CONVERSION(Name, Type)                                                   \
  extern "C" MPI_Fint PMPI_##Name##_c2f(Type h) { return to_fint(h); }                      \
  MPR_WEAK_ALIAS(Name##_c2f);                                                               \
  extern "C" Type PMPI_##Name##_f2c(MPI_Fint f) { return static_cast<Type>(from_fint(f)); } \
  MPR_WEAK_ALIAS(Name##_f2c)

MPR_HANDLE_CONVERSION(Comm, MPI_Comm);
MPR_HANDLE_CONVERSION(Group, MPI_Group);
MPR_HANDLE_CONVERSION(Type, MPI_Datatype);
MPR_HANDLE_CONVERSION(Request, MPI_Request);
MPR_HANDLE_CONVERSION(Op, MPI_Op);
MPR_HANDLE_CONVERSION(Info, MPI_Info);
MPR_HANDLE_CONVERSION(Errhandler, MPI_Errhandler);
MPR_HANDLE_CONVERSION(Message, MPI_Message);
MPR_HANDLE_CONVERSION(Win, MPI_Win);
MPR_HANDLE_CONVERSION(Session, MPI_Session);
MPR_HANDLE_CONVERSION(File, MPI_File);

static_assert(sizeof(MPI_Status) == MPI_F_STATUS_SIZE * sizeof(MPI_Fint));

extern "C" int PMPI_Status_c2f(const MPI_Status* c_status, MPI_Fint* f_status) {
  MPR_ENTRY;
  constexpr const char* fn = "MPI_Status_c2f";
  MPR_TRY(check_arg(fn, nullptr, c_status && f_status, "status is NULL"));
  std::memcpy(f_status, c_status, sizeof(MPI_Status));
  return MPI_SUCCESS;
}
MPR_WEAK_ALIAS(Status_c2f);

extern "C" int PMPI_Status_f2c(const MPI_Fint* f_status, MPI_Status* c_status) {
  MPR_ENTRY;
  constexpr const char* fn = "MPI_Status_f2c";
  MPR_TRY(check_arg(fn, nullptr, c_status && f_status, "status is NULL"));
  std::memcpy(c_status, f_status, sizeof(MPI_Status));
  return MPI_SUCCESS;
}
MPR_WEAK_ALIAS(Status_f2c);
