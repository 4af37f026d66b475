// Hostile ECS task metadata against the real agent (issue 14, items 2 and 3): 1e400 in the
// document aborted the whole daemon from the metadata thread. Whatever the endpoint serves, the
// agent logs why it has no ECS facts and keeps serving.
#include <doctest/doctest.h>

#include <chrono>
#include <fstream>
#include <iterator>
#include <nlohmann/json.hpp>
#include <string>
#include <thread>

#include "support/daemon.hpp"
#include "support/eventually.hpp"
#include "support/fake_ecs_endpoint.hpp"

using namespace hostprobe::testing;
using namespace std::chrono_literals;
using nlohmann::json;

namespace {

std::string task_with_limits(const std::string& cpu, const std::string& memory = "512") {
    return R"({"Cluster": "c", "TaskARN": "arn:aws:ecs:us-east-1:1:task/c/abc",
               "LaunchType": "FARGATE", "Limits": {"CPU": )" +
           cpu + R"(, "Memory": )" + memory + "}}";
}

// Waits until the agent's log holds `text`, or the process ends, or 15 s pass.
bool logged(const Daemon& daemon, const std::string& text) {
    const auto has_text = [&] { return daemon.process.errors().find(text) != std::string::npos; };
    eventually([&] { return has_text() || !alive(daemon); }, 15s);
    return has_text();
}

void check_survives(const std::string& task, const std::string& reason,
                    const std::string& container = "{}") {
    FakeEcsEndpoint endpoint(task, container);
    Daemon daemon({}, {{"ECS_CONTAINER_METADATA_URI_V4", endpoint.uri()}});
    REQUIRE_MESSAGE(logged(daemon, "ECS task metadata unavailable"), daemon.process.errors());
    CHECK_MESSAGE(daemon.process.errors().find(reason) != std::string::npos,
                  daemon.process.errors());
    auto health = daemon.client().Get("/healthz");
    REQUIRE(health);
    CHECK(health->status == 200);
    auto host = daemon.client().Get("/v1/host");
    REQUIRE(host);
    CHECK(json::parse(host->body)["ecs"].is_null());
    CHECK(alive(daemon));
}

}  // namespace

TEST_CASE("ECS metadata with a number beyond a double: a warning, and the agent keeps serving") {
    check_survives(task_with_limits("1e400"), "number out of range at byte ");
    check_survives(task_with_limits("0.25", "-1e400"), "-1e400");
}

TEST_CASE("ECS metadata nested 100,000 deep: a warning, and the agent keeps serving") {
    const std::string deep = std::string(100'000, '[') + std::string(100'000, ']');
    check_survives(task_with_limits(deep), "JSON nested deeper than 32 levels at byte ");
}

TEST_CASE("ECS limits no task can have are refused before they overflow a conversion") {
    check_survives(task_with_limits("1e300"),
                   "the task metadata's CPU limit (cores) is 1e+300, not a value ECS sets");
    check_survives(task_with_limits("0.25", "1e300"),
                   "the task metadata's memory limit (MiB) is 1e+300, not a value ECS sets");
}
