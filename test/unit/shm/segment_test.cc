// Segment naming and lifetime, and the CMA copy loop, in one process.
#include "btl-rdma/shm/segment.h"
#include "test/unit/shm/fork_harness.h"

#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <cerrno>
#include <cstring>
#include <string>
#include <vector>

#include "btl-rdma/shm/cma.h"

using namespace mpr::btl::shm;

namespace {
bool in_dev_shm(const std::string& name) { return access(("/dev/shm" + name).c_str(), F_OK) == 0; }
}  // namespace

TEST_CASE("job ids are sanitized for the segment name", "[segment]") {
  CHECK(sanitize_job_id("mprun-1234@0") == "mprun-1234_0");
  CHECK(sanitize_job_id("a/b:c.d e") == "a_b_c_d_e");
  CHECK(sanitize_job_id("Ok_9-z") == "Ok_9-z");
  CHECK(sanitize_job_id("") == "");
  CHECK(sanitize_job_id(std::string(300, 'x')).size() == 200);
}

TEST_CASE("segment size grows with the number of local ranks", "[segment]") {
  RingGeometry g{64, 16384};
  CHECK(segment_bytes(2, g) >= 2 * g.bytes());
  CHECK(segment_bytes(4, g) >= 12 * g.bytes());
  CHECK(segment_bytes(4, g) < 13 * g.bytes());
  CHECK(segment_bytes(4, g) % 4096 == 0);
}

TEST_CASE("segment name, mode and unlink after the last attach", "[segment]") {
  std::string job = "seg/test:" + std::to_string(getpid());
  Segment leader = Segment::create(job, 3, RingGeometry{4, 256});
  const std::string& name = leader.name();
  CHECK(name.rfind("/mpr." + sanitize_job_id(job) + ".", 0) == 0);
  REQUIRE(in_dev_shm(name));
  struct stat st;
  REQUIRE(stat(("/dev/shm" + name).c_str(), &st) == 0);
  CHECK((st.st_mode & 0777) == 0600);
  CHECK(size_t(st.st_size) == segment_bytes(3, RingGeometry{4, 256}));

  Segment a = Segment::attach(name, 3);
  CHECK(a.header().attached.load() == 1);
  CHECK(in_dev_shm(name));  // one of two attachers so far
  Segment b = Segment::attach(name, 3);
  CHECK_FALSE(in_dev_shm(name));  // the last attacher removed the name
  CHECK(a.header().unlinked.load() == 1);

  // All three views see one memory: a write through one ring is read through another view.
  static_cast<uint8_t*>(a.ring(1, 2))[sizeof(RingControl)] = 0x5a;
  CHECK(static_cast<uint8_t*>(b.ring(1, 2))[sizeof(RingControl)] == 0x5a);
  CHECK(static_cast<uint8_t*>(leader.ring(1, 2))[sizeof(RingControl)] == 0x5a);
  // Distinct pairs get distinct, non-overlapping rings.
  auto* r01 = static_cast<uint8_t*>(leader.ring(0, 1));
  auto* r10 = static_cast<uint8_t*>(leader.ring(1, 0));
  auto* r21 = static_cast<uint8_t*>(leader.ring(2, 1));
  CHECK(r01 != r10);
  CHECK(size_t(r01 > r21 ? r01 - r21 : r21 - r01) >= RingGeometry{4, 256}.bytes());
  leader.release();
  CHECK_FALSE(leader.mapped());
  CHECK(a.mapped());
}

TEST_CASE("the creator removes a name nobody attached to", "[segment]") {
  std::string name;
  {
    Segment s = Segment::create("seg-orphan", 4, RingGeometry{2, 64});
    name = s.name();
    CHECK(in_dev_shm(name));
  }
  CHECK_FALSE(in_dev_shm(name));
}

TEST_CASE("attach rejects a segment made for another local size", "[segment]") {
  Segment s = Segment::create("seg-mismatch", 2, RingGeometry{2, 64});
  CHECK_THROWS_WITH(Segment::attach(s.name(), 3), Catch::Contains("local ranks"));
  CHECK(s.header().attached.load() == 0);
  CHECK_THROWS_WITH(Segment::attach("/mpr.no-such-segment.0", 2), Catch::Contains("shm_open"));
}

TEST_CASE("cma_copy reads and writes, in pieces, and reports faults", "[cma]") {
  if (!mpr::test::cma_works()) {
    WARN("skipped: this machine forbids process_vm_readv");
    return;
  }
  std::vector<uint8_t> src(100000), dst(100000, 0);
  for (size_t i = 0; i < src.size(); ++i) src[i] = uint8_t(i * 13 + 1);
  pid_t self = getpid();
  // A tiny per-call limit makes the loop go round 9091 times, as a >1 GiB copy would.
  REQUIRE(cma_copy(self, dst.data(), uint64_t(uintptr_t(src.data())), src.size(), CmaDir::kRead,
                   11) == 0);
  CHECK(dst == src);
  std::vector<uint8_t> back(100000, 0);
  REQUIRE(cma_copy(self, src.data(), uint64_t(uintptr_t(back.data())), src.size(),
                   CmaDir::kWrite) == 0);
  CHECK(back == src);
  CHECK(cma_copy(self, dst.data(), 0, 0, CmaDir::kRead) == 0);

  uint64_t word = 0;
  REQUIRE(cma_copy(self, &word, cma_probe_address(), 8, CmaDir::kRead) == 0);
  CHECK(word == kCmaProbeValue);

  // The second of two pages is unmapped: the kernel copies the first, then the loop sees the
  // fault on its retry.
  long page = sysconf(_SC_PAGESIZE);
  auto* two = static_cast<uint8_t*>(
      mmap(nullptr, size_t(2 * page), PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0));
  REQUIRE(two != MAP_FAILED);
  std::memset(two, 0x77, size_t(page));
  munmap(two + page, size_t(page));
  std::vector<uint8_t> sink(size_t(2 * page), 0);
  CHECK(cma_copy(self, sink.data(), uint64_t(uintptr_t(two)), sink.size(), CmaDir::kRead) ==
        EFAULT);
  CHECK(sink[0] == 0x77);
  CHECK(sink[size_t(page) - 1] == 0x77);
  munmap(two, size_t(page));

  CHECK(cma_copy(self, &word, 8, 8, CmaDir::kRead) == EFAULT);
  // pid_max is at most 2^22, so no process has this pid.
  CHECK(cma_copy(pid_t(0x7ffffff0), &word, cma_probe_address(), 8, CmaDir::kRead) == ESRCH);
}
