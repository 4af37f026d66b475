// The background reader: one read per interval whatever the scrape rate, documents replaced
// mid-test show in the next snapshot, a failed read keeps the last good values and says why,
// and stopping is quick even while a request hangs.
#include "ecs/task_stats_reader.hpp"

#include <doctest/doctest.h>

#include "support/eventually.hpp"
#include "support/fake_ecs_endpoint.hpp"

using namespace hostprobe;
using namespace hostprobe::ecs;
using namespace std::chrono_literals;
using hostprobe::testing::ecs_fixture;
using hostprobe::testing::eventually;
using hostprobe::testing::FakeEcsEndpoint;
using nlohmann::json;

namespace {

std::string stats_at(const std::string& read, uint64_t cpu_ns, uint64_t usage = 100 << 20) {
    return json{{"a",
                 {{"read", read},
                  {"cpu_stats", {{"cpu_usage", {{"total_usage", cpu_ns}}}}},
                  {"memory_stats", {{"usage", usage}}}}}}
        .dump();
}

const std::string kTask = R"({"Limits": {"CPU": 0.25, "Memory": 512},
    "Containers": [{"Name": "app", "DockerId": "a", "KnownStatus": "RUNNING"}]})";

}  // namespace

TEST_CASE("the tracker: rates between its own readings, a failure keeps the last good values") {
    TaskStatsTracker tracker;
    auto parse = [](const std::string& stats) {
        return parse_task_stats(json::parse(kTask), json::parse(stats));
    };
    auto first =
        tracker.take(parse(stats_at("2026-12-06T10:00:00Z", 1'000'000'000)), WallClock::now());
    CHECK(first->reads == 1);
    CHECK_FALSE(first->usage.cpu_cores.has_value());  // no precpu, nothing before
    auto second =
        tracker.take(parse(stats_at("2026-12-06T10:00:10Z", 3'400'000'000)), WallClock::now());
    REQUIRE(second->usage.cpu_cores.has_value());
    CHECK(*second->usage.cpu_cores == doctest::Approx(0.24));
    CHECK(*second->saturation.ratio == doctest::Approx(1.0));  // 0.24 >= 0.95 x 0.25
    auto failed =
        tracker.take(make_error(ErrorCode::unavailable, "/task/stats: HTTP 500"), WallClock::now());
    CHECK(failed->error == "/task/stats: HTTP 500");
    CHECK(failed->failures == 1);
    CHECK(failed->reads == 2);
    CHECK(*failed->usage.cpu_cores == doctest::Approx(0.24));  // the last good values stay
    auto recovered =
        tracker.take(parse(stats_at("2026-12-06T10:00:30Z", 3'900'000'000)), WallClock::now());
    CHECK_FALSE(recovered->error.has_value());
    CHECK(*recovered->usage.cpu_cores == doctest::Approx(0.025));
    CHECK(*recovered->saturation.ratio == doctest::Approx(10.0 / 30.0));
}

TEST_CASE("stats read again with the same stamp keep their rate; a restart loses it") {
    TaskStatsTracker tracker;
    auto parse = [](const std::string& stats) {
        return parse_task_stats(json::parse(kTask), json::parse(stats));
    };
    (void)tracker.take(parse(stats_at("2026-12-06T10:00:00Z", 1'000'000'000)), WallClock::now());
    auto rated =
        tracker.take(parse(stats_at("2026-12-06T10:00:10Z", 2'000'000'000)), WallClock::now());
    auto again =
        tracker.take(parse(stats_at("2026-12-06T10:00:10Z", 2'000'000'000)), WallClock::now());
    REQUIRE(again->usage.cpu_cores.has_value());
    CHECK(*again->usage.cpu_cores == doctest::Approx(*rated->usage.cpu_cores));
    CHECK(*again->saturation.ratio == doctest::Approx(*rated->saturation.ratio));
    // Restarted in place: the counter is back near zero. No rate, never a negative one.
    auto restarted =
        tracker.take(parse(stats_at("2026-12-06T10:00:20Z", 5'000'000)), WallClock::now());
    CHECK_FALSE(restarted->usage.cpu_cores.has_value());
    auto after =
        tracker.take(parse(stats_at("2026-12-06T10:00:30Z", 1'005'000'000)), WallClock::now());
    CHECK(*after->usage.cpu_cores == doctest::Approx(0.1));
}

TEST_CASE("the reader reads each interval, and a replaced document shows in the next snapshot") {
    FakeEcsEndpoint endpoint(kTask, "{}", FakeEcsEndpoint::Mode::serve,
                             stats_at("2026-12-06T10:00:00Z", 1'000'000'000));
    TaskStatsReader reader(endpoint.uri(), 100ms);
    CHECK(reader.snapshot() == nullptr);
    reader.start();
    REQUIRE(eventually([&] { return reader.snapshot() != nullptr; }));
    CHECK(reader.snapshot()->reading.containers.at(0).name == "app");
    endpoint.set_documents(kTask, stats_at("2026-12-06T10:00:10Z", 3'000'000'000, 500 << 20));
    REQUIRE(eventually([&] {
        auto snapshot = reader.snapshot();
        return snapshot->usage.cpu_cores.has_value() &&
               snapshot->reading.containers.at(0).stats->memory_usage_bytes == 500u << 20;
    }));
    CHECK(*reader.snapshot()->usage.cpu_cores == doctest::Approx(0.2));
    endpoint.set_mode(FakeEcsEndpoint::Mode::error_500);
    REQUIRE(eventually([&] { return reader.snapshot()->error.has_value(); }));
    CHECK(reader.snapshot()->error->find("HTTP 500") != std::string::npos);
    CHECK(reader.snapshot()->reading.containers.size() == 1);
}

TEST_CASE("at most one read per interval, however often the snapshot is asked for") {
    FakeEcsEndpoint endpoint(kTask, "{}", FakeEcsEndpoint::Mode::serve,
                             stats_at("2026-12-06T10:00:00Z", 1));
    {
        TaskStatsReader reader(endpoint.uri(), 10s);
        reader.start();
        REQUIRE(eventually([&] { return reader.snapshot() != nullptr; }));
        for (int i = 0; i < 1000; ++i)
            (void)reader.snapshot();
    }
    CHECK(endpoint.stats_requests() == 1);
}

TEST_CASE("stopping the reader while a request hangs takes at most the request's deadline") {
    FakeEcsEndpoint endpoint(kTask, "{}", FakeEcsEndpoint::Mode::silent);
    const auto started = std::chrono::steady_clock::now();
    {
        TaskStatsReader reader(endpoint.uri(), 10s);
        reader.start();
        REQUIRE(eventually([&] { return endpoint.requests() > 0; }));
    }
    CHECK(std::chrono::steady_clock::now() - started < 4s);
}

TEST_CASE("the survey's single read takes the rates from Docker's own previous reading") {
    FakeEcsEndpoint endpoint(ecs_fixture("ecs_exporter/fargate_task_metadata.json"), "{}",
                             FakeEcsEndpoint::Mode::serve,
                             ecs_fixture("ecs_exporter/fargate_task_stats.json"));
    auto reading = read_task_stats(endpoint.uri());
    REQUIRE(reading.ok());
    TaskStatsTracker tracker;
    auto snapshot = tracker.take(std::move(reading), WallClock::now());
    REQUIRE(snapshot->usage.cpu_cores.has_value());
    CHECK(*snapshot->usage.cpu_cores ==
          doctest::Approx(0.007193303 / 10.000941384 + 0.079862443 / 9.999690712));
    CHECK_FALSE(read_task_stats("not a url").ok());
}
