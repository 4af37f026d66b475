// CPU time the hypervisor stole from this VM, from /proc/stat's aggregate "cpu" line.
#pragma once

#include <string_view>

#include "core/result.hpp"
#include "core/sysroot.hpp"

namespace hostprobe::host {

// Seconds of steal summed over all CPUs since boot.
Result<double> read_steal_seconds(const SysRoot& root);
Result<double> parse_steal_seconds(std::string_view proc_stat, long ticks_per_second);

}  // namespace hostprobe::host
