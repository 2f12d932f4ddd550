// Forwarding of the ranks' stdout/stderr to mprun's, and of mprun's stdin to rank 0.
#pragma once

#include <poll.h>

#include <chrono>
#include <string>
#include <vector>

#include "launcher/fd.h"

namespace mpr::launch {

/// Reads every rank's stdout and stderr pipes and writes whole lines to mprun's stdout and
/// stderr, so lines of different ranks never mix. Single-threaded: driven by the job's poll
/// loop through collect() and service().
class OutputForwarder {
 public:
  /// tag_output: prefix each line with "[rank] ". nranks == 1 without tags passes bytes
  /// through unbuffered (prompts without a newline show up at once).
  OutputForwarder(bool tag_output, int nranks);

  /// Takes the read ends of a rank's stdout and stderr pipes.
  void add_rank(int rank, UniqueFd out, UniqueFd err);

  /// Appends one pollfd per open stream to `fds` and remembers where they start.
  void collect(std::vector<pollfd>* fds);
  /// Handles readiness reported for the pollfds the last collect() appended.
  void service(const std::vector<pollfd>& fds);

  /// Reads until every stream reaches EOF or `deadline` passes (a rank's descendant may keep
  /// a pipe open), then writes out unterminated last lines and closes all streams.
  void drain(std::chrono::steady_clock::time_point deadline);

 private:
  struct Stream {
    int rank;
    int sink;  ///< STDOUT_FILENO or STDERR_FILENO
    UniqueFd fd;
    std::string pending;  ///< the start of a line not yet terminated
  };

  /// Reads once from `s`; returns false at EOF or on a read error.
  bool read_stream(Stream* s);
  void emit_lines(Stream* s, bool at_eof);
  void write_sink(int sink, const std::string& text);

  bool tag_output_;
  bool passthrough_;
  bool sink_broken_[3] = {false, false, false};
  std::vector<Stream> streams_;
  size_t poll_base_ = 0;
  std::vector<size_t> polled_;  ///< streams_ index for each collected pollfd
  std::string out_buf_;
};

/// Gives rank 0 mprun's stdin. A file or pipe is inherited as is; a terminal is relayed
/// through a pipe, because ranks lead their own process groups and would be stopped by
/// SIGTTIN if they read the terminal themselves.
class InputForwarder {
 public:
  InputForwarder();
  /// The fd rank 0 should get as stdin (valid until start_relay()).
  int rank0_stdin() const;
  /// The fd every other rank gets (/dev/null).
  int null_stdin() const { return null_.get(); }
  /// Call after rank 0 was forked: closes our copy of its pipe end.
  void rank0_started();

  void collect(std::vector<pollfd>* fds);
  void service(const std::vector<pollfd>& fds);
  /// True while relaying is possible but mprun is not the terminal's foreground job; the
  /// caller then polls with a short timeout to look again.
  bool waiting_for_foreground() const;
  /// Stops relaying (rank 0 exited).
  void stop();

 private:
  UniqueFd null_;
  UniqueFd pipe_read_;   ///< rank 0's stdin when relaying
  UniqueFd pipe_write_;  ///< our end; invalid once relaying stopped
  bool relay_ = false;
  std::string buffer_;
  int in_index_ = -1, out_index_ = -1;  ///< pollfd positions from the last collect()
};

}  // namespace mpr::launch
