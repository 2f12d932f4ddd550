#include "runtime/core/info.h"

#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <fstream>
#include <memory>

#include "runtime/core/state.h"

namespace mpr::runtime {

namespace {

std::unique_ptr<Info> g_env;

// This process's command line, NUL-separated in /proc (MPI_Init may get argc/argv NULL).
std::vector<std::string> command_line() {
  std::vector<std::string> args;
  std::ifstream f("/proc/self/cmdline", std::ios::binary);
  std::string a;
  while (std::getline(f, a, '\0')) args.push_back(a);
  return args;
}

const char* thread_level_name(int level) {
  switch (level) {
    case MPI_THREAD_SINGLE:
      return "MPI_THREAD_SINGLE";
    case MPI_THREAD_FUNNELED:
      return "MPI_THREAD_FUNNELED";
    case MPI_THREAD_SERIALIZED:
      return "MPI_THREAD_SERIALIZED";
    default:
      return "MPI_THREAD_MULTIPLE";
  }
}

}  // namespace

const std::string* Info::get(const std::string& key) const {
  for (const auto& [k, v] : entries_)
    if (k == key) return &v;
  return nullptr;
}

void Info::set(const std::string& key, const std::string& value) {
  for (auto& [k, v] : entries_)
    if (k == key) {
      v = value;
      return;
    }
  entries_.emplace_back(key, value);
}

bool Info::erase(const std::string& key) {
  auto it =
      std::find_if(entries_.begin(), entries_.end(), [&](const auto& e) { return e.first == key; });
  if (it == entries_.end()) return false;
  entries_.erase(it);
  return true;
}

Info* info_env() {
  if (g_env) return g_env.get();
  g_env = std::make_unique<Info>();
  std::vector<std::string> args = command_line();
  if (!args.empty()) {
    g_env->set("command", args[0]);
    std::string rest;
    for (size_t i = 1; i < args.size(); ++i) rest += (i > 1 ? " " : "") + args[i];
    g_env->set("argv", rest);
  }
  if (g_state.bootstrap) {
    g_env->set("maxprocs", std::to_string(g_state.bootstrap->size()));
    g_env->set("host", g_state.bootstrap->hostname());
  }
  char cwd[4096];
  if (getcwd(cwd, sizeof cwd)) g_env->set("wdir", cwd);
#if defined(__x86_64__)
  g_env->set("arch", "x86_64");
#elif defined(__aarch64__)
  g_env->set("arch", "aarch64");
#endif
  g_env->set("thread_level", thread_level_name(g_state.thread_level));
  return g_env.get();
}

Info* to_info(MPI_Info h) {
  if (h == MPI_INFO_ENV) return info_env();
  if (reinterpret_cast<uintptr_t>(h) < 0x1000) return nullptr;
  auto* i = reinterpret_cast<Info*>(h);
  return i->valid() ? i : nullptr;
}

}  // namespace mpr::runtime
