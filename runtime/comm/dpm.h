// Connecting groups of processes that share no communicator (MPI 4.1, chapter 11):
// MPI_Comm_accept / MPI_Comm_connect through a port, MPI_Comm_join through a socket the program
// made, and the link between a spawned job and its parents. The processes on the other side may
// belong to another job (another mprun, a spawned job, a separate srun step): they become peers
// of this process (common::Bootstrap::add_remote) with what they hand over, so the pml and the
// backends reach them as any other peer (the tcp backend carries traffic between jobs).
//
// The two groups' roots talk over one TCP socket (the port's connection or the joined socket):
// they swap their groups' cards, then the masks of the context id agreement; every other process
// only talks to its own root. See runtime/README.md ("Dynamic processes").
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "runtime/core/bootstrap.h"

namespace mpr::runtime {

class Comm;

/// Lists of processes that go from one process to another: a peer number means something only
/// in the process that gave it (Bootstrap::npeers), so lists travel as (job id, rank) pairs.
std::vector<uint8_t> encode_procs(const std::vector<int>& peers);
/// The peers of an encoded list. MPI_ERR_INTERN (not raised) naming the first process this one
/// has no connection to, or a malformed list.
int decode_procs(const char* fn, const std::vector<uint8_t>& bytes, std::vector<int>* peers);
/// An order of processes every process agrees on: by job id, then by rank.
bool proc_before(int a, int b);
/// A color for MPI_COMM_TYPE_SHARED and window placement: processes with the same color share a
/// node and a job (processes of different jobs share no memory segment). The same value in every
/// process of a communicator that holds only this job's ranks as before dynamic processes: the
/// lowest job rank on the node; with processes of other jobs a hash of job and that rank.
int node_color(const Comm* comm);

// The calls below return MPI error codes (not raised). Every process of `local` calls them;
// arguments named "at root" matter only there.

/// MPI_Comm_accept: waits for one connection to `port_name` (at root; a port this process
/// opened) that presents the port's token, then joins the two groups.
int comm_accept(const char* fn, const std::string& port_name, Comm* local, int root, Comm** out);
/// MPI_Comm_connect. `timeout_ms` (at root) < 0 waits as long as it takes.
int comm_connect(const char* fn, const std::string& port_name, Comm* local, int root,
                 int64_t timeout_ms, Comm** out);
/// MPI_Comm_join over the connected socket `fd` (left open, as it was).
int comm_join(const char* fn, int fd, Comm** out);
/// MPI_Comm_spawn / _spawn_multiple: the root has the launcher start `apps` as a new job whose
/// MPI_Init connects back; *out is the intercommunicator to it.
int comm_spawn(const char* fn, const std::vector<JobBootstrap::SpawnApp>& apps, Comm* local,
               int root, Comm** out);
/// MPI_Init of a spawned process: connects MPI_COMM_WORLD to the parents whose port the
/// launcher passed (MPR_PARENT_PORT) and keeps the intercommunicator as the parent
/// (MPI_Comm_get_parent). Does nothing in a process that was not spawned.
int connect_parent(const char* fn);

}  // namespace mpr::runtime
