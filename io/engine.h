// Moving data between memory and a file for one process: lists of file pieces written or read
// with data sieving, and whole accesses (a memory buffer of some datatype against a range of a
// view's stream). Used by independent I/O and by the aggregators of collective I/O; knows
// nothing of communicators.
//
// Data sieving (ROMIO's term): pieces separated by small gaps are served by one large read of
// the whole window, and written by read-modify-write of it under an exclusive byte-range lock,
// instead of one system call per piece. Since such a write rewrites the gaps, a write that does
// not sieve may race with one that does: while sieving writes are possible (the file's
// romio_ds_write hint is not "disable") every write locks the range it writes.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "io/posix.h"
#include "io/view.h"

namespace mpr::io {

/// Data sieving policy of one direction: kAuto sieves windows whose gaps are small (at most
/// kSieveGap bytes each), kEnable any window that fits the buffer, kDisable none.
enum class Sieve : uint8_t { kAuto, kEnable, kDisable };
constexpr uint64_t kSieveGap = 4096;

/// Where and how pieces go. `scratch` is the sieve buffer (grown as needed); its owner
/// serializes its users.
struct IoTarget {
  int fd = -1;
  size_t rd_window = 4u << 20;  ///< largest sieve read (ind_rd_buffer_size)
  size_t wr_window = 512u << 10;  ///< largest sieve write (ind_wr_buffer_size)
  Sieve ds_read = Sieve::kAuto;
  Sieve ds_write = Sieve::kAuto;
  /// Lock every write's range (sieving writes are possible); false when the caller already
  /// holds a lock over the whole access (atomic mode) or sieving writes are disabled.
  bool lock_writes = true;
  std::vector<char>* scratch = nullptr;
};

/// A piece of the file and the memory it comes from or goes to.
struct Piece {
  uint64_t off = 0;
  uint64_t len = 0;
  char* mem = nullptr;
};

/// Write pieces in ascending file order (starts never decrease).
SysError write_pieces(const IoTarget& t, const Piece* p, size_t n);
/// Read pieces in ascending order. *got: bytes delivered in piece order up to the first piece
/// cut short by the end of the file (its bytes before the end included).
SysError read_pieces(const IoTarget& t, const Piece* p, size_t n, uint64_t* got);

/// The memory side of an access: `count` elements of `type` at `buf`, seen as the bytes they
/// make in the file's representation (`fsize` per element).
struct MemSide {
  void* buf = nullptr;
  size_t count = 0;
  const Datatype* type = nullptr;
  const Datarep* rep = nullptr;
  size_t fsize = 0;
  uint64_t bytes() const { return static_cast<uint64_t>(count) * fsize; }
  /// Native data of a contiguous type: the stream is memory itself, at *p.
  bool direct(char** p) const;
  /// Native bytes (MPI_Get_count's unit) of `stream` stream bytes.
  uint64_t native_bytes(uint64_t stream) const;
};

struct AccessResult {
  SysError sys;
  int conv = MPI_SUCCESS;  ///< a conversion's MPI error class
  uint64_t bytes = 0;      ///< stream bytes moved
};

/// Write all of `m` at stream offset `s` of view `v`.
AccessResult write_access(const IoTarget& t, const View& v, uint64_t s, const MemSide& m);
/// Read into all of `m` from stream offset `s`; stops at the end of the file.
AccessResult read_access(const IoTarget& t, const View& v, uint64_t s, const MemSide& m);

/// Stream range [s, s + len) of `v` to and from contiguous memory.
SysError write_stream(const IoTarget& t, const View& v, uint64_t s, const char* data,
                      uint64_t len);
SysError read_stream(const IoTarget& t, const View& v, uint64_t s, char* data, uint64_t len,
                     uint64_t* got);

/// Convert stream bytes [pos, pos + len) of `m` (whole elements unless native) into `out`,
/// and back. Return an MPI error class.
int mem_produce(const MemSide& m, uint64_t pos, uint64_t len, char* out);
int mem_consume(const MemSide& m, uint64_t pos, uint64_t len, const char* in);

}  // namespace mpr::io
