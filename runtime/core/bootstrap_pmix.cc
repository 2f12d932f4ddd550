// The PMIx client behind MPI_Init: identity and locality from the launcher's job data, the
// endpoint exchange through PMIx_Put / PMIx_Fence(collect) / PMIx_Get.
#include <pmix.h>
#include <unistd.h>

#include <atomic>
#include <cstdlib>
#include <cstring>
#include <sstream>
#include <stdexcept>

#include "common/launch_keys.h"
#include "common/wait.h"
#include "runtime/core/bootstrap.h"

extern char** environ;

namespace mpr::runtime {

namespace {

std::string status_text(pmix_status_t rc) {
  return std::string(PMIx_Error_string(rc)) + " (" + std::to_string(rc) + ")";
}

// Read an integer-valued key whatever integer type the server stored it as.
bool value_to_int(const pmix_value_t* v, int64_t* out) {
  switch (v->type) {
    case PMIX_UINT32:
      *out = v->data.uint32;
      return true;
    case PMIX_UINT16:
      *out = v->data.uint16;
      return true;
    case PMIX_INT:
      *out = v->data.integer;
      return true;
    case PMIX_UINT:
      *out = v->data.uint;
      return true;
    case PMIX_PROC_RANK:
      *out = v->data.rank;
      return true;
    case PMIX_INT32:
      *out = v->data.int32;
      return true;
    case PMIX_UINT64:
      *out = static_cast<int64_t>(v->data.uint64);
      return true;
    default:
      return false;
  }
}

JobBootstrap::NameResult name_result(pmix_status_t rc, std::string* detail) {
  using R = JobBootstrap::NameResult;
  switch (rc) {
    case PMIX_SUCCESS:
      return R::kOk;
    case PMIX_ERR_DUPLICATE_KEY:
    case PMIX_ERR_EXISTS:
      return R::kExists;
    case PMIX_ERR_NOT_FOUND:
      return R::kNotFound;
    default:
      *detail = "the PMIx server answered " + status_text(rc);
      return R::kUnavailable;
  }
}

class PmixBootstrap final : public JobBootstrap {
 public:
  PmixBootstrap() {
    pmix_status_t rc = PMIx_Init(&me_, nullptr, 0);
    if (rc != PMIX_SUCCESS) {
      std::string seen;
      launcher_detected(&seen);
      throw std::runtime_error("started by a launcher (" + seen +
                               ") but PMIx_Init failed: " + status_text(rc));
    }
    initialized_ = true;
    PMIX_LOAD_PROCID(&wildcard_, me_.nspace, PMIX_RANK_WILDCARD);
    job_id_ = me_.nspace;
    rank_ = static_cast<int>(me_.rank);
    size_ = static_cast<int>(required_int(&wildcard_, PMIX_JOB_SIZE));
    local_rank_ = static_cast<int>(required_int(&me_, PMIX_LOCAL_RANK));
    read_local_peers();
    int64_t v = 0;
    // Some servers report the slot count, which an oversubscribed job exceeds.
    universe_size_ = optional_int(&wildcard_, PMIX_UNIV_SIZE, &v) ? static_cast<int>(v) : size_;
    if (universe_size_ < size_) universe_size_ = size_;
    appnum_ = optional_int(&me_, PMIX_APPNUM, &v) ? static_cast<int>(v) : 0;
    pmix_value_t* val = nullptr;
    if (PMIx_Get(&me_, PMIX_HOSTNAME, nullptr, 0, &val) == PMIX_SUCCESS && val &&
        val->type == PMIX_STRING && val->data.string)
      hostname_ = val->data.string;
    if (val) PMIX_VALUE_RELEASE(val);
    if (hostname_.empty()) {
      char name[256] = {};
      gethostname(name, sizeof name - 1);
      hostname_ = name;
    }
    // The launcher knows how many ranks share this node's CPUs; our own affinity does not
    // tell (a rank bound to one core sees one CPU however many peers have their own). Without
    // its word (another PMIx server), the local peers against the CPUs this process may use.
    bool flag = false;
    if (optional_bool(common::kKeyOversubscribed, &flag) ||
        optional_bool(PMIX_NODE_OVERSUBSCRIBED, &flag))
      oversubscribed_ = flag;
    else
      oversubscribed_ =
          common::oversubscribed(static_cast<long>(local_peers_.size()), common::affinity_cpus());
    optional_bool(common::kKeyStartupWatch, &startup_watch_);
  }

