// A PMIx client for mprun's tests: it exercises what the MPI runtime does at startup (init,
// put, commit, fence, get of every peer) and can fail on purpose in the ways mprun must handle.
//
//   mprun_test_client modex            every rank exchanges a key with every other; prints
//                                      "rank R of N: modex ok ..." and exits 0
//   mprun_test_client abort R CODE     rank R calls PMIx_Abort(CODE); the others wait in a fence
//   mprun_test_client crash R          rank R kills itself with SIGKILL after PMIx_Init
//   mprun_test_client exit R CODE      rank R exits CODE after PMIx_Init without finalizing
//   mprun_test_client nofinalize R     rank R exits 0 after PMIx_Init without finalizing
//   mprun_test_client info             prints the job keys a rank sees, then finalizes
//   mprun_test_client affinity         prints "rank R affinity L cpuset C locality S
//                                      oversubscribed B" (L from sched_getaffinity, the rest
//                                      from PMIx), then finalizes
//   mprun_test_client hang             every rank connects, then sleeps until killed
//   mprun_test_client startup R WHAT   like MPI_Init: tell mprun about the startup fence, then
//                                      fence; rank R instead never connects (WHAT=noconnect)
//                                      or connects but never fences (WHAT=nofence)
//   mprun_test_client oom R            rank R allocates memory until the kernel kills it
#include <pmix.h>
#include <sched.h>
#include <signal.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "common/launch_keys.h"

#if defined(__SANITIZE_ADDRESS__)
// libpmix keeps allocations until exit by design; only leaks of this program matter.
extern "C" __attribute__((visibility("default"))) const char* __lsan_default_suppressions() {
  return "leak:libpmix.so\nleak:libevent\n";
}
extern "C" __attribute__((visibility("default"))) const char* __lsan_default_options() {
  return "print_suppressions=0";
}
#endif

namespace {

pmix_proc_t g_self;

[[noreturn]] void die(const char* call, pmix_status_t rc) {
  std::fprintf(stderr, "test client rank %u: %s failed: %s\n", g_self.rank, call,
               PMIx_Error_string(rc));
  std::exit(2);
}

pmix_value_t* get(pmix_rank_t rank, const char* key) {
  pmix_proc_t who;
  PMIX_LOAD_PROCID(&who, g_self.nspace, rank);
  pmix_value_t* val = nullptr;
  pmix_status_t rc = PMIx_Get(&who, key, nullptr, 0, &val);
  if (rc != PMIX_SUCCESS) die(key, rc);
  return val;
}

uint32_t get_u32(pmix_rank_t rank, const char* key) {
  pmix_value_t* v = get(rank, key);
  uint32_t out = v->type == PMIX_UINT32 ? v->data.uint32 : 0;
  PMIX_VALUE_RELEASE(v);
  return out;
}

std::string get_string(pmix_rank_t rank, const char* key) {
  pmix_value_t* v = get(rank, key);
  std::string out = v->type == PMIX_STRING && v->data.string ? v->data.string : "?";
  PMIX_VALUE_RELEASE(v);
  return out;
}

void fence() {
  pmix_proc_t all;
  PMIX_LOAD_PROCID(&all, g_self.nspace, PMIX_RANK_WILDCARD);
  pmix_info_t info;
  bool collect = true;
  PMIX_INFO_LOAD(&info, PMIX_COLLECT_DATA, &collect, PMIX_BOOL);
  pmix_status_t rc = PMIx_Fence(&all, 1, &info, 1);
  PMIX_INFO_DESTRUCT(&info);
  if (rc != PMIX_SUCCESS) die("PMIx_Fence", rc);
}

void finalize() {
  pmix_status_t rc = PMIx_Finalize(nullptr, 0);
  if (rc != PMIX_SUCCESS) die("PMIx_Finalize", rc);
}

int modex() {
  uint32_t size = get_u32(PMIX_RANK_WILDCARD, PMIX_JOB_SIZE);
  std::string mine = "endpoint-of-" + std::to_string(g_self.rank);
  pmix_value_t v;
  PMIX_VALUE_LOAD(&v, mine.c_str(), PMIX_STRING);
  pmix_status_t rc = PMIx_Put(PMIX_GLOBAL, "mprun.test.ep", &v);
  PMIX_VALUE_DESTRUCT(&v);
  if (rc != PMIX_SUCCESS) die("PMIx_Put", rc);
  if ((rc = PMIx_Commit()) != PMIX_SUCCESS) die("PMIx_Commit", rc);
  fence();
  for (uint32_t r = 0; r < size; ++r) {
    std::string want = "endpoint-of-" + std::to_string(r);
    std::string got = get_string(r, "mprun.test.ep");
    if (got != want) {
      std::fprintf(stderr, "rank %u: peer %u published '%s', expected '%s'\n", g_self.rank, r,
                   got.c_str(), want.c_str());
      return 3;
    }
  }
  uint32_t local_size = get_u32(PMIX_RANK_WILDCARD, PMIX_LOCAL_SIZE);
  std::printf("rank %u of %u: modex ok (local_size %u)\n", g_self.rank, size, local_size);
  finalize();
  return 0;
}

int info() {
  pmix_value_t* v = get(PMIX_RANK_WILDCARD, PMIX_NODE_OVERSUBSCRIBED);
  bool oversubscribed = v->type == PMIX_BOOL && v->data.flag;
  PMIX_VALUE_RELEASE(v);
  v = get(g_self.rank, PMIX_LOCAL_RANK);
  unsigned local_rank = v->type == PMIX_UINT16 ? v->data.uint16 : 99999;
  PMIX_VALUE_RELEASE(v);
  std::printf(
      "rank=%u nspace=%s job_size=%u local_size=%u local_rank=%u local_peers=%s "
      "hostname=%s oversubscribed=%d\n",
      g_self.rank, g_self.nspace, get_u32(PMIX_RANK_WILDCARD, PMIX_JOB_SIZE),
      get_u32(PMIX_RANK_WILDCARD, PMIX_LOCAL_SIZE), local_rank,
      get_string(PMIX_RANK_WILDCARD, PMIX_LOCAL_PEERS).c_str(),
      get_string(g_self.rank, PMIX_HOSTNAME).c_str(), oversubscribed ? 1 : 0);
  finalize();
  return 0;
}

// "0-1,3": the CPUs this process may run on, as the kernel reports them.
std::string affinity_list() {
  cpu_set_t set;
  CPU_ZERO(&set);
  if (sched_getaffinity(0, sizeof set, &set) != 0) return "?";
  std::string out;
  for (int c = 0; c < CPU_SETSIZE;) {
    if (!CPU_ISSET(c, &set)) {
      ++c;
      continue;
    }
    int end = c;
    while (end + 1 < CPU_SETSIZE && CPU_ISSET(end + 1, &set)) ++end;
    if (!out.empty()) out += ',';
    out += std::to_string(c) + (end > c ? "-" + std::to_string(end) : "");
    c = end + 1;
  }
  return out;
}

std::string optional_string(pmix_rank_t rank, const char* key) {
  pmix_proc_t who;
  PMIX_LOAD_PROCID(&who, g_self.nspace, rank);
  pmix_value_t* v = nullptr;
  if (PMIx_Get(&who, key, nullptr, 0, &v) != PMIX_SUCCESS || !v) return "none";
  std::string out = v->type == PMIX_STRING && v->data.string ? v->data.string : "?";
  PMIX_VALUE_RELEASE(v);
  return out.empty() ? "empty" : out;
}

int affinity() {
  pmix_value_t* v = get(PMIX_RANK_WILDCARD, mpr::common::kKeyOversubscribed);
  bool oversubscribed = v->type == PMIX_BOOL && v->data.flag;
  PMIX_VALUE_RELEASE(v);
  std::printf("rank %u affinity %s cpuset %s locality %s oversubscribed %d\n", g_self.rank,
              affinity_list().c_str(), optional_string(g_self.rank, PMIX_CPUSET).c_str(),
              optional_string(g_self.rank, PMIX_LOCALITY_STRING).c_str(), oversubscribed ? 1 : 0);
  finalize();
  return 0;
}

// What MPR's runtime does in MPI_Init: announce the startup fence to mprun, then fence.
void startup_fence() {
  pmix_info_t info;
  bool yes = true;
  PMIX_INFO_LOAD(&info, PMIX_EVENT_NON_DEFAULT, &yes, PMIX_BOOL);
  PMIx_Notify_event(mpr::common::kEventStartupFence, &g_self, PMIX_RANGE_RM, &info, 1, nullptr,
                    nullptr);
  PMIX_INFO_DESTRUCT(&info);
  fence();
}

[[noreturn]] void sleep_forever() {
  for (;;) pause();
}

[[noreturn]] void eat_memory() {
  std::vector<char*> blocks;
  for (;;) {
    char* p = static_cast<char*>(std::malloc(16 << 20));
    if (!p) continue;
    std::memset(p, 1, 16 << 20);  // touched, so it is really charged to the cgroup
    blocks.push_back(p);
  }
}

}  // namespace

