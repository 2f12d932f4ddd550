// An open file (MPI_File): the descriptor, a private communicator for the file's collectives,
// the hints, the view, the file pointers, the error handler. One object per process; every
// collective call on it runs over `comm`, a clone of the communicator the file was opened on,
// so file traffic never meets the user's.
#pragma once

#include <atomic>
#include <cstdarg>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "io/engine.h"
#include "io/shared.h"
#include "io/view.h"
#include "mpi.h"
#include "runtime/comm/comm.h"
#include "runtime/core/errors.h"
#include "runtime/core/info.h"

namespace mpr::io {

using runtime::Comm;
using runtime::Errhandler;
using runtime::Info;

/// enable / disable / automatic, as ROMIO's hints say it.
enum class Tri : uint8_t { kAuto, kEnable, kDisable };

/// The hints MPR acts on (MPI_Info keys of MPI_File_open, set_view, set_info), with ROMIO's
/// names where the standard reserves none. A plain struct: rank 0's copy is broadcast so every
/// process of a file uses the same values.
struct Hints {
  uint64_t cb_buffer_size = 16u << 20;  ///< collective buffer per aggregator and round
  int cb_nodes = 0;                     ///< aggregators; 0 = one per node
  Tri cb_read = Tri::kAuto;             ///< romio_cb_read: two-phase reads
  Tri cb_write = Tri::kAuto;            ///< romio_cb_write: two-phase writes
  Sieve ds_read = Sieve::kAuto;         ///< romio_ds_read: data sieving
  Sieve ds_write = Sieve::kAuto;        ///< romio_ds_write
  uint64_t ind_rd_buffer_size = 4u << 20;
  uint64_t ind_wr_buffer_size = 512u << 10;
  uint64_t striping_unit = 0;  ///< file domain alignment; 0 = the file system's block size
  int striping_factor = 0;     ///< accepted and reported (no striped file system support)
  int file_perm = 0666;        ///< mode of a file MPI_MODE_CREATE makes (before the umask)
  char access_style[64] = "";  ///< accepted and reported
  char cb_config_list[64] = "*:1";

  /// Defaults: the table above, then MPR_IO_HINTS ("key=value;key=value").
  static Hints defaults();
  /// Take the hint keys of `info`; other keys are ignored (the standard lets an
  /// implementation ignore hints). MPI_ERR_INFO_VALUE with *why for a value MPR cannot read.
  int apply(const Info& info, std::string* why);
  /// One key=value pair; false if the key is not a hint MPR knows, *bad set if the value is
  /// malformed.
  bool apply_one(const std::string& key, const std::string& value, bool* bad);
  /// What MPI_File_get_info reports: every hint in effect.
  void report(Info* out) const;
};

class File {
 public:
  static constexpr unsigned kMagic = 0x46696c65;  // "File"

  bool valid() const { return magic_ == kMagic && !closed; }
  MPI_File handle() const { return reinterpret_cast<MPI_File>(const_cast<File*>(this)); }
  /// Requests and split collectives keep the object after MPI_File_close.
  void retain() { ++refs_; }
  void release();

  std::string name;  ///< as the user gave it (error messages, the "filename" hint)
  std::string path;  ///< with any file system prefix dropped
  int fd = -1;
  bool fd_reads = true;  ///< fd can read (MPI_MODE_WRONLY files too, where permissions allow)
  int amode = 0;
  Comm* comm = nullptr;  ///< clone of the opening communicator (owned)
  Hints hints;
  std::shared_ptr<const View> view;
  int64_t ind_pos = 0;  ///< the individual file pointer, in etypes of the view
  bool atomic = false;
  Errhandler* errh = nullptr;
  SharedFp shfp;
  /// Collective buffering: the aggregators (ranks of comm), the node of each rank, and the
  /// file system's block size (file domains start at multiples of the stripe or block size).
  std::vector<int> aggregators;
  std::vector<int> node_of;
  int nnodes = 1;
  uint64_t fs_block = 4096;
  bool closed = false;

  /// Data movement of this file in this process, from the calling thread or the I/O thread,
  /// one access at a time; the sieve buffer is used under it.
  std::mutex io_mu;
  std::vector<char> sieve_buf;
  /// The collective buffer of a two-phase operation (one at a time takes it; others allocate).
  std::vector<char> cb_buf;
  bool cb_busy = false;
  /// Nonblocking operations not finished yet (MPI_File_close waits for them); the I/O thread
  /// counts its jobs down.
  std::atomic<int> pending{0};
  /// The split collective in progress (MPI_File_*_begin .. _end): its request and call.
  struct Split {
    MPI_Request req = MPI_REQUEST_NULL;
    const char* begin_fn = nullptr;
    const void* buf = nullptr;
  } split;

  /// How this file's data moves: the sieving policy and buffers of its hints. `locked`: the
  /// caller holds a lock over the whole access (atomic mode), so pieces take none.
  IoTarget target(bool locked);
  /// Pick aggregators from the hints and node_of (every process gets the same list).
  void choose_aggregators();
  bool sequential() const { return amode & MPI_MODE_SEQUENTIAL; }
  bool readable() const { return !(amode & MPI_MODE_WRONLY); }
  bool writable() const { return !(amode & MPI_MODE_RDONLY); }

  ~File();

 private:
  unsigned magic_ = kMagic;
  int refs_ = 1;
};

/// The file behind a handle, or nullptr (MPI_FILE_NULL, invalid, closed).
File* to_file(MPI_File h);

/// Hand `code` to `f`'s error handler (MPI_FILE_NULL's when f is null: errors of
/// MPI_File_open, MPI_File_delete and invalid handles). Returns the code if the handler returns.
int raise_file(File* f, int code);
/// The same with an explicit handler and handle (a file being closed).
int raise_with(Errhandler* eh, MPI_File h, int code);
/// make_error + raise_file.
int file_error(File* f, int err_class, const char* fn, const char* fmt, ...)
    __attribute__((format(printf, 4, 5)));
/// An error of a system call on the file: its class from errno, a message naming the call,
/// the file and the offset.
int sys_error(File* f, const char* fn, const SysError& e);
/// MPI_FILE_NULL's error handler (MPI_ERRORS_RETURN until MPI_File_set_errhandler changes it).
Errhandler* default_errhandler();
void set_default_errhandler(Errhandler* eh);

/// MPI_File_open's work, collective over `comm`. Returns an MPI error code, raised.
int open_file(const char* fn, Comm* comm, const char* name, int amode, const Info* info,
              File** out);
/// MPI_File_close's work (collective): waits for the file's nonblocking operations.
int close_file(const char* fn, File* f);
/// MPI_File_delete.
int delete_file(const char* fn, const char* name);

/// Blocking collectives over the file's communicator (or another), for the file calls'
/// agreements. Return MPI error codes, not raised.
int file_bcast(const char* fn, Comm* comm, void* buf, size_t bytes, int root);
int file_allgather(const char* fn, Comm* comm, const void* send, void* recv, size_t blk);
int file_barrier(const char* fn, Comm* comm);

}  // namespace mpr::io
