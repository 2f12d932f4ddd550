// Hostfiles and -H host lists, for scripts written for Open MPI or MPICH. mprun runs single-node
// jobs, so every host named must be this node; what they contribute is a slot count, the
// default number of ranks.
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

/// True when `host` names this node: localhost, a loopback address, or our hostname (full or
/// up to the first dot, either way round).
bool is_this_node(std::string_view host);

}  // namespace mpr::launch
