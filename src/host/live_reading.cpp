#include "host/live_reading.hpp"

#include <unistd.h>

#include "host/proc_stat.hpp"

namespace hostprobe::host {

namespace {

template <typename Read>
PressureReadings read_pressures(const Read& read) {
    PressureReadings readings;
    for (size_t i = 0; i < kPressureResources.size(); ++i) {
        auto totals = read(kPressureResources[i]);
        if (totals && *totals) readings[i] = **totals;
    }
    return readings;
}

uint32_t steal_cpu_count(const HostFacts& facts) {
    if (facts.cgroup.cpuset && !facts.cgroup.cpuset->empty()) {
        return static_cast<uint32_t>(facts.cgroup.cpuset->count());
    }
    return facts.online_cpus();
}

}  // namespace

LiveReading read_live(const SysRoot& root, const HostFacts& facts,
                      std::chrono::steady_clock::time_point at) {
    const CgroupFacts& cgroup = facts.cgroup;
    LiveReading reading;
    reading.at = at;
    reading.budget_cores = facts.cpu_budget.cores;
    if (cgroup.cpu_usage_source) {
        auto usage = read_cgroup_cpu_usage(root, *cgroup.cpu_usage_source, sysconf(_SC_CLK_TCK));
        if (usage) reading.cgroup_cpu = *usage;
    }
    auto modes = read_cpu_mode_seconds(root, cgroup.cpuset.value_or(CpuSet()));
    if (modes && modes->modes > kStealMode) {
        reading.steal_seconds = modes->seconds[kStealMode];
        reading.steal_cpus = steal_cpu_count(facts);
    }
    if (cgroup.throttling_source) {
        if (auto counters = read_throttling(root, *cgroup.throttling_source)) {
            reading.throttling = *counters;
        }
    }
    reading.host_pressure =
        read_pressures([&](PressureResource r) { return read_host_pressure(root, r); });
    if (auto source = cgroup.pressure_source()) {
        reading.cgroup_pressure = read_pressures(
            [&](PressureResource r) { return read_cgroup_pressure(root, source->cgroup_dir, r); });
    }
    if (cgroup.memory_source) {
        if (auto usage = read_cgroup_memory_usage(root, *cgroup.memory_source)) {
            reading.memory_usage_bytes = *usage;
        }
        if (cgroup.memory_source->version == 2) {
            if (auto events = read_cgroup_memory_events(root, *cgroup.memory_source)) {
                reading.memory_events = *events;
            }
        }
    }
    return reading;
}

}  // namespace hostprobe::host
