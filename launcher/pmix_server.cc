#include "launcher/pmix_server.h"

#include <hwloc.h>
#include <pmix.h>
#include <pmix_server.h>
#include <unistd.h>

#include <atomic>
#include <condition_variable>
#include <cstdlib>
#include <cstring>
#include <map>
#include <mutex>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "common/launch_keys.h"
#include "launcher/job_info.h"

namespace mpr::launch {

namespace {

// The upcalls carry no context pointer, and libpmix hosts one server per process.
std::atomic<ServerListener*> g_listener{nullptr};
bool g_server_exists = false;

// Every namespace mprun serves: the job's first, then the jobs MPI_Comm_spawn started. Their
// processes are numbered one after the other (ServerListener). Appended by the owner's thread,
// read by libpmix's.
struct Namespace {
  pmix_nspace_t name;  // a full char[256]: the API reads all of it
  int first = 0;
  int nprocs = 0;
};
std::mutex g_ns_mutex;
std::vector<Namespace> g_namespaces;

Namespace add_namespace(const std::string& name, int first, int nprocs) {
  Namespace ns;
  PMIX_LOAD_NSPACE(ns.name, name.c_str());
  ns.first = first;
  ns.nprocs = nprocs;
  std::lock_guard lock(g_ns_mutex);
  g_namespaces.push_back(ns);
  return ns;
}

// The namespace holding process `index`, or nullptr.
const Namespace* namespace_of(int index) {
  for (const Namespace& ns : g_namespaces)
    if (index >= ns.first && index < ns.first + ns.nprocs) return &ns;
  return nullptr;
}

/// Completion of one asynchronous server call. Heap-allocated; if the wait times out it is
/// leaked on purpose, because the library may still call back into it later.
class OpWaiter {
 public:
  static void callback(pmix_status_t status, void* cbdata) {
    auto* self = static_cast<OpWaiter*>(cbdata);
    std::lock_guard lock(self->mutex_);
    self->status_ = status;
    self->done_ = true;
    self->cv_.notify_all();
  }

  /// `rc` is what the call returned: SUCCESS means the callback will come, OPERATION_SUCCEEDED
  /// that it completed inline, anything else that it failed without a callback.
  /// Consumes the waiter unless the wait timed out.
  static pmix_status_t finish(OpWaiter* self, pmix_status_t rc, std::chrono::milliseconds limit) {
    if (rc == PMIX_SUCCESS) {
      std::unique_lock lock(self->mutex_);
      if (!self->cv_.wait_for(lock, limit, [self] { return self->done_; })) return PMIX_ERR_TIMEOUT;
      rc = self->status_;
    } else if (rc == PMIX_OPERATION_SUCCEEDED) {
      rc = PMIX_SUCCESS;
    }
    delete self;
    return rc;
  }

