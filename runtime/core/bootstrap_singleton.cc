// A job of one process, started without a launcher.
#include <unistd.h>

#include <cstdlib>
#include <map>

#include "runtime/core/bootstrap.h"
#include "runtime/core/local_spawn.h"

namespace mpr::runtime {

namespace {

class SingletonBootstrap final : public JobBootstrap {
 public:
  SingletonBootstrap() : job_id_("singleton." + std::to_string(getpid())) {
    char name[256] = {};
    gethostname(name, sizeof name - 1);
    hostname_ = name;
  }
  int rank() const override { return 0; }
  int size() const override { return 1; }
  const std::vector<int>& local_peers() const override { return peers_; }
  int local_rank() const override { return 0; }
  const std::string& job_id() const override { return job_id_; }
  void put(const std::string& key, const std::vector<uint8_t>& value) override { kv_[key] = value; }
  void fence() override {}
  bool get_job(int rank, const std::string& key, std::vector<uint8_t>* value) override {
    auto it = kv_.find(key);
    if (rank != 0 || it == kv_.end()) return false;
    *value = it->second;
    return true;
  }
  bool oversubscribed() const override { return false; }
  int universe_size() const override { return 1; }
  int appnum() const override { return 0; }
  const std::string& hostname() const override { return hostname_; }
  void abort(int code, const std::string&) override { _exit(code); }
  void finalize() override {}
  // A process of its own: the names it publishes are seen by itself only.
  NameResult publish_name(const std::string& service, const std::string& port,
                          std::string*) override {
    return names_.emplace(service, port).second ? NameResult::kOk : NameResult::kExists;
  }
  NameResult lookup_name(const std::string& service, std::string* port, std::string*) override {
    auto it = names_.find(service);
    if (it == names_.end()) return NameResult::kNotFound;
    *port = it->second;
    return NameResult::kOk;
  }
  NameResult unpublish_name(const std::string& service, std::string*) override {
    return names_.erase(service) ? NameResult::kOk : NameResult::kNotFound;
  }
  // No launcher to ask: this process runs mprun itself (local_spawn.h).
  bool spawn(const std::vector<SpawnApp>& apps, std::string* job_id, std::string* detail) override {
    return spawner_.spawn(apps, job_id, detail);
  }
  bool spawn_gone(std::string* why) override { return spawner_.gone(why); }

 private:
  std::map<std::string, std::string> names_;
  LocalSpawner spawner_;
  std::vector<int> peers_{0};
  std::string job_id_;
  std::string hostname_;
  std::map<std::string, std::vector<uint8_t>> kv_;
};

}  // namespace

std::string service_key(const std::string& service) { return "mpr.service." + service; }

std::unique_ptr<JobBootstrap> make_singleton_bootstrap() {
  return std::make_unique<SingletonBootstrap>();
}

std::string slurm_step_warning(const char* fn) {
  // A batch script has SLURM_PROCID but no SLURM_STEP_ID, and a program it runs directly is
  // a singleton by intent; only a task of an srun step is one of several.
  const char* step = std::getenv("SLURM_STEP_ID");
  const char* procid = std::getenv("SLURM_PROCID");
  if (!step || !*step || !procid || !*procid) return "";
  const char* tasks_text = std::getenv("SLURM_STEP_NUM_TASKS");
  if (!tasks_text || !*tasks_text) tasks_text = std::getenv("SLURM_NTASKS");
  const long tasks = tasks_text ? std::strtol(tasks_text, nullptr, 10) : 0;
  if (tasks <= 1) return "";
  const char* mpi = std::getenv("SLURM_MPI_TYPE");
  return std::string(fn) + ": this process is task " + procid + " of a Slurm step of " +
         std::to_string(tasks) + " tasks" +
         (mpi && *mpi ? std::string(" (srun --mpi=") + mpi + ")" : std::string()) +
         " but found no PMIx server; it runs as a singleton. Start it with srun --mpi=pmix (or "
         "mprun).";
}

}  // namespace mpr::runtime
