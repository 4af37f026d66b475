// Rates between readings (a restart is not a negative rate), the saturation share of the last
// minute, and the near-the-memory-limit warning.
#include "ecs/task_usage.hpp"

#include <doctest/doctest.h>

#include "support/fake_ecs_endpoint.hpp"

using namespace hostprobe;
using namespace hostprobe::ecs;
using hostprobe::testing::ecs_fixture;
using nlohmann::json;

namespace {

constexpr int64_t kSecond = 1'000'000'000;
constexpr int64_t kStart = 1'765'000'000 * kSecond;

ContainerReading running_container(const std::string& name, const std::string& id, int64_t read_ns,
                         uint64_t cpu_ns) {
    ContainerReading container{.name = name, .docker_id = id};
    container.stats = ContainerStats{.read_unix_ns = read_ns, .cpu_ns = cpu_ns};
    return container;
}

TaskStatsReading task_of(std::vector<ContainerReading> containers, double limit = 0.25) {
    TaskStatsReading reading;
    reading.cpu_limit_cores = limit;
    reading.containers = std::move(containers);
    return reading;
}

}  // namespace

TEST_CASE("the captures' own precpu gives the first rates, as hand-derived") {
    auto fargate =
        parse_task_stats(json::parse(ecs_fixture("ecs_exporter/fargate_task_metadata.json")),
                         json::parse(ecs_fixture("ecs_exporter/fargate_task_stats.json")));
    REQUIRE(fargate.ok());
    auto usage = task_usage(*fargate, nullptr);
    REQUIRE(usage.container_cpu_cores.size() == 3);
    CHECK_FALSE(usage.container_cpu_cores[0].has_value());  // stopped
    CHECK(*usage.container_cpu_cores[1] == doctest::Approx(0.007193303 / 10.000941384));
    CHECK(*usage.container_cpu_cores[2] == doctest::Approx(0.079862443 / 9.999690712));
    CHECK(*usage.cpu_cores ==
          doctest::Approx(0.007193303 / 10.000941384 + 0.079862443 / 9.999690712));

    auto ec2 = parse_task_stats(json::parse(ecs_fixture("ecs_exporter/ec2_task_metadata.json")),
                                json::parse(ecs_fixture("ecs_exporter/ec2_task_stats.json")));
    REQUIRE(ec2.ok());
    auto ec2_usage = task_usage(*ec2, nullptr);
    CHECK(*ec2_usage.container_cpu_cores[1] == doctest::Approx(0.005162 / 1.003225381));
    CHECK(*ec2_usage.container_cpu_cores[2] == doctest::Approx(0.0));
}

TEST_CASE("rates come from our own previous reading; a counter that went back gives none") {
    auto before = task_of({running_container("app", "x", kStart, 1 * kSecond)});
    auto after = task_of({running_container("app", "x", kStart + 10 * kSecond, 3 * kSecond)});
    auto usage = task_usage(after, &before);
    CHECK(*usage.cpu_cores == doctest::Approx(0.2));
    CHECK(usage.interval_start_ns == kStart);
    CHECK(usage.interval_end_ns == kStart + 10 * kSecond);

    // Restarted in place (same id) with its counter back at zero: no rate, not a negative one.
    auto restarted = task_of({running_container("app", "x", kStart + 20 * kSecond, kSecond / 10)});
    CHECK_FALSE(task_usage(restarted, &after).cpu_cores.has_value());
    // A new DockerId is another container: nothing to compare with.
    auto replaced = task_of({running_container("app", "y", kStart + 20 * kSecond, 5 * kSecond)});
    CHECK_FALSE(task_usage(replaced, &after).cpu_cores.has_value());
    // The same read time twice: no division by zero.
    CHECK_FALSE(task_usage(after, &after).cpu_cores.has_value());
}

TEST_CASE("saturation: the share of the last minute at 95% of the task's limit or more") {
    SaturationWindow window;
    TaskStatsReading previous = task_of({running_container("app", "x", kStart, 0)});
    uint64_t used = 0;
    // 3 idle intervals of 10 s, then 3 at the limit (0.25 cores).
    for (int i = 1; i <= 6; ++i) {
        used += i <= 3 ? kSecond / 100 : static_cast<uint64_t>(2.5 * kSecond);
        auto current = task_of({running_container("app", "x", kStart + i * 10 * kSecond, used)});
        window.add(task_usage(current, &previous), 0.25);
        previous = current;
    }
    auto share = window.share(kStart + 60 * kSecond);
    CHECK(share.covered_seconds == doctest::Approx(60));
    CHECK(share.saturated_seconds == doctest::Approx(30));
    CHECK(*share.ratio == doctest::Approx(0.5));
    // A minute later with no readings the window is empty: no ratio, not 0.
    CHECK_FALSE(window.share(kStart + 130 * kSecond).ratio.has_value());
    // Without a task CPU limit nothing is added.
    SaturationWindow unlimited;
    auto first = task_of({running_container("app", "x", kStart, 0)});
    auto current = task_of({running_container("app", "x", kStart + 10 * kSecond, kSecond)});
    REQUIRE(task_usage(current, &first).cpu_cores.has_value());
    unlimited.add(task_usage(current, &first), std::nullopt);
    CHECK_FALSE(unlimited.share(kStart + 10 * kSecond).ratio.has_value());
}

TEST_CASE("a container past 90% of its memory limit is named") {
    auto reading = task_of({running_container("app", "x", kStart, 0), running_container("side", "y", kStart, 0)});
    reading.containers[0].stats->memory_usage_bytes = 500u << 20;
    reading.containers[0].stats->memory_inactive_file_bytes = 20u << 20;
    reading.containers[0].memory_limit_bytes = 512u << 20;
    reading.containers[0].memory_limit_source = "task";
    reading.containers[1].stats->memory_usage_bytes = 500u << 20;
    reading.containers[1].stats->memory_inactive_file_bytes = 100u << 20;
    reading.containers[1].memory_limit_bytes = 512u << 20;
    auto warnings = memory_near_limit_warnings(reading);
    REQUIRE(warnings.size() == 1);
    CHECK(warnings[0] == "app: memory working set 480.0 MiB is 94% of its 512.0 MiB limit (task)");
}