  // No PMIx_Finalize here: a process that returns from main without MPI_Finalize must look
  // unfinalized to the launcher (its PMIx connection just drops), so the job is ended as an
  // error instead of leaving the other ranks waiting for it.
  ~PmixBootstrap() override = default;

  int rank() const override { return rank_; }
  int size() const override { return size_; }
  const std::vector<int>& local_peers() const override { return local_peers_; }
  int local_rank() const override { return local_rank_; }
  const std::string& job_id() const override { return job_id_; }
  bool oversubscribed() const override { return oversubscribed_; }
  int universe_size() const override { return universe_size_; }
  int appnum() const override { return appnum_; }
  const std::string& hostname() const override { return hostname_; }

  void put(const std::string& key, const std::vector<uint8_t>& value) override {
    pmix_value_t v;
    PMIX_VALUE_CONSTRUCT(&v);
    v.type = PMIX_BYTE_OBJECT;
    // PMIx_Put copies the value; the pointer is only borrowed for the call.
    v.data.bo.bytes = reinterpret_cast<char*>(const_cast<uint8_t*>(value.data()));
    v.data.bo.size = value.size();
    pmix_status_t rc = PMIx_Put(PMIX_GLOBAL, key.c_str(), &v);
    if (rc != PMIX_SUCCESS)
      throw std::runtime_error("PMIx_Put(" + key + ") failed: " + status_text(rc));
  }

  void fence() override {
    if (startup_watch_) {
      // mprun names the ranks that never reached MPI_Init's fence when startup times out.
      startup_watch_ = false;
      pmix_info_t info;
      bool non_default = true;
      PMIX_INFO_LOAD(&info, PMIX_EVENT_NON_DEFAULT, &non_default, PMIX_BOOL);
      PMIx_Notify_event(common::kEventStartupFence, &me_, PMIX_RANGE_RM, &info, 1, nullptr,
                        nullptr);
      PMIX_INFO_DESTRUCT(&info);
    }
    pmix_status_t rc = PMIx_Commit();
    if (rc != PMIX_SUCCESS) throw std::runtime_error("PMIx_Commit failed: " + status_text(rc));
    pmix_info_t info;
    bool collect = true;
    PMIX_INFO_LOAD(&info, PMIX_COLLECT_DATA, &collect, PMIX_BOOL);
    rc = PMIx_Fence(&wildcard_, 1, &info, 1);
    PMIX_INFO_DESTRUCT(&info);
    if (rc != PMIX_SUCCESS)
      throw std::runtime_error("PMIx_Fence failed: " + status_text(rc) +
                               " (a rank of the job may have died)");
  }

  void fence_while(const std::function<bool()>& poll) override {
    struct Done {
      std::atomic<bool> flag{false};
      pmix_status_t status = PMIX_SUCCESS;
    } done;
    auto cb = [](pmix_status_t status, void* cbdata) {
      auto* d = static_cast<Done*>(cbdata);
      d->status = status;
      d->flag.store(true, std::memory_order_release);
    };
    pmix_status_t rc = PMIx_Fence_nb(&wildcard_, 1, nullptr, 0, cb, &done);
    if (rc != PMIX_SUCCESS) throw std::runtime_error("PMIx_Fence_nb failed: " + status_text(rc));
    while (!done.flag.load(std::memory_order_acquire)) poll();
    if (done.status != PMIX_SUCCESS)
      throw std::runtime_error("PMIx_Fence failed: " + status_text(done.status) +
                               " (a rank of the job may have died)");
  }

