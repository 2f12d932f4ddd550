// File management: open, close, delete, size, preallocation, sync, group, access mode, hints,
// atomicity, error handlers.
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <mutex>

#include "io/api/check.h"
#include "runtime/api/handles.h"

using namespace mpr::io;
using namespace mpr::io::api;
using mpr::runtime::Comm;
using mpr::runtime::Errhandler;
using mpr::runtime::Info;
using mpr::runtime::make_error;

namespace {

constexpr int kModes = MPI_MODE_CREATE | MPI_MODE_RDONLY | MPI_MODE_WRONLY | MPI_MODE_RDWR |
                       MPI_MODE_DELETE_ON_CLOSE | MPI_MODE_UNIQUE_OPEN | MPI_MODE_EXCL |
                       MPI_MODE_APPEND | MPI_MODE_SEQUENTIAL;

// The amode rules of MPI-4.1 section 14.2.1; the text says what is wrong, or nullptr.
const char* amode_problem(int amode) {
  if (amode & ~kModes) return "unknown bits";
  const int access = (amode & MPI_MODE_RDONLY ? 1 : 0) + (amode & MPI_MODE_WRONLY ? 1 : 0) +
                     (amode & MPI_MODE_RDWR ? 1 : 0);
  if (access != 1)
    return "exactly one of MPI_MODE_RDONLY, MPI_MODE_WRONLY, MPI_MODE_RDWR is needed";
  if ((amode & MPI_MODE_RDONLY) && (amode & (MPI_MODE_CREATE | MPI_MODE_EXCL)))
    return "MPI_MODE_RDONLY with MPI_MODE_CREATE or MPI_MODE_EXCL";
  if ((amode & MPI_MODE_RDWR) && (amode & MPI_MODE_SEQUENTIAL))
    return "MPI_MODE_RDWR with MPI_MODE_SEQUENTIAL";
  return nullptr;
}

int check_info(const char* fn, File* f, MPI_Info h, Info** out) {
  *out = nullptr;
  if (h == MPI_INFO_NULL) return MPI_SUCCESS;
  *out = mpr::runtime::to_info(h);
  if (*out) return MPI_SUCCESS;
  return file_error(f, MPI_ERR_INFO, fn, "invalid info handle %p", static_cast<void*>(h));
}

// rank 0 runs `op` (returning an errno), the others learn its outcome: set_size, preallocate.
int on_rank0(const char* fn, File* f, const char* what, int (*op)(File*, MPI_Offset),
             MPI_Offset size) {
  int err = f->comm->rank() == 0 ? op(f, size) : 0;
  if (int rc = file_bcast(fn, f->comm, &err, sizeof err, 0); rc != MPI_SUCCESS)
    return raise_file(f, rc);
  if (err)
    return file_error(f, error_class_for_errno(err), fn, "%s of \"%s\" to %lld bytes: %s", what,
                      f->name.c_str(), static_cast<long long>(size), std::strerror(err));
  return MPI_SUCCESS;
}

}  // namespace

extern "C" int PMPI_File_open(MPI_Comm comm, const char* filename, int amode, MPI_Info info,
                              MPI_File* fh) {
  MPR_ENTRY;
  constexpr const char* fn = "MPI_File_open";
  MPR_TRY(mpr::runtime::api::check_running(fn));
  MPR_TRY(check_arg(fn, nullptr, fh != nullptr, "fh is NULL"));
  *fh = MPI_FILE_NULL;
  Comm* c = mpr::runtime::to_comm(comm);
  if (!c)
    return file_error(nullptr, MPI_ERR_COMM, fn, "invalid communicator %p",
                      static_cast<void*>(comm));
  if (c->is_inter())
    return file_error(nullptr, MPI_ERR_COMM, fn,
                      "files are opened on intracommunicators, not intercommunicators");
  MPR_TRY(check_arg(fn, nullptr, filename != nullptr, "filename is NULL"));
  if (!*filename) return file_error(nullptr, MPI_ERR_BAD_FILE, fn, "empty file name");
  if (const char* why = amode_problem(amode))
    return file_error(nullptr, MPI_ERR_AMODE, fn, "invalid amode %d for \"%s\": %s", amode,
                      filename, why);
  Info* in = nullptr;
  MPR_TRY(check_info(fn, nullptr, info, &in));
  File* f = nullptr;
  MPR_TRY(open_file(fn, c, filename, amode, in, &f));
  *fh = f->handle();
  return MPI_SUCCESS;
}
MPR_WEAK_ALIAS(File_open);