 private:
  std::mutex mutex_;
  std::condition_variable cv_;
  bool done_ = false;
  pmix_status_t status_ = PMIX_SUCCESS;
};

[[noreturn]] void fail(const std::string& call, pmix_status_t rc) {
  // OpWaiter's own timeout: the library never completed the step.
  if (rc == PMIX_ERR_TIMEOUT)
    throw std::runtime_error("startup timed out: " + call +
                             " did not complete within the startup timeout");
  throw std::runtime_error(call + " failed: " + PMIx_Error_string(rc));
}

// The listener's number of a client process, or -1 for none of ours.
int job_rank(const pmix_proc_t* proc) {
  if (!proc) return -1;
  std::lock_guard lock(g_ns_mutex);
  for (const Namespace& ns : g_namespaces)
    if (PMIX_CHECK_NSPACE(proc->nspace, ns.name))
      return proc->rank < static_cast<pmix_rank_t>(ns.nprocs)
                 ? ns.first + static_cast<int>(proc->rank)
                 : -1;
  return -1;
}

// libpmix 4.2.2 passes cbfunc == nullptr here; "done atomically" is accepted at every call site.
pmix_status_t on_client_connected(const pmix_proc_t* proc, void*, pmix_op_cbfunc_t, void*) {
  ServerListener* l = g_listener;
  if (int rank = job_rank(proc); rank >= 0 && l) l->client_connected(rank);
  return PMIX_OPERATION_SUCCEEDED;
}

// The library answers the client's PMIx_Finalize only after this returns, so the listener
// learns of the finalize before the process can exit.
pmix_status_t on_client_finalized(const pmix_proc_t* proc, void*, pmix_op_cbfunc_t, void*) {
  ServerListener* l = g_listener;
  if (int rank = job_rank(proc); rank >= 0 && l) l->client_finalized(rank);
  return PMIX_OPERATION_SUCCEEDED;
}

// Whatever subset of procs the caller names, an MPI_Abort ends the whole job.
pmix_status_t on_abort(const pmix_proc_t* proc, void*, int status, const char msg[], pmix_proc_t[],
                       size_t, pmix_op_cbfunc_t, void*) {
  ServerListener* l = g_listener;
  if (int rank = job_rank(proc); rank >= 0 && l) l->client_aborted(rank, status, msg ? msg : "");
  return PMIX_OPERATION_SUCCEEDED;
}

// libpmix raises PMIX_ERR_LOST_CONNECTION inside the server when a client that has not
// finalized disconnects; the source is that client.
void on_lost_connection(size_t, pmix_status_t, const pmix_proc_t* source, pmix_info_t[], size_t,
                        pmix_info_t[], size_t, pmix_event_notification_cbfunc_fn_t cbfunc,
                        void* cbdata) {
  ServerListener* l = g_listener;
  if (int rank = job_rank(source); rank >= 0 && l) l->client_lost(rank);
  if (cbfunc) cbfunc(PMIX_EVENT_ACTION_COMPLETE, nullptr, 0, nullptr, nullptr, cbdata);
}

// A rank of MPR's runtime raises common::kEventStartupFence just before its first fence.
void on_startup_fence(size_t, pmix_status_t, const pmix_proc_t* source, pmix_info_t[], size_t,
                      pmix_info_t[], size_t, pmix_event_notification_cbfunc_fn_t cbfunc,
                      void* cbdata) {
  ServerListener* l = g_listener;
  if (int rank = job_rank(source); rank >= 0 && l) l->client_at_startup_fence(rank);
  if (cbfunc) cbfunc(PMIX_EVENT_ACTION_COMPLETE, nullptr, 0, nullptr, nullptr, cbdata);
}

void release_fence_blob(void* blob) { std::free(blob); }

// Every fence comes here: mprun sets PMIX_MCA_pmix_server_fence_localonly_opt=0, because the
// library's own shortcut completes a fence without a rank that died before it joined (it
// drops the rank from the local count), and MPI_Init would then start a job short of a rank.
// Here a fence of a job with a rank gone fails for every participant. Every participant is
// local, so the allgather of the nodes' contributions is our own blob; 4.2.2 hands its
// ownership to the host, and it comes back to us through release_fence_blob.
pmix_status_t on_fence(const pmix_proc_t[], size_t, const pmix_info_t info[], size_t ninfo,
                       char* data, size_t ndata, pmix_modex_cbfunc_t cbfunc, void* cbdata) {
  bool partial = false;
  for (size_t i = 0; i < ninfo; ++i)
    if (PMIX_CHECK_KEY(&info[i], PMIX_LOCAL_COLLECTIVE_STATUS) &&
        info[i].value.type == PMIX_STATUS && info[i].value.data.status != PMIX_SUCCESS)
      partial = true;
  ServerListener* l = g_listener;
  if (partial || (l && !l->gone_ranks().empty())) {
    std::free(data);
    cbfunc(PMIX_ERR_LOST_CONNECTION, nullptr, 0, cbdata, nullptr, nullptr);
    return PMIX_SUCCESS;
  }
  cbfunc(PMIX_SUCCESS, data, ndata, cbdata, release_fence_blob, data);
  return PMIX_SUCCESS;
}

// Called only for procs this server does not host; a single-node job has none.
pmix_status_t on_direct_modex(const pmix_proc_t*, const pmix_info_t[], size_t,
                              pmix_modex_cbfunc_t cbfunc, void* cbdata) {
  cbfunc(PMIX_ERR_NOT_FOUND, nullptr, 0, cbdata, nullptr, nullptr);
  return PMIX_SUCCESS;
}

// The name service (MPI_Publish_name and friends): names live in mprun while the job runs.
// Entries of the clients' own data are strings under keys not starting "pmix." (those are
// the library's directives: range, persistence, the caller's uid).
struct Published {
  std::string value;
  std::string nspace;
};
std::mutex g_names_mutex;
std::map<std::string, Published> g_names;

bool is_directive(const char* key) { return std::strncmp(key, "pmix.", 5) == 0; }

pmix_status_t publish(const pmix_proc_t* proc, const pmix_info_t info[], size_t ninfo) {
  std::lock_guard lock(g_names_mutex);
  // All or nothing: a name taken or a value not a string fails the whole call.
  size_t data = 0;
  for (size_t i = 0; i < ninfo; ++i) {
    if (is_directive(info[i].key)) continue;
    if (info[i].value.type != PMIX_STRING || !info[i].value.data.string) return PMIX_ERR_BAD_PARAM;
    if (g_names.count(info[i].key)) return PMIX_ERR_DUPLICATE_KEY;
    ++data;
  }
  if (data == 0) return PMIX_ERR_BAD_PARAM;
  for (size_t i = 0; i < ninfo; ++i)
    if (!is_directive(info[i].key))
      g_names[info[i].key] = Published{info[i].value.data.string, proc->nspace};
  return PMIX_SUCCESS;
}

// Answered at once through the callback, as on_fence does.
pmix_status_t answer(pmix_status_t status, pmix_op_cbfunc_t cbfunc, void* cbdata) {
  if (!cbfunc) return status == PMIX_SUCCESS ? PMIX_OPERATION_SUCCEEDED : status;
  cbfunc(status, cbdata);
  return PMIX_SUCCESS;
}

pmix_status_t on_publish(const pmix_proc_t* proc, const pmix_info_t info[], size_t ninfo,
                         pmix_op_cbfunc_t cbfunc, void* cbdata) {
  return answer(publish(proc, info, ninfo), cbfunc, cbdata);
}

pmix_status_t on_lookup(const pmix_proc_t*, char** keys, const pmix_info_t[], size_t,
                        pmix_lookup_cbfunc_t cbfunc, void* cbdata) {
  std::vector<std::pair<std::string, std::string>> found;
  {
    std::lock_guard lock(g_names_mutex);
    for (char** k = keys; k && *k; ++k)
      if (auto it = g_names.find(*k); it != g_names.end()) found.emplace_back(*k, it->second.value);
  }
  if (found.empty()) {
    cbfunc(PMIX_ERR_NOT_FOUND, nullptr, 0, cbdata);
    return PMIX_SUCCESS;
  }
  pmix_pdata_t* pd = nullptr;
  PMIX_PDATA_CREATE(pd, found.size());
  pmix_nspace_t owner;
  {
    std::lock_guard lock(g_ns_mutex);
    PMIX_LOAD_NSPACE(owner, g_namespaces.empty() ? "" : g_namespaces.front().name);
  }
  for (size_t i = 0; i < found.size(); ++i) {
    PMIX_LOAD_PROCID(&pd[i].proc, owner, PMIX_RANK_WILDCARD);
    PMIX_LOAD_KEY(pd[i].key, found[i].first.c_str());
    PMIX_VALUE_LOAD(&pd[i].value, found[i].second.c_str(), PMIX_STRING);
  }
  // The library copies what it sends back before the callback returns.
  cbfunc(PMIX_SUCCESS, pd, found.size(), cbdata);
  PMIX_PDATA_FREE(pd, found.size());
  return PMIX_SUCCESS;
}

pmix_status_t unpublish(const pmix_proc_t* proc, char** keys) {
  std::lock_guard lock(g_names_mutex);
  if (!keys || !*keys) {
    // Everything the caller's job published.
    std::erase_if(g_names, [&](const auto& e) { return e.second.nspace == proc->nspace; });
    return PMIX_SUCCESS;
  }
  for (char** k = keys; *k; ++k) {
    auto it = g_names.find(*k);
    if (it == g_names.end() || it->second.nspace != proc->nspace) return PMIX_ERR_NOT_FOUND;
  }
  for (char** k = keys; *k; ++k) g_names.erase(*k);
  return PMIX_SUCCESS;
}

pmix_status_t on_unpublish(const pmix_proc_t* proc, char** keys, const pmix_info_t[], size_t,
                           pmix_op_cbfunc_t cbfunc, void* cbdata) {
  return answer(unpublish(proc, keys), cbfunc, cbdata);
}

// MPI_Comm_spawn: the listener (the job's loop) starts the processes and answers through
// `done`, which copies the namespace into the library's callback.
pmix_status_t on_spawn(const pmix_proc_t* proc, const pmix_info_t[], size_t,
                       const pmix_app_t apps[], size_t napps, pmix_spawn_cbfunc_t cbfunc,
                       void* cbdata) {
  ServerListener* l = g_listener;
  if (!l || napps == 0) return PMIX_ERR_NOT_SUPPORTED;
  SpawnRequest req;
  req.requester = job_rank(proc);
  for (size_t i = 0; i < napps; ++i) {
    const pmix_app_t& a = apps[i];
    SpawnApp app;
    app.command = a.cmd ? a.cmd : (a.argv && a.argv[0] ? a.argv[0] : "");
    for (char** arg = a.argv ? a.argv + 1 : nullptr; arg && *arg; ++arg)
      app.argv.emplace_back(*arg);
    for (char** e = a.env; e && *e; ++e) app.env.emplace_back(*e);
    if (a.cwd) app.wdir = a.cwd;
    app.maxprocs = a.maxprocs;
    for (size_t k = 0; k < a.ninfo; ++k)
      if (PMIX_CHECK_KEY(&a.info[k], common::kKeySpawnPath) &&
          a.info[k].value.type == PMIX_STRING && a.info[k].value.data.string)
        app.path = a.info[k].value.data.string;
    if (app.command.empty() || app.maxprocs <= 0) return PMIX_ERR_BAD_PARAM;
    req.apps.push_back(std::move(app));
  }
  req.done = [cbfunc, cbdata](int status, const std::string& nspace) {
    pmix_nspace_t ns;
    PMIX_LOAD_NSPACE(ns, nspace.c_str());
    cbfunc(status, ns, cbdata);
  };
  l->spawn_requested(std::move(req));
  return PMIX_SUCCESS;
}

pmix_server_module_t make_module() {
  pmix_server_module_t m{};
  m.client_connected = on_client_connected;
  m.client_finalized = on_client_finalized;
  m.abort = on_abort;
  m.fence_nb = on_fence;
  m.direct_modex = on_direct_modex;
  m.publish = on_publish;
  m.lookup = on_lookup;
  m.unpublish = on_unpublish;
  m.spawn = on_spawn;
  return m;
}

pmix_server_module_t g_module = make_module();

}  // namespace

PmixServer::PmixServer(const std::string& tmpdir, hwloc_topology* topology,
                       std::chrono::milliseconds step_limit)
    : step_limit_(step_limit) {
  if (g_server_exists) throw std::logic_error("only one PMIx server per process");
  bool off = false;
  pmix_info_t info[5];
  size_t ninfo = 0;
  PMIX_INFO_LOAD(&info[ninfo++], PMIX_SERVER_TMPDIR, tmpdir.c_str(), PMIX_STRING);
  PMIX_INFO_LOAD(&info[ninfo++], PMIX_SYSTEM_TMPDIR, tmpdir.c_str(), PMIX_STRING);
  // No rendezvous files for tools and no system-wide server: the job is private to mprun.
  PMIX_INFO_LOAD(&info[ninfo++], PMIX_SERVER_TOOL_SUPPORT, &off, PMIX_BOOL);
  PMIX_INFO_LOAD(&info[ninfo++], PMIX_SERVER_SYSTEM_SUPPORT, &off, PMIX_BOOL);
  // Without a topology PMIx_server_init discovers one itself, I/O devices included, which is
  // most of its start-up time (docs/MEASUREMENTS.md); ours has CPUs and memory only.
  // Handed over by pointer, not with PMIX_INFO_LOAD: that would give the library a copy which
  // PMIX_INFO_DESTRUCT destroys while the library keeps using it (for the locality strings).
  pmix_topology_t topo{const_cast<char*>("hwloc"), topology};
  size_t ntopo = ninfo++;
  PMIX_INFO_CONSTRUCT(&info[ntopo]);
  PMIX_LOAD_KEY(info[ntopo].key, PMIX_TOPOLOGY2);
  info[ntopo].value.type = PMIX_TOPO;
  info[ntopo].value.data.topo = &topo;
  pmix_status_t rc = PMIx_server_init(&g_module, info, ninfo);
  for (size_t i = 0; i < ninfo; ++i)
    if (i != ntopo) PMIX_INFO_DESTRUCT(&info[i]);
  if (rc != PMIX_SUCCESS) fail("PMIx_server_init", rc);
  g_server_exists = true;
  // Only sharpens failure reports (which rank went first), so a failure here is not fatal.
  pmix_status_t lost = PMIX_ERR_LOST_CONNECTION;
  PMIx_Register_event_handler(&lost, 1, nullptr, 0, on_lost_connection, nullptr, nullptr);
  // Without it mprun still works; only its startup-timeout report is less precise.
  pmix_status_t fence = common::kEventStartupFence;
  PMIx_Register_event_handler(&fence, 1, nullptr, 0, on_startup_fence, nullptr, nullptr);
}

void PmixServer::set_listener(ServerListener* listener) { g_listener = listener; }

PmixServer::~PmixServer() {
  if (!finalized_) shutdown(std::chrono::seconds(2));
}

void PmixServer::register_job(const JobLayout& layout) { register_spawned(layout, 0); }

void PmixServer::register_spawned(const JobLayout& layout, int first, int running) {
  InfoArray info;
  build_job_info(layout, &info, running);
  // Known before the library may hear from a client of it.
  Namespace ns = add_namespace(layout.nspace, first, layout.nprocs);
  auto* waiter = new OpWaiter;
  pmix_status_t rc = PMIx_server_register_nspace(ns.name, layout.nprocs, info.data(), info.size(),
                                                 OpWaiter::callback, waiter);
  rc = OpWaiter::finish(waiter, rc, step_limit_);
  if (rc != PMIX_SUCCESS) fail("PMIx_server_register_nspace(" + layout.nspace + ")", rc);
  registered_ = true;
}

void PmixServer::prepare_client(int index, EnvBlock* env) {
  pmix_proc_t proc;
  {
    std::lock_guard lock(g_ns_mutex);
    const Namespace* ns = namespace_of(index);
    if (!ns)
      throw std::logic_error("prepare_client: no namespace holds process " + std::to_string(index));
    PMIX_LOAD_PROCID(&proc, ns->name, static_cast<pmix_rank_t>(index - ns->first));
  }
  const int rank = static_cast<int>(proc.rank);
  // The library checks a connecting client's socket credentials against these ids.
  auto* waiter = new OpWaiter;
  pmix_status_t rc = PMIx_server_register_client(&proc, ::geteuid(), ::getegid(), nullptr,
                                                 OpWaiter::callback, waiter);
  rc = OpWaiter::finish(waiter, rc, step_limit_);
  if (rc != PMIX_SUCCESS)
    fail("PMIx_server_register_client(rank " + std::to_string(rank) + ")", rc);
  rc = PMIx_server_setup_fork(&proc, env->address());
  if (rc != PMIX_SUCCESS) fail("PMIx_server_setup_fork(rank " + std::to_string(rank) + ")", rc);
}

bool PmixServer::shutdown(std::chrono::milliseconds limit, bool clients_clean) {
  if (finalized_) return true;
  finalized_ = true;
  // Left as it is, the library's thread and sockets simply end with the process; its files
  // are in our private tmpdir, which the caller removes.
  if (!clients_clean) return true;
  if (registered_) {
    std::vector<Namespace> all;
    {
      std::lock_guard lock(g_ns_mutex);
      all = g_namespaces;
    }
    for (Namespace& ns : all) {
      auto* waiter = new OpWaiter;
      PMIx_server_deregister_nspace(ns.name, OpWaiter::callback, waiter);
      // A timeout here means the progress thread is wedged; finalize would then never return.
      if (OpWaiter::finish(waiter, PMIX_SUCCESS, limit) == PMIX_ERR_TIMEOUT) return false;
    }
  }
  PMIx_server_finalize();
  g_listener = nullptr;
  g_server_exists = false;
  return true;
}

}  // namespace mpr::launch