  bool get_job(int rank, const std::string& key, std::vector<uint8_t>* value) override {
    pmix_proc_t peer;
    PMIX_LOAD_PROCID(&peer, me_.nspace, static_cast<pmix_rank_t>(rank));
    pmix_value_t* val = nullptr;
    pmix_status_t rc = PMIx_Get(&peer, key.c_str(), nullptr, 0, &val);
    if (rc == PMIX_ERR_NOT_FOUND) return false;
    if (rc != PMIX_SUCCESS)
      throw std::runtime_error("PMIx_Get(" + key + " of rank " + std::to_string(rank) +
                               ") failed: " + status_text(rc));
    bool ok = val->type == PMIX_BYTE_OBJECT;
    if (ok) value->assign(val->data.bo.bytes, val->data.bo.bytes + val->data.bo.size);
    PMIX_VALUE_RELEASE(val);
    if (!ok)
      throw std::runtime_error("PMIx_Get(" + key + " of rank " + std::to_string(rank) +
                               ") returned a value that is not a byte object");
    return true;
  }

  void abort(int code, const std::string& msg) override {
    if (initialized_) PMIx_Abort(code, msg.c_str(), nullptr, 0);
  }

  void finalize() override {
    if (!initialized_) return;
    initialized_ = false;
    PMIx_Finalize(nullptr, 0);
  }

  NameResult publish_name(const std::string& service, const std::string& port,
                          std::string* detail) override {
    const std::string key = service_key(service);
    pmix_info_t info;
    PMIX_INFO_CONSTRUCT(&info);
    PMIX_INFO_LOAD(&info, key.c_str(), port.c_str(), PMIX_STRING);
    pmix_status_t rc = PMIx_Publish(&info, 1);
    PMIX_INFO_DESTRUCT(&info);
    return name_result(rc, detail);
  }

  NameResult lookup_name(const std::string& service, std::string* port,
                         std::string* detail) override {
    const std::string key = service_key(service);
    pmix_pdata_t pd;
    PMIX_PDATA_CONSTRUCT(&pd);
    PMIX_LOAD_KEY(pd.key, key.c_str());
    pmix_status_t rc = PMIx_Lookup(&pd, 1, nullptr, 0);
    if (rc == PMIX_SUCCESS) {
      if (pd.value.type == PMIX_STRING && pd.value.data.string)
        *port = pd.value.data.string;
      else
        rc = PMIX_ERR_NOT_FOUND;
    }
    PMIX_PDATA_DESTRUCT(&pd);
    return name_result(rc, detail);
  }

  NameResult unpublish_name(const std::string& service, std::string* detail) override {
    std::string key = service_key(service);
    char* keys[] = {key.data(), nullptr};
    return name_result(PMIx_Unpublish(keys, nullptr, 0), detail);
  }

  bool spawn(const std::vector<SpawnApp>& apps, std::string* job_id, std::string* detail) override {
    pmix_app_t* papps = nullptr;
    PMIX_APP_CREATE(papps, apps.size());
    for (size_t i = 0; i < apps.size(); ++i) {
      const SpawnApp& a = apps[i];
      pmix_app_t& p = papps[i];
      p.cmd = strdup(a.command.c_str());
      (void)pmix_argv_append_nosize(&p.argv, a.command.c_str());
      for (const std::string& arg : a.argv) (void)pmix_argv_append_nosize(&p.argv, arg.c_str());
      for (const std::string& e : a.env) (void)pmix_argv_append_nosize(&p.env, e.c_str());
      if (!a.wdir.empty()) p.cwd = strdup(a.wdir.c_str());
      p.maxprocs = a.maxprocs;
      if (!a.path.empty()) {
        PMIX_APP_INFO_CREATE(&p, 1);
        PMIX_INFO_LOAD(&p.info[0], common::kKeySpawnPath, a.path.c_str(), PMIX_STRING);
      }
    }
    pmix_nspace_t nspace;
    std::memset(nspace, 0, sizeof nspace);
    pmix_status_t rc = PMIx_Spawn(nullptr, 0, papps, apps.size(), nspace);
    PMIX_APP_FREE(papps, apps.size());
    if (rc != PMIX_SUCCESS) {
      *detail = rc == PMIX_ERR_NOT_SUPPORTED
                    ? "the launcher's PMIx server does not start processes (PMIx_Spawn: " +
                          status_text(rc) + "); mprun does"
                    : "the launcher answered " + status_text(rc);
      return false;
    }
    *job_id = nspace;
    return true;
  }

