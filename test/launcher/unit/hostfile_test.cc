// Hostfile and -H parsing, and the option rules that reject a bad invocation before anything
// starts.
#include "launcher/hostfile.h"

#include <arpa/inet.h>
#include <ifaddrs.h>
#include <netinet/in.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <cstdio>
#include <fstream>
#include <string>
#include <vector>

#include "launcher/options.h"

using namespace mpr::launch;

namespace {

/// A hostfile with `text`, removed again at the end of the test.
class TempFile {
 public:
  explicit TempFile(const std::string& text) {
    char name[] = "/tmp/mpr-hostfile-test.XXXXXX";
    int fd = mkstemp(name);
    REQUIRE(fd >= 0);
    close(fd);
    path_ = name;
    std::ofstream(path_) << text;
  }
  ~TempFile() { std::remove(path_.c_str()); }
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

std::string hostname() {
  char name[256] = {};
  gethostname(name, sizeof name - 1);
  return name;
}

Options parse(std::vector<std::string> args) {
  args.insert(args.begin(), "mprun");
  std::vector<char*> argv;
  for (std::string& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  return parse_options(static_cast<int>(args.size()), argv.data());
}

}  // namespace

TEST_CASE("hostfile slots: Open MPI and MPICH forms, comments, repeats", "[hostfile]") {
  TempFile f("# test\n\nlocalhost slots=3 max_slots=8\n" + hostname() + ":2  # again\n127.0.0.1\n");
  CHECK(hostfile_slots(f.path(), 5) == 3 + 2 + 5);
}

TEST_CASE("hostfile errors name the file and line", "[hostfile]") {
  TempFile bad("localhost slots=2\nlocalhost slots=x\n");
  CHECK_THROWS_WITH(
      hostfile_slots(bad.path(), 1),
      Catch::StartsWith("hostfile " + bad.path() + " line 2: cannot parse 'slots=x'"));
  TempFile remote("localhost\nnode-elsewhere-7 slots=4\n");
  CHECK_THROWS_WITH(hostfile_slots(remote.path(), 1),
                    Catch::Contains("line 2: host 'node-elsewhere-7' is not this node") &&
                        Catch::Contains("srun --mpi=pmix"));
  TempFile count("localhost:0\n");
  CHECK_THROWS_WITH(hostfile_slots(count.path(), 1), Catch::Contains("line 1: cannot parse"));
  TempFile empty("# nothing\n\n");
  CHECK_THROWS_WITH(hostfile_slots(empty.path(), 1), Catch::EndsWith("names no host"));
  CHECK_THROWS_WITH(hostfile_slots("/nonexistent/hosts", 1),
                    Catch::StartsWith("cannot read hostfile '/nonexistent/hosts'"));
}

TEST_CASE("host lists", "[hostfile]") {
  CHECK(host_list_slots("localhost:2," + hostname() + ":3", 1) == 5);
  CHECK(host_list_slots("localhost", 4) == 4);
  CHECK(host_list_slots("::1", 2) == 2);
  CHECK_THROWS_WITH(host_list_slots("localhost,far-away", 1), Catch::Contains("'far-away'"));
  CHECK_THROWS_AS(host_list_slots("localhost:abc", 1), UsageError);
  CHECK_THROWS_AS(host_list_slots("localhost,", 1), UsageError);
}

TEST_CASE("this node's names", "[hostfile]") {
  CHECK(is_this_node("localhost"));
  CHECK(is_this_node("127.0.0.1"));
  CHECK(is_this_node(hostname()));
  CHECK_FALSE(is_this_node("node-elsewhere-7"));
  CHECK_FALSE(is_this_node(""));
}

TEST_CASE("this node's own addresses", "[hostfile]") {
  CHECK(is_local_address("127.0.0.1"));
  CHECK(is_local_address("127.0.1.1"));
  CHECK(is_local_address("[::1]"));
  CHECK_FALSE(is_local_address("localhost"));       // names are not addresses
  CHECK_FALSE(is_local_address("198.51.100.254"));  // TEST-NET-2 (documentation only)
  CHECK_FALSE(is_local_address("not-an-address"));
  // Every address of every interface, as getifaddrs lists them.
  ifaddrs* list = nullptr;
  REQUIRE(getifaddrs(&list) == 0);
  for (const ifaddrs* ifa = list; ifa; ifa = ifa->ifa_next) {
    if (!ifa->ifa_addr || ifa->ifa_addr->sa_family != AF_INET) continue;
    char text[INET_ADDRSTRLEN] = {};
    inet_ntop(AF_INET, &reinterpret_cast<const sockaddr_in*>(ifa->ifa_addr)->sin_addr, text,
              sizeof text);
    CHECK(is_local_address(text));
    CHECK(is_this_node(text));
  }
  freeifaddrs(list);
}

TEST_CASE("rank lists are compact", "[options]") {
  CHECK(rank_list({}).empty());
  CHECK(rank_list({3}) == "3");
  CHECK(rank_list({0, 1}) == "0,1");
  CHECK(rank_list({0, 1, 2, 3}) == "0-3");
  CHECK(rank_list({0, 2, 3, 4, 7}) == "0,2-4,7");
}

TEST_CASE("options: placement, stdin, time limits", "[options]") {
  Options o = parse({"-n", "3", "--map-by", "numa", "--bind-to=package", "--cpus-per-rank", "2",
                     "--stdin", "all", "--timeout", "1.5", "--startup-timeout", "0",
                     "--report-bindings", "--output-filename", "/tmp/x", "/bin/true", "-n", "9"});
  CHECK(o.nprocs == 3);
  CHECK(o.map_by == MapBy::kNuma);
  CHECK(o.bind_to == BindTo::kPackage);
  CHECK(o.cpus_per_rank == 2);
  CHECK(o.stdin_mode == StdinMode::kAll);
  CHECK(o.timeout_s == 1.5);
  CHECK(o.startup_timeout_s == 0);
  CHECK(o.report_bindings);
  CHECK(o.output_dir == "/tmp/x");
  CHECK(o.program_argv == std::vector<std::string>{"/bin/true", "-n", "9"});
  CHECK(parse({"-n", "2", "--stdin", "1", "/bin/true"}).stdin_rank == 1);
  CHECK(parse({"-np", "2", "-n", "2", "/bin/true"}).nprocs == 2);  // same value twice is fine
}

TEST_CASE("options: MPMD contexts, peer spellings, --mca", "[options]") {
  Options o =
      parse({"-genv", "G", "1",   "-n", "2",    "-x", "A=1", "-wdir",     "/tmp", "/bin/true",
             "x",     ":", "-np", "3",  "-env", "B",  "2",   "/bin/echo", "y",    "z"});
  REQUIRE(o.apps.size() == 2);
  CHECK(o.nprocs == 5);
  CHECK(o.apps[0].first_rank == 0);
  CHECK(o.apps[1].first_rank == 2);
  CHECK(o.apps[0].exports == std::vector<std::string>{"A=1"});
  CHECK(o.apps[0].wdir == "/tmp");
  CHECK(o.apps[1].exports == std::vector<std::string>{"B=2"});
  CHECK(o.apps[1].wdir.empty());
  CHECK(o.global_exports == std::vector<std::string>{"G=1"});
  CHECK(o.apps[1].program_argv == std::vector<std::string>{"/bin/echo", "y", "z"});
  CHECK(&o.app_of(1) == &o.apps[0]);
  CHECK(&o.app_of(2) == &o.apps[1]);
  CHECK(&o.app_of(4) == &o.apps[1]);

  // -H: every mention of a host is one slot, as with the peers.
  CHECK(parse({"-H", "localhost,localhost", "/bin/true"}).nprocs == 2);
  CHECK(parse({"-ppn", "2", "/bin/true"}).nprocs == 2);
  o = parse({"--map-by", "ppr:2:package:PE=1", "-n", "2", "/bin/true"});
  CHECK(o.ppr == 2);
  CHECK(o.map_by == MapBy::kPackage);
  o = parse({"--map-by", "socket:PE=2", "-n", "1", "--bind-to", "hwthread", "/bin/true"});
  CHECK(o.cpus_per_rank == 2);
  CHECK(o.bind_to == BindTo::kHwthread);
  CHECK(o.use_hwthreads);  // PE counts hardware threads when binding to them

  o = parse({"--mca", "btl", "self,vader", "-mca", "pml", "ob1", "-n", "1", "/bin/true"});
  CHECK(o.global_exports == std::vector<std::string>{"MPR_BTL=self,shm"});
  REQUIRE(o.warnings.size() == 2);
  CHECK_THAT(o.warnings[0], Catch::Contains("the ranks get MPR_BTL=self,shm instead"));
  CHECK_THAT(o.warnings[1], Catch::Contains("ignored"));
  CHECK(parse({"--mca", "btl", "^tcp", "-n", "1", "/bin/true"}).global_exports ==
        std::vector<std::string>{"MPR_BTL=self,shm,verbs"});
  CHECK(parse({"-l", "--timestamp-output", "--merge-stderr-to-stdout", "-q", "/bin/true"})
            .tag_output);
}

TEST_CASE("options: each bad invocation has its reason", "[options]") {
  CHECK_THROWS_WITH(parse({"-n", "2", "-np", "3", "/bin/true"}),
                    "conflicting options: -n 2 and -np 3");
  CHECK_THROWS_WITH(parse({"--stdin", "4", "-n", "2", "/bin/true"}),
                    "--stdin 4 names no rank (the job has 2 ranks)");
  CHECK_THROWS_WITH(parse({"--timeout", "soon", "/bin/true"}),
                    Catch::StartsWith("--timeout needs a number of seconds"));
  CHECK_THROWS_WITH(parse({"--timeout", "inf", "/bin/true"}),
                    Catch::StartsWith("--timeout needs a number of seconds"));
  CHECK_THROWS_WITH(parse({"--map-by", "board", "/bin/true"}),
                    Catch::StartsWith("--map-by needs core, numa, package, node, hwthread"));
  CHECK_THROWS_WITH(parse({"--map-by", "ppr:2", "/bin/true"}),
                    Catch::StartsWith("--map-by ppr needs ppr:N:core|numa|package|node"));
  CHECK_THROWS_WITH(parse({"--map-by", "core:bogus", "/bin/true"}),
                    Catch::StartsWith("--map-by: unknown modifier 'bogus'"));
  CHECK_THROWS_WITH(parse({"--cpus-per-rank", "3", "--map-by", "core:PE=2", "/bin/true"}),
                    Catch::StartsWith("conflicting options: --cpus-per-rank 3 and --map-by"));
  CHECK_THROWS_WITH(parse({"-n", "1", "/bin/true", ":", "/bin/echo"}),
                    Catch::StartsWith("MPMD: '/bin/echo' (program 2 of 2) needs its own -n"));
  CHECK_THROWS_WITH(parse({"-n", "1", "/bin/true", ":"}),
                    Catch::StartsWith("no program after ':'"));
  CHECK_THROWS_WITH(parse({"-ppn", "1", "-n", "2", "/bin/true"}),
                    Catch::StartsWith("-ppn 1 allows 1 rank on this node, but the job has 2"));
  CHECK_THROWS_WITH(parse({"-wdir", "/nonexistent-dir", "/bin/true"}),
                    Catch::StartsWith("-wdir /nonexistent-dir: No such file"));
  CHECK_THROWS_WITH(parse({"--cpu-set", "a-b", "/bin/true"}),
                    Catch::StartsWith("--cpu-set needs a list of CPUs"));
  CHECK_THROWS_WITH(parse({"-n", "0", "/bin/true"}), Catch::Contains("at least 1 rank"));
  CHECK_THROWS_WITH(parse({"--frobnicate", "/bin/true"}),
                    "unknown option '--frobnicate' (see mprun --help)");
  CHECK_THROWS_WITH(parse({"-H", "localhost", "--hostfile", "/etc/hosts", "/bin/true"}),
                    Catch::StartsWith("conflicting options:"));
  CHECK_THROWS_WITH(parse({"-n", "1", "/nonexistent/prog"}),
                    "program '/nonexistent/prog' not found");
}
