// Views, data representations and file pointers: set_view/get_view, get_type_extent,
// Register_datarep, seek, positions, byte offsets.
#include <sys/stat.h>

#include <cerrno>
#include <climits>
#include <cstring>

#include "io/api/check.h"
#include "runtime/dt/build.h"

using namespace mpr::io;
using namespace mpr::io::api;
using mpr::runtime::Datatype;
using mpr::runtime::make_error;

namespace {

const Datarep* check_datarep(const char* fn, File* f, const char* name, int* rc) {
  *rc = MPI_SUCCESS;
  if (!name) {
    *rc = file_error(f, MPI_ERR_ARG, fn, "datarep is NULL");
    return nullptr;
  }
  const Datarep* rep = find_datarep(name);
  if (!rep)
    *rc = file_error(f, MPI_ERR_UNSUPPORTED_DATAREP, fn,
                     "unknown data representation \"%s\" (native, internal, external32 or one "
                     "registered with MPI_Register_datarep)",
                     name);
  return rep;
}

int check_not_sequential(const char* fn, File* f) {
  if (!f->sequential()) return MPI_SUCCESS;
  return file_error(f, MPI_ERR_UNSUPPORTED_OPERATION, fn,
                    "\"%s\" was opened MPI_MODE_SEQUENTIAL (only shared file pointers move)",
                    f->name.c_str());
}

int64_t file_size_of(File* f, int* err) {
  struct stat st;
  *err = ::fstat(f->fd, &st) == 0 ? 0 : errno;
  return *err ? 0 : static_cast<int64_t>(st.st_size);
}

// The new position of a seek in etypes, or -1 with the error raised in *rc.
int64_t seek_target(const char* fn, File* f, int64_t current, MPI_Offset offset, int whence,
                    int* rc) {
  *rc = MPI_SUCCESS;
  int64_t base = 0;
  switch (whence) {
    case MPI_SEEK_SET:
      break;
    case MPI_SEEK_CUR:
      base = current;
      break;
    case MPI_SEEK_END: {
      int err = 0;
      const int64_t size = file_size_of(f, &err);
      if (err) {
        *rc = sys_error(f, fn, {err, "fstat", 0});
        return -1;
      }
      const View& v = *f->view;
      base = static_cast<int64_t>(v.stream_before(static_cast<uint64_t>(size)) / v.esize());
      break;
    }
    default:
      *rc = file_error(f, MPI_ERR_ARG, fn,
                       "invalid whence %d (MPI_SEEK_SET, MPI_SEEK_CUR or MPI_SEEK_END)", whence);
      return -1;
  }
  const int64_t to = base + offset;
  if (to < 0) {
    *rc = file_error(f, MPI_ERR_ARG, fn, "seeking to %lld etypes, before the start of the view",
                     static_cast<long long>(to));
    return -1;
  }
  return to;
}

int type_extent(const char* fn, MPI_File fh, MPI_Datatype datatype, MPI_Count* extent) {
  File* f;
  MPR_TRY(enter(fn, fh, &f));
  MPR_TRY(check_arg(fn, f, extent != nullptr, "extent is NULL"));
  Datatype* t = mpr::runtime::to_datatype(datatype);
  if (!t)
    return file_error(f, MPI_ERR_TYPE, fn, "invalid datatype handle %p",
                      static_cast<void*>(datatype));
  const Datatype* ft = nullptr;
  if (int cls = file_type(f->view->rep(), t, &ft); cls != MPI_SUCCESS)
    return file_error(f, cls, fn, "no extent of %s in data representation \"%s\"",
                      t->label().c_str(), f->view->rep().name.c_str());
  *extent = ft->extent;
  ft->release();
  return MPI_SUCCESS;
}

}  // namespace

