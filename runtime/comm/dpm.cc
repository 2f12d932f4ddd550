#include "runtime/comm/dpm.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <map>

#include "btl-rdma/tcp/ifaces.h"
#include "common/log.h"
#include "common/wait.h"
#include "runtime/comm/comm_impl.h"
#include "runtime/core/errors.h"
#include "runtime/core/ports.h"
#include "runtime/core/state.h"

namespace mpr::runtime {

namespace {

/// The environment variable that tells a spawned process its parents' port.
constexpr char kParentPortVar[] = "MPR_PARENT_PORT";

// ---- byte strings -------------------------------------------------------------------------

void put_u32(std::vector<uint8_t>* b, uint32_t v) {
  const auto* p = reinterpret_cast<const uint8_t*>(&v);
  b->insert(b->end(), p, p + sizeof v);
}

void put_bytes(std::vector<uint8_t>* b, const void* data, size_t n) {
  put_u32(b, static_cast<uint32_t>(n));
  const auto* p = static_cast<const uint8_t*>(data);
  b->insert(b->end(), p, p + n);
}

void put_str(std::vector<uint8_t>* b, const std::string& s) { put_bytes(b, s.data(), s.size()); }

/// Reads what put_* wrote; any read past the end leaves ok() false.
class Reader {
 public:
  explicit Reader(const std::vector<uint8_t>& b, size_t pos = 0) : b_(b), pos_(pos) {}
  bool ok() const { return ok_; }
  bool done() const { return pos_ == b_.size(); }
  uint32_t u32() {
    uint32_t v = 0;
    if (!take(sizeof v)) return 0;
    std::memcpy(&v, b_.data() + pos_ - sizeof v, sizeof v);
    return v;
  }
  std::vector<uint8_t> bytes() {
    const uint32_t n = u32();
    if (!ok_ || !take(n)) return {};
    return std::vector<uint8_t>(b_.begin() + static_cast<long>(pos_ - n),
                                b_.begin() + static_cast<long>(pos_));
  }
  std::string str() {
    std::vector<uint8_t> v = bytes();
    return std::string(v.begin(), v.end());
  }

