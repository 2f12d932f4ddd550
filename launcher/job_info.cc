#include "launcher/job_info.h"

#include <pmix.h>
#include <pmix_server.h>

#include <cstdlib>
#include <stdexcept>
#include <string>

namespace mpr::launch {

namespace {

void check(pmix_status_t rc, const char* what) {
  if (rc != PMIX_SUCCESS)
    throw std::runtime_error(std::string(what) + " failed: " + PMIx_Error_string(rc));
}

/// A PMIx info list under construction (the library's own list object).
class InfoList {
 public:
  InfoList() : list_(PMIx_Info_list_start()) {
    if (!list_) throw std::runtime_error("PMIx_Info_list_start failed");
  }
  ~InfoList() { PMIx_Info_list_release(list_); }
  InfoList(const InfoList&) = delete;
  InfoList& operator=(const InfoList&) = delete;

  void add(const char* key, const void* value, pmix_data_type_t type) {
    check(PMIx_Info_list_add(list_, key, value, type), "PMIx_Info_list_add");
  }
  void convert(pmix_data_array_t* out) {
    check(PMIx_Info_list_convert(list_, out), "PMIx_Info_list_convert");
  }

 private:
  void* list_;
};

/// Output of a PMIx map generator. Kept as the library's buffer: a "blob:" form holds NULs, so
/// it must reach PMIx_Info_list_add uncopied.
class GeneratedMap {
 public:
  GeneratedMap(pmix_status_t (*gen)(const char*, char**), const std::string& input,
               const char* what) {
    check(gen(input.c_str(), &text_), what);
  }
  ~GeneratedMap() { std::free(text_); }
  GeneratedMap(const GeneratedMap&) = delete;
  GeneratedMap& operator=(const GeneratedMap&) = delete;
  const char* get() const { return text_; }

 private:
  char* text_ = nullptr;
};

void add_rank_data(InfoList* job, const JobLayout& layout, int rank) {
  pmix_rank_t r = static_cast<pmix_rank_t>(rank);
  // All ranks are on this node, so local, node and global ranks coincide.
  uint16_t local = static_cast<uint16_t>(rank);
  uint32_t nodeid = 0, appnum = 0;
  InfoList proc;
  proc.add(PMIX_RANK, &r, PMIX_PROC_RANK);  // must be first: libpmix keys the array by it
  proc.add(PMIX_LOCAL_RANK, &local, PMIX_UINT16);
  proc.add(PMIX_NODE_RANK, &local, PMIX_UINT16);
  proc.add(PMIX_GLOBAL_RANK, &r, PMIX_PROC_RANK);
  proc.add(PMIX_HOSTNAME, layout.hostname.c_str(), PMIX_STRING);
  proc.add(PMIX_NODEID, &nodeid, PMIX_UINT32);
  proc.add(PMIX_APPNUM, &appnum, PMIX_UINT32);
  InfoArray array;
  proc.convert(array.raw());
  job->add(PMIX_PROC_DATA, array.raw(), PMIX_DATA_ARRAY);
}

}  // namespace

void build_job_info(const JobLayout& layout, InfoArray* out) {
  uint32_t n = static_cast<uint32_t>(layout.nprocs);
  uint32_t one = 1, slots = static_cast<uint32_t>(layout.cpus);
  pmix_rank_t leader = 0;
  bool no = false, oversubscribed = layout.nprocs > layout.cpus;
  std::string peers;
  for (int r = 0; r < layout.nprocs; ++r) peers += (r ? "," : "") + std::to_string(r);

  InfoList job;
  job.add(PMIX_JOBID, layout.nspace.c_str(), PMIX_STRING);
  job.add(PMIX_JOB_SIZE, &n, PMIX_UINT32);
  job.add(PMIX_UNIV_SIZE, &n, PMIX_UINT32);
  job.add(PMIX_MAX_PROCS, &n, PMIX_UINT32);
  job.add(PMIX_SPAWNED, &no, PMIX_BOOL);
  job.add(PMIX_JOB_NUM_APPS, &one, PMIX_UINT32);
  job.add(PMIX_NUM_NODES, &one, PMIX_UINT32);
  job.add(PMIX_LOCAL_SIZE, &n, PMIX_UINT32);
  job.add(PMIX_NODE_SIZE, &n, PMIX_UINT32);
  job.add(PMIX_LOCAL_PEERS, peers.c_str(), PMIX_STRING);
  job.add(PMIX_LOCALLDR, &leader, PMIX_PROC_RANK);
  job.add(PMIX_NUM_SLOTS, &slots, PMIX_UINT32);
  // Lets the runtime yield the CPU sooner in wait loops when ranks outnumber cores.
  job.add(PMIX_NODE_OVERSUBSCRIBED, &oversubscribed, PMIX_BOOL);
  // PMIX_REGEX rather than PMIX_STRING: the generators may return a binary "blob:" form.
  GeneratedMap node_map(PMIx_generate_regex, layout.hostname, "PMIx_generate_regex");
  GeneratedMap proc_map(PMIx_generate_ppn, peers, "PMIx_generate_ppn");
  job.add(PMIX_NODE_MAP, node_map.get(), PMIX_REGEX);
  job.add(PMIX_PROC_MAP, proc_map.get(), PMIX_REGEX);
  for (int r = 0; r < layout.nprocs; ++r) add_rank_data(&job, layout, r);
  job.convert(out->raw());
}

}  // namespace mpr::launch
