// The data movement engine on a real file against a model of its bytes: random piece lists
// (gaps from none to far apart) written and read with every sieving policy and small windows,
// reads cut short by the end of the file, whole accesses of non-contiguous memory through
// views, and the locks it takes.
#include <catch2/catch.hpp>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstring>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "io/engine.h"
#include "runtime/dt/build.h"

using namespace mpr::io;
using mpr::runtime::Datatype;
using mpr::runtime::to_datatype;

namespace {

struct TempFile {
  std::string path;
  int fd = -1;
  TempFile() {
    char name[] = "/tmp/mpr-io-unit-XXXXXX";
    fd = mkstemp(name);
    REQUIRE(fd >= 0);
    path = name;
  }
  ~TempFile() {
    close(fd);
    unlink(path.c_str());
  }
  std::vector<char> contents() const {
    struct stat st;
    REQUIRE(fstat(fd, &st) == 0);
    std::vector<char> v(static_cast<size_t>(st.st_size));
    SysError e;
    REQUIRE(pread_full(fd, v.data(), v.size(), 0, &e) == v.size());
    return v;
  }
};

// Ascending, non-overlapping pieces with random lengths and gaps, within `span` bytes.
std::vector<Piece> random_pieces(std::mt19937_64& rng, uint64_t start, uint64_t span,
                                 std::vector<char>* mem) {
  std::vector<Piece> p;
  uint64_t at = start;
  std::uniform_int_distribution<int> kind(0, 3);
  while (true) {
    uint64_t gap = 0;
    switch (kind(rng)) {
      case 0: gap = 0; break;
      case 1: gap = rng() % 64; break;
      case 2: gap = rng() % 5000; break;
      default: gap = rng() % 40000; break;
    }
    uint64_t len = 1 + rng() % 3000;
    if (at + gap + len > start + span) break;
    p.push_back({at + gap, len, nullptr});
    at += gap + len;
  }
  uint64_t total = 0;
  for (const Piece& x : p) total += x.len;
  mem->resize(total);
  for (char& c : *mem) c = static_cast<char>(rng());
  uint64_t pos = 0;
  for (Piece& x : p) {
    x.mem = mem->data() + pos;
    pos += x.len;
  }
  return p;
}

IoTarget target(int fd, Sieve s, std::vector<char>* scratch, std::mt19937_64& rng) {
  IoTarget t;
  t.fd = fd;
  t.ds_read = t.ds_write = s;
  t.rd_window = 1000 + rng() % 20000;
  t.wr_window = 1000 + rng() % 20000;
  t.scratch = scratch;
  return t;
}

}  // namespace

TEST_CASE("pieces written and read with every sieving policy match the model", "[io][engine]") {
  std::mt19937_64 rng(42);
  for (Sieve s : {Sieve::kAuto, Sieve::kEnable, Sieve::kDisable}) {
    TempFile f;
    std::vector<char> model, scratch;
    for (int iter = 0; iter < 60; ++iter) {
      std::vector<char> mem;
      const uint64_t start = rng() % 100000;
      std::vector<Piece> p = random_pieces(rng, start, 200000, &mem);
      IoTarget t = target(f.fd, s, &scratch, rng);
      REQUIRE(!write_pieces(t, p.data(), p.size()));
      for (const Piece& x : p) {
        if (model.size() < x.off + x.len) model.resize(x.off + x.len, 0);
        std::memcpy(model.data() + x.off, x.mem, x.len);
      }
      // Nothing past the last piece: the file ends where the model does.
      REQUIRE(f.contents() == model);
      // Read other random pieces back (also past the end of the file).
      std::vector<char> back;
      std::vector<Piece> q = random_pieces(rng, rng() % 150000, 200000, &back);
      uint64_t got = 0;
      REQUIRE(!read_pieces(target(f.fd, s, &scratch, rng), q.data(), q.size(), &got));
      uint64_t expect = 0;
      for (const Piece& x : q) {
        const uint64_t avail = x.off >= model.size() ? 0 : std::min<uint64_t>(x.len, model.size() - x.off);
        REQUIRE(std::memcmp(x.mem, model.data() + x.off, avail) == 0);
        expect += avail;
        if (avail < x.len) break;
      }
      REQUIRE(got == expect);
    }
  }
}

