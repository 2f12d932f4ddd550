#include "launcher/iof.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <ctime>
#include <system_error>

namespace mpr::launch {

namespace {

// A line longer than this is written in pieces rather than buffered without bound.
constexpr size_t kMaxLine = 1 << 20;
constexpr size_t kReadChunk = 64 * 1024;

bool is_foreground() { return ::tcgetpgrp(STDIN_FILENO) == ::getpgrp(); }

}  // namespace

OutputForwarder::OutputForwarder(bool tag_output, bool timestamps, int nranks)
    : tag_output_(tag_output),
      timestamps_(timestamps),
      passthrough_(!tag_output && !timestamps && nranks == 1) {}

void OutputForwarder::add_rank(int rank, UniqueFd out, UniqueFd err, std::string label) {
  // A second process (one a rank spawned): whole lines from now on, so theirs do not mix.
  for (const Stream& s : streams_)
    if (s.rank != rank) passthrough_ = false;
  set_nonblocking(out.get());
  streams_.push_back(Stream{rank, label, STDOUT_FILENO, std::move(out), {}});
  if (!err.valid()) return;
  set_nonblocking(err.get());
  streams_.push_back(Stream{rank, label, STDERR_FILENO, std::move(err), {}});
}

std::string OutputForwarder::prefix(const Stream& s) const {
  std::string out;
  if (timestamps_) {
    timespec now;
    ::clock_gettime(CLOCK_REALTIME, &now);
    tm local;
    ::localtime_r(&now.tv_sec, &local);
    char text[40];
    size_t n = std::strftime(text, sizeof text, "%Y-%m-%dT%H:%M:%S", &local);
    std::snprintf(text + n, sizeof text - n, ".%03ld ", now.tv_nsec / 1000000);
    out = text;
  }
  if (tag_output_) out += "[" + (s.label.empty() ? std::to_string(s.rank) : s.label) + "] ";
  return out;
}

void OutputForwarder::collect(std::vector<pollfd>* fds) {
  poll_base_ = fds->size();
  polled_.clear();
  for (size_t i = 0; i < streams_.size(); ++i) {
    if (!streams_[i].fd.valid()) continue;
    fds->push_back(pollfd{streams_[i].fd.get(), POLLIN, 0});
    polled_.push_back(i);
  }
}

void OutputForwarder::service(const std::vector<pollfd>& fds) {
  for (size_t j = 0; j < polled_.size(); ++j) {
    if (!(fds[poll_base_ + j].revents & (POLLIN | POLLHUP | POLLERR))) continue;
    Stream& s = streams_[polled_[j]];
    if (!read_stream(&s)) s.fd.reset();
  }
}

bool OutputForwarder::read_stream(Stream* s) {
  char buf[kReadChunk];
  ssize_t n = ::read(s->fd.get(), buf, sizeof buf);
  if (n < 0 && (errno == EINTR || errno == EAGAIN)) return true;
  if (n <= 0) {
    emit_lines(s, true);
    return false;
  }
  if (passthrough_) {
    write_sink(s->sink, std::string(buf, static_cast<size_t>(n)));
    return true;
  }
  s->pending.append(buf, static_cast<size_t>(n));
  emit_lines(s, false);
  return true;
}

void OutputForwarder::emit_lines(Stream* s, bool at_eof) {
  std::string& p = s->pending;
  size_t end = p.rfind('\n');
  size_t complete = end == std::string::npos ? 0 : end + 1;
  // An unterminated tail is completed at EOF (the next writer may be another rank) or when it
  // grows past kMaxLine.
  bool flush_tail = complete < p.size() && (at_eof || p.size() - complete >= kMaxLine);
  if (complete == 0 && !flush_tail) return;
  if (!tag_output_ && !timestamps_) {
    if (flush_tail) p += '\n';
    size_t n = flush_tail ? p.size() : complete;
    write_sink(s->sink, p.substr(0, n));
    p.erase(0, n);
    return;
  }
  const std::string prefix = this->prefix(*s);
  out_buf_.clear();
  size_t pos = 0;
  while (pos < complete) {
    size_t nl = p.find('\n', pos);
    out_buf_ += prefix;
    out_buf_.append(p, pos, nl + 1 - pos);
    pos = nl + 1;
  }
  if (flush_tail) {
    out_buf_ += prefix;
    out_buf_.append(p, complete, std::string::npos);
    out_buf_ += '\n';
    p.clear();
  } else {
    p.erase(0, complete);
  }
  write_sink(s->sink, out_buf_);
}

void OutputForwarder::write_sink(int sink, const std::string& text) {
  // A reader that went away (mprun ... | head) must not stop the job: keep reading the ranks'
  // pipes so they never block, and drop what cannot be written.
  if (sink_broken_[sink]) return;
  if (!write_all(sink, text)) sink_broken_[sink] = true;
}

void OutputForwarder::drain(std::chrono::steady_clock::time_point deadline) {
  std::vector<pollfd> fds;
  for (;;) {
    fds.clear();
    collect(&fds);
    if (fds.empty()) break;
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
        deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0) break;
    int n = ::poll(fds.data(), fds.size(), static_cast<int>(left.count()));
    if (n < 0 && errno != EINTR) break;
    if (n > 0) service(fds);
  }
  for (Stream& s : streams_) {
    if (!s.fd.valid()) continue;
    emit_lines(&s, true);
    s.fd.reset();
  }
}

