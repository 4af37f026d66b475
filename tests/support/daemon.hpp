// End-to-end helpers: the real daemon on a free loopback port (SIGKILLed if a test leaves it
// running), and promtool's verdict on a /metrics text.
#pragma once

#include <doctest/doctest.h>
#include <httplib.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "support/process.hpp"
#include "support/temp_tree.hpp"

namespace hostprobe::testing {

inline const std::string& binary() {
    static const std::string path = HOSTPROBE_BINARY;
    return path;
}

// An HTTP client of a daemon on 127.0.0.1:`port`, patient enough for runs that take a while.
inline httplib::Client loopback_client(int port) {
    httplib::Client client("127.0.0.1", port);
    client.set_read_timeout(60, 0);
    return client;
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
    httplib::Client client() const { return loopback_client(port); }
    Process process;
    int port = 0;
};

// A run's state as GET /v1/runs/<id> answers it; "" when there is no such answer.
inline std::string run_state(httplib::Client& client, const std::string& id) {
    auto reply = client.Get("/v1/runs/" + id);
    if (!reply || reply->status != 200) return "";
    return nlohmann::json::parse(reply->body).value("state", "");
}

// Whether the daemon's process still runs: a crashed one stays a zombie until reaped, and
// kill(pid, 0) succeeds on zombies.
inline bool alive(const Daemon& daemon) {
    std::ifstream in("/proc/" + std::to_string(daemon.process.pid()) + "/stat");
    std::string stat((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    const size_t name_end = stat.rfind(") ");
    return name_end != std::string::npos && stat.size() > name_end + 2 &&
           stat[name_end + 2] != 'Z' && stat[name_end + 2] != 'X';
}

// Whether the daemon still runs and answers /healthz with 200 within 3 s.
inline bool healthy(const Daemon& daemon) {
    auto client = daemon.client();
    client.set_read_timeout(3, 0);
    auto health = client.Get("/healthz");
    return health && health->status == 200 && alive(daemon);
}

// The server side of the loopback connections to `port` (from /proc/net/tcp): how many are
// established, and how many of those hold bytes the server has not read yet. Zero unread means a
// server thread has taken every connection and read what was sent (not merely the kernel's
// accept).
struct ServerSideConnections {
    size_t established = 0;
    size_t unread = 0;
};
inline ServerSideConnections server_side_connections(int port) {
    ServerSideConnections found;
    std::ifstream table("/proc/net/tcp");
    std::string line;
    std::getline(table, line);  // the heading
    while (std::getline(table, line)) {
        // "  sl  local_address rem_address   st tx_queue:rx_queue ...", addresses as HEX:PORT.
        std::istringstream fields(line);
        std::string slot, local, remote, state, queues;
        if (!(fields >> slot >> local >> remote >> state >> queues)) continue;
        const size_t colon = local.find(':');
        const size_t queue_colon = queues.find(':');
        if (colon == std::string::npos || queue_colon == std::string::npos) continue;
        if (std::stoi(local.substr(colon + 1), nullptr, 16) != port || state != "01") continue;
        ++found.established;
        if (std::stoul(queues.substr(queue_colon + 1), nullptr, 16) != 0) ++found.unread;
    }
    return found;
}

// How many sockets the process holds open (its /proc/<pid>/fd links to "socket:[...]"): a
// connection shows there once the process has accepted it.
inline size_t open_sockets(pid_t pid) {
    size_t count = 0;
    std::error_code error;
    const std::string fds = "/proc/" + std::to_string(pid) + "/fd";
    for (auto it = std::filesystem::directory_iterator(fds, error);
         !error && it != std::filesystem::directory_iterator(); it.increment(error)) {
        std::error_code unreadable;  // a descriptor closed while the list is read
        const auto target = std::filesystem::read_symlink(it->path(), unreadable);
        if (!unreadable && target.string().rfind("socket:", 0) == 0) ++count;
    }
    return count;
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
