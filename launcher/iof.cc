#include "launcher/iof.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <system_error>

namespace mpr::launch {

namespace {

// A line longer than this is written in pieces rather than buffered without bound.
constexpr size_t kMaxLine = 1 << 20;
constexpr size_t kReadChunk = 64 * 1024;

bool is_foreground() { return ::tcgetpgrp(STDIN_FILENO) == ::getpgrp(); }

}  // namespace

OutputForwarder::OutputForwarder(bool tag_output, int nranks)
    : tag_output_(tag_output), passthrough_(!tag_output && nranks == 1) {}

void OutputForwarder::add_rank(int rank, UniqueFd out, UniqueFd err) {
  set_nonblocking(out.get());
  set_nonblocking(err.get());
  streams_.push_back(Stream{rank, STDOUT_FILENO, std::move(out), {}});
  streams_.push_back(Stream{rank, STDERR_FILENO, std::move(err), {}});
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
  if (!tag_output_) {
    if (flush_tail) p += '\n';
    size_t n = flush_tail ? p.size() : complete;
    write_sink(s->sink, p.substr(0, n));
    p.erase(0, n);
    return;
  }
  std::string prefix = "[" + std::to_string(s->rank) + "] ";
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

InputForwarder::InputForwarder() {
  null_.reset(::open("/dev/null", O_RDONLY | O_CLOEXEC));
  if (!null_.valid()) throw std::system_error(errno, std::generic_category(), "open /dev/null");
  relay_ = ::isatty(STDIN_FILENO) == 1;
  if (!relay_) return;
  int fds[2];
  if (::pipe2(fds, O_CLOEXEC) != 0) throw std::system_error(errno, std::generic_category(), "pipe");
  pipe_read_.reset(fds[0]);
  pipe_write_.reset(fds[1]);
  set_nonblocking(pipe_write_.get());
}

int InputForwarder::rank0_stdin() const {
  return relay_ ? pipe_read_.get() : STDIN_FILENO;
}

void InputForwarder::rank0_started() { pipe_read_.reset(); }

void InputForwarder::stop() {
  pipe_write_.reset();
  buffer_.clear();
}

bool InputForwarder::waiting_for_foreground() const {
  return relay_ && pipe_write_.valid() && buffer_.empty() && !is_foreground();
}

void InputForwarder::collect(std::vector<pollfd>* fds) {
  in_index_ = out_index_ = -1;
  if (!relay_ || !pipe_write_.valid()) return;
  // Reading the terminal from the background would stop mprun with SIGTTIN.
  if (buffer_.empty() && is_foreground()) {
    in_index_ = static_cast<int>(fds->size());
    fds->push_back(pollfd{STDIN_FILENO, POLLIN, 0});
  }
  out_index_ = static_cast<int>(fds->size());
  fds->push_back(pollfd{pipe_write_.get(), static_cast<short>(buffer_.empty() ? 0 : POLLOUT), 0});
}

void InputForwarder::service(const std::vector<pollfd>& fds) {
  if (out_index_ >= 0) {
    short ev = fds[static_cast<size_t>(out_index_)].revents;
    if (ev & (POLLERR | POLLHUP)) {
      stop();  // rank 0 closed its stdin or exited
      return;
    }
    if ((ev & POLLOUT) && !buffer_.empty()) {
      ssize_t n = ::write(pipe_write_.get(), buffer_.data(), buffer_.size());
      if (n > 0)
        buffer_.erase(0, static_cast<size_t>(n));
      else if (errno != EAGAIN && errno != EINTR)
        stop();
    }
  }
  if (in_index_ >= 0 && (fds[static_cast<size_t>(in_index_)].revents & (POLLIN | POLLHUP))) {
    char buf[4096];
    ssize_t n = ::read(STDIN_FILENO, buf, sizeof buf);
    if (n > 0)
      buffer_.assign(buf, static_cast<size_t>(n));
    else if (n == 0 || (errno != EINTR && errno != EAGAIN))
      stop();  // end of input: rank 0 sees EOF
  }
}

}  // namespace mpr::launch
