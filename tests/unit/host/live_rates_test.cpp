// Rates between two live readings (GET /v1/host `live.rates`), on made-up readings a known
// interval apart: no clock is read.
#include "host/live_rates.hpp"

#include <doctest/doctest.h>

using namespace hostprobe;
using namespace hostprobe::host;

namespace {

using std::chrono::milliseconds;

const std::chrono::steady_clock::time_point kRatesEpoch{std::chrono::hours(1)};

LiveReading reading_at(milliseconds after_epoch, double cpu_seconds, double steal_seconds,
                       uint64_t periods, uint64_t throttled_periods, double cpu_some) {
    LiveReading reading;
    reading.at = kRatesEpoch + after_epoch;
    reading.budget_cores = 0.25;
    reading.cgroup_cpu = CgroupCpuUsage{cpu_seconds, std::nullopt, std::nullopt};
    reading.steal_seconds = steal_seconds;
    reading.steal_cpus = 2;
    reading.throttling = ThrottlingCounters{periods, throttled_periods, 0};
    reading.host_pressure[0] = PressureTotals{cpu_some, std::nullopt};
    reading.cgroup_pressure[0] = PressureTotals{cpu_some / 2, cpu_some / 4};
    return reading;
}

}  // namespace

TEST_CASE("live rates: per second over the interval, ratios of the budget and of periods") {
    const auto earlier = reading_at(milliseconds(0), 100.0, 10.0, 1000, 100, 50.0);
    const auto now = reading_at(milliseconds(2000), 100.46, 10.004, 1020, 115, 50.24);
    auto rates = compute_live_rates(earlier, now);
    REQUIRE(rates);
    CHECK(rates->interval_seconds == doctest::Approx(2.0));
    CHECK(*rates->cpu_cores_used == doctest::Approx(0.23));
    CHECK(*rates->budget_used_ratio == doctest::Approx(0.92));
    CHECK(*rates->steal_cores == doctest::Approx(0.002));
    CHECK(*rates->steal_ratio_per_cpu == doctest::Approx(0.001));
    CHECK(*rates->throttled_periods_ratio == doctest::Approx(0.75));
    CHECK(*rates->throttled_cores == doctest::Approx(0.0));
    REQUIRE(rates->host_pressure[0]);
    CHECK(rates->host_pressure[0]->some_ratio == doctest::Approx(0.12));
    CHECK_FALSE(rates->host_pressure[0]->full_ratio);
    REQUIRE(rates->cgroup_pressure[0]);
    CHECK(*rates->cgroup_pressure[0]->full_ratio == doctest::Approx(0.03));
    CHECK_FALSE(rates->host_pressure[1]);  // memory: in neither reading
}

TEST_CASE("live rates: counters that went backwards or vanished give no rate") {
    const auto earlier = reading_at(milliseconds(0), 100.0, 10.0, 1000, 100, 50.0);
    auto now = reading_at(milliseconds(1000), 5.0, 11.0, 1000, 100, 49.0);
    now.throttling.reset();
    auto rates = compute_live_rates(earlier, now);
    REQUIRE(rates);
    CHECK_FALSE(rates->cpu_cores_used);
    CHECK_FALSE(rates->budget_used_ratio);
    CHECK(*rates->steal_cores == doctest::Approx(1.0));
    CHECK_FALSE(rates->throttled_periods_ratio);  // no counters now
    CHECK_FALSE(rates->host_pressure[0]);         // PSI went backwards
    // No period elapsed: no share of periods (rather than 0/0).
    const auto idle = reading_at(milliseconds(1000), 100.0, 10.0, 1000, 100, 50.0);
    CHECK_FALSE(compute_live_rates(earlier, idle)->throttled_periods_ratio);
    // A different CPU count (the cpuset changed): cores of steal, but no per-CPU share.
    auto moved = idle;
    moved.steal_cpus = 4;
    CHECK(compute_live_rates(earlier, moved)->steal_cores);
    CHECK_FALSE(compute_live_rates(earlier, moved)->steal_ratio_per_cpu);
    // A budget of 0 (unknown) gives cores but no ratio.
    moved.budget_cores = 0;
    CHECK_FALSE(compute_live_rates(earlier, moved)->budget_used_ratio);
}

TEST_CASE("live rates: no rates over an empty or negative interval") {
    const auto earlier = reading_at(milliseconds(1000), 100.0, 10.0, 1000, 100, 50.0);
    CHECK_FALSE(compute_live_rates(earlier, earlier));
    CHECK_FALSE(
        compute_live_rates(earlier, reading_at(milliseconds(0), 101.0, 10.0, 1000, 100, 50.0)));
}