 private:
  bool take(size_t n) {
    if (!ok_ || b_.size() - pos_ < n) return ok_ = false;
    pos_ += n;
    return true;
  }
  const std::vector<uint8_t>& b_;
  size_t pos_;
  bool ok_ = true;
};

// ---- cards: what a process hands to the other side -----------------------------------------

using Card = common::Bootstrap::RemoteProcess;

void put_card(std::vector<uint8_t>* b, const Card& c) {
  put_str(b, c.job_id);
  put_u32(b, static_cast<uint32_t>(c.rank));
  put_u32(b, static_cast<uint32_t>(c.entries.size()));
  for (const auto& [key, value] : c.entries) {
    put_str(b, key);
    put_bytes(b, value.data(), value.size());
  }
}

bool read_card(Reader* r, Card* c) {
  c->job_id = r->str();
  c->rank = static_cast<int>(r->u32());
  const uint32_t n = r->u32();
  for (uint32_t i = 0; i < n && r->ok(); ++i) {
    std::string key = r->str();
    c->entries[key] = r->bytes();
  }
  return r->ok() && !c->job_id.empty() && c->rank >= 0;
}

std::string describe_proc(int peer) {
  const auto& bs = *g_state.bootstrap;
  if (peer < bs.size()) return "job rank " + std::to_string(peer);
  return "rank " + std::to_string(bs.peer_rank(peer)) + " of job " + bs.peer_job(peer);
}

// ---- status frames between the processes of one side ---------------------------------------

/// A step's outcome: MPI_SUCCESS, or an error class with its message, as it travels from a
/// root to its group (or from a process to its root) so that every process fails the same way.
struct Outcome {
  int err_class = MPI_SUCCESS;
  std::string message;
  bool ok() const { return err_class == MPI_SUCCESS; }
};

void put_outcome(std::vector<uint8_t>* b, const Outcome& o) {
  put_u32(b, static_cast<uint32_t>(o.err_class));
  put_str(b, o.message);
}

Outcome read_outcome(Reader* r) {
  Outcome o;
  o.err_class = static_cast<int>(r->u32());
  o.message = r->str();
  if (!r->ok()) o = {MPI_ERR_INTERN, "malformed message between the processes"};
  return o;
}

/// The code a failed step returns, with the message prefixed by the call (once: a message
/// taken from an error code already is).
int fail(const char* fn, const Outcome& o) {
  const bool prefixed = o.message.rfind(std::string(fn) + ": ", 0) == 0;
  return make_error(o.err_class, prefixed ? nullptr : fn, "%s", o.message.c_str());
}

Outcome outcome_of(int code) {
  if (code == MPI_SUCCESS) return {};
  return {error_class_of(code), error_string(code)};
}

// ---- the socket between the two roots ------------------------------------------------------

int64_t now_ms() {
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return int64_t{ts.tv_sec} * 1000 + ts.tv_nsec / 1000000;
}

/// Seconds after which a wait says once that it is still waiting.
constexpr int64_t kNoticeMs = 60000;

/// Waits until `fd` is ready for `events` (or has an error), driving MPI progress meanwhile so
/// that this process keeps answering its peers. False when `deadline_ms` (>= 0) passed.
/// `what` is said once if the wait takes long.
bool wait_fd(int fd, short events, int64_t deadline_ms, const char* fn, const char* what,
             const std::function<bool()>& give_up = nullptr) {
  common::Waiter waiter(the_pml().wait_policy(), common::WaitKind::kCounted);
  const int64_t start = now_ms();
  bool noticed = false;
  for (;;) {
    pollfd p{fd, events, 0};
    // Spin while the wait is young; then sleep in poll() a millisecond at a time, so a process
    // that waits for others to start does not take the CPU they need.
    const int timeout = waiter.idle_polls() > 2000 ? 1 : 0;
    const int n = ::poll(&p, 1, timeout);
    if (n > 0) return true;
    if (n < 0 && errno != EINTR) return true;  // the caller's I/O call reports the error
    const int64_t now = now_ms();
    if (deadline_ms >= 0 && now >= deadline_ms) return false;
    if (give_up && waiter.idle_polls() % 1024 == 1023 && give_up()) return false;
    if (!noticed && now - start > kNoticeMs) {
      noticed = true;
      common::log_error("%s: still waiting after %lld s for %s", fn,
                        static_cast<long long>((now - start) / 1000), what);
    }
    if (the_pml().progress() > 0)
      waiter.busy();
    else
      waiter.idle();
  }
}

/// A stream socket to the other side's root. Frames are a 32-bit length and the bytes.
class Link {
 public:
  Link(int fd, bool owned) : fd_(fd), owned_(owned) {}
  ~Link() {
    if (owned_ && fd_ >= 0) ::close(fd_);
  }
  Link(const Link&) = delete;
  Link& operator=(const Link&) = delete;

  int fd() const { return fd_; }

  /// Writes all of `data` and reads exactly `in->size()` bytes, whichever the socket allows
  /// first (both roots send before they read; neither may block the other).
  Outcome transfer(const char* fn, const std::vector<uint8_t>& data, std::vector<uint8_t>* in,
                   int64_t deadline_ms) {
    size_t sent = 0, got = 0;
    while (sent < data.size() || got < in->size()) {
      short events = 0;
      if (sent < data.size()) events |= POLLOUT;
      if (got < in->size()) events |= POLLIN;
      if (!wait_fd(fd_, events, deadline_ms, fn, "the other side of the connection"))
        return {MPI_ERR_PORT, "the other side did not answer in time"};
      if (sent < data.size()) {
        const ssize_t n =
            ::send(fd_, data.data() + sent, data.size() - sent, MSG_DONTWAIT | MSG_NOSIGNAL);
        if (n > 0) sent += static_cast<size_t>(n);
        if (n < 0 && errno != EAGAIN && errno != EINTR)
          return {MPI_ERR_PORT, std::string("the connection failed: ") + std::strerror(errno)};
      }
      if (got < in->size()) {
        const ssize_t n = ::recv(fd_, in->data() + got, in->size() - got, MSG_DONTWAIT);
        if (n > 0) got += static_cast<size_t>(n);
        if (n == 0)
          return {MPI_ERR_PORT,
                  "the other side closed the connection (its process ended or gave up)"};
        if (n < 0 && errno != EAGAIN && errno != EINTR)
          return {MPI_ERR_PORT, std::string("the connection failed: ") + std::strerror(errno)};
      }
    }
    return {};
  }

