// Hostile ECS task stats against the real agent: documents too large, too deep, with numbers
// beyond a double, negative counters, counters going back after a restart, 100 containers, and
// endpoints that trickle, close mid-answer or redirect. Each gives a warning or an error in
// GET /v1/task, never a crash, a wrong rate or unbounded memory, and the agent keeps serving.
#include <doctest/doctest.h>

#include <fstream>
#include <nlohmann/json.hpp>
#include <string>

#include "support/daemon.hpp"
#include "support/ecs_documents.hpp"
#include "support/eventually.hpp"
#include "support/fake_ecs_endpoint.hpp"

using namespace hostprobe::testing;
using namespace std::chrono_literals;
using nlohmann::json;
using Mode = FakeEcsEndpoint::Mode;

namespace {

const std::string kTask = R"({"Limits": {"CPU": 0.25, "Memory": 512},
    "Containers": [{"Name": "app", "DockerId": "a", "KnownStatus": "RUNNING"}]})";

std::string one_container(const std::string& read, const std::string& cpu,
                          const std::string& usage = "1000") {
    return R"({"a": {"read": ")" + read + R"(", "cpu_stats": {"cpu_usage": {"total_usage": )" +
           cpu + R"(}}, "memory_stats": {"usage": )" + usage + "}}}";
}

// Resident memory of the daemon, in KiB.
long stats_agent_rss_kib(const Daemon& daemon) {
    std::ifstream status("/proc/" + std::to_string(daemon.process.pid()) + "/status");
    std::string line;
    while (std::getline(status, line))
        if (line.rfind("VmRSS:", 0) == 0) return std::stol(line.substr(6));
    return -1;
}

struct HostileSidecar {
    FakeEcsEndpoint endpoint;
    Daemon daemon;
    HostileSidecar(const std::string& stats, Mode mode = Mode::serve,
                   const std::string& task = kTask)
        : endpoint(task, "{}", mode, stats),
          daemon({"--ecs-stats-interval", "1"},
                 {{"ECS_CONTAINER_METADATA_URI_V4", endpoint.uri()}}) {}

    // GET /v1/task once a read has ended, and the agent still healthy.
    json task_after_a_read() {
        json task;
        REQUIRE(eventually(
            [&] {
                auto reply = daemon.client().Get("/v1/task");
                if (!reply || reply->status != 200) return false;
                task = json::parse(reply->body);
                return true;
            },
            15s));
        CHECK(healthy(daemon));
        auto metrics = daemon.client().Get("/metrics");
        REQUIRE(metrics);
        CHECK(promtool_accepts(metrics->body));
        return task;
    }
};

bool any_warning(const json& task, const std::string& part) {
    for (const auto& warning : task["warnings"])
        if (warning.get<std::string>().find(part) != std::string::npos) return true;
    return false;
}

}  // namespace

// How much resident memory three refused 2 MiB documents may add: the body is cut off at 1 MiB and
// freed. Sanitized builds keep freed blocks in quarantine and shadow every byte.
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
constexpr long kRefusedGrowthKib = 64 * 1024;
#else
constexpr long kRefusedGrowthKib = 8 * 1024;
#endif

TEST_CASE("a stats document over 1 MiB: an error, and the memory it took is not kept") {
    HostileSidecar sidecar(one_container("2026-12-06T10:00:00Z", "1"));
    REQUIRE(sidecar.task_after_a_read()["reads"].get<int>() >= 1);
    const long before = stats_agent_rss_kib(sidecar.daemon);
    sidecar.endpoint.set_mode(Mode::huge);
    json task;
    REQUIRE(eventually(
        [&] {
            auto reply = sidecar.daemon.client().Get("/v1/task");
            if (!reply || reply->status != 200) return false;
            task = json::parse(reply->body);
            return task["failures"].get<int>() >= 3;
        },
        15s));
    CHECK(task["error"].get<std::string>().find("larger than 1048576 bytes") != std::string::npos);
    CHECK(task["reads"].get<int>() >= 1);  // the last good reading stays
    CHECK(task["containers"].size() == 1);
    const long after = stats_agent_rss_kib(sidecar.daemon);
    MESSAGE("RSS " << before << " KiB before, " << after << " KiB after three refused documents");
    CHECK(after - before < kRefusedGrowthKib);
    CHECK(healthy(sidecar.daemon));
}

