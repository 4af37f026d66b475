// --emf with a stdout that will not take the lines (issue 19): closed at start, or a pipe whose
// reader never reads. The agent keeps serving, drops the lines it cannot write whole, counts
// them in /metrics, and never leaves half a line in the pipe.
#include <doctest/doctest.h>
#include <fcntl.h>
#include <httplib.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <nlohmann/json.hpp>
#include <sstream>
#include <string>

#include "core/unique_fd.hpp"
#include "support/daemon.hpp"
#include "support/eventually.hpp"
#include "support/temp_tree.hpp"

using namespace hostprobe::testing;
using namespace std::chrono_literals;

namespace {

// The daemon started through sh, which sets up its stdout with `redirect` first.
struct EmfShellDaemon {
    explicit EmfShellDaemon(const std::string& redirect)
        : process(
              "/bin/sh",
              {"-c",
               "exec \"$0\" serve --listen 127.0.0.1:0 --emf --max-runs-per-minute 0 " + redirect,
               binary()}) {
        auto found = process.wait_for_port(10s);
        REQUIRE_MESSAGE(found.has_value(), "daemon did not start: " << process.errors());
        port = *found;
    }
    httplib::Client client() const { return loopback_client(port); }
    Process process;
    int port = 0;
};

// A sample's value from /metrics, or -1 when the metric is not there.
double emf_sample(httplib::Client& client, const std::string& name) {
    auto reply = client.Get("/metrics");
    if (!reply || reply->status != 200) return -1;
    std::istringstream lines(reply->body);
    std::string line;
    while (std::getline(lines, line))
        if (line.rfind(name + " ", 0) == 0) return std::stod(line.substr(name.size() + 1));
    return -1;
}

bool emf_cpu_run(httplib::Client& client) {
    auto reply = client.Post("/v1/runs?wait=20", R"({"probe": "cpu"})", "application/json");
    return reply && reply->status == 200;
}

}  // namespace

TEST_CASE("--emf with stdout closed: every line is dropped and counted, the agent serves on") {
    EmfShellDaemon daemon("1>&-");
    auto client = daemon.client();
    REQUIRE(emf_cpu_run(client));
    REQUIRE(emf_cpu_run(client));
    // The host line and two run summaries at least.
    CHECK(eventually([&] { return emf_sample(client, "hostprobe_emf_lines_dropped_total") >= 3; }));
    CHECK(emf_sample(client, "hostprobe_emf_lines_written_total") == 0);
    auto health = client.Get("/healthz");
    REQUIRE(health);
    CHECK(health->status == 200);
    auto metrics = client.Get("/metrics");
    REQUIRE(metrics);
    CHECK(promtool_accepts(metrics->body));
}

TEST_CASE("--emf into a pipe nobody reads: lines are dropped whole, /healthz and /metrics answer") {
    TempTree scratch;
    const std::string fifo = scratch.root() + "/stdout.fifo";
    REQUIRE(::mkfifo(fifo.c_str(), 0600) == 0);
    // Our end keeps the pipe open and is never read while the agent writes.
    hostprobe::core::UniqueFd reader(::open(fifo.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC));
    REQUIRE(reader);
    EmfShellDaemon daemon("> '" + fifo + "'");
    auto client = daemon.client();
    // Each cpu run's summary carries the host's JSON: a few dozen fill the 64 KiB pipe.
    CHECK(eventually(
        [&] {
            REQUIRE(emf_cpu_run(client));
            return emf_sample(client, "hostprobe_emf_lines_dropped_total") > 0;
        },
        120s, 0ms));
    CHECK(emf_sample(client, "hostprobe_emf_lines_written_total") > 0);
    auto health = client.Get("/healthz");
    REQUIRE(health);
    CHECK(health->status == 200);
    // What the pipe holds is whole lines, each a JSON document; read once the agent has exited,
    // since a reader that reads while a long line is being written sees its first part only.
    daemon.process.signal(SIGTERM);
    CHECK(daemon.process.wait(10s).code == 0);
    std::string held;
    char buffer[65536];
    ssize_t n;
    while ((n = ::read(reader.get(), buffer, sizeof buffer)) > 0)
        held.append(buffer, static_cast<size_t>(n));
    REQUIRE_FALSE(held.empty());
    CHECK(held.back() == '\n');
    std::istringstream lines(held);
    std::string line;
    while (std::getline(lines, line))
        CHECK_NOTHROW((void)nlohmann::json::parse(line).at("_aws"));
}
