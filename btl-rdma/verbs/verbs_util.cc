#include "btl-rdma/verbs/verbs_util.h"

#include <arpa/inet.h>

#include <cstring>
#include <mutex>
#include <stdexcept>

namespace mpr::btl::verbs {

namespace {
std::mutex g_live_mu;
LiveCounts g_live;
}  // namespace

void throw_verbs_error(int rank, const char* call, const std::string& what, int err) {
  throw std::runtime_error("rank " + std::to_string(rank) + ": verbs: " + call + " (" + what +
                           ") failed: " + std::strerror(err));
}

void throw_out_of_memory(int rank, const std::string& what) {
  throw std::runtime_error("rank " + std::to_string(rank) + ": verbs: out of memory" +
                           (what.empty() ? "" : " for " + what));
}

LiveCounts live_counts() {
  std::lock_guard<std::mutex> lock(g_live_mu);
  return g_live;
}

void count_live(int LiveCounts::*kind, int delta) {
  std::lock_guard<std::mutex> lock(g_live_mu);
  g_live.*kind += delta;
}

std::string to_string(const LiveCounts& c) {
  return "contexts " + std::to_string(c.contexts) + ", PDs " + std::to_string(c.pds) + ", CQs " +
         std::to_string(c.cqs) + ", SRQs " + std::to_string(c.srqs) + ", QPs " +
         std::to_string(c.qps) + ", AHs " + std::to_string(c.ahs) + ", MRs " +
         std::to_string(c.mrs);
}

std::string gid_to_string(const union ibv_gid& gid) {
  char text[INET6_ADDRSTRLEN] = "?";
  inet_ntop(AF_INET6, gid.raw, text, sizeof text);
  return text;
}

}  // namespace mpr::btl::verbs