 private:
  int64_t required_int(const pmix_proc_t* who, const char* key) {
    int64_t v = 0;
    if (!optional_int(who, key, &v))
      throw std::runtime_error(std::string("the launcher did not provide ") + key +
                               " (PMIx_Get failed)");
    return v;
  }

  bool optional_int(const pmix_proc_t* who, const char* key, int64_t* out) {
    pmix_value_t* val = nullptr;
    pmix_status_t rc = PMIx_Get(who, key, nullptr, 0, &val);
    bool ok = rc == PMIX_SUCCESS && val && value_to_int(val, out);
    if (val) PMIX_VALUE_RELEASE(val);
    return ok;
  }

  // PMIX_OPTIONAL: a server that does not know the key must answer at once, not wait for
  // someone to publish it.
  bool optional_bool(const char* key, bool* out) {
    pmix_value_t* val = nullptr;
    pmix_info_t info;
    bool optional = true;
    PMIX_INFO_LOAD(&info, PMIX_OPTIONAL, &optional, PMIX_BOOL);
    pmix_status_t rc = PMIx_Get(&wildcard_, key, &info, 1, &val);
    PMIX_INFO_DESTRUCT(&info);
    bool ok = rc == PMIX_SUCCESS && val && val->type == PMIX_BOOL;
    if (ok) *out = val->data.flag;
    if (val) PMIX_VALUE_RELEASE(val);
    return ok;
  }

  void read_local_peers() {
    pmix_value_t* val = nullptr;
    pmix_status_t rc = PMIx_Get(&wildcard_, PMIX_LOCAL_PEERS, nullptr, 0, &val);
    if (rc == PMIX_SUCCESS && val && val->type == PMIX_STRING && val->data.string) {
      std::stringstream ss(val->data.string);
      std::string item;
      while (std::getline(ss, item, ','))
        if (!item.empty()) local_peers_.push_back(std::atoi(item.c_str()));
    }
    if (val) PMIX_VALUE_RELEASE(val);
    if (local_peers_.empty()) local_peers_.push_back(rank_);
  }

  pmix_proc_t me_{};
  pmix_proc_t wildcard_{};
  bool initialized_ = false;
  int rank_ = 0, size_ = 1, local_rank_ = 0, universe_size_ = 1, appnum_ = 0;
  bool oversubscribed_ = false;
  bool startup_watch_ = false;  ///< tell the launcher when the first fence begins
  std::vector<int> local_peers_;
  std::string job_id_, hostname_;
};

}  // namespace

bool launcher_detected(std::string* seen) {
  seen->clear();
  for (char** e = environ; e && *e; ++e) {
    const char* kv = *e;
    bool hit = std::strncmp(kv, "PMIX_NAMESPACE=", 15) == 0 ||
               std::strncmp(kv, "PMIX_RANK=", 10) == 0 ||
               std::strncmp(kv, "PMIX_SERVER_URI", 15) == 0;
    if (!hit) continue;
    if (!seen->empty()) *seen += ", ";
    // URIs carry addresses; the variable names are enough to explain the detection.
    const char* eq = std::strchr(kv, '=');
    if (std::strncmp(kv, "PMIX_SERVER_URI", 15) == 0 && eq)
      seen->append(kv, eq - kv);
    else
      *seen += kv;
  }
  return !seen->empty();
}

std::unique_ptr<JobBootstrap> make_pmix_bootstrap() { return std::make_unique<PmixBootstrap>(); }

}  // namespace mpr::runtime
