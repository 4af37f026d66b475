// Per-second rates between two live readings, as PromQL's rate() would give over the same
// window: cores used, share of the budget, steal, throttled share of periods, PSI stall shares.
// A counter that went backwards (a new cgroup, a reset) or is missing in either reading gives no
// rate; so does a window that is not positive.
#pragma once

#include <array>
#include <optional>

#include "host/live_reading.hpp"

namespace hostprobe::host {

// Seconds stalled per second of the window (0..1), PSI "some" and "full".
struct PressureRates {
    double some_ratio = 0;
    std::optional<double> full_ratio;
};
using PressureRateReadings = std::array<std::optional<PressureRates>, kPressureResources.size()>;

struct LiveRates {
    double interval_seconds = 0;
    std::optional<double> cpu_cores_used;           // cgroup CPU seconds per second
    std::optional<double> budget_used_ratio;        // cpu_cores_used / budget cores
    std::optional<double> steal_cores;              // steal seconds per second, over our CPUs
    std::optional<double> steal_ratio_per_cpu;      // steal_cores / the CPUs summed over
    std::optional<double> throttled_periods_ratio;  // throttled periods / periods elapsed
    std::optional<double> throttled_cores;          // throttled seconds per second
    PressureRateReadings host_pressure;
    PressureRateReadings cgroup_pressure;
};

std::optional<LiveRates> compute_live_rates(const LiveReading& earlier, const LiveReading& now);

}  // namespace hostprobe::host
