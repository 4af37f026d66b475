// The CPU time our cgroup has used, read at scrape time: v1 cpuacct.usage (nanoseconds) and
// cpuacct.stat (user/system in USER_HZ ticks), v2 cpu.stat usage_usec/user_usec/system_usec.
#pragma once

#include <optional>
#include <string_view>

#include "core/result.hpp"
#include "core/sysroot.hpp"
#include "host/cgroup.hpp"

namespace hostprobe::host {

struct CgroupCpuUsage {
    double total_seconds = 0;
    std::optional<double> user_seconds;  // when the files give them
    std::optional<double> system_seconds;
};

// Reads the usage files in `source` (CgroupFacts::cpu_usage_source). v1 without cpuacct.stat
// still gives the total.
Result<CgroupCpuUsage> read_cgroup_cpu_usage(const SysRoot& root, const CgroupSource& source,
                                             long ticks_per_second);

// Parsers, exposed for tests and fuzzing.
// v1 cpuacct.usage: one count of nanoseconds.
Result<double> parse_cpuacct_usage(std::string_view text);
// v1 cpuacct.stat: "user <ticks>\nsystem <ticks>\n", into seconds (both lines required).
Result<CgroupCpuUsage> parse_cpuacct_stat(std::string_view text, long ticks_per_second);
// v2 cpu.stat: usage_usec required, user_usec and system_usec when present.
Result<CgroupCpuUsage> parse_cpu_stat_usage(std::string_view text);

}  // namespace hostprobe::host
