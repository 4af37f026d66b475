// The contents of single cgroup and proc files, each through its own parser: cpu.max,
// cpu.cfs_quota_us + cpu.cfs_period_us (the input's first line and the rest), cpu.stat (v1 and
// v2), memory.max / memory.limit_in_bytes and /proc/stat's steal column. Whatever parses must
// give a CPU budget that sizes thread pools sensibly.
#include <cmath>

#include "fuzz_support.hpp"
#include "host/cgroup.hpp"
#include "host/cpu_budget.hpp"
#include "host/proc_stat.hpp"

using namespace hostprobe;

namespace {

void check_quota(const Result<host::QuotaSetting>& setting, std::string_view input) {
    if (!setting) return;
    const std::string shown(input);
    FUZZ_CHECK(setting->period_us > 0, shown);
    if (!setting->quota_us) return;
    FUZZ_CHECK(*setting->quota_us > 0, shown);
    const host::CpuQuota quota{*setting->quota_us, setting->period_us, "/"};
    FUZZ_CHECK(std::isfinite(quota.cores()) && quota.cores() > 0, shown);
    for (uint32_t visible : {0u, 1u, 2u, 64u}) {
        const host::CpuBudget budget = host::compute_cpu_budget(quota, visible);
        FUZZ_CHECK(budget.workers >= 1 && budget.workers <= std::max<uint32_t>(visible, 1), shown);
    }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    const std::string_view text = fuzz::as_text(data, size);

    check_quota(host::parse_cpu_max(text), text);
    const size_t newline = text.find('\n');
    const std::string_view quota = text.substr(0, newline);
    const std::string_view period =
        newline == std::string_view::npos ? "" : text.substr(newline + 1);
    check_quota(host::parse_cfs_quota(quota, period), text);

    for (int version : {1, 2}) {
        if (auto counters = host::parse_cpu_stat(text, version)) {
            FUZZ_CHECK(
                std::isfinite(counters->throttled_seconds) && counters->throttled_seconds >= 0,
                std::string(text));
        }
    }
    (void)host::parse_memory_limit(text);
    if (auto steal = host::parse_steal_seconds(text, 100)) {
        FUZZ_CHECK(std::isfinite(*steal) && *steal >= 0, std::string(text));
    }
    return 0;
}