extern "C" int PMPI_File_close(MPI_File* fh) {
  MPR_ENTRY;
  constexpr const char* fn = "MPI_File_close";
  MPR_TRY(mpr::runtime::api::check_running(fn));
  MPR_TRY(check_arg(fn, nullptr, fh != nullptr, "fh is NULL"));
  File* f;
  MPR_TRY(enter(fn, *fh, &f));
  *fh = MPI_FILE_NULL;
  return close_file(fn, f);
}
MPR_WEAK_ALIAS(File_close);

extern "C" int PMPI_File_delete(const char* filename, MPI_Info info) {
  MPR_ENTRY;
  constexpr const char* fn = "MPI_File_delete";
  MPR_TRY(mpr::runtime::api::check_running(fn));
  MPR_TRY(check_arg(fn, nullptr, filename != nullptr, "filename is NULL"));
  Info* in = nullptr;
  MPR_TRY(check_info(fn, nullptr, info, &in));
  return delete_file(fn, filename);
}
MPR_WEAK_ALIAS(File_delete);

extern "C" int PMPI_File_set_size(MPI_File fh, MPI_Offset size) {
  MPR_ENTRY;
  constexpr const char* fn = "MPI_File_set_size";
  File* f;
  MPR_TRY(enter(fn, fh, &f));
  if (size < 0)
    return file_error(f, MPI_ERR_ARG, fn, "negative size %lld", static_cast<long long>(size));
  if (!f->writable())
    return file_error(f, MPI_ERR_READ_ONLY, fn, "\"%s\" was opened MPI_MODE_RDONLY",
                      f->name.c_str());
  return on_rank0(
      fn, f, "resize",
      [](File* file, MPI_Offset s) {
        std::lock_guard<std::mutex> io(file->io_mu);
        return ::ftruncate(file->fd, static_cast<off_t>(s)) == 0 ? 0 : errno;
      },
      size);
}
MPR_WEAK_ALIAS(File_set_size);

extern "C" int PMPI_File_preallocate(MPI_File fh, MPI_Offset size) {
  MPR_ENTRY;
  constexpr const char* fn = "MPI_File_preallocate";
  File* f;
  MPR_TRY(enter(fn, fh, &f));
  if (size < 0)
    return file_error(f, MPI_ERR_ARG, fn, "negative size %lld", static_cast<long long>(size));
  if (!f->writable())
    return file_error(f, MPI_ERR_READ_ONLY, fn, "\"%s\" was opened MPI_MODE_RDONLY",
                      f->name.c_str());
  if (f->sequential())
    return file_error(f, MPI_ERR_UNSUPPORTED_OPERATION, fn, "\"%s\" was opened MPI_MODE_SEQUENTIAL",
                      f->name.c_str());
  return on_rank0(
      fn, f, "preallocation",
      [](File* file, MPI_Offset s) {
        if (s == 0) return 0;
        std::lock_guard<std::mutex> io(file->io_mu);
        // Allocates the blocks of [0, size) and extends a shorter file; never shrinks it.
        return posix_fallocate(file->fd, 0, static_cast<off_t>(s));
      },
      size);
}
MPR_WEAK_ALIAS(File_preallocate);

