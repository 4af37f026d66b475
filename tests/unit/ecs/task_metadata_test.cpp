// ECS task metadata v4: real Fargate and EC2 captures and AWS's examples, served locally, plus
// 500s, malformed JSON and an endpoint that never answers.
#include "ecs/task_metadata.hpp"

#include <doctest/doctest.h>

#include "core/time_format.hpp"
#include "ecs/metadata_fetcher.hpp"
#include "support/fake_ecs_endpoint.hpp"

using namespace hostprobe;
using namespace hostprobe::ecs;
using hostprobe::testing::ecs_fixture;
using hostprobe::testing::FakeEcsEndpoint;
using nlohmann::json;

TEST_CASE("a real Fargate capture: task limits in vCPUs, start timings") {
    const json task = json::parse(ecs_fixture("ecs_exporter/fargate_task_metadata.json"));
    const json me = {{"DockerId", "bae32def0ab64f06818e8862e58f8d6d-4159844948"}};
    auto metadata = parse_task_metadata(task, me);
    REQUIRE(metadata.ok());
    CHECK(metadata->cluster ==
          "arn:aws:ecs:us-east-1:829490980523:cluster/prom-ecs-exporter-sandbox");
    CHECK(metadata->family == "prom-ecs-exporter-sandbox-main-fargate");
    CHECK(metadata->revision == "9");
    CHECK(metadata->launch_type == "FARGATE");
    CHECK(metadata->availability_zone == "us-east-1a");
    CHECK(metadata->cpu_limit_cores == 0.25);
    CHECK(metadata->cpu_limit_source == "task");
    CHECK(metadata->memory_limit_bytes == 512ull << 20);
    CHECK(metadata->container_name == "ecs-exporter");
    CHECK(*metadata->image_pull_seconds == doctest::Approx(14.884688953));
    CHECK(*metadata->container_start_seconds == doctest::Approx(0.0));
}

TEST_CASE("without our container's metadata its name is null, not empty") {
    const json task = json::parse(ecs_fixture("ecs_exporter/fargate_task_metadata.json"));
    auto metadata = parse_task_metadata(task, json(nullptr));
    REQUIRE(metadata.ok());
    CHECK(to_json(*metadata)["container_name"].is_null());
    CHECK(to_json(*metadata)["family"] == "prom-ecs-exporter-sandbox-main-fargate");
}

TEST_CASE("a real EC2 capture: no task limits, the container's CPU units stand in") {
    const json task = json::parse(ecs_fixture("ecs_exporter/ec2_task_metadata.json"));
    const json me = {
        {"DockerId", "01cf1f3208005cda71d5ac936ded65d2ecc0a8cc8ff8a82d2e00410bf4fbbd6d"}};
    auto metadata = parse_task_metadata(task, me);
    REQUIRE(metadata.ok());
    CHECK(metadata->launch_type == "EC2");
    CHECK(metadata->cpu_limit_cores == 0.125);  // 128 CPU units
    CHECK(metadata->cpu_limit_source == "container");
    CHECK(metadata->memory_limit_bytes == 256ull << 20);
    CHECK(*metadata->container_start_seconds == doctest::Approx(2.417609491));
    CHECK(*metadata->image_pull_seconds == doctest::Approx(8.873477116));
}

TEST_CASE("AWS's documentation examples and the otel samples parse") {
    for (const char* name : {"awsdocs_ec2_v4_task_metadata.json",
                             "otel_go_contrib/metadatav4-response-task-fargate.json",
                             "otel_go_contrib/metadatav4-response-task-ec2.json"}) {
        INFO(name);
        auto metadata = parse_task_metadata(json::parse(ecs_fixture(name)), nullptr);
        REQUIRE(metadata.ok());
        CHECK_FALSE(metadata->task_arn.empty());
    }
    CHECK_FALSE(parse_task_metadata(
                    json::parse(ecs_fixture("awsdocs_ec2_v4_container_metadata.json")), nullptr)
                    .ok());
    CHECK_FALSE(parse_task_metadata(json::array(), nullptr).ok());
    CHECK(*parse_rfc3339("2025-02-27T05:06:03.714437592Z") ==
          doctest::Approx(1740632763.714437592));
    CHECK_FALSE(parse_rfc3339("yesterday").ok());
    CHECK_FALSE(parse_rfc3339("2025-02-27T05:06:03+01:00").ok());
}

