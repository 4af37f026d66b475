#include "runs/scheduler.hpp"

#include <doctest/doctest.h>

#include <cstdio>

using namespace hostprobe;
using namespace hostprobe::runs;
using namespace std::chrono_literals;

TEST_CASE("durations and schedules") {
    CHECK(*parse_duration("90s") == 90s);
    CHECK(*parse_duration("5m") == 300s);
    CHECK(*parse_duration("1h") == 3600s);
    CHECK(*parse_duration("2d") == 172800s);
    CHECK(*parse_duration("45") == 45s);
    CHECK_FALSE(parse_duration("0s").ok());
    CHECK_FALSE(parse_duration("1w").ok());
    CHECK_FALSE(parse_duration("").ok());
    auto schedule = parse_schedule("cipher=1h, cpu=6h");
    REQUIRE(schedule.ok());
    REQUIRE(schedule->size() == 2);
    CHECK((*schedule)[1].probe == "cpu");
    CHECK((*schedule)[1].interval == 6h);
    CHECK(parse_schedule("")->empty());
    CHECK_FALSE(parse_schedule("cipher").ok());
    CHECK_FALSE(parse_schedule("cipher=1s").ok());  // would starve the task
    CHECK(parse_probe_list(" cpu, cipher ,") == std::vector<std::string>{"cpu", "cipher"});
}

TEST_CASE("ticks submit what is due and keep the rhythm") {
    std::vector<std::pair<std::string, std::string>> submitted;  // (probe, trigger)
    nlohmann::json seen_params;
    auto submit = [&](const std::string& probe, const nlohmann::json& params,
                      const std::string& trigger) -> Result<Run> {
        submitted.emplace_back(probe, trigger);
        seen_params = params;
        if (probe == "full") return make_error(ErrorCode::busy, "queue full");
        Run run;
        run.id = "r" + std::to_string(submitted.size());
        return run;
    };
    std::FILE* sink = std::tmpfile();
    Logger log(sink);
    const SteadyClock::time_point start{};
    Scheduler scheduler({{"cipher", 60s}, {"full", 120s}}, {{"cipher", {{"seconds", 1}}}}, submit,
                        log, start);

    CHECK(scheduler.tick(start) == start + 60s);  // nothing is due at start
    CHECK(submitted.empty());
    CHECK(scheduler.tick(start + 60s) == start + 120s);
    REQUIRE(submitted.size() == 1);
    CHECK(submitted[0] == std::pair<std::string, std::string>{"cipher", "schedule"});
    CHECK(seen_params == nlohmann::json{{"seconds", 1}});
    // Late by 130 s: each entry runs once, and its next time stays on its grid.
    CHECK(scheduler.tick(start + 250s) == start + 300s);
    CHECK(submitted.size() == 3);  // cipher, and full (refused, logged, not retried at once)
    CHECK(scheduler.tick(start + 250s) == start + 300s);
    CHECK(submitted.size() == 3);
    std::fclose(sink);
}
