// The scrape-time usage files of issue 17, each through its own parser: cpuacct.usage,
// cpuacct.stat, v2 cpu.stat usage, PSI pressure files, memory usage, memory.events and
// /proc/stat's steal and time per mode summed over a cpuset. Whatever parses must give finite,
// non-negative values, only the bounded memory.events labels, and between 4 and 8 CPU modes.
#include <algorithm>
#include <cmath>

#include "core/cpu_set.hpp"
#include "fuzz_support.hpp"
#include "host/cgroup_memory.hpp"
#include "host/cgroup_usage.hpp"
#include "host/pressure.hpp"
#include "host/proc_stat.hpp"

using namespace hostprobe;

namespace {

bool counter_ok(double value) {
    return std::isfinite(value) && value >= 0;
}

bool counter_ok(const std::optional<double>& value) {
    return !value || counter_ok(*value);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    const std::string_view text = fuzz::as_text(data, size);
    const std::string shown(text);

    if (auto total = host::parse_cpuacct_usage(text)) FUZZ_CHECK(counter_ok(*total), shown);
    for (long hz : {0L, 100L, 1000L}) {
        if (auto usage = host::parse_cpuacct_stat(text, hz)) {
            FUZZ_CHECK(counter_ok(usage->total_seconds) && counter_ok(usage->user_seconds) &&
                           counter_ok(usage->system_seconds),
                       shown);
        }
    }
    if (auto usage = host::parse_cpu_stat_usage(text)) {
        FUZZ_CHECK(counter_ok(usage->total_seconds) && counter_ok(usage->user_seconds) &&
                       counter_ok(usage->system_seconds),
                   shown);
    }
    if (auto totals = host::parse_pressure(text)) {
        FUZZ_CHECK(counter_ok(totals->some_seconds) && counter_ok(totals->full_seconds), shown);
    }
    (void)host::parse_memory_usage(text);
    if (auto events = host::parse_memory_events(text)) {
        const auto& reported = host::reported_memory_events();
        FUZZ_CHECK(events->size() <= reported.size(), shown);
        for (const auto& event : *events) {
            FUZZ_CHECK(std::find(reported.begin(), reported.end(), event.first) != reported.end(),
                       shown);
        }
    }
    for (const char* list : {"0", "1-3", "0-63"}) {
        if (auto steal = host::parse_steal_seconds(text, 100, *CpuSet::parse_list(list))) {
            FUZZ_CHECK(counter_ok(*steal), shown);
        }
        if (auto modes = host::parse_cpu_mode_seconds(text, 100, *CpuSet::parse_list(list))) {
            FUZZ_CHECK(modes->modes >= 4 && modes->modes <= host::kCpuModes.size(), shown);
            for (double seconds : modes->seconds)
                FUZZ_CHECK(counter_ok(seconds), shown);
        }
    }
    if (auto modes = host::parse_cpu_mode_seconds(text, 100, CpuSet())) {
        FUZZ_CHECK(modes->modes >= 4 && modes->modes <= host::kCpuModes.size(), shown);
    }
    return 0;
}