extern "C" int PMPI_File_set_view(MPI_File fh, MPI_Offset disp, MPI_Datatype etype,
                                  MPI_Datatype filetype, const char* datarep, MPI_Info info) {
  MPR_ENTRY;
  constexpr const char* fn = "MPI_File_set_view";
  File* f;
  MPR_TRY(enter(fn, fh, &f));
  Datatype *et, *ft;
  MPR_TRY(check_type(fn, f, etype, "etype", &et));
  MPR_TRY(check_type(fn, f, filetype, "filetype", &ft));
  int rc;
  const Datarep* rep = check_datarep(fn, f, datarep, &rc);
  if (!rep) return rc;
  mpr::runtime::Info* in = nullptr;
  if (info != MPI_INFO_NULL && !(in = mpr::runtime::to_info(info)))
    return file_error(f, MPI_ERR_INFO, fn, "invalid info handle %p", static_cast<void*>(info));
  if (disp == MPI_DISPLACEMENT_CURRENT) {
    if (!f->sequential())
      return file_error(f, MPI_ERR_ARG, fn,
                        "MPI_DISPLACEMENT_CURRENT needs a file opened MPI_MODE_SEQUENTIAL");
    // Rank 0 reads the pointer for everybody: a process reading it itself could see it
    // after another one's reset below.
    int64_t root[2] = {0, 0};  // position, errno
    if (f->comm->rank() == 0) root[1] = f->shfp.read(&root[0]).err;
    if (int r = file_bcast(fn, f->comm, root, sizeof root, 0); r != MPI_SUCCESS)
      return raise_file(f, r);
    if (root[1])
      return sys_error(f, fn, {static_cast<int>(root[1]), "shared file pointer read", 0});
    disp = static_cast<MPI_Offset>(
        f->view->file_offset(static_cast<uint64_t>(root[0]) * f->view->esize()));
  } else if (disp < 0) {
    return file_error(f, MPI_ERR_ARG, fn, "negative displacement %lld",
                      static_cast<long long>(disp));
  }
  std::unique_ptr<View> v;
  const char* why = "";
  if (int cls = View::make(disp, et, ft, rep, f->writable(), &v, &why); cls != MPI_SUCCESS)
    return file_error(f, cls, fn, "invalid view of \"%s\" (etype %s, filetype %s): %s",
                      f->name.c_str(), et->label().c_str(), ft->label().c_str(), why);
  // Hints given here: every process takes rank 0's (the aggregators must agree).
  Hints h = f->hints;
  std::string hint_why;
  int hint_cls = in ? h.apply(*in, &hint_why) : MPI_SUCCESS;
  // Every process that has the shared file pointer open sets it to 0, then all wait for each
  // other, so no shared access of the new view sees the old pointer.
  SysError reset = f->shfp.reset_if_open();
  struct Each {
    int hint_cls;
    int reset_err;
  } mine{hint_cls, reset.err};
  std::vector<Each> all(static_cast<size_t>(f->comm->size()));
  if (int r = file_allgather(fn, f->comm, &mine, all.data(), sizeof mine); r != MPI_SUCCESS)
    return raise_file(f, r);
  if (all[0].hint_cls != MPI_SUCCESS)
    return file_error(
        f, all[0].hint_cls, fn, "%s",
        f->comm->rank() == 0 ? hint_why.c_str() : "rank 0 was given a malformed hint");
  if (in) {
    if (int r = file_bcast(fn, f->comm, &h, sizeof h, 0); r != MPI_SUCCESS) return raise_file(f, r);
    f->hints = h;
    f->choose_aggregators();
  }
  f->view = std::move(v);
  f->ind_pos = 0;
  if (reset) return sys_error(f, fn, reset);
  return MPI_SUCCESS;
}
MPR_WEAK_ALIAS(File_set_view);

extern "C" int PMPI_File_get_view(MPI_File fh, MPI_Offset* disp, MPI_Datatype* etype,
                                  MPI_Datatype* filetype, char* datarep) {
  MPR_ENTRY;
  constexpr const char* fn = "MPI_File_get_view";
  File* f;
  MPR_TRY(enter(fn, fh, &f));
  MPR_TRY(check_arg(fn, f, disp && etype && filetype && datarep,
                    "disp, etype, filetype or datarep is NULL"));
  const View& v = *f->view;
  *disp = v.disp();
  // Derived types come back as new handles the caller frees (MPI-4.1 14.3).
  auto give = [](const Datatype* t) {
    if (t->predefined) return t->handle;
    Datatype* d = mpr::runtime::dt::make_dup(const_cast<Datatype*>(t));
    d->committed = true;
    return d->handle;
  };
  *etype = give(v.etype());
  *filetype = give(v.filetype());
  std::snprintf(datarep, MPI_MAX_DATAREP_STRING, "%s", v.rep().name.c_str());
  return MPI_SUCCESS;
}
MPR_WEAK_ALIAS(File_get_view);