TEST_CASE("stats nested 100,000 deep, or with 1e400: an error naming it") {
    {
        HostileSidecar sidecar(std::string(100'000, '[') + std::string(100'000, ']'));
        CHECK(sidecar.task_after_a_read()["error"].get<std::string>().find(
                  "nested deeper than 32 levels") != std::string::npos);
    }
    {
        HostileSidecar sidecar(one_container("2026-12-06T10:00:00Z", "1e400"));
        CHECK(sidecar.task_after_a_read()["error"].get<std::string>().find("number out of range") !=
              std::string::npos);
    }
}

TEST_CASE("negative and fractional counters: left out with a warning, never wrapped") {
    HostileSidecar sidecar(one_container("2026-12-06T10:00:00Z", "-5", "2.5"));
    const json task = sidecar.task_after_a_read();
    CHECK(task["error"].is_null());
    CHECK(task["containers"][0]["cpu_seconds"].is_null());
    CHECK(task["containers"][0]["memory_usage_bytes"].is_null());
    CHECK(any_warning(task, "total_usage is not a whole number from 0 to 2^64"));
    CHECK(any_warning(task, "usage is not a whole number from 0 to 2^64"));
}

TEST_CASE("a counter going back after a restart gives no rate, not a negative one") {
    HostileSidecar sidecar(one_container("2026-12-06T10:00:00Z", "9000000000"));
    REQUIRE(eventually([&] { return sidecar.endpoint.stats_requests() >= 1; }));
    sidecar.endpoint.set_documents(kTask, one_container("2026-12-06T10:00:10Z", "1000000"));
    REQUIRE(eventually(
        [&] {
            auto reply = sidecar.daemon.client().Get("/v1/task");
            return reply && reply->status == 200 &&
                   json::parse(reply->body)["containers"][0]["cpu_seconds"] == 0.001;
        },
        15s));
    const json task = sidecar.task_after_a_read();
    CHECK(task["cpu_cores_used"].is_null());
    CHECK(task["containers"][0]["cpu_cores"].is_null());
    auto metrics = sidecar.daemon.client().Get("/metrics")->body;
    CHECK(metrics.find("hostprobe_ecs_container_cpu_cores") == std::string::npos);
}

TEST_CASE("100 containers: 20 reported, 80 counted and warned of") {
    const auto documents = task_of_containers(100, [](int i) {
        return json::parse(one_container("2026-12-06T10:00:00Z", std::to_string(i)))["a"];
    });
    HostileSidecar sidecar(documents.stats.dump(), Mode::serve, documents.task.dump());
    const json answer = sidecar.task_after_a_read();
    CHECK(answer["containers"].size() == 20);
    CHECK(answer["containers_dropped"] == 80);
    CHECK(any_warning(answer, "80 containers beyond the first 20 were left out"));
}

TEST_CASE("an endpoint that trickles, closes mid-answer or redirects: an error, quickly") {
    for (const auto& [mode, expected] :
         std::vector<std::pair<Mode, std::string>>{{Mode::trickle, "no whole answer within"},
                                                   {Mode::close_mid_answer, "/task"},
                                                   {Mode::redirect, "HTTP 302"}}) {
        HostileSidecar sidecar("{}", mode, std::string(2000, ' ') + kTask);
        const json task = sidecar.task_after_a_read();
        INFO(task.dump());
        CHECK(task["error"].get<std::string>().find(expected) != std::string::npos);
        CHECK(task["failures"].get<int>() >= 1);
    }
}
