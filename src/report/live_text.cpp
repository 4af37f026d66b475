#include "report/live_text.hpp"

#include <vector>

#include "core/strings.hpp"

namespace hostprobe::report {

namespace {

constexpr size_t kCpuPressure = 0;  // kPressureResources[0]

std::string live_percent(double ratio) {
    return format_fixed(ratio * 100, ratio < 0.1 ? 1 : 0) + "%";
}

std::vector<std::string> rate_parts(const host::LiveReading& now, const host::LiveRates& rates) {
    std::vector<std::string> parts;
    if (rates.cpu_cores_used) {
        std::string used = format_fixed(*rates.cpu_cores_used, 2) + " of " +
                           format_fixed(now.budget_cores, 2) + " cores used";
        if (rates.budget_used_ratio)
            used += " (" + live_percent(*rates.budget_used_ratio) + " of budget)";
        parts.push_back(used);
    }
    if (rates.steal_ratio_per_cpu)
        parts.push_back("steal " + live_percent(*rates.steal_ratio_per_cpu));
    if (rates.throttled_periods_ratio) {
        parts.push_back("throttled " + live_percent(*rates.throttled_periods_ratio) +
                        " of periods");
    }
    // The cgroup's own stall when it has one, else the machine's.
    const auto& cpu_pressure = rates.cgroup_pressure[kCpuPressure]
                                   ? rates.cgroup_pressure[kCpuPressure]
                                   : rates.host_pressure[kCpuPressure];
    if (cpu_pressure) parts.push_back("PSI cpu some " + live_percent(cpu_pressure->some_ratio));
    parts.push_back("over " + format_fixed(rates.interval_seconds, 1) + " s");
    return parts;
}

std::vector<std::string> total_parts(const host::LiveReading& now) {
    std::vector<std::string> parts;
    if (now.cgroup_cpu) {
        parts.push_back(format_fixed(now.cgroup_cpu->total_seconds, 1) + " s CPU used (budget " +
                        format_fixed(now.budget_cores, 2) + " cores)");
    }
    if (now.steal_seconds) parts.push_back("steal " + format_fixed(*now.steal_seconds, 1) + " s");
    if (now.throttling) {
        parts.push_back("throttled " + std::to_string(now.throttling->throttled_periods) + " of " +
                        std::to_string(now.throttling->periods) + " periods");
    }
    const auto& cpu_pressure = now.cgroup_pressure[kCpuPressure] ? now.cgroup_pressure[kCpuPressure]
                                                                 : now.host_pressure[kCpuPressure];
    if (cpu_pressure) {
        parts.push_back("PSI cpu some " + format_fixed(cpu_pressure->some_seconds, 1) + " s");
    }
    if (parts.empty()) return parts;
    parts.back() += " (totals)";
    return parts;
}

}  // namespace

std::string live_summary(const host::LiveReading& now,
                         const std::optional<host::LiveRates>& rates) {
    const auto parts = rates ? rate_parts(now, *rates) : total_parts(now);
    return parts.empty() ? std::string("-") : join(parts, ", ");
}

}  // namespace hostprobe::report