TEST_CASE("whole accesses of a gapped memory type through a strided view", "[io][engine]") {
  using namespace mpr::runtime;
  TempFile f;
  // Memory: 3 of every 4 ints; file: blocks of 5 ints every 9.
  Datatype* mem_t = dt::make_vector(300, 3, 4, to_datatype(MPI_INT));
  Datatype* vec = dt::make_vector(20, 5, 9, to_datatype(MPI_INT));
  Datatype* file_t = dt::make_resized(vec, 0, 20 * 9 * 4);
  mem_t->committed = file_t->committed = true;
  std::unique_ptr<View> v;
  const char* why = "";
  REQUIRE(View::make(16, to_datatype(MPI_INT), file_t, find_datarep("native"), true, &v,
                     &why) == MPI_SUCCESS);
  std::vector<int> src(1200, -1), dst(1200, -2);
  for (int i = 0; i < 300; ++i)
    for (int k = 0; k < 3; ++k) src[i * 4 + k] = i * 3 + k;
  MemSide w{src.data(), 1, mem_t, &v->rep(), mem_t->size};
  std::vector<char> scratch;
  IoTarget t;
  t.fd = f.fd;
  t.scratch = &scratch;
  AccessResult r = write_access(t, *v, 4 * 7, w);  // from the 7th int of the stream
  REQUIRE(!r.sys);
  REQUIRE(r.bytes == 3600);
  // The file: ints of the stream at 16 + tile * 720 + (block * 9 + j) * 4, stream from int 7.
  std::vector<char> file = f.contents();
  for (int i = 0; i < 900; ++i) {
    const int s = i + 7, tile = s / 100, block = s % 100 / 5, j = s % 5;
    int x;
    std::memcpy(&x, file.data() + 16 + tile * 720 + (block * 9 + j) * 4, 4);
    REQUIRE(x == i);
  }
  MemSide rd{dst.data(), 1, mem_t, &v->rep(), mem_t->size};
  r = read_access(t, *v, 4 * 7, rd);
  REQUIRE(!r.sys);
  REQUIRE(r.bytes == 3600);
  for (int i = 0; i < 1200; ++i) REQUIRE(dst[i] == (i % 4 == 3 ? -2 : src[i]));
  // From near the end: only what is there, and the gaps untouched.
  std::fill(dst.begin(), dst.end(), -2);
  r = read_access(t, *v, 4 * 800, rd);
  REQUIRE(r.bytes == 4 * (907 - 800));
  for (int i = 0; i < 107; ++i) REQUIRE(dst[i / 3 * 4 + i % 3] == 800 - 7 + i);
  REQUIRE(dst[107 / 3 * 4 + 107 % 3] == -2);
  mem_t->release();
  vec->release();
  file_t->release();
}

TEST_CASE("byte-range locks exclude other open files of the same file", "[io][engine]") {
  TempFile f;
  const int other = open(f.path.c_str(), O_RDWR);
  REQUIRE(other >= 0);
  {
    RangeLock held(f.fd, 100, 50, true);
    REQUIRE(!held.error());
    struct flock fl;
    std::memset(&fl, 0, sizeof fl);
    fl.l_type = F_WRLCK;
    fl.l_whence = SEEK_SET;
    fl.l_start = 120;
    fl.l_len = 10;
    REQUIRE(fcntl(other, F_OFD_GETLK, &fl) == 0);
    REQUIRE(fl.l_type == F_WRLCK);  // someone (our first descriptor) holds it
    std::memset(&fl, 0, sizeof fl);  // F_OFD_GETLK wants l_pid 0
    fl.l_type = F_WRLCK;
    fl.l_whence = SEEK_SET;
    fl.l_start = 150;  // just past it: free
    fl.l_len = 10;
    REQUIRE(fcntl(other, F_OFD_GETLK, &fl) == 0);
    REQUIRE(fl.l_type == F_UNLCK);
  }
  struct flock fl;
  std::memset(&fl, 0, sizeof fl);
  fl.l_type = F_WRLCK;
  fl.l_whence = SEEK_SET;
  fl.l_start = 100;
  fl.l_len = 50;
  REQUIRE(fcntl(other, F_OFD_GETLK, &fl) == 0);
  REQUIRE(fl.l_type == F_UNLCK);  // released with the object
  close(other);
}

TEST_CASE("errno values map to the MPI-IO error classes", "[io][errors]") {
  REQUIRE(error_class_for_errno(ENOENT) == MPI_ERR_NO_SUCH_FILE);
  REQUIRE(error_class_for_errno(EACCES) == MPI_ERR_ACCESS);
  REQUIRE(error_class_for_errno(ENOSPC) == MPI_ERR_NO_SPACE);
  REQUIRE(error_class_for_errno(EDQUOT) == MPI_ERR_QUOTA);
  REQUIRE(error_class_for_errno(EROFS) == MPI_ERR_READ_ONLY);
  REQUIRE(error_class_for_errno(EEXIST) == MPI_ERR_FILE_EXISTS);
  REQUIRE(error_class_for_errno(EISDIR) == MPI_ERR_BAD_FILE);
  REQUIRE(error_class_for_errno(EIO) == MPI_ERR_IO);
  REQUIRE(strip_fs_prefix("ufs:/tmp/x") == "/tmp/x");
  REQUIRE(strip_fs_prefix("/tmp/ufs:x") == "/tmp/ufs:x");
  REQUIRE(dir_of("a/b/c") == "a/b");
  REQUIRE(dir_of("c") == ".");
  REQUIRE(base_of("a/b/c") == "c");
}