extern "C" int PMPI_File_get_type_extent(MPI_File fh, MPI_Datatype datatype, MPI_Aint* extent) {
  MPR_ENTRY;
  MPI_Count e = 0;
  MPR_TRY(type_extent("MPI_File_get_type_extent", fh, datatype, extent ? &e : nullptr));
  *extent = static_cast<MPI_Aint>(e);
  return MPI_SUCCESS;
}
MPR_WEAK_ALIAS(File_get_type_extent);

extern "C" int PMPI_File_get_type_extent_c(MPI_File fh, MPI_Datatype datatype, MPI_Count* extent) {
  MPR_ENTRY;
  return type_extent("MPI_File_get_type_extent_c", fh, datatype, extent);
}
MPR_WEAK_ALIAS(File_get_type_extent_c);

namespace {

int register_rep(const char* fn, const char* name, const Datarep& rep) {
  MPR_TRY(mpr::runtime::api::check_running(fn));
  MPR_TRY(check_arg(fn, nullptr, name != nullptr, "datarep is NULL"));
  const size_t n = strnlen(name, MPI_MAX_DATAREP_STRING);
  if (n == 0 || n >= MPI_MAX_DATAREP_STRING)
    return file_error(nullptr, MPI_ERR_ARG, fn, "datarep name must have 1 to %d characters",
                      MPI_MAX_DATAREP_STRING - 1);
  MPR_TRY(check_arg(fn, nullptr, rep.extent_fn != nullptr, "dtype_file_extent_fn is NULL"));
  Datarep r = rep;
  r.name = name;
  r.kind = Datarep::Kind::kUser;
  if (int cls = register_datarep(r); cls != MPI_SUCCESS)
    return file_error(nullptr, cls, fn, "data representation \"%s\" is already defined", name);
  return MPI_SUCCESS;
}

}  // namespace

extern "C" int PMPI_Register_datarep(const char* datarep,
                                     MPI_Datarep_conversion_function* read_conversion_fn,
                                     MPI_Datarep_conversion_function* write_conversion_fn,
                                     MPI_Datarep_extent_function* dtype_file_extent_fn,
                                     void* extra_state) {
  MPR_ENTRY;
  Datarep r;
  r.read_fn = read_conversion_fn;
  r.write_fn = write_conversion_fn;
  r.extent_fn = dtype_file_extent_fn;
  r.extra_state = extra_state;
  return register_rep("MPI_Register_datarep", datarep, r);
}
MPR_WEAK_ALIAS(Register_datarep);

extern "C" int PMPI_Register_datarep_c(const char* datarep,
                                       MPI_Datarep_conversion_function_c* read_conversion_fn,
                                       MPI_Datarep_conversion_function_c* write_conversion_fn,
                                       MPI_Datarep_extent_function* dtype_file_extent_fn,
                                       void* extra_state) {
  MPR_ENTRY;
  Datarep r;
  r.read_fn_c = read_conversion_fn;
  r.write_fn_c = write_conversion_fn;
  r.extent_fn = dtype_file_extent_fn;
  r.extra_state = extra_state;
  return register_rep("MPI_Register_datarep_c", datarep, r);
}
MPR_WEAK_ALIAS(Register_datarep_c);

// ---- file pointers ----------------------------------------------------------------------------

extern "C" int PMPI_File_seek(MPI_File fh, MPI_Offset offset, int whence) {
  MPR_ENTRY;
  constexpr const char* fn = "MPI_File_seek";
  File* f;
  MPR_TRY(enter(fn, fh, &f));
  MPR_TRY(check_not_sequential(fn, f));
  int rc;
  int64_t to = seek_target(fn, f, f->ind_pos, offset, whence, &rc);
  if (to < 0) return rc;
  f->ind_pos = to;
  return MPI_SUCCESS;
}
MPR_WEAK_ALIAS(File_seek);

