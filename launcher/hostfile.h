// Hostfiles and -H host lists, for scripts written for Open MPI or MPICH. mprun starts ranks on
// this node only (across nodes, srun does: see slurm.h), so every host named must be this
// node; what they contribute is a slot count, the default number of ranks.
#pragma once

#include <string>
#include <string_view>

namespace mpr::launch {

/// Slots this node offers according to hostfile `path`. Lines: "host", "host slots=N
/// [max_slots=M]" (Open MPI) or "host:N" (MPICH); '#' starts a comment; a host named twice adds
/// up. A host without a count offers `default_slots`. Throws UsageError naming the file and
/// line for anything that does not parse, a host that is not this node, or no host at all.
int hostfile_slots(const std::string& path, int default_slots);

/// The same for a -H/--host list: "host[:N],host[:N],...".
int host_list_slots(const std::string& list, int default_slots);

/// True when `host` names this node: localhost, a loopback address, an address of one of its
/// interfaces (getifaddrs; IPv6 also in brackets), or our hostname (full or up to the first
/// dot, either way round). Names are not resolved.
bool is_this_node(std::string_view host);

/// True when `host` is an IPv4 or IPv6 literal that is a loopback address or assigned to one
/// of this node's interfaces.
bool is_local_address(std::string_view host);

}  // namespace mpr::launch