  /// Sends one frame and receives the other side's, both at once.
  Outcome exchange(const char* fn, const std::vector<uint8_t>& out, std::vector<uint8_t>* in,
                   int64_t deadline_ms = -1) {
    std::vector<uint8_t> framed;
    put_u32(&framed, static_cast<uint32_t>(out.size()));
    framed.insert(framed.end(), out.begin(), out.end());
    uint8_t head[sizeof(uint32_t)];
    size_t sent = 0, got = 0;
    bool have_len = false;
    in->clear();
    while (sent < framed.size() || !have_len || got < in->size()) {
      short events = POLLIN;
      if (sent < framed.size()) events |= POLLOUT;
      if (!wait_fd(fd_, events, deadline_ms, fn, "the other side of the connection"))
        return {MPI_ERR_PORT, "the other side did not answer in time"};
      if (sent < framed.size()) {
        const ssize_t n =
            ::send(fd_, framed.data() + sent, framed.size() - sent, MSG_DONTWAIT | MSG_NOSIGNAL);
        if (n > 0) sent += static_cast<size_t>(n);
        if (n < 0 && errno != EAGAIN && errno != EINTR)
          return {MPI_ERR_PORT, std::string("the connection failed: ") + std::strerror(errno)};
      }
      if (have_len && got == in->size()) continue;
      uint8_t* dst = have_len ? in->data() + got : head + got;
      const size_t want = (have_len ? in->size() : sizeof head) - got;
      const ssize_t n = ::recv(fd_, dst, want, MSG_DONTWAIT);
      if (n == 0)
        return {MPI_ERR_PORT,
                "the other side closed the connection (its process ended or gave up)"};
      if (n < 0 && errno != EAGAIN && errno != EINTR)
        return {MPI_ERR_PORT, std::string("the connection failed: ") + std::strerror(errno)};
      if (n < 0) continue;
      got += static_cast<size_t>(n);
      if (!have_len && got == sizeof head) {
        uint32_t len = 0;
        std::memcpy(&len, head, sizeof len);
        if (len > kMaxFrame) return {MPI_ERR_PORT, "the other side sent a malformed frame"};
        have_len = true;
        got = 0;
        in->assign(len, 0);
      }
    }
    return {};
  }