TEST_CASE("fetching from a live endpoint, and every way it can fail") {
    const std::string task = ecs_fixture("otel_go_contrib/metadatav4-response-task-fargate.json");
    const std::string container =
        ecs_fixture("otel_go_contrib/metadatav4-response-container-fargate.json");
    {
        FakeEcsEndpoint endpoint(task, container);
        auto metadata = fetch_task_metadata(endpoint.uri(), 1);
        REQUIRE(metadata.ok());
        CHECK(metadata->launch_type == "FARGATE");
        CHECK(metadata->cpu_limit_cores == 0.25);
        CHECK(metadata->container_name == "curl");
    }
    {
        FakeEcsEndpoint endpoint(task, container, FakeEcsEndpoint::Mode::error_500);
        auto failed = fetch_task_metadata(endpoint.uri(), 2);
        REQUIRE_FALSE(failed.ok());
        CHECK(failed.error().message.find("HTTP 500") != std::string::npos);
        CHECK(endpoint.requests() == 2);  // retried
    }
    {
        FakeEcsEndpoint endpoint(task, container, FakeEcsEndpoint::Mode::malformed);
        auto failed = fetch_task_metadata(endpoint.uri(), 1);
        REQUIRE_FALSE(failed.ok());
        CHECK(failed.error().message.find("malformed JSON") != std::string::npos);
    }
    {
        FakeEcsEndpoint endpoint(task, container, FakeEcsEndpoint::Mode::silent);
        const auto started = std::chrono::steady_clock::now();
        auto failed = fetch_task_metadata(endpoint.uri(), 1);
        CHECK_FALSE(failed.ok());
        CHECK(std::chrono::steady_clock::now() - started <
              std::chrono::seconds(5));  // the 2 s deadline holds
    }
    CHECK_FALSE(fetch_task_metadata("not a url", 1).ok());
}

TEST_CASE("the background fetcher reports once and can be stopped while waiting") {
    FakeEcsEndpoint endpoint(ecs_fixture("ecs_exporter/fargate_task_metadata.json"), "{}");
    std::mutex mutex;
    std::condition_variable done;
    std::optional<Result<TaskMetadata>> reported;
    MetadataFetcher fetcher(endpoint.uri(), [&](const Result<TaskMetadata>& result) {
        std::lock_guard<std::mutex> lock(mutex);
        reported = result;
        done.notify_all();
    });
    fetcher.start();
    std::unique_lock<std::mutex> lock(mutex);
    REQUIRE(done.wait_for(lock, std::chrono::seconds(10), [&] { return reported.has_value(); }));
    CHECK(reported->ok());

    FakeEcsEndpoint down("{}", "{}", FakeEcsEndpoint::Mode::error_500);
    MetadataFetcher patient(
        down.uri(), [](const Result<TaskMetadata>&) { FAIL("a stopped fetcher must not report"); },
        50);
    patient.start();
}  // destroying `patient` mid-backoff returns promptly

namespace {

const std::string kFargateTask = R"({"TaskARN": "arn:aws:ecs:us-east-1:1:task/c/abc",
    "LaunchType": "FARGATE", "Limits": {"CPU": CPU, "Memory": MEMORY}})";

std::string fargate_task(const std::string& cpu, const std::string& memory = "512") {
    std::string text = kFargateTask;
    text.replace(text.find("CPU,"), 3, cpu);
    text.replace(text.find("MEMORY"), 6, memory);
    return text;
}

