// Info objects: MPI_Info_* and MPI_INFO_ENV, usable before MPI_Init and after MPI_Finalize as
// MPI-4 allows (they need no library state; errors then go to the initial error handler,
// MPI_ERRORS_ARE_FATAL), and MPI_Get_hw_resource_info.
#include <sched.h>
#include <unistd.h>

#include <cstring>
#include <string>

#include "runtime/api/handles.h"
#include "runtime/core/info.h"

using namespace mpr::runtime;
using namespace mpr::runtime::api;

namespace {

int check_key(const char* fn, const char* key) {
  if (!key) return raise_error(nullptr, MPI_ERR_INFO_KEY, fn, "key is NULL");
  size_t n = strnlen(key, MPI_MAX_INFO_KEY + 1);
  if (n == 0) return raise_error(nullptr, MPI_ERR_INFO_KEY, fn, "empty key");
  if (n > MPI_MAX_INFO_KEY)
    return raise_error(nullptr, MPI_ERR_INFO_KEY, fn, "key longer than MPI_MAX_INFO_KEY (%d)",
                       MPI_MAX_INFO_KEY);
  return MPI_SUCCESS;
}

int writable(const char* fn, MPI_Info h) {
  if (h != MPI_INFO_ENV) return MPI_SUCCESS;
  return raise_error(nullptr, MPI_ERR_INFO, fn, "MPI_INFO_ENV is read-only");
}

// Copy at most `room` bytes of `s` (plus a terminating NUL within them when room > 0).
void copy_out(const std::string& s, char* out, size_t room) {
  if (room == 0) return;
  size_t n = s.size() < room - 1 ? s.size() : room - 1;
  std::memcpy(out, s.data(), n);
  out[n] = '\0';
}

}  // namespace

extern "C" int PMPI_Info_create(MPI_Info* info) {
  MPR_ENTRY;
  constexpr const char* fn = "MPI_Info_create";
  MPR_TRY(check_arg(fn, nullptr, info, "info is NULL"));
  *info = (new Info)->handle();
  return MPI_SUCCESS;
}
MPR_WEAK_ALIAS(Info_create);

extern "C" int PMPI_Info_create_env(int argc, char* argv[], MPI_Info* info) {
  MPR_ENTRY;
  constexpr const char* fn = "MPI_Info_create_env";
  (void)argc;
  (void)argv;
  MPR_TRY(check_arg(fn, nullptr, info, "info is NULL"));
  auto* copy = new Info;
  for (const auto& [k, v] : info_env()->entries()) copy->set(k, v);
  *info = copy->handle();
  return MPI_SUCCESS;
}
MPR_WEAK_ALIAS(Info_create_env);

extern "C" int PMPI_Info_set(MPI_Info h, const char* key, const char* value) {
  MPR_ENTRY;
  constexpr const char* fn = "MPI_Info_set";
  Info* info;
  MPR_TRY(check_info(fn, nullptr, h, false, &info));
  MPR_TRY(writable(fn, h));
  MPR_TRY(check_key(fn, key));
  if (!value) return raise_error(nullptr, MPI_ERR_INFO_VALUE, fn, "value is NULL");
  if (strnlen(value, MPI_MAX_INFO_VAL + 1) > MPI_MAX_INFO_VAL)
    return raise_error(nullptr, MPI_ERR_INFO_VALUE, fn,
                       "value of key \"%s\" longer than MPI_MAX_INFO_VAL (%d)", key,
                       MPI_MAX_INFO_VAL);
  info->set(key, value);
  return MPI_SUCCESS;
}
MPR_WEAK_ALIAS(Info_set);

extern "C" int PMPI_Info_get(MPI_Info h, const char* key, int valuelen, char* value, int* flag) {
  MPR_ENTRY;
  constexpr const char* fn = "MPI_Info_get";
  Info* info;
  MPR_TRY(check_info(fn, nullptr, h, false, &info));
  MPR_TRY(check_key(fn, key));
  MPR_TRY(check_arg(fn, nullptr, flag && value && valuelen >= 0,
                    "value or flag is NULL, or valuelen is negative"));
  const std::string* v = info->get(key);
  *flag = v != nullptr;
  // valuelen does not count the terminating NUL (MPI's convention for MPI_Info_get).
  if (v) copy_out(*v, value, static_cast<size_t>(valuelen) + 1);
  return MPI_SUCCESS;
}
MPR_WEAK_ALIAS(Info_get);

extern "C" int PMPI_Info_get_valuelen(MPI_Info h, const char* key, int* valuelen, int* flag) {
  MPR_ENTRY;
  constexpr const char* fn = "MPI_Info_get_valuelen";
  Info* info;
  MPR_TRY(check_info(fn, nullptr, h, false, &info));
  MPR_TRY(check_key(fn, key));
  MPR_TRY(check_arg(fn, nullptr, valuelen && flag, "valuelen or flag is NULL"));
  const std::string* v = info->get(key);
  *flag = v != nullptr;
  if (v) *valuelen = static_cast<int>(v->size());
  return MPI_SUCCESS;
}
MPR_WEAK_ALIAS(Info_get_valuelen);