 private:
  static constexpr uint32_t kMaxFrame = 64u << 20;
  int fd_;
  bool owned_;
};

// The first bytes on a port's connection: the connecting side proves it was given the port's
// name, the accepting side answers. On a joined socket both sides send a JoinHello.
constexpr char kPortMagic[8] = {'M', 'P', 'R', 'P', 'O', 'R', 'T', '1'};
constexpr char kJoinMagic[8] = {'M', 'P', 'R', 'J', 'O', 'I', 'N', '1'};
constexpr int64_t kHandshakeMs = 10000;

struct PortHello {
  char magic[8];
  uint8_t token[16];
};
struct PortReply {
  char magic[8];
  uint32_t status;  ///< 0: accepted
  uint32_t pad;
};
static_assert(sizeof(PortHello) == 24 && sizeof(PortReply) == 16);

// ---- joining the two groups ----------------------------------------------------------------

/// This process's card (it loads a backend that reaches other jobs if none is). Without one,
/// the card still serves processes of this job (which need nothing from it); `required` makes
/// that a failure (spawn: the children are of another job for sure).
Outcome my_card(Card* c, bool required) {
  const auto& bs = *g_state.bootstrap;
  c->job_id = bs.job_id();
  c->rank = bs.rank();
  try {
    c->entries = the_btls().contact();
  } catch (const std::exception& e) {
    if (required)
      return {MPI_ERR_OTHER, std::string("this process cannot reach other jobs: ") + e.what()};
    c->entries.clear();
  }
  return {};
}

/// The peers behind `cards`, adding those this process does not know yet.
Outcome peers_of(const std::vector<Card>& cards, std::vector<int>* peers) {
  auto& bs = *g_state.bootstrap;
  bool added = false;
  for (const Card& c : cards) {
    int p = bs.find_peer(c.job_id, c.rank);
    if (p < 0) {
      p = bs.add_remote(c);
      added = true;
    }
    peers->push_back(p);
  }
  if (added) {
    std::string why = the_btls().add_peers();
    the_pml().add_peers();
    if (!why.empty()) return {MPI_ERR_OTHER, why};
  }
  for (int p : *peers)
    if (!the_btls().backend(p))
      return {MPI_ERR_OTHER, "no backend reaches " + describe_proc(p) + " (see MPR_VERBOSE)"};
  return {};
}

/// Step 1 of joining two groups: every process of `local` hands its card to `root`. At root,
/// *side is the side's outcome (its first failure, if any) and *cards the list of cards.
int gather_side(const char* fn, Comm* local, int root, Outcome* side, std::vector<uint8_t>* cards,
                bool other_jobs_required = false) {
  const ctl::Channel ch = local_channel(local);
  Card mine;
  Outcome my = my_card(&mine, other_jobs_required);
  std::vector<uint8_t> mine_bytes;
  put_outcome(&mine_bytes, my);
  if (my.ok()) put_card(&mine_bytes, mine);
  if (local->rank() != root) return ctl::send_vec(fn, ch, root, ctl::kTagCtlGather, mine_bytes);
  put_u32(cards, static_cast<uint32_t>(local->size()));
  for (int r = 0; r < local->size(); ++r) {
    std::vector<uint8_t> b;
    if (r == root) {
      b = mine_bytes;
    } else if (int rc = ctl::recv_vec(fn, ch, r, ctl::kTagCtlGather, &b); rc) {
      return rc;
    }
    Reader rd(b);
    Outcome o = read_outcome(&rd);
    if (o.ok()) {
      Card c;
      if (!read_card(&rd, &c))
        o = {MPI_ERR_INTERN, "malformed card"};
      else
        put_card(cards, c);
    }
    if (!o.ok() && side->ok())
      *side = {o.err_class, "rank " + std::to_string(r) + " of the local group: " + o.message};
  }
  return MPI_SUCCESS;
}

/// The rest, which both sides of every connection run once the root has a link to the other
/// root (`link`, only at root; nullptr when the root failed with `root_outcome`): the roots swap
/// their card lists, every process makes the other side's processes its peers, and the
/// context id of the new intercommunicator is agreed over both groups, the roots again talking
/// over the link.
int finish_join(const char* fn, Comm* local, int root, Link* link, Outcome root_outcome,
                const std::vector<uint8_t>& side_cards, Comm** out) {
  const ctl::Channel ch = local_channel(local);
  const bool am_root = local->rank() == root;
  std::vector<uint8_t> side;  // at root: the outcome, then this side's cards
  if (am_root) {
    put_outcome(&side, root_outcome);
    side.insert(side.end(), side_cards.begin(), side_cards.end());
  }
  // 2. The roots swap their lists; the root tells its group what came back.
  std::vector<uint8_t> remote;
  if (am_root) {
    Reader rd(side);
    Outcome mine_side = read_outcome(&rd);
    Outcome o = mine_side;
    if (link) {
      std::vector<uint8_t> theirs;
      Outcome x = link->exchange(fn, side, &theirs);
      if (!x.ok()) {
        if (o.ok()) o = x;
      } else {
        Reader tr(theirs);
        Outcome t = read_outcome(&tr);
        if (!t.ok() && o.ok()) o = {t.err_class, "the other side failed: " + t.message};
        remote = std::move(theirs);
      }
    }
    if (!o.ok()) {
      remote.clear();
      put_outcome(&remote, o);
    }
  }
  if (int rc = ctl::bcast_vec(fn, ch, root, ctl::kTagCtlGather, &remote); rc) return rc;
  Reader rd(remote);
  Outcome o = read_outcome(&rd);
  if (!o.ok()) return fail(fn, o);
  const uint32_t n = rd.u32();
  std::vector<Card> cards(rd.ok() ? n : 0);
  for (Card& c : cards)
    if (!read_card(&rd, &c)) return make_error(MPI_ERR_INTERN, fn, "malformed list of processes");
  if (!rd.ok() || cards.empty())
    return make_error(MPI_ERR_INTERN, fn, "malformed list of processes");
  // 3. Every process makes the other side's processes its peers; all of both sides must
  // succeed before anyone uses the new communicator.
  std::vector<int> remote_peers;
  Outcome added = peers_of(cards, &remote_peers);
  for (int p : remote_peers)
    if (std::find(local->peers().begin(), local->peers().end(), p) != local->peers().end() &&
        added.ok())
      added = {MPI_ERR_COMM, describe_proc(p) +
                                 " is on both sides (the groups of an intercommunicator must be "
                                 "disjoint)"};
  uint64_t ok_word = added.ok() ? 1 : 0;
  if (int rc = ctl::allreduce_and(fn, ch, ctl::kTagCtlAgree, &ok_word, 1); rc) return rc;
  std::vector<uint8_t> verdict{static_cast<uint8_t>(ok_word)};
  if (am_root) {
    std::vector<uint8_t> theirs;
    Outcome x = link->exchange(fn, verdict, &theirs);
    verdict[0] = x.ok() && theirs.size() == 1 ? static_cast<uint8_t>(verdict[0] & theirs[0]) : 0;
  }
  if (int rc = ctl::bcast_vec(fn, ch, root, ctl::kTagCtlAgree, &verdict); rc) return rc;
  if (verdict.size() != 1 || verdict[0] == 0) {
    if (!added.ok()) return fail(fn, added);
    return make_error(MPI_ERR_OTHER, fn,
                      "a process of one of the two groups could not reach the other group "
                      "(its own error says why)");
  }
  // 4. The context id, agreed over both groups.
  uint32_t ctx = 0;
  Outcome link_failure;
  int rc = agree_ctx_inter(
      fn, ch, root,
      [&](const std::vector<uint8_t>& m, std::vector<uint8_t>* t) {
        Outcome x = link->exchange(fn, m, t);
        if (x.ok()) return MPI_SUCCESS;
        return fail(fn, x);
      },
      true, &ctx);
  if (rc != MPI_SUCCESS) return rc;
  auto* c = new Comm(local->peers(), local->rank(), std::move(remote_peers), ctx);
  inherit(c, local);
  *out = c;
  return MPI_SUCCESS;
}

/// All of it, for accept, connect and join (the root already has its link, or failed).
int join_groups(const char* fn, Comm* local, int root, Link* link, Outcome root_outcome,
                Comm** out) {
  std::vector<uint8_t> cards;
  Outcome side = root_outcome;
  if (int rc = gather_side(fn, local, root, &side, &cards); rc) return rc;
  return finish_join(fn, local, root, link, side, cards, out);
}

// ---- ports ----------------------------------------------------------------------------------

/// At the accepting root: the first connection on the port that presents its token. `gone`
/// (spawn: the children's launcher ended) stops the wait with MPI_ERR_SPAWN and its reason.
Outcome accept_link(const char* fn, const std::string& port_name, std::unique_ptr<Link>* out,
                    const std::function<bool(std::string*)>& gone = nullptr) {
  const int lfd = port_socket(port_name);
  PortAddress pa;
  if (lfd < 0 || !parse_port_name(port_name, &pa))
    return {MPI_ERR_PORT, "port '" + port_name +
                              "' is not open in this process (MPI_Open_port gives the names "
                              "MPI_Comm_accept takes)"};
  static bool logged = false;
  for (;;) {
    std::string why;
    if (!wait_fd(lfd, POLLIN, -1, fn, ("a connection to port " + port_name).c_str(),
                 gone ? std::function<bool()>([&] { return gone(&why); }) : nullptr))
      return {MPI_ERR_SPAWN, "the spawned job ended before its processes connected: " + why};
    sockaddr_in sa{};
    socklen_t len = sizeof sa;
    const int fd = ::accept4(lfd, reinterpret_cast<sockaddr*>(&sa), &len, SOCK_CLOEXEC);
    if (fd < 0) {
      if (errno == EINTR || errno == EAGAIN || errno == ECONNABORTED) continue;
      return {MPI_ERR_PORT, std::string("accept on the port failed: ") + std::strerror(errno)};
    }
    int one = 1;
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    auto link = std::make_unique<Link>(fd, true);
    std::vector<uint8_t> hello(sizeof(PortHello));
    Outcome o = link->transfer(fn, {}, &hello, now_ms() + kHandshakeMs);
    PortHello h;
    std::memcpy(&h, hello.data(), sizeof h);
    if (o.ok() && (std::memcmp(h.magic, kPortMagic, sizeof h.magic) != 0 ||
                   std::memcmp(h.token, pa.token, sizeof h.token) != 0))
      o = {MPI_ERR_PORT, "it did not present this port's token"};
    if (!o.ok()) {
      // Not fatal: a stray or hostile connection must not end a job's MPI_Comm_accept.
      if (!logged) {
        logged = true;
        common::log_error("%s: refused a connection to port %s from %s: %s", fn, port_name.c_str(),
                          btl::tcp::format_ip(ntohl(sa.sin_addr.s_addr)).c_str(),
                          o.message.c_str());
      }
      continue;
    }
    PortReply r{};
    std::memcpy(r.magic, kPortMagic, sizeof r.magic);
    std::vector<uint8_t> reply(sizeof r);
    std::memcpy(reply.data(), &r, sizeof r);
    std::vector<uint8_t> none;
    o = link->transfer(fn, reply, &none, now_ms() + kHandshakeMs);
    if (!o.ok()) continue;
    *out = std::move(link);
    return {};
  }
}

/// At the connecting root: a connection to the port, accepted by its owner.
Outcome connect_link(const char* fn, const std::string& port_name, int64_t timeout_ms,
                     std::unique_ptr<Link>* out) {
  PortAddress pa;
  if (!parse_port_name(port_name, &pa))
    return {MPI_ERR_PORT, "'" + port_name +
                              "' is not a port name (MPI_Open_port gives them: "
                              "mpr-port:tcp:<address>:<port>:<token>)"};
  const int64_t deadline = timeout_ms < 0 ? -1 : now_ms() + timeout_ms;
  const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
  if (fd < 0) return {MPI_ERR_PORT, std::string("socket: ") + std::strerror(errno)};
  auto link = std::make_unique<Link>(fd, true);
  int one = 1;
  setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
  sockaddr_in sa{};
  sa.sin_family = AF_INET;
  sa.sin_addr.s_addr = htonl(pa.addr);
  sa.sin_port = htons(pa.port);
  const std::string where = btl::tcp::format_ip(pa.addr) + ":" + std::to_string(pa.port);
  if (::connect(fd, reinterpret_cast<sockaddr*>(&sa), sizeof sa) != 0 && errno != EINPROGRESS)
    return {MPI_ERR_PORT, "cannot connect to " + where + ": " + std::strerror(errno) +
                              " (the port is closed, or its process ended)"};
  if (!wait_fd(fd, POLLOUT, deadline, fn, ("port " + port_name + " to accept").c_str()))
    return {MPI_ERR_PORT, "timed out connecting to " + where};
  int err = 0;
  socklen_t len = sizeof err;
  getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &len);
  if (err != 0)
    return {MPI_ERR_PORT, "cannot connect to " + where + ": " + std::strerror(err) +
                              " (the port is closed, or its process ended)"};
  PortHello h{};
  std::memcpy(h.magic, kPortMagic, sizeof h.magic);
  std::memcpy(h.token, pa.token, sizeof h.token);
  std::vector<uint8_t> hello(sizeof h);
  std::memcpy(hello.data(), &h, sizeof h);
  std::vector<uint8_t> reply(sizeof(PortReply));
  Outcome o = link->transfer(fn, hello, &reply, deadline);
  if (!o.ok()) {
    if (o.message.find("did not answer") != std::string::npos)
      o.message = "port " + port_name + " was not accepted on within the timeout";
    return o;
  }
  PortReply r;
  std::memcpy(&r, reply.data(), sizeof r);
  if (std::memcmp(r.magic, kPortMagic, sizeof r.magic) != 0 || r.status != 0)
    return {MPI_ERR_PORT, "the process at " + where + " is not an MPR port"};
  *out = std::move(link);
  return {};
}

/// Whatever error code `rc` carries, as an outcome the group learns of.
Outcome root_failure(int rc) { return outcome_of(rc); }

}  // namespace