extern "C" int PMPI_File_get_size(MPI_File fh, MPI_Offset* size) {
  MPR_ENTRY;
  constexpr const char* fn = "MPI_File_get_size";
  File* f;
  MPR_TRY(enter(fn, fh, &f));
  MPR_TRY(check_arg(fn, f, size != nullptr, "size is NULL"));
  struct stat st;
  if (::fstat(f->fd, &st) != 0) return sys_error(f, fn, {errno, "fstat", 0});
  *size = static_cast<MPI_Offset>(st.st_size);
  return MPI_SUCCESS;
}
MPR_WEAK_ALIAS(File_get_size);

extern "C" int PMPI_File_sync(MPI_File fh) {
  MPR_ENTRY;
  constexpr const char* fn = "MPI_File_sync";
  File* f;
  MPR_TRY(enter(fn, fh, &f));
  if (!f->writable()) return MPI_SUCCESS;  // nothing this process wrote to flush
  std::lock_guard<std::mutex> io(f->io_mu);
  if (::fsync(f->fd) != 0) return sys_error(f, fn, {errno, "fsync", 0});
  return MPI_SUCCESS;
}
MPR_WEAK_ALIAS(File_sync);

extern "C" int PMPI_File_get_group(MPI_File fh, MPI_Group* group) {
  MPR_ENTRY;
  constexpr const char* fn = "MPI_File_get_group";
  File* f;
  MPR_TRY(enter(fn, fh, &f));
  MPR_TRY(check_arg(fn, f, group != nullptr, "group is NULL"));
  return PMPI_Comm_group(f->comm->handle(), group);
}
MPR_WEAK_ALIAS(File_get_group);

extern "C" int PMPI_File_get_amode(MPI_File fh, int* amode) {
  MPR_ENTRY;
  constexpr const char* fn = "MPI_File_get_amode";
  File* f;
  MPR_TRY(enter(fn, fh, &f));
  MPR_TRY(check_arg(fn, f, amode != nullptr, "amode is NULL"));
  *amode = f->amode;
  return MPI_SUCCESS;
}
MPR_WEAK_ALIAS(File_get_amode);

extern "C" int PMPI_File_set_info(MPI_File fh, MPI_Info info) {
  MPR_ENTRY;
  constexpr const char* fn = "MPI_File_set_info";
  File* f;
  MPR_TRY(enter(fn, fh, &f));
  Info* in = nullptr;
  MPR_TRY(check_info(fn, f, info, &in));
  // Collective: every process takes rank 0's hints, so all choose the same aggregators.
  Hints h = f->hints;
  std::string why;
  int cls = in ? h.apply(*in, &why) : MPI_SUCCESS;
  struct {
    int cls;
    Hints hints;
  } root{cls, h};
  if (int rc = file_bcast(fn, f->comm, &root, sizeof root, 0); rc != MPI_SUCCESS)
    return raise_file(f, rc);
  if (root.cls != MPI_SUCCESS)
    return file_error(f, root.cls, fn, "%s",
                      f->comm->rank() == 0 ? why.c_str() : "rank 0 was given a malformed hint");
  f->hints = root.hints;
  f->choose_aggregators();
  return MPI_SUCCESS;
}
MPR_WEAK_ALIAS(File_set_info);

extern "C" int PMPI_File_get_info(MPI_File fh, MPI_Info* info_used) {
  MPR_ENTRY;
  constexpr const char* fn = "MPI_File_get_info";
  File* f;
  MPR_TRY(enter(fn, fh, &f));
  MPR_TRY(check_arg(fn, f, info_used != nullptr, "info_used is NULL"));
  auto* out = new Info;
  f->hints.report(out);
  out->set("cb_nodes", std::to_string(f->aggregators.size()));
  out->set("filename", f->name);
  *info_used = out->handle();
  return MPI_SUCCESS;
}
MPR_WEAK_ALIAS(File_get_info);

extern "C" int PMPI_File_set_atomicity(MPI_File fh, int flag) {
  MPR_ENTRY;
  constexpr const char* fn = "MPI_File_set_atomicity";
  File* f;
  MPR_TRY(enter(fn, fh, &f));
  int root = flag ? 1 : 0;
  if (int rc = file_bcast(fn, f->comm, &root, sizeof root, 0); rc != MPI_SUCCESS)
    return raise_file(f, rc);
  if (root != (flag ? 1 : 0))
    return file_error(f, MPI_ERR_NOT_SAME, fn, "flag %d differs from rank 0's (%d)", flag, root);
  f->atomic = root != 0;
  return MPI_SUCCESS;
}
MPR_WEAK_ALIAS(File_set_atomicity);

