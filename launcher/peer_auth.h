// Who may connect to mprun's PMIx server: its own user only (peer_auth.cc replaces accept()).
#pragma once

#include <sys/types.h>

namespace mpr::launch {

/// The uid owning the other end of connected socket `fd`: SO_PEERCRED for unix sockets, the
/// kernel's socket table (sock_diag) for TCP. False when it cannot be determined.
bool connection_owner(int fd, uid_t* uid);

}  // namespace mpr::launch