// ---- identities ------------------------------------------------------------------------------

std::vector<uint8_t> encode_procs(const std::vector<int>& peers) {
  const auto& bs = *g_state.bootstrap;
  std::vector<uint8_t> b;
  put_u32(&b, static_cast<uint32_t>(peers.size()));
  for (int p : peers) {
    put_str(&b, bs.peer_job(p));
    put_u32(&b, static_cast<uint32_t>(bs.peer_rank(p)));
  }
  return b;
}

int decode_procs(const char* fn, const std::vector<uint8_t>& bytes, std::vector<int>* peers) {
  const auto& bs = *g_state.bootstrap;
  Reader r(bytes);
  const uint32_t n = r.u32();
  for (uint32_t i = 0; i < n && r.ok(); ++i) {
    const std::string job = r.str();
    const int rank = static_cast<int>(r.u32());
    if (!r.ok()) break;
    const int p = bs.find_peer(job, rank);
    if (p < 0)
      return make_error(MPI_ERR_INTERN, fn,
                        "rank %d of job %s is not connected to this process (connect to it "
                        "first: MPI_Comm_connect/accept or spawn)",
                        rank, job.c_str());
    peers->push_back(p);
  }
  if (!r.ok() || !r.done()) return make_error(MPI_ERR_INTERN, fn, "malformed list of processes");
  return MPI_SUCCESS;
}

