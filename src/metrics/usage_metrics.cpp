#include "metrics/usage_metrics.hpp"

#include <unistd.h>

#include <array>
#include <optional>
#include <string>

#include "host/cgroup_memory.hpp"
#include "host/cgroup_usage.hpp"
#include "host/pressure.hpp"
#include "host/proc_stat.hpp"

namespace hostprobe::metrics {

namespace {

void mark(FamilyBuilder& success, const char* collector, bool ok) {
    success.add(ok ? 1 : 0, {{"collector", collector}});
}

void add_cpu_usage(std::vector<prometheus::MetricFamily>& out, FamilyBuilder& success,
                   const SysRoot& root, const host::CgroupFacts& cgroup) {
    std::optional<host::CgroupCpuUsage> usage;
    if (cgroup.cpu_usage_source) {
        auto read =
            host::read_cgroup_cpu_usage(root, *cgroup.cpu_usage_source, sysconf(_SC_CLK_TCK));
        if (read) usage = *read;
    }
    mark(success, "cgroup_cpu_usage", usage.has_value());
    if (!usage) return;
    append(out, counter("hostprobe_cgroup_cpu_usage_seconds_total",
                        "CPU time used by the cgroup (v1 cpuacct.usage, v2 cpu.stat usage_usec).")
                    .add(usage->total_seconds));
    FamilyBuilder user = counter("hostprobe_cgroup_cpu_user_seconds_total",
                                 "CPU time the cgroup used in user mode (v1 cpuacct.stat, v2 "
                                 "cpu.stat user_usec).");
    if (usage->user_seconds) user.add(*usage->user_seconds);
    append(out, std::move(user));
    FamilyBuilder system = counter("hostprobe_cgroup_cpu_system_seconds_total",
                                   "CPU time the cgroup used in kernel mode (v1 cpuacct.stat, v2 "
                                   "cpu.stat system_usec).");
    if (usage->system_seconds) system.add(*usage->system_seconds);
    append(out, std::move(system));
}

// Steal and node_exporter's node_cpu_seconds_total, summed over our cpuset's CPUs from one read
// of /proc/stat: no cpu label, so at most 8 series; modes an old kernel lacks are left out (and
// without the steal column, cpu_steal fails as it always did).
void add_cpu_time(std::vector<prometheus::MetricFamily>& out, FamilyBuilder& success,
                  const SysRoot& root, const host::CgroupFacts& cgroup) {
    auto modes = host::read_cpu_mode_seconds(root, cgroup.cpuset.value_or(CpuSet()));
    const bool has_steal = modes && modes->modes > host::kStealMode;
    mark(success, "cpu_steal", has_steal);
    if (has_steal) {
        append(out, counter("hostprobe_cpu_steal_seconds_total",
                            "CPU time the hypervisor stole, summed over the CPUs of our cpuset "
                            "(/proc/stat).")
                        .add(modes->seconds[host::kStealMode]));
    }
    mark(success, "cpu_modes", modes.ok());
    if (!modes) return;
    FamilyBuilder family = counter("hostprobe_cpu_seconds_total",
                                   "CPU time spent in each mode, summed over the CPUs of our "
                                   "cpuset (/proc/stat; guest time is inside user and nice).");
    for (size_t mode = 0; mode < modes->modes; ++mode)
        family.add(modes->seconds[mode], {{"mode", host::kCpuModes[mode]}});
    append(out, std::move(family));
}

// hostprobe_pressure_<resource>_waiting_seconds_total ("some") and _stalled_seconds_total
// ("full"), as node_exporter and cAdvisor name them, with scope="host" or "cgroup".
struct PressureFamilies {
    std::array<FamilyBuilder, 3> waiting;
    std::array<FamilyBuilder, 3> stalled;
};

FamilyBuilder pressure_family(host::PressureResource resource, bool full) {
    const std::string name = std::string("hostprobe_pressure_") + host::to_string(resource) +
                             (full ? "_stalled_seconds_total" : "_waiting_seconds_total");
    const std::string help =
        std::string("Time ") + (full ? "all non-idle tasks were" : "some tasks were") +
        " stalled on " + host::to_string(resource) + " (PSI '" + (full ? "full" : "some") +
        "' total; scope host: /proc/pressure, cgroup: the cgroup's " + host::to_string(resource) +
        ".pressure).";
    return counter(name, help);
}

PressureFamilies pressure_families() {
    using host::PressureResource;
    return {{pressure_family(PressureResource::cpu, false),
             pressure_family(PressureResource::memory, false),
             pressure_family(PressureResource::io, false)},
            {pressure_family(PressureResource::cpu, true),
             pressure_family(PressureResource::memory, true),
             pressure_family(PressureResource::io, true)}};
}

template <typename Read>
bool read_pressure(PressureFamilies& families, const char* scope, const Read& read) {
    bool ok = true;
    for (size_t i = 0; i < host::kPressureResources.size(); ++i) {
        auto totals = read(host::kPressureResources[i]);
        if (!totals) {
            ok = false;
            continue;
        }
        if (!*totals) continue;  // PSI off: no file, no metric, no error
        families.waiting[i].add((*totals)->some_seconds, {{"scope", scope}});
        if ((*totals)->full_seconds) {
            families.stalled[i].add(*(*totals)->full_seconds, {{"scope", scope}});
        }
    }
    return ok;
}

void add_pressure(std::vector<prometheus::MetricFamily>& out, FamilyBuilder& success,
                  const SysRoot& root, const host::CgroupFacts& cgroup) {
    PressureFamilies families = pressure_families();
    mark(success, "pressure", read_pressure(families, "host", [&](host::PressureResource r) {
             return host::read_host_pressure(root, r);
         }));
    if (auto source = cgroup.pressure_source()) {
        mark(success, "cgroup_pressure",
             read_pressure(families, "cgroup", [&](host::PressureResource r) {
                 return host::read_cgroup_pressure(root, source->cgroup_dir, r);
             }));
    }
    for (auto& family : families.waiting)
        append(out, std::move(family));
    for (auto& family : families.stalled)
        append(out, std::move(family));
}

void add_memory(std::vector<prometheus::MetricFamily>& out, FamilyBuilder& success,
                const SysRoot& root, const host::CgroupFacts& cgroup) {
    std::optional<uint64_t> usage;
    if (cgroup.memory_source) {
        if (auto read = host::read_cgroup_memory_usage(root, *cgroup.memory_source)) usage = *read;
    }
    mark(success, "cgroup_memory", usage.has_value());
    if (usage) {
        append(out, gauge("hostprobe_cgroup_memory_usage_bytes",
                          "Memory the cgroup uses now (v1 memory.usage_in_bytes, v2 "
                          "memory.current).")
                        .add(static_cast<double>(*usage)));
    }
    if (!cgroup.memory_source || cgroup.memory_source->version != 2) return;
    auto events = host::read_cgroup_memory_events(root, *cgroup.memory_source);
    mark(success, "cgroup_memory_events", events.ok());
    if (!events) return;
    FamilyBuilder family = counter("hostprobe_cgroup_memory_events_total",
                                   "Times the cgroup hit a memory boundary or was OOM-killed "
                                   "(cgroup v2 memory.events: low, high, max, oom, oom_kill, "
                                   "oom_group_kill).");
    for (const auto& [event, count] : *events)
        family.add(static_cast<double>(count), {{"event", event}});
    append(out, std::move(family));
}

}  // namespace

void add_usage_metrics(std::vector<prometheus::MetricFamily>& out, FamilyBuilder& success,
                       const SysRoot& root, const host::HostFacts& facts) {
    add_cpu_usage(out, success, root, facts.cgroup);
    add_cpu_time(out, success, root, facts.cgroup);
    add_pressure(out, success, root, facts.cgroup);
    add_memory(out, success, root, facts.cgroup);
}

}  // namespace hostprobe::metrics
