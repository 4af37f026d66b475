// Ends the connections a stopping server still holds. cpp-httplib gives us no handle on its
// connections, and its worker threads wait out their read timeout (5 s per read, without end for
// a client that trickles a byte at a time) before a stop can finish: ECS would SIGKILL us.
#pragma once

#include <cstddef>

namespace hostprobe::http {

// shutdown(2)s, without closing, every accepted TCP connection of this process whose local port
// is `port` (found through /proc/self/fd): a read blocked on one returns at once, and its
// thread closes the descriptor as it always does. Returns how many were shut down.
size_t shut_down_connections_on_port(int port);

}  // namespace hostprobe::http
