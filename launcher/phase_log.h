// --debug-startup: one stderr line per startup phase with the time since mprun started.
#pragma once

#include <chrono>
#include <cstdarg>
#include <cstdio>

namespace mpr::launch {

class PhaseLog {
 public:
  using Clock = std::chrono::steady_clock;

  void enable(bool on) { enabled_ = on; }
  bool enabled() const { return enabled_; }
  /// Milliseconds from mprun's start to `t`.
  double ms(Clock::time_point t) const {
    return std::chrono::duration<double, std::milli>(t - start_).count();
  }
  void mark(const char* fmt, ...) __attribute__((format(printf, 2, 3))) {
    if (!enabled_) return;
    va_list ap;
    va_start(ap, fmt);
    emit(Clock::now(), fmt, ap);
    va_end(ap);
  }
  /// Like mark() for something that happened at `when` (seen later by the event loop).
  void mark_at(Clock::time_point when, const char* fmt, ...) __attribute__((format(printf, 3, 4))) {
    if (!enabled_) return;
    va_list ap;
    va_start(ap, fmt);
    emit(when, fmt, ap);
    va_end(ap);
  }

 private:
  void emit(Clock::time_point when, const char* fmt, va_list ap) {
    char msg[512];
    std::vsnprintf(msg, sizeof msg, fmt, ap);
    std::fprintf(stderr, "mprun: +%.1f ms %s\n", ms(when), msg);
  }

  bool enabled_ = false;
  Clock::time_point start_ = Clock::now();
};

}  // namespace mpr::launch
