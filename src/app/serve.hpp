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

// HTTP worker threads for a CPU budget: enough for a scrape, a health check and a few clients
// at once, without a quarter-vCPU task holding many threads.
size_t http_threads_for(uint32_t workers);

}  // namespace hostprobe::app