extern "C" int PMPI_File_get_position(MPI_File fh, MPI_Offset* offset) {
  MPR_ENTRY;
  constexpr const char* fn = "MPI_File_get_position";
  File* f;
  MPR_TRY(enter(fn, fh, &f));
  MPR_TRY(check_not_sequential(fn, f));
  MPR_TRY(check_arg(fn, f, offset != nullptr, "offset is NULL"));
  *offset = f->ind_pos;
  return MPI_SUCCESS;
}
MPR_WEAK_ALIAS(File_get_position);

extern "C" int PMPI_File_get_byte_offset(MPI_File fh, MPI_Offset offset, MPI_Offset* disp) {
  MPR_ENTRY;
  constexpr const char* fn = "MPI_File_get_byte_offset";
  File* f;
  MPR_TRY(enter(fn, fh, &f));
  MPR_TRY(check_not_sequential(fn, f));
  MPR_TRY(check_arg(fn, f, disp != nullptr, "disp is NULL"));
  if (offset < 0)
    return file_error(f, MPI_ERR_ARG, fn, "negative offset %lld", static_cast<long long>(offset));
  const View& v = *f->view;
  if (v.tile_size() == 0) return file_error(f, MPI_ERR_IO, fn, "the view's filetype holds no data");
  *disp = static_cast<MPI_Offset>(v.file_offset(static_cast<uint64_t>(offset) * v.esize()));
  return MPI_SUCCESS;
}
MPR_WEAK_ALIAS(File_get_byte_offset);

extern "C" int PMPI_File_seek_shared(MPI_File fh, MPI_Offset offset, int whence) {
  MPR_ENTRY;
  constexpr const char* fn = "MPI_File_seek_shared";
  File* f;
  MPR_TRY(enter(fn, fh, &f));
  // Collective: rank 0 moves the pointer; the others learn the outcome, which also tells them
  // the new value is in place before any of them uses it.
  struct {
    int rc;
    int err;
    int64_t args[2];
  } root{MPI_SUCCESS, 0, {offset, whence}};
  int rc = MPI_SUCCESS;
  if (f->comm->rank() == 0) {
    int64_t cur = 0;
    if (SysError e = f->shfp.read(&cur)) {
      root.err = e.err;
    } else {
      int64_t to = seek_target(fn, f, cur, offset, whence, &rc);
      if (to < 0)
        root.rc = mpr::runtime::error_class_of(rc);
      else if (SysError w = f->shfp.write(to))
        root.err = w.err;
    }
  }
  if (int r = file_bcast(fn, f->comm, &root, sizeof root, 0); r != MPI_SUCCESS)
    return raise_file(f, r);
  if (root.args[0] != offset || root.args[1] != whence)
    return file_error(f, MPI_ERR_NOT_SAME, fn,
                      "offset %lld and whence %d differ from rank 0's (%lld, %d)",
                      static_cast<long long>(offset), whence, static_cast<long long>(root.args[0]),
                      static_cast<int>(root.args[1]));
  if (root.err) return sys_error(f, fn, {root.err, "shared file pointer update", 0});
  if (root.rc != MPI_SUCCESS) {
    if (f->comm->rank() == 0) return rc;  // already raised, with its message
    return file_error(f, root.rc, fn, "rank 0 could not seek the shared file pointer");
  }
  return MPI_SUCCESS;
}
MPR_WEAK_ALIAS(File_seek_shared);

extern "C" int PMPI_File_get_position_shared(MPI_File fh, MPI_Offset* offset) {
  MPR_ENTRY;
  constexpr const char* fn = "MPI_File_get_position_shared";
  File* f;
  MPR_TRY(enter(fn, fh, &f));
  MPR_TRY(check_arg(fn, f, offset != nullptr, "offset is NULL"));
  int64_t v = 0;
  if (SysError e = f->shfp.read(&v)) return sys_error(f, fn, e);
  *offset = v;
  return MPI_SUCCESS;
}
MPR_WEAK_ALIAS(File_get_position_shared);
