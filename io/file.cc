#include "io/file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <unordered_map>

#include "common/log.h"
#include "common/params.h"
#include "runtime/coll/coll.h"
#include "runtime/coll/schedule.h"
#include "runtime/core/state.h"
#include "runtime/p2p/request.h"

namespace mpr::io {

using runtime::g_state;
using runtime::make_error;

namespace {

// ---- error handlers ---------------------------------------------------------------------------

Errhandler* g_default_eh = nullptr;  // MPI_FILE_NULL's; null means MPI_ERRORS_RETURN

// Files by their communicator: errors of nonblocking file operations are raised by the wait
// calls on the request's communicator (the file's clone), whose handler forwards them here.
std::unordered_map<const void*, File*>& files_by_comm() {
  static auto* m = new std::unordered_map<const void*, File*>;
  return *m;
}

void comm_trampoline(MPI_Comm* comm, int* code, ...) {
  auto& m = files_by_comm();
  auto it = m.find(*comm);
  raise_file(it == m.end() ? nullptr : it->second, *code);
}

Errhandler* trampoline_eh() {
  static Errhandler* eh = [] {
    auto* e = new Errhandler;
    e->kind = Errhandler::Kind::kUser;
    e->fn = &comm_trampoline;
    e->predefined = true;  // never freed
    return e;
  }();
  return eh;
}

// ---- hints ------------------------------------------------------------------------------------

bool parse_size(const std::string& v, uint64_t* out) {
  char* end = nullptr;
  errno = 0;
  unsigned long long x = std::strtoull(v.c_str(), &end, 10);
  if (errno || end == v.c_str() || v[0] == '-') return false;
  switch (*end) {
    case 'k':
    case 'K':
      x <<= 10;
      ++end;
      break;
    case 'm':
    case 'M':
      x <<= 20;
      ++end;
      break;
    case 'g':
    case 'G':
      x <<= 30;
      ++end;
      break;
    default:
      break;
  }
  if (*end) return false;
  *out = x;
  return true;
}

bool parse_tri(const std::string& v, Tri* out) {
  if (v == "enable" || v == "true") *out = Tri::kEnable;
  else if (v == "disable" || v == "false") *out = Tri::kDisable;
  else if (v == "automatic" || v == "auto") *out = Tri::kAuto;
  else return false;
  return true;
}

const char* tri_text(Tri t) {
  return t == Tri::kEnable ? "enable" : t == Tri::kDisable ? "disable" : "automatic";
}

void copy_text(char* dst, size_t room, const std::string& v) {
  std::snprintf(dst, room, "%s", v.c_str());
}

}  // namespace

Hints Hints::defaults() {
  Hints h;
  std::string env = common::param_string("MPR_IO_HINTS");
  size_t i = 0;
  while (i < env.size()) {
    size_t end = env.find_first_of(";,", i);
    if (end == std::string::npos) end = env.size();
    std::string kv = env.substr(i, end - i);
    size_t eq = kv.find('=');
    bool bad = false;
    if (eq == std::string::npos || !h.apply_one(kv.substr(0, eq), kv.substr(eq + 1), &bad) ||
        bad)
      common::log_error("MPR_IO_HINTS: ignoring \"%s\" (not key=value of a known hint)",
                        kv.c_str());
    i = end + 1;
  }
  return h;
}

bool Hints::apply_one(const std::string& k, const std::string& v, bool* bad) {
  uint64_t n = 0;
  Tri t;
  *bad = false;
  if (k == "cb_buffer_size") {
    *bad = !parse_size(v, &n) || n == 0;
    if (!*bad) cb_buffer_size = n;
  } else if (k == "cb_nodes") {
    *bad = !parse_size(v, &n) || n == 0 || n > 1u << 20;
    if (!*bad) cb_nodes = static_cast<int>(n);
  } else if (k == "romio_cb_read" || k == "romio_cb_write") {
    *bad = !parse_tri(v, &t);
    if (!*bad) (k == "romio_cb_read" ? cb_read : cb_write) = t;
  } else if (k == "collective_buffering") {
    *bad = !(v == "true" || v == "false");
    if (!*bad) cb_read = cb_write = v == "true" ? Tri::kEnable : Tri::kDisable;
  } else if (k == "romio_ds_read" || k == "romio_ds_write") {
    *bad = !parse_tri(v, &t);
    Sieve s = t == Tri::kEnable ? Sieve::kEnable : t == Tri::kDisable ? Sieve::kDisable
                                                                       : Sieve::kAuto;
    if (!*bad) (k == "romio_ds_read" ? ds_read : ds_write) = s;
  } else if (k == "ind_rd_buffer_size" || k == "ind_wr_buffer_size") {
    *bad = !parse_size(v, &n) || n == 0;
    if (!*bad) (k == "ind_rd_buffer_size" ? ind_rd_buffer_size : ind_wr_buffer_size) = n;
  } else if (k == "striping_unit" || k == "cb_block_size") {
    *bad = !parse_size(v, &n);
    if (!*bad && (k == "striping_unit" || striping_unit == 0)) striping_unit = n;
  } else if (k == "striping_factor") {
    *bad = !parse_size(v, &n) || n > 1u << 20;
    if (!*bad) striping_factor = static_cast<int>(n);
  } else if (k == "file_perm") {
    char* end = nullptr;
    long p = std::strtol(v.c_str(), &end, 8);
    *bad = end == v.c_str() || *end || p < 0 || p > 07777;
    if (!*bad) file_perm = static_cast<int>(p);
  } else if (k == "access_style") {
    copy_text(access_style, sizeof access_style, v);
  } else if (k == "cb_config_list") {
    copy_text(cb_config_list, sizeof cb_config_list, v);
  } else {
    return false;
  }
  return true;
}

int Hints::apply(const Info& info, std::string* why) {
  for (const auto& [k, v] : info.entries()) {
    bool bad = false;
    if (apply_one(k, v, &bad) && bad) {
      *why = "hint " + k + "=\"" + v + "\" is not a valid value";
      return MPI_ERR_INFO_VALUE;
    }
  }
  return MPI_SUCCESS;
}

void Hints::report(Info* out) const {
  auto num = [](uint64_t v) { return std::to_string(v); };
  out->set("cb_buffer_size", num(cb_buffer_size));
  out->set("romio_cb_read", tri_text(cb_read));
  out->set("romio_cb_write", tri_text(cb_write));
  auto ds = [](Sieve s) {
    return s == Sieve::kEnable ? "enable" : s == Sieve::kDisable ? "disable" : "automatic";
  };
  out->set("romio_ds_read", ds(ds_read));
  out->set("romio_ds_write", ds(ds_write));
  out->set("ind_rd_buffer_size", num(ind_rd_buffer_size));
  out->set("ind_wr_buffer_size", num(ind_wr_buffer_size));
  out->set("collective_buffering",
           cb_read == Tri::kDisable && cb_write == Tri::kDisable ? "false" : "true");
  out->set("cb_config_list", cb_config_list);
  if (striping_unit) out->set("striping_unit", num(striping_unit));
  if (striping_factor) out->set("striping_factor", num(static_cast<uint64_t>(striping_factor)));
  char perm[16];
  std::snprintf(perm, sizeof perm, "%o", static_cast<unsigned>(file_perm));
  out->set("file_perm", perm);
  if (access_style[0]) out->set("access_style", access_style);
}

// ---- the file object --------------------------------------------------------------------------

File::~File() {
  magic_ = 0;
  files_by_comm().erase(comm ? static_cast<const void*>(comm->handle()) : nullptr);
  if (fd >= 0) ::close(fd);
  if (errh) runtime::errhandler_release(errh);
  if (comm) comm->release();
}

void File::release() {
  if (--refs_ == 0) delete this;
}

IoTarget File::target(bool locked) {
  IoTarget t;
  t.fd = fd;
  t.rd_window = hints.ind_rd_buffer_size;
  t.wr_window = hints.ind_wr_buffer_size;
  t.ds_read = hints.ds_read;
  // A descriptor that cannot read (a write-only file without read permission) cannot sieve
  // writes; other processes' may, so the writes still lock.
  t.ds_write = fd_reads ? hints.ds_write : Sieve::kDisable;
  t.lock_writes = !locked && hints.ds_write != Sieve::kDisable;
  t.scratch = &sieve_buf;
  return t;
}

void File::choose_aggregators() {
  const int n = comm->size();
  // Ranks of each node in rank order; then take the first of every node, the second of
  // every node, ... until cb_nodes (default: one per node).
  std::vector<std::vector<int>> by_node(static_cast<size_t>(nnodes));
  for (int r = 0; r < n; ++r) by_node[static_cast<size_t>(node_of[r])].push_back(r);
  const int want = std::min(n, hints.cb_nodes > 0 ? hints.cb_nodes : nnodes);
  aggregators.clear();
  for (size_t depth = 0; static_cast<int>(aggregators.size()) < want; ++depth)
    for (const auto& ranks : by_node)
      if (depth < ranks.size() && static_cast<int>(aggregators.size()) < want)
        aggregators.push_back(ranks[depth]);
  std::sort(aggregators.begin(), aggregators.end());
}

File* to_file(MPI_File h) {
  auto* f = reinterpret_cast<File*>(h);
  if (!f || !f->valid()) return nullptr;
  return f;
}

// ---- raising ----------------------------------------------------------------------------------

Errhandler* default_errhandler() {
  return g_default_eh ? g_default_eh : runtime::errhandler_return();
}

void set_default_errhandler(Errhandler* eh) {
  runtime::errhandler_retain(eh);
  if (g_default_eh) runtime::errhandler_release(g_default_eh);
  g_default_eh = eh;
}

int raise_with(Errhandler* eh, MPI_File h, int code) {
  if (code == MPI_SUCCESS) return code;
  switch (eh->kind) {
    case Errhandler::Kind::kReturn:
      return code;
    case Errhandler::Kind::kUser: {
      int c = code;
      if (eh->file_fn) eh->file_fn(&h, &c);
      return code;
    }
    case Errhandler::Kind::kFatal:
    case Errhandler::Kind::kAbort:
      break;
  }
  std::string text = runtime::error_string(code);
  if (text.empty()) text = "user-defined error " + std::to_string(code);
  common::log_error("%s", text.c_str());
  runtime::abort_job(runtime::error_class_of(code), text.c_str());
}

int raise_file(File* f, int code) {
  return raise_with(f ? f->errh : default_errhandler(), f ? f->handle() : MPI_FILE_NULL, code);
}

int file_error(File* f, int err_class, const char* fn, const char* fmt, ...) {
  char msg[768];
  va_list ap;
  va_start(ap, fmt);
  std::vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  return raise_file(f, make_error(err_class, fn, "%s", msg));
}

int sys_error(File* f, const char* fn, const SysError& e) {
  return file_error(f, error_class_for_errno(e.err), fn, "%s at offset %llu of \"%s\": %s", e.op,
                    static_cast<unsigned long long>(e.off), f ? f->name.c_str() : "",
                    std::strerror(e.err));
}

// ---- collectives for the file calls -----------------------------------------------------------

int file_bcast(const char* fn, Comm* comm, void* buf, size_t bytes, int root) {
  if (comm->size() == 1) return MPI_SUCCESS;
  return runtime::coll::bcast(fn, comm, buf, bytes, root);
}

int file_allgather(const char* fn, Comm* comm, const void* send, void* recv, size_t blk) {
  if (comm->size() == 1) {
    std::memcpy(recv, send, blk);
    return MPI_SUCCESS;
  }
  runtime::coll::Schedule s(fn, comm, runtime::coll::Schedule::Mode::kImmediate);
  runtime::coll::allgather(s, send, recv, blk);
  return s.run();
}

int file_barrier(const char* fn, Comm* comm) {
  if (comm->size() == 1) return MPI_SUCCESS;
  return runtime::coll::barrier(fn, comm);
}

// ---- open, close, delete ----------------------------------------------------------------------

namespace {

uint64_t random_token() {
  uint64_t t = 0;
  int fd = ::open("/dev/urandom", O_RDONLY | O_CLOEXEC);
  if (fd >= 0) {
    SysError e;
    pread_full(fd, &t, sizeof t, 0, &e);
    ::close(fd);
  }
  if (t == 0) {
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    t = static_cast<uint64_t>(ts.tv_nsec) * 0x9e3779b97f4a7c15ull ^
        static_cast<uint64_t>(getpid()) << 32 ^ static_cast<uint64_t>(ts.tv_sec);
  }
  return t;
}

int open_flags(int amode) {
  int f = O_CLOEXEC;
  if (amode & MPI_MODE_RDONLY) f |= O_RDONLY;
  else if (amode & MPI_MODE_WRONLY) f |= O_WRONLY;
  else f |= O_RDWR;
  return f;
}

// open(2) for `amode` plus `extra` flags. A write-only file is opened for reading too where the
// permissions allow it, because writes that sieve (independent, or an aggregator's part of a
// collective one) read the gaps they rewrite; *reads says whether the descriptor can read.
int open_fd(const std::string& path, int amode, int extra, mode_t perm, bool* reads) {
  int flags = open_flags(amode) | extra;
  *reads = !(amode & MPI_MODE_WRONLY);
  if (amode & MPI_MODE_WRONLY) {
    int fd = ::open(path.c_str(), (flags & ~O_WRONLY) | O_RDWR, perm);
    if (fd >= 0 || (errno != EACCES && errno != EPERM)) {
      *reads = fd >= 0;
      return fd;
    }
  }
  return ::open(path.c_str(), flags, perm);
}

// What rank 0 tells everybody after trying first (it alone creates the file).
struct RootSays {
  int err = 0;         // errno of rank 0's open, or kBadHint
  int hint_key = 0;    // with kBadHint: nothing more to say; the message is rank 0's
  uint64_t token = 0;  // names the shared file pointer's counter
  Hints hints;
};
constexpr int kBadHint = -1;

struct EachSays {
  int err = 0;
  int amode = 0;
  int node = 0;  // lowest job rank on this process's node
};

}  // namespace

int open_file(const char* fn, Comm* comm, const char* name, int amode, const Info* info,
              File** out) {
  const std::string path = strip_fs_prefix(name);
  const int me = comm->rank();
  RootSays root;
  int fd = -1;
  bool fd_reads = false;
  std::string hint_why;
  if (me == 0) {
    root.hints = Hints::defaults();
    if (info && root.hints.apply(*info, &hint_why) != MPI_SUCCESS) {
      root.err = kBadHint;
    } else {
      int extra = 0;
      if (amode & MPI_MODE_CREATE) extra |= O_CREAT;
      if (amode & MPI_MODE_EXCL) extra |= O_EXCL;
      fd = open_fd(path, amode, extra, static_cast<mode_t>(root.hints.file_perm), &fd_reads);
      if (fd < 0) root.err = errno;
    }
    root.token = random_token();
  }
  if (int rc = file_bcast(fn, comm, &root, sizeof root, 0); rc != MPI_SUCCESS)
    return raise_file(nullptr, rc);
  if (root.err == kBadHint) {
    if (me == 0)
      return file_error(nullptr, MPI_ERR_INFO_VALUE, fn, "cannot open \"%s\": %s", name,
                        hint_why.c_str());
    return file_error(nullptr, MPI_ERR_INFO_VALUE, fn,
                      "cannot open \"%s\": rank 0 was given a malformed hint value", name);
  }
  if (root.err)
    return file_error(nullptr, error_class_for_errno(root.err), fn, "cannot open \"%s\": %s",
                      name, std::strerror(root.err));
  EachSays mine;
  if (me != 0) {
    fd = open_fd(path, amode, 0, 0, &fd_reads);
    if (fd < 0) mine.err = errno;
  }
  mine.amode = amode;
  mine.node = g_state.bootstrap->local_peers().empty() ? runtime::job_rank()
                                                       : g_state.bootstrap->local_peers()[0];
  std::vector<EachSays> all(static_cast<size_t>(comm->size()));
  int rc = file_allgather(fn, comm, &mine, all.data(), sizeof mine);
  auto give_up = [&](int code) {
    if (fd >= 0) ::close(fd);
    return raise_file(nullptr, code);
  };
  if (rc != MPI_SUCCESS) return give_up(rc);
  for (int r = 0; r < comm->size(); ++r) {
    if (all[r].err)
      return give_up(make_error(error_class_for_errno(all[r].err), fn,
                                "cannot open \"%s\" on rank %d: %s", name, r,
                                std::strerror(all[r].err)));
    if (all[r].amode != amode)
      return give_up(make_error(MPI_ERR_NOT_SAME, fn,
                                "amode %d on rank %d differs from %d on rank 0 (\"%s\")",
                                all[r].amode, r, all[0].amode, name));
  }
  Comm* c = nullptr;
  if ((rc = runtime::comm_clone(fn, comm, &c)) != MPI_SUCCESS) return give_up(rc);
  auto* f = new File;
  f->name = name;
  f->path = path;
  f->fd = fd;
  f->fd_reads = fd_reads;
  f->amode = amode;
  f->comm = c;
  f->hints = root.hints;
  f->view = std::make_shared<View>();
  f->errh = default_errhandler();
  runtime::errhandler_retain(f->errh);
  c->set_errhandler(trampoline_eh());
  files_by_comm()[c->handle()] = f;
  // Nodes, numbered in order of first appearance.
  std::vector<int> keys;
  for (const EachSays& e : all) {
    auto it = std::find(keys.begin(), keys.end(), e.node);
    f->node_of.push_back(static_cast<int>(it - keys.begin()));
    if (it == keys.end()) keys.push_back(e.node);
  }
  f->nnodes = static_cast<int>(keys.size());
  f->choose_aggregators();
  struct stat st;
  if (::fstat(fd, &st) == 0 && st.st_blksize > 0) f->fs_block = static_cast<uint64_t>(st.st_blksize);
  f->shfp.init(path, root.token, f->nnodes == 1);
  if (amode & MPI_MODE_APPEND) {
    // Both file pointers start at the end of the file.
    const auto size = ::fstat(fd, &st) == 0 ? static_cast<int64_t>(st.st_size) : 0;
    f->ind_pos = size;
    SysError e;
    if (me == 0) e = f->shfp.write(size);
    int err = e.err;
    rc = file_bcast(fn, f->comm, &err, sizeof err, 0);
    if (err || rc != MPI_SUCCESS) {
      f->release();
      if (rc != MPI_SUCCESS) return raise_file(nullptr, rc);
      return raise_file(nullptr,
                        make_error(error_class_for_errno(err), fn,
                                   "cannot place the shared file pointer of \"%s\": %s", name,
                                   std::strerror(err)));
    }
  }
  *out = f;
  return MPI_SUCCESS;
}

int close_file(const char* fn, File* f) {
  // The file's nonblocking operations and a split collective the user left open finish first.
  if (f->split.req != MPI_REQUEST_NULL) {
    runtime::request_wait(runtime::from_handle(f->split.req));
    runtime::request_destroy(runtime::from_handle(f->split.req));
    f->split.req = MPI_REQUEST_NULL;
  }
  runtime::Poller poller;
  while (f->pending > 0) poller.poll();
  int rc = file_barrier(fn, f->comm);
  int err = 0;
  if (::close(f->fd) != 0) err = errno;
  f->fd = -1;
  f->shfp.close();
  if (f->comm->rank() == 0) {
    if (f->amode & MPI_MODE_DELETE_ON_CLOSE) ::unlink(f->path.c_str());
    f->shfp.remove();
  }
  f->closed = true;
  const std::string name = f->name;
  Errhandler* eh = f->errh;
  runtime::errhandler_retain(eh);
  f->release();
  int code = MPI_SUCCESS;
  if (rc != MPI_SUCCESS)
    code = rc;
  else if (err)
    code = make_error(error_class_for_errno(err), fn, "close of \"%s\": %s", name.c_str(),
                      std::strerror(err));
  // Raised on the handler the file had; its handle is gone.
  int r = raise_with(eh, MPI_FILE_NULL, code);
  runtime::errhandler_release(eh);
  return r;
}

int delete_file(const char* fn, const char* name) {
  const std::string path = strip_fs_prefix(name);
  if (::unlink(path.c_str()) == 0) return MPI_SUCCESS;
  const int err = errno;
  return file_error(nullptr, error_class_for_errno(err), fn, "cannot delete \"%s\": %s", name,
                    std::strerror(err));
}

}  // namespace mpr::io
