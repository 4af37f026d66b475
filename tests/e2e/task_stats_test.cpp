// End to end: the daemon as a sidecar in a pretend ECS task whose stats a loopback endpoint
// replays over time: idle, then CPU-saturated, then a container stopping, then a container's
// memory climbing to its limit. /v1/task, /v1/host's live.task, the text reports and /metrics
// show each change within one read interval (1 s here, --ecs-stats-interval).
#include <doctest/doctest.h>

#include <nlohmann/json.hpp>

#include "support/daemon.hpp"
#include "support/eventually.hpp"
#include "support/fake_ecs_endpoint.hpp"

using namespace hostprobe::testing;
using namespace std::chrono_literals;
using nlohmann::json;

namespace {

constexpr auto kInterval = 1s;
// One interval to be read, and room for the request and a slow sanitizer build.
constexpr auto kWithinOneInterval = std::chrono::milliseconds(kInterval) + 2s;

struct Phase {
    int at_seconds;          // the stats' `read`, seconds after 10:00:00
    double app_cpu_seconds;  // app's total_usage
    bool app_running = true;
    uint64_t worker_memory = 100u << 20;
};

json task_document(const Phase& phase) {
    json app = {{"Name", "app"},
                {"DockerId", "a1"},
                {"Image", "example/app:1"},
                {"Type", "NORMAL"},
                {"KnownStatus", phase.app_running ? "RUNNING" : "STOPPED"},
                {"Limits", {{"CPU", 0}}}};
    if (!phase.app_running) app["ExitCode"] = 137;
    return {{"TaskARN", "arn:aws:ecs:us-east-1:1:task/c/t"},
            {"LaunchType", "FARGATE"},
            {"Limits", {{"CPU", 0.25}, {"Memory", 512}}},
            {"Containers", json::array({app,
                                        {{"Name", "worker"},
                                         {"DockerId", "w1"},
                                         {"Image", "example/worker:1"},
                                         {"KnownStatus", "RUNNING"},
                                         {"Health", {{"status", "HEALTHY"}}}}})}};
}

std::string read_time(int seconds) {
    char text[40];
    std::snprintf(text, sizeof text, "2026-12-06T10:%02d:%02d.000000000Z", seconds / 60,
                  seconds % 60);
    return text;
}

json container_stats(const std::string& name, int at, double cpu_seconds, uint64_t memory) {
    return {
        {"name", name},
        {"read", read_time(at)},
        {"preread", "0001-01-01T00:00:00Z"},
        {"cpu_stats", {{"cpu_usage", {{"total_usage", static_cast<uint64_t>(cpu_seconds * 1e9)}}}}},
        {"memory_stats", {{"usage", memory}, {"stats", {{"inactive_file", 0}}}}},
        {"networks",
         {{"eth1",
           {{"rx_bytes", 1000 + at},
            {"rx_packets", 10},
            {"rx_errors", 0},
            {"rx_dropped", 0},
            {"tx_bytes", 500},
            {"tx_packets", 5},
            {"tx_errors", 0},
            {"tx_dropped", 0}}}}}};
}

std::string stats_document(const Phase& phase) {
    json stats = {{"w1", container_stats("worker", phase.at_seconds, phase.at_seconds * 0.001,
                                         phase.worker_memory)}};
    stats["a1"] = phase.app_running
                      ? container_stats("app", phase.at_seconds, phase.app_cpu_seconds, 50u << 20)
                      : json(nullptr);  // Fargate's stopped container
    return stats.dump();
}

struct Sidecar {
    FakeEcsEndpoint endpoint;
    Daemon daemon;
    explicit Sidecar(const Phase& first)
        : endpoint(task_document(first).dump(), "{}", FakeEcsEndpoint::Mode::serve,
                   stats_document(first)),
          daemon({"--ecs-stats-interval", "1"},
                 {{"ECS_CONTAINER_METADATA_URI_V4", endpoint.uri()}}) {}
    void replay(const Phase& phase) {
        endpoint.set_documents(task_document(phase).dump(), stats_document(phase));
    }
    json task() {
        auto reply = daemon.client().Get("/v1/task");
        return reply && reply->status == 200 ? json::parse(reply->body) : json();
    }
    std::string metrics() {
        auto reply = daemon.client().Get("/metrics");
        return reply ? reply->body : "";
    }
};

bool has(const std::string& text, const std::string& part) {
    return text.find(part) != std::string::npos;
}

}  // namespace