bool proc_before(int a, int b) {
  const auto& bs = *g_state.bootstrap;
  const std::string& ja = bs.peer_job(a);
  const std::string& jb = bs.peer_job(b);
  if (ja != jb) return ja < jb;
  return bs.peer_rank(a) < bs.peer_rank(b);
}

int node_color(const Comm* comm) {
  const auto& bs = *g_state.bootstrap;
  const int leader = bs.local_peers().front();
  bool other_jobs = false;
  for (int p : comm->peers()) other_jobs |= p >= bs.size();
  if (!other_jobs) return leader;
  uint32_t h = 2166136261u;  // FNV-1a of "<job>:<leader>"
  for (unsigned char c : bs.job_id() + ":" + std::to_string(leader)) h = (h ^ c) * 16777619u;
  return static_cast<int>(h & 0x7fffffff);
}

// ---- the calls -------------------------------------------------------------------------------

int comm_accept(const char* fn, const std::string& port_name, Comm* local, int root, Comm** out) {
  std::unique_ptr<Link> link;
  Outcome o;
  if (local->rank() == root) o = accept_link(fn, port_name, &link);
  return join_groups(fn, local, root, link.get(), o, out);
}

int comm_connect(const char* fn, const std::string& port_name, Comm* local, int root,
                 int64_t timeout_ms, Comm** out) {
  std::unique_ptr<Link> link;
  Outcome o;
  if (local->rank() == root) o = connect_link(fn, port_name, timeout_ms, &link);
  return join_groups(fn, local, root, link.get(), o, out);
}

