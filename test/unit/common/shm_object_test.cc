// The one /dev/shm naming scheme: what the shm backend and RMA windows create is what the
// launcher's cleanup removes, and nothing else.
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include <catch2/catch.hpp>

#include <cstdlib>
#include <cstring>
#include <string>

#include "common/shm_object.h"

using mpr::common::remove_job_shm_objects;
using mpr::common::sanitize_job_id;
using mpr::common::shm_entry_of_job;
using mpr::common::shm_job_prefix;
using mpr::common::ShmObject;

namespace {

std::string entry_of(const ShmObject& s) { return s.name().substr(1); }  // without the '/'

bool exists(const std::string& name) {
  struct stat st;
  return stat(("/dev/shm" + name).c_str(), &st) == 0;
}

std::string unique_job(const char* what) {
  return std::string("unit-") + what + "@" + std::to_string(getpid());
}

}  // namespace

TEST_CASE("job ids become [A-Za-z0-9_-], at most 200 characters", "[shm_object]") {
  CHECK(sanitize_job_id("mprun-1234@0") == "mprun-1234_0");
  CHECK(sanitize_job_id("a/b:c.d e") == "a_b_c_d_e");
  CHECK(sanitize_job_id("") == "");
  CHECK(sanitize_job_id(std::string(300, 'x')).size() == 200);
  CHECK(shm_job_prefix("mprun-1@0") == "mpr.mprun-1_0.");
}

TEST_CASE("an entry belongs to a job by its prefix, also for ids longer than 200 characters",
          "[shm_object]") {
  CHECK(shm_entry_of_job("mpr.mprun-1_0.0123456789abcdef", "mprun-1@0"));
  CHECK(shm_entry_of_job("mpr.mprun-1_0.win.0123456789abcdef", "mprun-1@0"));
  CHECK_FALSE(shm_entry_of_job("mpr.mprun-10_0.0123456789abcdef", "mprun-1@0"));
  CHECK_FALSE(shm_entry_of_job("mpr.mprun-1_0", "mprun-1@0"));
  CHECK_FALSE(shm_entry_of_job("other.mprun-1_0.x", "mprun-1@0"));
  // The names are made from the cut id, so the cleanup must cut it too.
  const std::string long_id(250, 'j');
  CHECK(shm_entry_of_job("mpr." + std::string(200, 'j') + ".0123456789abcdef", long_id));
}

TEST_CASE("create makes a private, zeroed, job-prefixed object of the asked size", "[shm_object]") {
  const std::string job = unique_job("create");
  ShmObject s = ShmObject::create(job, "win.", 10000);
  REQUIRE(s.base() != nullptr);
  CHECK(s.bytes() == 10000);
  CHECK(s.name().rfind("/" + shm_job_prefix(job) + "win.", 0) == 0);
  CHECK(s.name().size() == 1 + shm_job_prefix(job).size() + 4 + 16);
  CHECK(shm_entry_of_job(entry_of(s), job));
  struct stat st;
  REQUIRE(stat(("/dev/shm" + s.name()).c_str(), &st) == 0);
  CHECK((st.st_mode & 0777) == 0600);
  CHECK(st.st_size == 10000);
  const auto* p = static_cast<const unsigned char*>(s.base());
  CHECK(p[0] == 0);
  CHECK(p[9999] == 0);
  CHECK(s.unlink());
  CHECK_FALSE(s.unlink());
  CHECK_FALSE(exists(s.name()));
}

TEST_CASE("two creates for one job get different names", "[shm_object]") {
  const std::string job = unique_job("twice");
  ShmObject a = ShmObject::create(job, "", 4096);
  ShmObject b = ShmObject::create(job, "", 4096);
  CHECK(a.name() != b.name());
  a.unlink();
  b.unlink();
}

TEST_CASE("attach maps the same pages, all of them unless told how many", "[shm_object]") {
  const std::string job = unique_job("attach");
  ShmObject a = ShmObject::create(job, "", 8192);
  ShmObject b = ShmObject::attach(a.name());
  CHECK(b.bytes() == 8192);
  ShmObject c = ShmObject::attach(a.name(), 4096);
  CHECK(c.bytes() == 4096);
  static_cast<char*>(a.base())[4095] = 42;
  CHECK(static_cast<char*>(b.base())[4095] == 42);
  CHECK(static_cast<char*>(c.base())[4095] == 42);
  a.unlink();
  CHECK_THROWS_WITH(ShmObject::attach(a.name()), Catch::Contains("shm_open"));
}

TEST_CASE("a failed create leaves nothing behind and says why", "[shm_object]") {
  const std::string job = unique_job("toolong");
  // A name beyond NAME_MAX: shm_open refuses it (glibc says EINVAL).
  CHECK_THROWS_WITH(ShmObject::create(job, std::string(300, 'k'), 4096),
                    Catch::Contains("shm_open(/" + shm_job_prefix(job)));
  CHECK(remove_job_shm_objects(job) == 0);
}

TEST_CASE("the cleanup removes the job's objects and no other job's", "[shm_object]") {
  const std::string job = unique_job("cleanup");
  const std::string other = job + "0";  // a job whose id starts with this one's
  ShmObject seg = ShmObject::create(job, "", 4096);
  ShmObject win = ShmObject::create(job, "win.", 4096);
  ShmObject keep = ShmObject::create(other, "", 4096);
  CHECK(remove_job_shm_objects(job) == 2);
  CHECK_FALSE(exists(seg.name()));
  CHECK_FALSE(exists(win.name()));
  CHECK(exists(keep.name()));
  CHECK(remove_job_shm_objects(other) == 1);
  CHECK_FALSE(exists(keep.name()));
  // The mappings outlive the names.
  static_cast<char*>(seg.base())[0] = 1;
}

TEST_CASE("a moved-from object owns nothing; release hands the mapping over", "[shm_object]") {
  const std::string job = unique_job("move");
  ShmObject a = ShmObject::create(job, "", 4096);
  ShmObject b = std::move(a);
  CHECK(a.base() == nullptr);  // NOLINT(bugprone-use-after-move): checking the moved-from state
  CHECK(b.bytes() == 4096);
  b.unlink();
  void* p = b.release();
  CHECK(b.base() == nullptr);
  CHECK(p != nullptr);
  munmap(p, 4096);
}
