#include "launcher/env_block.h"

#include <cstdlib>
#include <cstring>
#include <new>

namespace mpr::launch {

namespace {

char* dup_entry(std::string_view name, std::string_view value) {
  size_t len = name.size() + 1 + value.size();
  char* s = static_cast<char*>(std::malloc(len + 1));
  if (!s) throw std::bad_alloc();
  std::memcpy(s, name.data(), name.size());
  s[name.size()] = '=';
  std::memcpy(s + name.size() + 1, value.data(), value.size());
  s[len] = '\0';
  return s;
}

bool has_name(const char* entry, std::string_view name) {
  return std::strncmp(entry, name.data(), name.size()) == 0 && entry[name.size()] == '=';
}

}  // namespace

EnvBlock::EnvBlock() : env_(static_cast<char**>(std::calloc(1, sizeof(char*)))) {
  if (!env_) throw std::bad_alloc();
}

EnvBlock::~EnvBlock() {
  for (char** e = env_; e && *e; ++e) std::free(*e);
  std::free(env_);
}

size_t EnvBlock::size() const {
  size_t n = 0;
  while (env_[n]) ++n;
  return n;
}

void EnvBlock::append(const char* entry) {
  size_t n = size();
  char* copy = strdup(entry);
  if (!copy) throw std::bad_alloc();
  char** grown = static_cast<char**>(std::realloc(env_, (n + 2) * sizeof(char*)));
  if (!grown) {
    std::free(copy);
    throw std::bad_alloc();
  }
  env_ = grown;
  env_[n] = copy;
  env_[n + 1] = nullptr;
}

void EnvBlock::set(std::string_view name, std::string_view value) {
  char* entry = dup_entry(name, value);
  size_t n = size();
  for (size_t i = 0; i < n; ++i) {
    if (has_name(env_[i], name)) {
      std::free(env_[i]);
      env_[i] = entry;
      return;
    }
  }
  char** grown = static_cast<char**>(std::realloc(env_, (n + 2) * sizeof(char*)));
  if (!grown) {
    std::free(entry);
    throw std::bad_alloc();
  }
  env_ = grown;
  env_[n] = entry;
  env_[n + 1] = nullptr;
}

void EnvBlock::erase_prefix(std::string_view prefix) {
  size_t out = 0;
  for (size_t in = 0; env_[in]; ++in) {
    if (std::strncmp(env_[in], prefix.data(), prefix.size()) == 0)
      std::free(env_[in]);
    else
      env_[out++] = env_[in];
  }
  env_[out] = nullptr;
}

const char* EnvBlock::get(std::string_view name) const {
  for (char** e = env_; *e; ++e)
    if (has_name(*e, name)) return *e + name.size() + 1;
  return nullptr;
}

}  // namespace mpr::launch
