// End-to-end helpers: the real daemon on a free loopback port (SIGKILLed if a test leaves it
// running), and promtool's verdict on a /metrics text.
#pragma once

#include <doctest/doctest.h>
#include <httplib.h>

#include <chrono>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <map>
#include <string>
#include <vector>

#include "support/process.hpp"
#include "support/temp_tree.hpp"

namespace hostprobe::testing {

inline const std::string& binary() {
    static const std::string path = HOSTPROBE_BINARY;
    return path;
}

struct Daemon {
    explicit Daemon(std::vector<std::string> extra = {},
                    std::map<std::string, std::string> env = {})
        : process(binary(), with_listen(std::move(extra)), std::move(env)) {
        auto found = process.wait_for_port(std::chrono::seconds(10));
        REQUIRE_MESSAGE(found.has_value(), "daemon did not start: " << process.errors());
        port = *found;
    }
    static std::vector<std::string> with_listen(std::vector<std::string> extra) {
        std::vector<std::string> args = {"serve", "--listen", "127.0.0.1:0"};
        args.insert(args.end(), extra.begin(), extra.end());
        return args;
    }
    httplib::Client client() const {
        httplib::Client c("127.0.0.1", port);
        c.set_read_timeout(60, 0);
        return c;
    }
    Process process;
    int port = 0;
};

// Whether the daemon's process still runs: a crashed one stays a zombie until reaped, and
// kill(pid, 0) succeeds on zombies.
inline bool alive(const Daemon& daemon) {
    std::ifstream in("/proc/" + std::to_string(daemon.process.pid()) + "/stat");
    std::string stat((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    const size_t name_end = stat.rfind(") ");
    return name_end != std::string::npos && stat.size() > name_end + 2 &&
           stat[name_end + 2] != 'Z' && stat[name_end + 2] != 'X';
}

// Whether `promtool check metrics` accepts the text (Debian's prometheus package has promtool).
inline bool promtool_accepts(const std::string& metrics) {
    TempTree scratch;
    scratch.write("metrics.txt", metrics);
    return std::system(("promtool check metrics < " + scratch.root() + "/metrics.txt > " +
                        scratch.root() + "/promtool.log 2>&1")
                           .c_str()) == 0;
}

}  // namespace hostprobe::testing
