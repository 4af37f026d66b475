// One reading of the scrape-time sources (the same files /metrics reads) for GET /v1/host's
// `live` object: cgroup CPU time, steal on our CPUs, the CFS throttling counters, PSI totals of
// the machine and of the cgroup, and the cgroup's memory. A source that is absent or does not
// read is an empty optional: `live` shows what there is and never fails.
#pragma once

#include <array>
#include <chrono>
#include <cstdint>
#include <optional>

#include "core/sysroot.hpp"
#include "host/cgroup.hpp"
#include "host/cgroup_memory.hpp"
#include "host/cgroup_usage.hpp"
#include "host/host_facts.hpp"
#include "host/pressure.hpp"

namespace hostprobe::host {

// Indexed like kPressureResources.
using PressureReadings = std::array<std::optional<PressureTotals>, kPressureResources.size()>;

struct LiveReading {
    std::chrono::steady_clock::time_point at;
    std::optional<CgroupCpuUsage> cgroup_cpu;
    double budget_cores = 0;  // the CPU budget, for reference
    std::optional<double> steal_seconds;
    uint32_t steal_cpus = 0;  // how many CPUs steal is summed over
    std::optional<ThrottlingCounters> throttling;
    PressureReadings host_pressure;
    PressureReadings cgroup_pressure;
    std::optional<uint64_t> memory_usage_bytes;
    std::optional<MemoryEvents> memory_events;
};

LiveReading read_live(const SysRoot& root, const HostFacts& facts,
                      std::chrono::steady_clock::time_point at);

}  // namespace hostprobe::host