int main(int argc, char** argv) {
  setvbuf(stdout, nullptr, _IOLBF, 0);
  if (argc < 2) {
    std::fprintf(stderr,
                 "usage: %s modex|abort R CODE|crash R|exit R CODE|nofinalize R|info|affinity|"
                 "hang|startup R noconnect|nofence|oom R\n",
                 argv[0]);
    return 64;
  }
  std::string mode = argv[1];
  long target = argc > 2 ? std::strtol(argv[2], nullptr, 10) : 0;
  const char* rank_env = std::getenv("PMIX_RANK");
  bool is_target = rank_env && std::strtol(rank_env, nullptr, 10) == target;
  if (mode == "startup" && is_target && argc > 3 && std::strcmp(argv[3], "noconnect") == 0)
    sleep_forever();
  pmix_status_t rc = PMIx_Init(&g_self, nullptr, 0);
  if (rc != PMIX_SUCCESS) {
    std::fprintf(stderr, "test client pid %d: PMIx_Init failed: %s\n", static_cast<int>(getpid()),
                 PMIx_Error_string(rc));
    return 2;
  }
  if (mode == "modex") return modex();
  if (mode == "info") return info();
  if (mode == "affinity") return affinity();
  if (mode == "hang") sleep_forever();
  if (mode == "startup") {
    if (is_target) sleep_forever();
    startup_fence();
    finalize();
    return 0;
  }

  int code = argc > 3 ? std::atoi(argv[3]) : 0;
  if (static_cast<long>(g_self.rank) == target) {
    if (mode == "abort") {
      PMIx_Abort(code, "on MPI_COMM_WORLD", nullptr, 0);
      return code;
    }
    if (mode == "crash") raise(SIGKILL);
    if (mode == "exit") return code;
    if (mode == "nofinalize") return 0;
    if (mode == "oom") eat_memory();
    std::fprintf(stderr, "unknown mode %s\n", mode.c_str());
    return 64;
  }
  // The other ranks wait for the failing one, as MPI ranks would in a collective.
  fence();
  finalize();
  return 0;
}
