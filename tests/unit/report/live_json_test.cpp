// GET /v1/host's `live` object and the text report's "Live:" row, over made-up readings: the
// keys present for the sources that are, absent for the others, and rates null without an
// earlier reading.
#include "report/live_json.hpp"

#include <doctest/doctest.h>

#include "host/live_rates.hpp"
#include "report/live_text.hpp"

using namespace hostprobe;
using namespace hostprobe::host;

namespace {

LiveReading full_live_reading(std::chrono::milliseconds at, double scale) {
    LiveReading reading;
    reading.at = std::chrono::steady_clock::time_point{at};
    reading.budget_cores = 0.25;
    reading.cgroup_cpu = CgroupCpuUsage{100 * scale, 80 * scale, 20 * scale};
    reading.steal_seconds = 10 * scale;
    reading.steal_cpus = 2;
    reading.throttling = ThrottlingCounters{static_cast<uint64_t>(1000 * scale),
                                            static_cast<uint64_t>(100 * scale), 5 * scale};
    reading.host_pressure[0] = PressureTotals{50 * scale, std::nullopt};
    reading.host_pressure[2] = PressureTotals{3 * scale, 1 * scale};
    reading.cgroup_pressure[0] = PressureTotals{40 * scale, 20 * scale};
    reading.memory_usage_bytes = 1u << 20;
    reading.memory_events = MemoryEvents{{"max", 2}, {"oom_kill", 0}};
    return reading;
}

}  // namespace

TEST_CASE("live json: totals of every source present, rates null on the first request") {
    const auto now = full_live_reading(std::chrono::milliseconds(1000), 1.0);
    const auto live = report::live_json(now, std::nullopt);
    CHECK(live["cgroup_cpu"] == nlohmann::json({{"usage_seconds_total", 100.0},
                                                {"user_seconds_total", 80.0},
                                                {"system_seconds_total", 20.0}}));
    CHECK(live["budget_cores"] == 0.25);
    CHECK(live["steal"] == nlohmann::json({{"seconds_total", 10.0}, {"cpus", 2}}));
    CHECK(live["throttling"] == nlohmann::json({{"periods_total", 1000},
                                                {"throttled_periods_total", 100},
                                                {"throttled_seconds_total", 5.0}}));
    CHECK(live["pressure"]["host"]["cpu"] == nlohmann::json({{"some_seconds_total", 50.0}}));
    CHECK(live["pressure"]["host"]["io"]["full_seconds_total"] == 1.0);
    CHECK_FALSE(live["pressure"]["host"].contains("memory"));
    CHECK(live["pressure"]["cgroup"]["cpu"]["full_seconds_total"] == 20.0);
    CHECK(live["memory"] == nlohmann::json({{"usage_bytes", 1 << 20},
                                            {"events_total", {{"max", 2}, {"oom_kill", 0}}}}));
    REQUIRE(live.contains("rates"));
    CHECK(live["rates"].is_null());
}

TEST_CASE("live json: absent sources are absent keys") {
    LiveReading bare;
    bare.budget_cores = 2;
    const auto live = report::live_json(bare, std::nullopt);
    CHECK(live == nlohmann::json({{"budget_cores", 2.0}, {"rates", nullptr}}));
    CHECK(report::live_summary(bare, std::nullopt) == "-");
}

TEST_CASE("live json and text: rates against an earlier reading") {
    const auto earlier = full_live_reading(std::chrono::milliseconds(1000), 1.0);
    auto now = full_live_reading(std::chrono::milliseconds(3000), 1.0);
    now.cgroup_cpu->total_seconds += 0.46;
    *now.steal_seconds += 0.004;
    now.throttling->periods += 20;
    now.throttling->throttled_periods += 15;
    now.cgroup_pressure[0]->some_seconds += 0.24;
    const auto rates = compute_live_rates(earlier, now);
    const auto live = report::live_json(now, rates);
    const auto& json_rates = live["rates"];
    CHECK(json_rates["interval_seconds"] == doctest::Approx(2.0));
    CHECK(json_rates["cpu_cores_used"].get<double>() == doctest::Approx(0.23));
    CHECK(json_rates["budget_used_ratio"].get<double>() == doctest::Approx(0.92));
    CHECK(json_rates["steal_cores"].get<double>() == doctest::Approx(0.002));
    CHECK(json_rates["steal_ratio_per_cpu"].get<double>() == doctest::Approx(0.001));
    CHECK(json_rates["throttled_periods_ratio"].get<double>() == doctest::Approx(0.75));
    CHECK(json_rates["throttled_cores"].get<double>() == doctest::Approx(0.0));
    CHECK(json_rates["pressure"]["cgroup"]["cpu"]["some_ratio"].get<double>() ==
          doctest::Approx(0.12));
    CHECK(json_rates["pressure"]["host"]["cpu"]["some_ratio"].get<double>() ==
          doctest::Approx(0.0));
    CHECK_FALSE(json_rates["pressure"]["host"].contains("memory"));
    CHECK(report::live_summary(now, rates) ==
          "0.23 of 0.25 cores used (92% of budget), steal 0.1%, throttled 75% of periods, PSI "
          "cpu some 12%, over 2.0 s");
    CHECK(report::live_summary(earlier, std::nullopt) ==
          "100.0 s CPU used (budget 0.25 cores), steal 10.0 s, throttled 100 of 1000 periods, PSI "
          "cpu some 40.0 s (totals)");
}