extern "C" int PMPI_File_get_atomicity(MPI_File fh, int* flag) {
  MPR_ENTRY;
  constexpr const char* fn = "MPI_File_get_atomicity";
  File* f;
  MPR_TRY(enter(fn, fh, &f));
  MPR_TRY(check_arg(fn, f, flag != nullptr, "flag is NULL"));
  *flag = f->atomic ? 1 : 0;
  return MPI_SUCCESS;
}
MPR_WEAK_ALIAS(File_get_atomicity);

// ---- error handlers ---------------------------------------------------------------------------

extern "C" int PMPI_File_create_errhandler(MPI_File_errhandler_function* function,
                                           MPI_Errhandler* errhandler) {
  MPR_ENTRY;
  constexpr const char* fn = "MPI_File_create_errhandler";
  MPR_TRY(mpr::runtime::api::check_running(fn));
  MPR_TRY(check_arg(fn, nullptr, function && errhandler, "function or errhandler is NULL"));
  auto* eh = new Errhandler;
  eh->kind = Errhandler::Kind::kUser;
  eh->file_fn = function;
  eh->handle = reinterpret_cast<MPI_Errhandler>(eh);
  *errhandler = eh->handle;
  return MPI_SUCCESS;
}
MPR_WEAK_ALIAS(File_create_errhandler);

extern "C" int PMPI_File_set_errhandler(MPI_File file, MPI_Errhandler errhandler) {
  MPR_ENTRY;
  constexpr const char* fn = "MPI_File_set_errhandler";
  MPR_TRY(mpr::runtime::api::check_running(fn));
  File* f = nullptr;
  if (file != MPI_FILE_NULL) MPR_TRY(enter(fn, file, &f));
  Errhandler* eh = mpr::runtime::to_errhandler(errhandler);
  if (!eh || (eh->kind == Errhandler::Kind::kUser && !eh->file_fn))
    return file_error(f, MPI_ERR_ARG, fn, "%p is not an error handler for files",
                      static_cast<void*>(errhandler));
  if (!f) {
    set_default_errhandler(eh);
    return MPI_SUCCESS;
  }
  mpr::runtime::errhandler_retain(eh);
  mpr::runtime::errhandler_release(f->errh);
  f->errh = eh;
  return MPI_SUCCESS;
}
MPR_WEAK_ALIAS(File_set_errhandler);

extern "C" int PMPI_File_get_errhandler(MPI_File file, MPI_Errhandler* errhandler) {
  MPR_ENTRY;
  constexpr const char* fn = "MPI_File_get_errhandler";
  MPR_TRY(mpr::runtime::api::check_running(fn));
  File* f = nullptr;
  if (file != MPI_FILE_NULL) MPR_TRY(enter(fn, file, &f));
  MPR_TRY(check_arg(fn, f, errhandler != nullptr, "errhandler is NULL"));
  Errhandler* eh = f ? f->errh : default_errhandler();
  mpr::runtime::errhandler_retain(eh);  // the caller's reference (MPI_Errhandler_free)
  *errhandler = eh->handle;
  return MPI_SUCCESS;
}
MPR_WEAK_ALIAS(File_get_errhandler);

extern "C" int PMPI_File_call_errhandler(MPI_File fh, int errorcode) {
  MPR_ENTRY;
  constexpr const char* fn = "MPI_File_call_errhandler";
  MPR_TRY(mpr::runtime::api::check_running(fn));
  File* f = nullptr;
  if (fh != MPI_FILE_NULL) MPR_TRY(enter(fn, fh, &f));
  raise_file(f, errorcode);
  return MPI_SUCCESS;
}
MPR_WEAK_ALIAS(File_call_errhandler);