InputForwarder::InputForwarder(StdinMode mode, int stdin_rank, int nranks) {
  null_.reset(::open("/dev/null", O_RDONLY | O_CLOEXEC));
  if (!null_.valid()) throw std::system_error(errno, std::generic_category(), "open /dev/null");
  if (mode == StdinMode::kNone) return;
  tty_ = ::isatty(STDIN_FILENO) == 1;
  if (mode == StdinMode::kRank && !tty_) {
    direct_rank_ = stdin_rank;
    return;
  }
  relay_ = true;
  int first = mode == StdinMode::kAll ? 0 : stdin_rank;
  int last = mode == StdinMode::kAll ? nranks - 1 : stdin_rank;
  for (int r = first; r <= last; ++r) {
    int fds[2];
    if (::pipe2(fds, O_CLOEXEC) != 0)
      throw std::system_error(errno, std::generic_category(), "stdin pipe");
    targets_.push_back(Target{r, UniqueFd(fds[0]), UniqueFd(fds[1]), {}});
    set_nonblocking(fds[1]);
  }
}

InputForwarder::Target* InputForwarder::find(int rank) {
  if (targets_.empty()) return nullptr;
  // Targets are consecutive ranks starting at targets_[0].rank.
  size_t i = static_cast<size_t>(rank - targets_.front().rank);
  return rank >= targets_.front().rank && i < targets_.size() ? &targets_[i] : nullptr;
}

const InputForwarder::Target* InputForwarder::find(int rank) const {
  return const_cast<InputForwarder*>(this)->find(rank);
}

int InputForwarder::stdin_for(int rank) const {
  if (rank == direct_rank_) return STDIN_FILENO;
  const Target* t = find(rank);
  return t && t->read_end.valid() ? t->read_end.get() : null_.get();
}

void InputForwarder::rank_started(int rank) {
  if (Target* t = find(rank)) t->read_end.reset();
}

void InputForwarder::rank_exited(int rank) {
  if (Target* t = find(rank)) {
    t->write_end.reset();
    t->buffer.clear();
  }
}

bool InputForwarder::any_pending() const {
  for (const Target& t : targets_)
    if (t.write_end.valid() && !t.buffer.empty()) return true;
  return false;
}

void InputForwarder::close_drained() {
  if (!at_eof_) return;
  for (Target& t : targets_)
    if (t.buffer.empty()) t.write_end.reset();  // the rank reads EOF
}

bool InputForwarder::waiting_for_foreground() const {
  if (!relay_ || at_eof_ || any_pending()) return false;
  bool live = false;
  for (const Target& t : targets_) live |= t.write_end.valid();
  return live && tty_ && !is_foreground();
}

void InputForwarder::collect(std::vector<pollfd>* fds) {
  in_index_ = -1;
  if (!relay_) return;
  bool live = false;
  for (Target& t : targets_) {
    t.poll_index = -1;
    if (!t.write_end.valid()) continue;
    live = true;
    t.poll_index = static_cast<int>(fds->size());
    fds->push_back(
        pollfd{t.write_end.get(), static_cast<short>(t.buffer.empty() ? 0 : POLLOUT), 0});
  }
  // Read more only once every rank took what was read before: a slow reader holds back the
  // others rather than growing a buffer without bound. Reading a terminal from the
  // background would stop mprun with SIGTTIN.
  if (live && !at_eof_ && !any_pending() && (!tty_ || is_foreground())) {
    in_index_ = static_cast<int>(fds->size());
    fds->push_back(pollfd{STDIN_FILENO, POLLIN, 0});
  }
}

void InputForwarder::service(const std::vector<pollfd>& fds) {
  for (Target& t : targets_) {
    if (t.poll_index < 0 || !t.write_end.valid()) continue;
    short ev = fds[static_cast<size_t>(t.poll_index)].revents;
    if (ev & (POLLERR | POLLHUP)) {
      rank_exited(t.rank);  // the rank closed its stdin or exited
      continue;
    }
    if ((ev & POLLOUT) && !t.buffer.empty()) {
      ssize_t n = ::write(t.write_end.get(), t.buffer.data(), t.buffer.size());
      if (n > 0)
        t.buffer.erase(0, static_cast<size_t>(n));
      else if (errno != EAGAIN && errno != EINTR)
        rank_exited(t.rank);
    }
  }
  if (in_index_ >= 0 && (fds[static_cast<size_t>(in_index_)].revents & (POLLIN | POLLHUP))) {
    char buf[4096];
    ssize_t n = ::read(STDIN_FILENO, buf, sizeof buf);
    if (n > 0) {
      for (Target& t : targets_)
        if (t.write_end.valid()) t.buffer.append(buf, static_cast<size_t>(n));
    } else if (n == 0 || (errno != EINTR && errno != EAGAIN)) {
      at_eof_ = true;
    }
  }
  close_drained();
}

}  // namespace mpr::launch
