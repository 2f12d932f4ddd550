// The job, node and per-rank data a single-node job registers with PMIx_server_register_nspace.
#pragma once

#include <pmix_common.h>

#include "launcher/pmix_server.h"

namespace mpr::launch {

/// An owned pmix_info_t array; released with the library's own destructor.
class InfoArray {
 public:
  InfoArray() = default;
  ~InfoArray() {
    if (array_.array) PMIx_Data_array_destruct(&array_);
  }
  InfoArray(const InfoArray&) = delete;
  InfoArray& operator=(const InfoArray&) = delete;

  pmix_info_t* data() { return static_cast<pmix_info_t*>(array_.array); }
  size_t size() const { return array_.size; }
  pmix_data_array_t* raw() { return &array_; }

 private:
  pmix_data_array_t array_{PMIX_INFO, 0, nullptr};
};

/// Fills `out` with what libpmix 4.2.2 clients need to see sizes, locality and per-rank data:
/// JOB_SIZE without per-rank data makes every client's PMIx_Init fail, and PROC_DATA arrays
/// must start with PMIX_RANK. Throws std::runtime_error naming the failed PMIx call. `started`
/// counts the processes of the same mprun already running (the parents of a spawned job).
void build_job_info(const JobLayout& layout, InfoArray* out, int started = 0);

}  // namespace mpr::launch
