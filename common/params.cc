#include "common/params.h"

#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace mpr::common {

namespace {

// Grouped by subsystem (general and waiting, then self, shm, verbs, tcp, pml, rma, coll), in the
// order `mprun --params` shows them.
const ParamDef kParams[] = {
    {"MPR_VERBOSE", "0",
     "1: print once per job which backend serves which peers and the protocol thresholds",
     ParamKind::kBool},
    {"MPR_STATS", "0",
     "1: print per rank at finalize messages/bytes per protocol, unexpected-queue peak, "
     "rendezvous count",
     ParamKind::kBool},
    {"MPR_DEBUG_STARTUP", "0", "1: print each startup phase with timings", ParamKind::kBool},
    {"MPR_STARTUP_TIMEOUT", "60",
     "mprun: seconds each startup step may take (PMIx setup; all ranks connecting once the "
     "first did; all reaching MPI_Init's fence once the first did); 0 = no limit"},
    {"MPR_BTL", "", "comma list of backends to use (self,shm,verbs,tcp); empty = all available"},
    {"MPR_MPRUN", "",
     "the mprun a process started without a launcher runs to start the processes of "
     "MPI_Comm_spawn; empty = the one installed with this libmpi, else the first on PATH"},
    {"MPR_SPIN_COUNT", "2000",
     "progress polls a blocking wait makes before it starts yielding the CPU"},
    {"MPR_EXCHANGE_SPIN_COUNT", "20",
     "on an oversubscribed node: idle polls a blocking collective makes before it yields when it "
     "waits for the answer to a send that already went out (other waits yield at once)"},
    {"MPR_SELF_EAGER_LIMIT", "8192",
     "self: largest message (bytes) a rank sends to itself eagerly; larger ones are one memcpy"},
    {"MPR_SHM_EAGER_LIMIT", "8192", "shm: largest message (bytes) sent eagerly"},
    {"MPR_SHM_CMA", "1",
     "shm: 0 disables the single-copy cross-memory-attach get (rendezvous uses the copy pipeline)",
     ParamKind::kBool},
    {"MPR_SHM_CMA_MIN", "256M",
     "shm: smallest point-to-point rendezvous message read with cross-memory attach; smaller "
     "ones go through the copy pipeline (but see MPR_SHM_CMA_DUPLEX_MIN), which measured "
     "faster in one direction at every size up to 64 MiB on a 2-core VM (osu_bw: 33-38 "
     "against 19-25 GB/s from 64 KiB to 4 MiB). One-sided operations use CMA whatever the "
     "size"},
    {"MPR_SHM_CMA_DUPLEX_MIN", "128K",
     "shm: below MPR_SHM_CMA_MIN, the smallest rendezvous message read with cross-memory "
     "attach when the receiver is itself sending a rendezvous message to the sender (both "
     "directions busy: one copy per message instead of the pipeline's two); 0 = never"},
    {"MPR_SHM_CMA_DUPLEX_MAX", "4M",
     "shm: the largest message MPR_SHM_CMA_DUPLEX_MIN applies to (above it the pipeline's "
     "cache-sized fragments measured faster in both directions)"},
    {"MPR_SHM_RING_SLOTS", "64",
     "shm: sender->receiver ring size, in largest records (ring bytes = slots x slot size)"},
    {"MPR_SHM_SLOT_SIZE", "16384",
     "shm: bytes of the largest ring record (bounds the largest active message)"},
    {"MPR_VERBS_DEVICE", "",
     "verbs: device[:port] to use (e.g. rxe0:1); empty = nearest to the rank's cores"},
    {"MPR_VERBS_EAGER_LIMIT", "8192", "verbs: largest message (bytes) sent eagerly"},
    {"MPR_VERBS_RCACHE", "1", "verbs: 0 disables the registration cache", ParamKind::kBool},
    {"MPR_VERBS_MAX_AM_SIZE", "16384",
     "verbs: bytes per receive buffer = largest active message (raised to eager limit + 1 KiB)"},
    {"MPR_VERBS_CREDITS", "32",
     "verbs: receive buffers reserved per connected peer (messages in flight before a return)"},
    {"MPR_VERBS_SQ_DEPTH", "256", "verbs: send queue entries per RC queue pair"},
    {"MPR_VERBS_SEND_BUFS", "256", "verbs: registered bounce buffers for non-inline sends"},
    {"MPR_VERBS_SRQ_MAX", "16384", "verbs: most receive buffers the shared receive queue holds"},
    {"MPR_VERBS_MAX_INLINE", "64",
     "verbs: bytes of a send copied into the work request (the device may allow less)"},
    {"MPR_VERBS_GID_INDEX", "",
     "verbs: RoCE GID index; empty = the RoCE v2 IPv4-mapped entry (else v2, else v1, else any)"},
    {"MPR_VERBS_RDMA_CHUNK", "8M",
     "verbs: largest RDMA READ/WRITE per work request (also capped by the port's max message)"},
    {"MPR_VERBS_TIMEOUT", "16",
     "verbs: RC ack timeout exponent, 4.096 us * 2^n (16 = 268 ms: a dead peer is noticed after "
     "(retries + 1) timeouts, ~2 s)"},
    {"MPR_VERBS_RETRY_CNT", "7",
     "verbs: retransmissions (0-7) of an unacknowledged packet before the connection fails"},
    {"MPR_VERBS_RNR_RETRY", "7",
     "verbs: receiver-not-ready retries (7 = forever); credits make RNR impossible, 0 proves it"},
    {"MPR_VERBS_MIN_RNR_TIMER", "12",
     "verbs: receiver-not-ready delay the peer is asked to wait, IB encoding (12 = 0.64 ms)"},
    {"MPR_VERBS_SL", "",
     "verbs: service level of every QP; empty = the port's subnet-manager SL (IB), 0 (RoCE)"},
    {"MPR_VERBS_TRAFFIC_CLASS", "",
     "verbs: GRH traffic class (RoCE: DSCP << 2, e.g. 106 for DSCP 26 on a lossless fabric); "
     "empty = the port's default (sysfs tc/<port>/traffic_class), else 0"},
    {"MPR_VERBS_HOP_LIMIT", "64", "verbs: GRH hop limit (RoCE v2: the IP TTL)"},
    {"MPR_VERBS_KEEPALIVE", "1000",
     "verbs: milliseconds between probes of connected peers with nothing in flight while this "
     "rank waits (a dead peer fails the probe); 0 = none"},
    {"MPR_VERBS_CONNECT_TIMEOUT", "600",
     "verbs: seconds a connection handshake may take before the peer is declared unreachable"},
    {"MPR_VERBS_RCACHE_MAX_BYTES", "256M",
     "verbs: registered bytes the cache keeps while no operation uses them (LRU beyond)"},
    {"MPR_VERBS_ODP", "auto",
     "verbs: on-demand paging for user registrations: 1, 0, or auto (when page frames are "
     "not readable)"},
    {"MPR_VERBS_FORK_INIT", "1",
     "verbs: call ibv_fork_init() before the first registration when the kernel needs it",
     ParamKind::kBool},
    {"MPR_TCP_IF_INCLUDE", "",
     "tcp: interfaces to use, comma list of names and CIDR blocks (eth0,10.1.0.0/16); empty = "
     "every IPv4 interface that is up, loopback excepted"},
    {"MPR_TCP_IF_EXCLUDE", "",
     "tcp: interfaces not to use (names, CIDR blocks), when MPR_TCP_IF_INCLUDE is empty"},
    {"MPR_TCP_EAGER_LIMIT", "32768", "tcp: largest message (bytes) sent eagerly"},
    {"MPR_TCP_FRAG", "256K",
     "tcp: bytes per frame of a rendezvous transfer; queued small messages go between frames"},
    {"MPR_TCP_SNDBUF", "0", "tcp: socket send buffer bytes; 0 = the kernel's autotuning"},
    {"MPR_TCP_RCVBUF", "0", "tcp: socket receive buffer bytes; 0 = the kernel's autotuning"},
    {"MPR_PML_GET_CHUNK", "8M",
     "pml: bytes per rendezvous get (large messages are read in chunks of this size)"},
    {"MPR_PML_GET_INFLIGHT", "4", "pml: rendezvous gets outstanding per receive (1..64)"},
    {"MPR_PML_PACK_CHUNK", "1M",
     "pml: bytes per get of a rendezvous into non-contiguous memory (each lands in a bounce "
     "buffer and is unpacked; up to MPR_PML_GET_INFLIGHT of them per receive)"},
    {"MPR_RMA_PATH", "",
     "rma: empty = best available; 'btl' = no node-wide mapping (control words by device "
     "atomics or active messages, data by the backends' get/put); 'am' = active messages for "
     "everything but a rank's own window (testing; targets must call MPI to progress)"},
    {"MPR_COLL_BARRIER_ALG", "", "collectives: force the barrier algorithm (dissemination)"},
    {"MPR_COLL_BCAST_ALG", "",
     "collectives: force the bcast algorithm (binomial, scatter_allgather); empty = table"},
    {"MPR_COLL_REDUCE_ALG", "",
     "collectives: force the reduce algorithm (binomial, rabenseifner); empty = table"},
    {"MPR_COLL_ALLREDUCE_ALG", "",
     "collectives: force the allreduce algorithm (recursive_doubling, rabenseifner, ring)"},
    {"MPR_COLL_ALLGATHER_ALG", "",
     "collectives: force the allgather algorithm (recursive_doubling, bruck, ring)"},
    {"MPR_COLL_ALLTOALL_ALG", "",
     "collectives: force the alltoall algorithm (bruck, linear, pairwise); empty = table"},
    {"MPR_COLL_GATHER_ALG", "", "collectives: force the gather algorithm (binomial, linear)"},
    {"MPR_COLL_SCATTER_ALG", "", "collectives: force the scatter algorithm (binomial, linear)"},
    {"MPR_COLL_REDUCE_SCATTER_ALG", "",
     "collectives: force the reduce_scatter algorithm (ring, reduce_then_scatter)"},
    {"MPR_COLL_SEGMENT", "4096",
     "collectives: transfers larger than this (and at most MPR_COLL_SEGMENT_MAX) go as segments "
     "of this many bytes, eagerly when it is within the transport's eager limit; 0 = never"},
    {"MPR_COLL_SEGMENT_MAX", "0",
     "collectives: largest transfer cut into MPR_COLL_SEGMENT pieces; 0 = never (measured: "
     "with the shm copy pipeline one message beats 4 KiB eager segments at every size)"},
    {"MPR_COLL_SPIN_US", "2000",
     "collectives: microseconds a blocking collective polls before it yields the CPU, when the "
     "job has at most one rank per CPU on the node (with more, it yields at every idle poll)"},
    {"MPR_COLL_ALG_DYNAMIC", "0",
     "collectives: 1 = re-read the MPR_COLL_* variables at every call (tests and coll_tune "
     "switch algorithms with setenv); a forced algorithm that cannot run a call falls back to "
     "the table",
     ParamKind::kBool},
    {"MPR_IO_HINTS", "",
     "MPI-IO: hints every MPI_File_open starts from, as key=value pairs separated by ';' "
     "(e.g. 'cb_nodes=2;romio_cb_write=enable'); the open's info overrides them"},
    {nullptr, nullptr, nullptr},
};

const ParamDef* find(const char* name) {
  for (const ParamDef* p = kParams; p->name; ++p)
    if (std::strcmp(p->name, name) == 0) return p;
  std::fprintf(stderr, "mpr: internal error: tunable %s is not in the parameter table\n", name);
  std::abort();
}

}  // namespace

const ParamDef* param_table() { return kParams; }

std::string param_string(const char* name) {
  const ParamDef* p = find(name);
  const char* v = std::getenv(name);
  return v ? std::string(v) : std::string(p->default_value);
}

int64_t param_int(const char* name) {
  const ParamDef* p = find(name);
  const char* v = std::getenv(name);
  const char* text = v ? v : p->default_value;
  char* end = nullptr;
  long long n = std::strtoll(text, &end, 0);
  if (end == text) n = -1;
  switch (*end) {
    case 'k':
    case 'K':
      n <<= 10;
      ++end;
      break;
    case 'm':
    case 'M':
      n <<= 20;
      ++end;
      break;
    case 'g':
    case 'G':
      n <<= 30;
      ++end;
      break;
    default:
      break;
  }
  if (*end != '\0' || n < 0) {
    std::fprintf(stderr, "mpr: ignoring %s=%s (not a non-negative integer); using %s\n", name, text,
                 p->default_value);
    n = std::strtoll(p->default_value, nullptr, 0);
  }
  return n;
}

bool param_bool(const char* name) {
  std::string v = param_string(name);
  return !(v.empty() || v == "0" || v == "no" || v == "false" || v == "off");
}

}  // namespace mpr::common
