#include "host/live_rates.hpp"

namespace hostprobe::host {

namespace {

std::optional<double> per_second(const std::optional<double>& earlier,
                                 const std::optional<double>& now, double seconds) {
    if (!earlier || !now || *now < *earlier) return std::nullopt;
    return (*now - *earlier) / seconds;
}

std::optional<double> share_of(const std::optional<double>& part, double whole) {
    if (!part || whole <= 0) return std::nullopt;
    return *part / whole;
}

PressureRateReadings pressure_rates(const PressureReadings& earlier, const PressureReadings& now,
                                    double seconds) {
    PressureRateReadings rates;
    for (size_t i = 0; i < rates.size(); ++i) {
        if (!earlier[i] || !now[i]) continue;
        auto some = per_second(earlier[i]->some_seconds, now[i]->some_seconds, seconds);
        if (!some) continue;
        rates[i] = PressureRates{
            *some, per_second(earlier[i]->full_seconds, now[i]->full_seconds, seconds)};
    }
    return rates;
}

std::optional<double> optional_total(const std::optional<CgroupCpuUsage>& usage) {
    if (!usage) return std::nullopt;
    return usage->total_seconds;
}

}  // namespace

std::optional<LiveRates> compute_live_rates(const LiveReading& earlier, const LiveReading& now) {
    const double seconds = std::chrono::duration<double>(now.at - earlier.at).count();
    if (seconds <= 0) return std::nullopt;
    LiveRates rates;
    rates.interval_seconds = seconds;
    rates.cpu_cores_used =
        per_second(optional_total(earlier.cgroup_cpu), optional_total(now.cgroup_cpu), seconds);
    rates.budget_used_ratio = share_of(rates.cpu_cores_used, now.budget_cores);
    rates.steal_cores = per_second(earlier.steal_seconds, now.steal_seconds, seconds);
    if (earlier.steal_cpus == now.steal_cpus) {
        rates.steal_ratio_per_cpu = share_of(rates.steal_cores, now.steal_cpus);
    }
    if (earlier.throttling && now.throttling) {
        const auto& before = *earlier.throttling;
        const auto& after = *now.throttling;
        if (after.periods >= before.periods &&
            after.throttled_periods >= before.throttled_periods) {
            const auto periods = after.periods - before.periods;
            if (periods > 0) {
                rates.throttled_periods_ratio =
                    static_cast<double>(after.throttled_periods - before.throttled_periods) /
                    static_cast<double>(periods);
            }
        }
        rates.throttled_cores =
            per_second(before.throttled_seconds, after.throttled_seconds, seconds);
    }
    rates.host_pressure = pressure_rates(earlier.host_pressure, now.host_pressure, seconds);
    rates.cgroup_pressure = pressure_rates(earlier.cgroup_pressure, now.cgroup_pressure, seconds);
    return rates;
}

}  // namespace hostprobe::host