extern "C" int PMPI_Info_get_string(MPI_Info h, const char* key, int* buflen, char* value,
                                    int* flag) {
  MPR_ENTRY;
  constexpr const char* fn = "MPI_Info_get_string";
  Info* info;
  MPR_TRY(check_info(fn, nullptr, h, false, &info));
  MPR_TRY(check_key(fn, key));
  MPR_TRY(check_arg(fn, nullptr, buflen && flag && *buflen >= 0,
                    "buflen or flag is NULL, or *buflen is negative"));
  const std::string* v = info->get(key);
  *flag = v != nullptr;
  if (!v) return MPI_SUCCESS;
  // *buflen in: room including the NUL; out: the size needed including the NUL.
  if (*buflen > 0) {
    MPR_TRY(check_arg(fn, nullptr, value, "value is NULL"));
    copy_out(*v, value, static_cast<size_t>(*buflen));
  }
  *buflen = static_cast<int>(v->size()) + 1;
  return MPI_SUCCESS;
}
MPR_WEAK_ALIAS(Info_get_string);

extern "C" int PMPI_Info_get_nkeys(MPI_Info h, int* nkeys) {
  MPR_ENTRY;
  constexpr const char* fn = "MPI_Info_get_nkeys";
  Info* info;
  MPR_TRY(check_info(fn, nullptr, h, false, &info));
  MPR_TRY(check_arg(fn, nullptr, nkeys, "nkeys is NULL"));
  *nkeys = info->nkeys();
  return MPI_SUCCESS;
}
MPR_WEAK_ALIAS(Info_get_nkeys);

extern "C" int PMPI_Info_get_nthkey(MPI_Info h, int n, char* key) {
  MPR_ENTRY;
  constexpr const char* fn = "MPI_Info_get_nthkey";
  Info* info;
  MPR_TRY(check_info(fn, nullptr, h, false, &info));
  MPR_TRY(check_arg(fn, nullptr, key, "key is NULL"));
  if (n < 0 || n >= info->nkeys())
    return raise_error(nullptr, MPI_ERR_ARG, fn, "n = %d is not in 0..%d", n, info->nkeys() - 1);
  copy_out(info->key(n), key, MPI_MAX_INFO_KEY + 1);
  return MPI_SUCCESS;
}
MPR_WEAK_ALIAS(Info_get_nthkey);

extern "C" int PMPI_Info_delete(MPI_Info h, const char* key) {
  MPR_ENTRY;
  constexpr const char* fn = "MPI_Info_delete";
  Info* info;
  MPR_TRY(check_info(fn, nullptr, h, false, &info));
  MPR_TRY(writable(fn, h));
  MPR_TRY(check_key(fn, key));
  if (!info->erase(key))
    return raise_error(nullptr, MPI_ERR_INFO_NOKEY, fn, "key \"%s\" is not set", key);
  return MPI_SUCCESS;
}
MPR_WEAK_ALIAS(Info_delete);

extern "C" int PMPI_Info_dup(MPI_Info h, MPI_Info* newinfo) {
  MPR_ENTRY;
  constexpr const char* fn = "MPI_Info_dup";
  Info* info;
  MPR_TRY(check_info(fn, nullptr, h, false, &info));
  MPR_TRY(check_arg(fn, nullptr, newinfo, "newinfo is NULL"));
  auto* copy = new Info;
  for (const auto& [k, v] : info->entries()) copy->set(k, v);
  *newinfo = copy->handle();
  return MPI_SUCCESS;
}
MPR_WEAK_ALIAS(Info_dup);

extern "C" int PMPI_Info_free(MPI_Info* h) {
  MPR_ENTRY;
  constexpr const char* fn = "MPI_Info_free";
  Info* info;
  MPR_TRY(check_arg(fn, nullptr, h, "info is NULL"));
  MPR_TRY(check_info(fn, nullptr, *h, false, &info));
  MPR_TRY(writable(fn, *h));
  delete info;
  *h = MPI_INFO_NULL;
  return MPI_SUCCESS;
}
MPR_WEAK_ALIAS(Info_free);

namespace {

// "0-3,8,10-11": the CPUs in `set`.
std::string cpu_list(const cpu_set_t& set) {
  std::string out;
  for (int c = 0; c < CPU_SETSIZE; ++c) {
    if (!CPU_ISSET(c, &set)) continue;
    int last = c;
    while (last + 1 < CPU_SETSIZE && CPU_ISSET(last + 1, &set)) ++last;
    if (!out.empty()) out += ',';
    out += std::to_string(c);
    if (last > c) out += '-' + std::to_string(last);
    c = last;
  }
  return out;
}

}  // namespace

// The hardware this process runs on, now: the resource type MPI_COMM_TYPE_HW_GUIDED accepts
// (mpi_hw_resource_type), the host, and the CPUs the process may run on (its binding).
extern "C" int PMPI_Get_hw_resource_info(MPI_Info* hw_info) {
  MPR_ENTRY;
  constexpr const char* fn = "MPI_Get_hw_resource_info";
  MPR_TRY(check_arg(fn, nullptr, hw_info, "hw_info is NULL"));
  auto* info = new Info;
  info->set("mpi_hw_resource_type", "mpi_shared_memory");
  char host[256] = {};
  if (gethostname(host, sizeof host - 1) == 0) info->set("mpr_hostname", host);
  cpu_set_t set;
  CPU_ZERO(&set);
  if (sched_getaffinity(0, sizeof set, &set) == 0) {
    info->set("mpr_cpus", cpu_list(set));
    info->set("mpr_num_cpus", std::to_string(CPU_COUNT(&set)));
  }
  *hw_info = info->handle();
  return MPI_SUCCESS;
}
MPR_WEAK_ALIAS(Get_hw_resource_info);
