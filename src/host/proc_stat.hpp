// CPU time the hypervisor stole from this VM, from /proc/stat: the aggregate "cpu" line, or the
// "cpuN" lines of the CPUs we may run on.
#pragma once

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

}  // namespace hostprobe::host