TEST_CASE("a replayed task: idle, saturated, a container stopping, memory climbing") {
    Sidecar sidecar(Phase{0, 1.0});
    // Idle: no rate from the first reading (no precpu), then 0.1 s of CPU in 10 s: 0.01 cores.
    REQUIRE(eventually([&] { return !sidecar.task().is_null(); }, 10s));
    sidecar.replay(Phase{10, 1.1});
    REQUIRE(eventually(
        [&] {
            json task = sidecar.task();
            return task["cpu_cores_used"].is_number() &&
                   std::abs(task["cpu_cores_used"].get<double>() - 0.011) < 1e-9;
        },
        kWithinOneInterval));
    json task = sidecar.task();
    CHECK(task["cpu_saturation"]["ratio"] == 0.0);
    CHECK(task["cpu_limit_cores"] == 0.25);

    // Saturated: the app uses 0.25 cores for 10 s (with the worker: 0.251 of 0.25).
    sidecar.replay(Phase{20, 3.6});
    REQUIRE(eventually([&] { return sidecar.task()["cpu_saturation"]["ratio"] == 0.5; },
                       kWithinOneInterval));
    task = sidecar.task();
    CHECK(task["cpu_cores_used"].get<double>() == doctest::Approx(0.251));
    CHECK(task["containers"][0]["cpu_cores"].get<double>() == doctest::Approx(0.25));
    REQUIRE(eventually(
        [&] { return has(sidecar.metrics(), "hostprobe_ecs_task_cpu_saturation_ratio 0.5"); },
        kWithinOneInterval));
    const std::string metrics = sidecar.metrics();
    CHECK(has(metrics, "hostprobe_ecs_task_cpu_cores_used 0.251"));
    CHECK(has(metrics, "hostprobe_ecs_container_cpu_seconds_total{container=\"app\"} 3.6"));
    CHECK(has(metrics, "hostprobe_scrape_collector_success{collector=\"ecs_task_stats\"} 1"));
    CHECK(promtool_accepts(metrics));
    auto host = json::parse(sidecar.daemon.client().Get("/v1/host")->body);
    CHECK(host["live"]["task"]["cpu_saturation"]["ratio"] == 0.5);
    auto host_text = sidecar.daemon.client().Get("/v1/host?format=text")->body;
    CHECK(has(host_text, "Task use:"));
    CHECK(has(host_text, "CPU-saturated 50% of the last minute"));

    // The app stops (null stats, STOPPED, exit code 137): no usage, its state and exit code.
    sidecar.replay(Phase{30, 0, false});
    REQUIRE(eventually([&] { return sidecar.task()["containers"][0]["running"] == false; },
                       kWithinOneInterval));
    task = sidecar.task();
    CHECK(task["containers"][0]["exit_code"] == 137);
    CHECK(task["containers"][0]["known_status"] == "STOPPED");
    CHECK(task["containers"][0]["cpu_cores"].is_null());
    REQUIRE(eventually(
        [&] {
            return has(
                sidecar.metrics(),
                "hostprobe_ecs_container_known_status{container=\"app\",status=\"STOPPED\"} 1");
        },
        kWithinOneInterval));
    CHECK(has(sidecar.metrics(), "hostprobe_ecs_container_exit_code{container=\"app\"} 137"));
    CHECK_FALSE(
        has(sidecar.metrics(), "hostprobe_ecs_container_cpu_seconds_total{container=\"app\"}"));

    // The worker's memory climbs to 480 of its 512 MiB (the task's limit): a warning names it.
    sidecar.replay(Phase{40, 0, false, 480u << 20});
    REQUIRE(eventually(
        [&] {
            const json now = sidecar.task();  // held: a range-for over a temporary's member dangles
            for (const auto& warning : now["warnings"])
                if (has(warning.get<std::string>(), "worker: memory working set 480.0 MiB is 94%"))
                    return true;
            return false;
        },
        kWithinOneInterval));
    CHECK(sidecar.task()["containers"][1]["memory_limit_used_ratio"].get<double>() ==
          doctest::Approx(480.0 / 512));
    auto text = sidecar.daemon.client().Get("/v1/task?format=text");
    REQUIRE(text);
    CHECK(has(text->body, "Warning:  worker: memory working set 480.0 MiB is 94%"));
    CHECK(has(sidecar.metrics(),
              "hostprobe_ecs_container_memory_working_set_bytes{container=\"worker\"} 503316480"));
}

TEST_CASE("outside ECS /v1/task is a 404 that says why, and nothing is read") {
    Daemon daemon;
    auto reply = daemon.client().Get("/v1/task");
    REQUIRE(reply);
    CHECK(reply->status == 404);
    CHECK(has(reply->body, "not in an ECS task"));
    auto host = json::parse(daemon.client().Get("/v1/host")->body);
    CHECK(host["live"]["task"].is_null());
    CHECK_FALSE(has(daemon.client().Get("/metrics")->body, "hostprobe_ecs_container"));
    auto bad = daemon.client().Get("/v1/task?format=xml");
    REQUIRE(bad);
    CHECK(bad->status == 400);
}

TEST_CASE("--ecs-stats-interval is bounded") {
    for (const char* value : {"0", "0.5", "3601", "soon"}) {
        INFO(value);
        auto ended = run_to_end(
            binary(), {"serve", "--listen", "127.0.0.1:0", "--ecs-stats-interval", value});
        CHECK(ended.status.exited);
        CHECK(ended.status.code == 2);
        CHECK(has(ended.errors, "ecs-stats-interval"));
    }
}
