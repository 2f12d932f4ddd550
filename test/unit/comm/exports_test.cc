// docs/MPI_FUNCTIONS.md lists every MPI function libmpi.so exports and marks the ones that
// return MPI_ERR_UNSUPPORTED_OPERATION. This test compares that list with the library's
// dynamic symbol table (nm -D), so neither can change without the other.
#include <catch2/catch.hpp>
#include <cstdio>
#include <fstream>
#include <map>
#include <regex>
#include <set>
#include <sstream>
#include <string>

namespace {

// name -> true when marked unsupported.
std::map<std::string, bool> documented(const std::string& path) {
  std::map<std::string, bool> out;
  std::ifstream f(path);
  std::string line;
  const std::regex row(R"(^\|\s*`(MPI_[A-Za-z0-9_]+)`\s*\|(.*)$)");
  std::smatch m;
  while (std::getline(f, line))
    if (std::regex_match(line, m, row))
      out[m[1]] = m[2].str().find("unsupported") != std::string::npos;
  return out;
}

// Defined, exported function symbols of the library (text or weak).
std::set<std::string> exported(const std::string& lib, bool* ok) {
  std::set<std::string> out;
  std::string cmd = "nm -D --defined-only '" + lib + "' 2>/dev/null";
  FILE* p = popen(cmd.c_str(), "r");
  *ok = p != nullptr;
  if (!p) return out;
  char buf[512];
  while (fgets(buf, sizeof buf, p)) {
    std::istringstream ss(buf);
    std::string addr, type, name;
    if (!(ss >> addr >> type >> name)) continue;
    if (type == "T" || type == "W" || type == "i") out.insert(name);
  }
  *ok = pclose(p) == 0 && !out.empty();
  return out;
}

}  // namespace

TEST_CASE("docs/MPI_FUNCTIONS.md matches the functions libmpi.so exports", "[exports]") {
  const std::string doc = std::string(MPR_SRCDIR) + "/docs/MPI_FUNCTIONS.md";
  const std::string lib = std::string(MPR_BUILDDIR) + "/.libs/libmpi.so";
  std::map<std::string, bool> listed = documented(doc);
  REQUIRE_FALSE(listed.empty());
  bool ok = false;
  std::set<std::string> syms = exported(lib, &ok);
  if (!ok) {
    WARN("skipped: cannot read the symbols of " << lib << " with nm -D");
    return;
  }
  std::set<std::string> mpi, pmpi;
  for (const std::string& s : syms) {
    if (s.rfind("MPI_", 0) == 0) mpi.insert(s);
    if (s.rfind("PMPI_", 0) == 0) pmpi.insert(s.substr(1));
  }
  for (const std::string& s : mpi) {
    INFO(s << " is exported by libmpi.so but not listed in docs/MPI_FUNCTIONS.md (run "
              "docs/update_mpi_functions.py)");
    CHECK(listed.count(s) == 1);
  }
  for (const auto& [name, unsupported] : listed) {
    INFO(name << " is listed in docs/MPI_FUNCTIONS.md but libmpi.so does not export it");
    CHECK(mpi.count(name) == 1);
  }
  // Every MPI_ entry point has its profiling twin and nothing else is exported.
  CHECK(mpi == pmpi);
  for (const std::string& s : syms) {
    INFO("unexpected export " << s);
    CHECK((s.rfind("MPI_", 0) == 0 || s.rfind("PMPI_", 0) == 0));
  }
}
