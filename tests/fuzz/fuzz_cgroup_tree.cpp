// The whole cgroup discovery of read_cgroup_facts on a fuzzed machine: /proc/self/cgroup,
// /proc/self/mountinfo and the cgroup files are written to a scratch sysroot, so the path
// translation through mount roots, the walk up to the mount point and the v1/v2 choice all run
// on hostile layouts. The input is a list of files:
//   === /proc/self/cgroup
//   0::/ecs/task
//   === /sys/fs/cgroup/ecs/task/cpu.max
//   50000 100000
#include <nlohmann/json.hpp>

#include "core/json_text.hpp"
#include "core/strings.hpp"
#include "fuzz_support.hpp"
#include "host/cgroup.hpp"
#include "host/cgroup_memory.hpp"
#include "host/cgroup_usage.hpp"
#include "host/cpu_budget.hpp"
#include "host/host_facts.hpp"
#include "host/pressure.hpp"
#include "report/host_json.hpp"
#include "report/host_text.hpp"

using namespace hostprobe;

namespace {

constexpr size_t kMaxFiles = 24;
constexpr size_t kMaxPathBytes = 256;

// Only paths that stay inside the scratch tree, so a fuzzed name never writes elsewhere.
bool is_safe_path(std::string_view path) {
    if (path.empty() || path.front() != '/' || path.size() > kMaxPathBytes) return false;
    if (path.find('\0') != std::string_view::npos) return false;
    size_t depth = 0;
    for (std::string_view part : split(path.substr(1), '/')) {
        if (part.empty() || part == "." || part == "..") return false;
        ++depth;
    }
    return depth <= 16;
}

// "=== PATH" lines start a file; the lines after it, newlines included, are its content.
// Anything before the first header, and files with unsafe paths, are dropped.
std::vector<std::pair<std::string, std::string>> files_of(std::string_view text) {
    std::vector<std::pair<std::string, std::string>> files;
    bool collecting = false;
    size_t at = 0;
    while (at < text.size()) {
        const size_t newline = text.find('\n', at);
        const size_t next = newline == std::string_view::npos ? text.size() : newline + 1;
        const std::string_view line = text.substr(at, next - at);
        at = next;
        if (line.rfind("=== ", 0) == 0) {
            const std::string_view path = trim(line.substr(4));
            collecting = files.size() < kMaxFiles && is_safe_path(path);
            if (collecting) files.emplace_back(std::string(path), std::string());
        } else if (collecting) {
            files.back().second.append(line);
        }
    }
    return files;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    static fuzz::ScratchSysroot scratch;
    scratch.rebuild(files_of(fuzz::as_text(data, size)));
    const SysRoot root(scratch.prefix());

    host::HostFacts facts;
    facts.cgroup = host::read_cgroup_facts(root);
    const host::CgroupFacts& cgroup = facts.cgroup;
    if (cgroup.cpu_quota) {
        FUZZ_CHECK(cgroup.cpu_quota->quota_us > 0 && cgroup.cpu_quota->period_us > 0,
                   std::to_string(cgroup.cpu_quota->quota_us) + "/" +
                       std::to_string(cgroup.cpu_quota->period_us));
    }
    std::optional<host::ThrottlingCounters> throttling;
    if (cgroup.throttling_source) {
        if (auto counters = host::read_throttling(root, *cgroup.throttling_source))
            throttling = *counters;
    }
    // The scrape-time usage sources found in the same tree (metrics/usage_metrics reads them).
    if (cgroup.cpu_usage_source) {
        if (auto usage = host::read_cgroup_cpu_usage(root, *cgroup.cpu_usage_source, 100)) {
            FUZZ_CHECK(usage->total_seconds >= 0, std::to_string(usage->total_seconds));
        }
    }
    if (cgroup.memory_source) {
        (void)host::read_cgroup_memory_usage(root, *cgroup.memory_source);
        (void)host::read_cgroup_memory_events(root, *cgroup.memory_source);
    }
    if (auto pressure = cgroup.pressure_source()) {
        FUZZ_CHECK(pressure->version == 2, pressure->cgroup_dir);
        for (auto resource : host::kPressureResources)
            (void)host::read_cgroup_pressure(root, pressure->cgroup_dir, resource);
    }
    facts.cpu_budget = host::compute_cpu_budget(cgroup.cpu_quota, 2);
    FUZZ_CHECK(facts.cpu_budget.workers >= 1 && facts.cpu_budget.workers <= 2,
               std::to_string(facts.cpu_budget.workers));
    // The cgroup part of GET /v1/host: paths and warnings come from the fuzzed files.
    (void)json_text(report::host_json(facts, throttling));
    (void)report::host_text(facts, throttling);
    return 0;
}
