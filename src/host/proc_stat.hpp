// CPU time the hypervisor stole from this VM, and the time spent in each mode, from /proc/stat:
// the aggregate "cpu" line, or the "cpuN" lines of the CPUs we may run on.
#pragma once

#include <array>
#include <cstddef>
#include <string_view>

#include "core/cpu_set.hpp"
#include "core/result.hpp"
#include "core/sysroot.hpp"

namespace hostprobe::host {

// Seconds of steal summed over all CPUs since boot.
Result<double> read_steal_seconds(const SysRoot& root);
Result<double> parse_steal_seconds(std::string_view proc_stat, long ticks_per_second);

// Seconds of steal of the CPUs in `allowed` (our cpuset): the sum of their "cpuN" lines. When
// `allowed` is empty or names every CPU /proc/stat lists, the aggregate line. A CPU of the set
// that /proc/stat does not list (offline) counts nothing; none listed at all is an error.
Result<double> read_steal_seconds(const SysRoot& root, const CpuSet& allowed);
Result<double> parse_steal_seconds(std::string_view proc_stat, long ticks_per_second,
                                   const CpuSet& allowed);

// The CPU modes hostprobe reports, in /proc/stat's column order. guest and guest_nice are left
// out: the kernel already counts them in user and nice.
inline constexpr std::array<const char*, 8> kCpuModes = {"user",   "nice", "system",  "idle",
                                                         "iowait", "irq",  "softirq", "steal"};
inline constexpr size_t kStealMode = 7;  // kCpuModes[kStealMode] == "steal"

struct CpuModeSeconds {
    std::array<double, kCpuModes.size()> seconds{};
    // How many leading modes the lines had: 4 before Linux 2.5.41 (no iowait), 7 before 2.6.11
    // (no steal), 8 since. Modes beyond it are unknown, not zero.
    size_t modes = 0;
};

// Seconds per mode summed over the CPUs in `allowed`, chosen as read_steal_seconds chooses them
// (the aggregate line when `allowed` is empty or covers every listed CPU). A line with fewer than
// 4 modes or a field that is not a count is an error; only lines named "cpu..." are split, so the
// long "intr" line costs nothing.
Result<CpuModeSeconds> read_cpu_mode_seconds(const SysRoot& root, const CpuSet& allowed);
Result<CpuModeSeconds> parse_cpu_mode_seconds(std::string_view proc_stat, long ticks_per_second,
                                              const CpuSet& allowed);

}  // namespace hostprobe::host
