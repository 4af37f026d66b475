// A fleet as seed 000 saw it: three agents on three Fargate machines (replayed from sysroots),
// scraped by Debian's real Prometheus, and asked through its HTTP API which CPU models run.
#include <doctest/doctest.h>
#include <httplib.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <memory>
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "support/daemon.hpp"
#include "support/eventually.hpp"
#include "support/paths.hpp"
#include "support/process.hpp"
#include "support/temp_tree.hpp"

using namespace hostprobe::testing;
using namespace std::chrono_literals;
using nlohmann::json;

namespace {

const char* const kPrometheus = "/usr/bin/prometheus";

// A port nobody listens on now; Prometheus cannot report one it picked itself.
int unused_port() {
    const int fd = socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in address{};
    address.sin_family = AF_INET;
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    bind(fd, reinterpret_cast<sockaddr*>(&address), sizeof address);
    socklen_t length = sizeof address;
    getsockname(fd, reinterpret_cast<sockaddr*>(&address), &length);
    close(fd);
    return ntohs(address.sin_port);
}

std::string scrape_config(const std::vector<int>& agent_ports) {
    std::string targets;
    for (int port : agent_ports)
        targets += (targets.empty() ? "" : ", ") + std::string("\"127.0.0.1:") +
                   std::to_string(port) + "\"";
    return "global:\n"
           "  scrape_interval: 1s\n"
           "  evaluation_interval: 1s\n"
           "scrape_configs:\n"
           "  - job_name: hostprobe\n"
           "    static_configs:\n"
           "      - targets: [" +
           targets + "]\n";
}

// The result vector of an instant query, or an empty array while Prometheus is not ready.
json instant_query(int port, const std::string& query) {
    httplib::Client client("127.0.0.1", port);
    client.set_connection_timeout(1, 0);
    const httplib::Params params{{"query", query}};
    auto response = client.Get("/api/v1/query", params, httplib::Headers{});
    if (!response || response->status != 200) return json::array();
    const auto body = json::parse(response->body, nullptr, false);
    if (body.is_discarded() || body.value("status", "") != "success") return json::array();
    return body["data"]["result"];
}

}  // namespace

TEST_CASE("Prometheus scraping three agents counts the fleet's three CPU models") {
    REQUIRE_MESSAGE(access(kPrometheus, X_OK) == 0,
                    "Debian's prometheus package is needed (scripts/setup.sh test installs it)");
    const std::vector<std::string> machines = {"fargate-e5-2670v2", "fargate-e5-2676v3",
                                               "fargate-e5-2686v4"};
    std::vector<std::unique_ptr<Daemon>> agents;
    std::vector<int> agent_ports;
    for (const auto& machine : machines) {
        agents.push_back(std::make_unique<Daemon>(
            std::vector<std::string>{"--sysroot", fixtures_dir() + "/sysroots/" + machine}));
        agent_ports.push_back(agents.back()->port);
    }

    TempTree prometheus_home;
    prometheus_home.write("prometheus.yml", scrape_config(agent_ports)).mkdir("data");
    const int prometheus_port = unused_port();
    Process prometheus(kPrometheus,
                       {"--config.file=" + prometheus_home.root() + "/prometheus.yml",
                        "--storage.tsdb.path=" + prometheus_home.root() + "/data",
                        "--web.listen-address=127.0.0.1:" + std::to_string(prometheus_port)});

    // Condition-polled with a generous deadline: a scrape every second, a slow start is fine.
    const std::string models_query = "count by (model_name) (hostprobe_cpu_info)";
    json models = json::array();
    eventually(
        [&] {
            models = instant_query(prometheus_port, models_query);
            return models.size() >= machines.size();
        },
        60s, 250ms);
    std::set<std::string> names;
    for (const auto& series : models) {
        names.insert(series["metric"].value("model_name", ""));
        CHECK(series["value"][1] == "1");
    }
    const std::set<std::string> expected = {"Intel(R) Xeon(R) CPU E5-2670 v2 @ 2.50GHz",
                                            "Intel(R) Xeon(R) CPU E5-2676 v3 @ 2.40GHz",
                                            "Intel(R) Xeon(R) CPU E5-2686 v4 @ 2.30GHz"};
    CHECK_MESSAGE(names == expected, "Prometheus said: " << models.dump() << "\n"
                                                         << prometheus.errors());
    const auto up = instant_query(prometheus_port, "sum(up{job=\"hostprobe\"})");
    REQUIRE(up.size() == 1);
    CHECK(up[0]["value"][1] == "3");
}
