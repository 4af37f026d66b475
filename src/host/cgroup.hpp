// The cgroup limits we live under (v1 and v2): CPU quota and period, shares/weight, cpuset,
// memory limit and the CFS throttling counters. Found through /proc/self/cgroup and
// /proc/self/mountinfo; controller names and mount points are never assumed.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/cpu_set.hpp"
#include "core/result.hpp"
#include "core/sysroot.hpp"

namespace hostprobe::host {

struct CpuQuota {
    int64_t quota_us = 0;
    int64_t period_us = 0;
    std::string cgroup_dir;  // machine path of the cgroup that sets it (ours or an ancestor)
    double cores() const { return static_cast<double>(quota_us) / static_cast<double>(period_us); }
};

struct ThrottlingCounters {
    uint64_t periods = 0;
    uint64_t throttled_periods = 0;
    double throttled_seconds = 0;
};

// A cgroup directory whose counters are read again at scrape time, and its hierarchy's version.
struct CgroupSource {
    int version = 0;
    std::string cgroup_dir;
};
// Where the CFS counters live (the cgroup that enforces the quota).
using ThrottlingSource = CgroupSource;

struct CgroupFacts {
    std::optional<int> version;         // 1, 2, or unknown when no cpu cgroup was found
    std::string cpu_cgroup_path;        // as /proc/self/cgroup names it
    std::string cpu_dir;                // machine path of our cpu cgroup directory
    std::optional<CpuQuota> cpu_quota;  // the most restrictive on the way to the root
    std::optional<int64_t> cpu_period_us;
    std::optional<uint64_t> cpu_shares;  // v1
    std::optional<uint64_t> cpu_weight;  // v2
    std::optional<CpuSet> cpuset;
    std::optional<uint64_t> memory_limit_bytes;  // unset when unlimited
    std::optional<ThrottlingSource> throttling_source;
    std::optional<ThrottlingCounters> throttling;
    // Our own cgroup for CPU use (v1: the cpuacct controller's directory, v2: the cpu one) and
    // for memory (usage, v2 memory.events); pressure files are in a v2 one of the two.
    std::optional<CgroupSource> cpu_usage_source;
    std::optional<CgroupSource> memory_source;
    std::optional<CgroupSource> pressure_source() const;
    std::vector<std::string> warnings;
};

CgroupFacts read_cgroup_facts(const SysRoot& root);
Result<ThrottlingCounters> read_throttling(const SysRoot& root, const ThrottlingSource& source);

// One cgroup's CPU bandwidth setting; quota_us is unset when unlimited (-1 or "max").
struct QuotaSetting {
    std::optional<int64_t> quota_us;
    int64_t period_us = 0;
};

// Parsers, exposed for tests and fuzzing.
Result<QuotaSetting> parse_cfs_quota(std::string_view quota_text, std::string_view period_text);
Result<QuotaSetting> parse_cpu_max(std::string_view text);
Result<ThrottlingCounters> parse_cpu_stat(std::string_view text, int version);
// v1 memory.limit_in_bytes or v2 memory.max; empty optional when unlimited.
Result<std::optional<uint64_t>> parse_memory_limit(std::string_view text);

}  // namespace hostprobe::host