Result<TaskMetadata> fetched(const std::string& task, const std::string& container = "{}") {
    FakeEcsEndpoint endpoint(task, container);
    return fetch_task_metadata(endpoint.uri(), 1);
}

}  // namespace

TEST_CASE(
    "a document with a number beyond a double, or nested too deep, is an error, not an abort") {
    REQUIRE(fetched(fargate_task("0.25")).ok());
    auto overflow = fetched(fargate_task("1e400"));
    REQUIRE_FALSE(overflow.ok());
    CHECK(overflow.error().code == ErrorCode::parse_error);
    CHECK(overflow.error().message.find("/v4/abc/task: number out of range at byte") == 0);
    CHECK(overflow.error().message.find("1e400") != std::string::npos);
    auto deep = fetched(fargate_task(std::string(100'000, '[') + std::string(100'000, ']')));
    REQUIRE_FALSE(deep.ok());
    CHECK(deep.error().message.find("nested deeper than 32 levels") != std::string::npos);
    // The container document too.
    auto container = fetched(fargate_task("0.25"), R"({"DockerId": 1e999})");
    CHECK(container.ok());  // it is optional: without it the task's document stands
    auto large = fetched(fargate_task("0.25", "512" + std::string(2 << 20, ' ')));
    REQUIRE_FALSE(large.ok());
    CHECK(large.error().message.find("larger than 1048576 bytes") != std::string::npos);
}

TEST_CASE("limits no task can have are refused before they overflow a conversion") {
    // 1e300 cores became a CFS quota of 1e305 us, and 1e300 MiB a byte count: both converted
    // to integers with undefined behaviour.
    for (const char* cpu : {"1e300", "5000", "0.0001"}) {
        auto refused = parse_task_metadata(json::parse(fargate_task(cpu)), json());
        REQUIRE_FALSE(refused.ok());
        CHECK(refused.error().message.find("CPU limit (cores) is") != std::string::npos);
    }
    auto memory = parse_task_metadata(json::parse(fargate_task("0.25", "1e300")), json());
    REQUIRE_FALSE(memory.ok());
    CHECK(memory.error().message ==
          "the task metadata's memory limit (MiB) is 1e+300, not a value ECS sets");
    auto units = parse_task_metadata(
        json::parse(R"({"TaskARN": "t", "Containers": [{"Limits": {"CPU": 1e12}}]})"), json());
    CHECK_FALSE(units.ok());
    // Strings where numbers belong are no limit at all, as before.
    auto strings = parse_task_metadata(json::parse(fargate_task("\"2\"", "\"lots\"")), json());
    REQUIRE(strings.ok());
    CHECK_FALSE(strings->cpu_limit_cores.has_value());
    CHECK_FALSE(strings->memory_limit_bytes.has_value());
    auto odd = parse_task_metadata(
        json::parse(R"({"TaskARN": "t", "Limits": 5, "Containers": 7, "Cluster": []})"), json(3));
    REQUIRE(odd.ok());
    CHECK(odd->cluster.empty());
}

TEST_CASE("the fetcher's thread lets no exception escape, even from its callback") {
    FakeEcsEndpoint endpoint(fargate_task("1e400"), "{}");
    std::mutex mutex;
    std::condition_variable done;
    int reports = 0;
    std::string reason;
    {
        MetadataFetcher fetcher(endpoint.uri(), [&](const Result<TaskMetadata>& result) {
            {
                std::lock_guard<std::mutex> lock(mutex);
                ++reports;
                if (!result) reason = result.error().message;
                done.notify_all();
            }
            throw std::runtime_error("a callback that throws");
        });
        fetcher.start();
        std::unique_lock<std::mutex> lock(mutex);
        REQUIRE(done.wait_for(lock, std::chrono::seconds(10), [&] { return reports > 0; }));
    }  // joined: std::terminate would have ended the test binary
    CHECK(reports == 1);
    CHECK(reason.find("number out of range") != std::string::npos);
}
