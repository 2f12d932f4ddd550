// MPI ports (MPI_Open_port, MPI_Close_port): each open port is a TCP socket this process
// listens on, on the first address the tcp backend would use (MPR_TCP_IF_INCLUDE /
// MPR_TCP_IF_EXCLUDE; loopback when the host has no other), named with its address and a
// random 128-bit token that a connecting process must present.
#pragma once

#include <cstdint>
#include <string>

namespace mpr::runtime {

/// Opens a port; `*name` (shorter than MPI_MAX_PORT_NAME) is
/// "mpr-port:tcp:<ipv4>:<port>:<token>". Returns an MPI error code (not raised).
int open_port(const char* fn, std::string* name);
/// Closes a port this process opened; false if `name` is not one.
bool close_port(const std::string& name);
/// MPI_Finalize: every port still open is closed.
void close_all_ports();
/// Ports open in this process.
int open_port_count();
/// The listening socket of a port this process opened, or -1.
int port_socket(const std::string& name);

/// The parts of a port name: where it listens and the token a connecting process presents.
struct PortAddress {
  uint32_t addr = 0;  ///< IPv4, host order
  uint16_t port = 0;
  uint8_t token[16] = {};
};
/// Parses "mpr-port:tcp:<ipv4>:<port>:<32 hex digits>"; false if `name` is not one.
bool parse_port_name(const std::string& name, PortAddress* out);

}  // namespace mpr::runtime
