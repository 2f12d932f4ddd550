// An in-process Bootstrap: several backend instances in one process share one key/value store,
// so two "ranks" can be wired up without a launcher. put() is visible after fence(); fence()
// itself has nothing to wait for (all ranks are set up by the same thread before it).
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "common/bootstrap.h"

namespace mpr::verbs_test {

struct FakeStore {
  std::map<std::pair<int, std::string>, std::vector<uint8_t>> kv;
};

class FakeBootstrap final : public common::Bootstrap {
 public:
  FakeBootstrap(std::shared_ptr<FakeStore> store, int rank, int size, std::string job)
      : store_(std::move(store)), rank_(rank), size_(size), job_(std::move(job)) {
    for (int r = 0; r < size; ++r) local_.push_back(r);
  }
  int rank() const override { return rank_; }
  int size() const override { return size_; }
  const std::vector<int>& local_peers() const override { return local_; }
  int local_rank() const override { return rank_; }
  const std::string& job_id() const override { return job_; }
  void put(const std::string& key, const std::vector<uint8_t>& value) override {
    store_->kv[{rank_, key}] = value;
  }
  void fence() override {}
  bool get(int rank, const std::string& key, std::vector<uint8_t>* value) override {
    auto it = store_->kv.find({rank, key});
    if (it == store_->kv.end()) return false;
    *value = it->second;
    return true;
  }
  bool oversubscribed() const override { return false; }

 private:
  std::shared_ptr<FakeStore> store_;
  int rank_;
  int size_;
  std::string job_;
  std::vector<int> local_;
};

}  // namespace mpr::verbs_test
