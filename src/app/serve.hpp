// `hostprobe serve`: collect the host facts, serve the API until SIGTERM/SIGINT.
#pragma once

#include <cstddef>
#include <string>

#include "core/logger.hpp"
#include "http/listen_address.hpp"

namespace hostprobe::app {

struct ServeConfig {
    http::ListenAddress listen;
    std::string sysroot = "/";
    size_t http_threads = 0;  // 0: sized from the CPU budget
};

// Exit status: 0 after a clean shutdown, 1 when it cannot start.
int run_serve(const ServeConfig& config, Logger& log);

// HTTP worker threads for a CPU budget. cpp-httplib holds a thread per open connection, so a
// few per worker; connections beyond that wait their turn, and each gives its thread back
// after a few requests (keep_alive_max_requests). Idle threads cost no CPU.
size_t http_threads_for(uint32_t workers);

}  // namespace hostprobe::app
