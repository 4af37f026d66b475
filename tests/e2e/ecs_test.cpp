// End to end: the daemon in a pretend ECS task (the metadata endpoint served locally).
#include <doctest/doctest.h>

#include <nlohmann/json.hpp>
#include <thread>

#include "support/daemon.hpp"
#include "support/eventually.hpp"
#include "support/fake_ecs_endpoint.hpp"

using namespace hostprobe::testing;
using namespace std::chrono_literals;
using nlohmann::json;

TEST_CASE(
    "ECS task metadata shows under ecs, in the metrics, and sets the budget when the cgroup has no "
    "quota") {
    FakeEcsEndpoint endpoint(ecs_fixture("ecs_exporter/fargate_task_metadata.json"), "{}");
    Daemon daemon({"--sysroot", fixtures_dir() + "/sysroots/graviton2-8cpu"},
                  {{"ECS_CONTAINER_METADATA_URI_V4", endpoint.uri()}});
    auto client = daemon.client();
    json host;
    REQUIRE(eventually([&] {
        host = json::parse(client.Get("/v1/host")->body);
        return !host["ecs"].is_null();
    }));
    CHECK(host["ecs"]["launch_type"] == "FARGATE");
    CHECK(host["ecs"]["cpu_limit_cores"] == 0.25);
    CHECK(host["ecs"]["memory_limit_bytes"] == 536870912);
    // The Graviton sysroot has a 2-CPU cgroup quota, which stays the budget.
    CHECK(host["cpu_budget"]["source"] == "cgroup");
    CHECK(host["cost"]["source"] == "ecs_task");
    auto metrics = client.Get("/metrics");
    REQUIRE(metrics);
    CHECK(metrics->body.find("hostprobe_ecs_task_info{cluster=\"arn:aws:ecs:us-east-1:829490980523:"
                             "cluster/prom-ecs-exporter-sandbox\"") != std::string::npos);
    CHECK(metrics->body.find("hostprobe_ecs_image_pull_seconds 14.88") != std::string::npos);
    CHECK(metrics->body.find("hostprobe_task_cost_dollars_per_hour{source=\"ecs_task\"}") !=
          std::string::npos);
    CHECK(promtool_accepts(metrics->body));
}

TEST_CASE("a metadata endpoint that never answers delays neither start-up nor /healthz") {
    FakeEcsEndpoint endpoint("{}", "{}", FakeEcsEndpoint::Mode::silent);
    const auto started = std::chrono::steady_clock::now();
    Daemon daemon({}, {{"ECS_CONTAINER_METADATA_URI_V4", endpoint.uri()}});
    auto client = daemon.client();
    auto health = client.Get("/healthz");
    REQUIRE(health);
    CHECK(health->status == 200);
    CHECK(std::chrono::steady_clock::now() - started < 1s);
    CHECK(json::parse(client.Get("/v1/host")->body)["ecs"].is_null());
}