int comm_join(const char* fn, int fd, Comm** out) {
  int type = 0;
  socklen_t len = sizeof type;
  if (getsockopt(fd, SOL_SOCKET, SO_TYPE, &type, &len) != 0 || type != SOCK_STREAM) {
    const int err = errno;
    return make_error(MPI_ERR_ARG, fn, "file descriptor %d is not a connected stream socket (%s)",
                      fd,
                      type != 0 && type != SOCK_STREAM ? "not SOCK_STREAM" : std::strerror(err));
  }
  Link link(fd, false);
  // Each side says it speaks this protocol before anything else travels.
  std::vector<uint8_t> hello(kJoinMagic, kJoinMagic + sizeof kJoinMagic);
  std::vector<uint8_t> theirs(sizeof kJoinMagic);
  Outcome o = link.transfer(fn, hello, &theirs, now_ms() + kHandshakeMs);
  if (o.ok() && std::memcmp(theirs.data(), kJoinMagic, sizeof kJoinMagic) != 0)
    o = {MPI_ERR_ARG, "the process at the other end of the socket is not in MPI_Comm_join"};
  if (!o.ok()) return fail(fn, o);
  return join_groups(fn, g_state.self, 0, &link, {}, out);
}

int comm_spawn(const char* fn, const std::vector<JobBootstrap::SpawnApp>& apps, Comm* local,
               int root, Comm** out) {
  // Every parent must be able to reach the children before they start: they would fail in
  // MPI_Init otherwise, and end the job.
  std::vector<uint8_t> cards;
  Outcome o;
  if (int rc = gather_side(fn, local, root, &o, &cards, true); rc) return rc;
  std::unique_ptr<Link> link;
  std::string port;
  if (local->rank() == root && o.ok()) {
    int rc = open_port(fn, &port);
    if (rc != MPI_SUCCESS) {
      o = root_failure(rc);
    } else {
      std::vector<JobBootstrap::SpawnApp> with_port = apps;
      for (auto& a : with_port) a.env.push_back(std::string(kParentPortVar) + "=" + port);
      std::string job, detail;
      if (!g_state.bootstrap->spawn(with_port, &job, &detail))
        o = {MPI_ERR_SPAWN, "the processes could not be started: " + detail};
      else
        o = accept_link(fn, port, &link,
                        [](std::string* why) { return g_state.bootstrap->spawn_gone(why); });
    }
  }
  int rc = finish_join(fn, local, root, link.get(), o, cards, out);
  if (!port.empty()) close_port(port);
  if (rc != MPI_SUCCESS && error_class_of(rc) != MPI_ERR_SPAWN)
    return make_error(MPI_ERR_SPAWN, nullptr, "%s", error_string(rc).c_str());
  return rc;
}

int connect_parent(const char* fn) {
  const char* port = std::getenv(kParentPortVar);
  if (!port || !*port) return MPI_SUCCESS;
  const std::string name = port;
  // Its own children get their own port; a program it starts by other means gets none.
  unsetenv(kParentPortVar);
  Comm* parent = nullptr;
  int rc = comm_connect(fn, name, g_state.world, 0, -1, &parent);
  if (rc != MPI_SUCCESS) return rc;
  parent->set_name("MPI_COMM_PARENT");
  g_state.parent = parent;
  return MPI_SUCCESS;
}

}  // namespace mpr::runtime
