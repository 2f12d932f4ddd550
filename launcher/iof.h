// Forwarding of the ranks' stdout/stderr to mprun's, and of mprun's stdin to rank 0.
#pragma once

#include <poll.h>

#include <chrono>
#include <string>
#include <vector>

#include "launcher/fd.h"
#include "launcher/options.h"

namespace mpr::launch {

/// Reads every rank's stdout and stderr pipes and writes whole lines to mprun's stdout and
/// stderr, so lines of different ranks never mix. Single-threaded: driven by the job's poll
/// loop through collect() and service().
class OutputForwarder {
 public:
  /// tag_output: prefix each line with "[rank] "; timestamps: with the local time it was read
  /// ("2026-12-02T16:26:20.123 "). nranks == 1 without either passes bytes through unbuffered
  /// (prompts without a newline show up at once).
  OutputForwarder(bool tag_output, bool timestamps, int nranks);

  /// Takes the read ends of a rank's stdout and stderr pipes (err may be invalid: stderr
  /// merged into stdout). `label` is what --tag-output shows for it (empty: the rank).
  void add_rank(int rank, UniqueFd out, UniqueFd err, std::string label = {});

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
    std::string label;
    int sink;  ///< STDOUT_FILENO or STDERR_FILENO
    UniqueFd fd;
    std::string pending;  ///< the start of a line not yet terminated
  };

  /// Reads once from `s`; returns false at EOF or on a read error.
  bool read_stream(Stream* s);
  void emit_lines(Stream* s, bool at_eof);
  void write_sink(int sink, const std::string& text);

  std::string prefix(const Stream& s) const;

  bool tag_output_;
  bool timestamps_;
  bool passthrough_;
  bool sink_broken_[3] = {false, false, false};
  std::vector<Stream> streams_;
  size_t poll_base_ = 0;
  std::vector<size_t> polled_;  ///< streams_ index for each collected pollfd
  std::string out_buf_;
};

/// Gives mprun's stdin to the ranks --stdin names (rank 0 by default). One reader of a file or
/// pipe inherits it as is. A terminal is relayed through a pipe, because ranks lead their own
/// process groups and would be stopped by SIGTTIN if they read the terminal themselves; with
/// --stdin all every rank gets its own pipe and a copy of everything read.
class InputForwarder {
 public:
  InputForwarder(StdinMode mode, int stdin_rank, int nranks);
  /// The fd `rank` gets as its stdin (valid until rank_started(rank)).
  int stdin_for(int rank) const;
  /// Call after `rank` was forked: closes our copy of its pipe end.
  void rank_started(int rank);

  void collect(std::vector<pollfd>* fds);
  void service(const std::vector<pollfd>& fds);
  /// True while relaying is possible but mprun is not the terminal's foreground job; the
  /// caller then polls with a short timeout to look again.
  bool waiting_for_foreground() const;
  /// Stops relaying to `rank` (it exited).
  void rank_exited(int rank);

 private:
  struct Target {
    int rank;
    UniqueFd read_end;   ///< the rank's stdin until it is started
    UniqueFd write_end;  ///< ours; invalid once this rank is done
    std::string buffer;  ///< read from stdin, not yet written to this rank
    int poll_index = -1;
  };
  Target* find(int rank);
  const Target* find(int rank) const;
  bool any_pending() const;
  void close_drained();

  UniqueFd null_;
  bool tty_ = false;  ///< mprun's stdin is a terminal
  bool relay_ = false;
  bool at_eof_ = false;   ///< stdin ended: close each pipe once its buffer is written
  int direct_rank_ = -1;  ///< rank inheriting mprun's stdin itself (no relay)
  std::vector<Target> targets_;
  int in_index_ = -1;  ///< pollfd position of stdin from the last collect()
};

}  // namespace mpr::launch
