// What the task uses now, read at every scrape: the cgroup's CPU time, steal and the time per mode
// on the CPUs we may run on, pressure stall information (machine and cgroup) and the cgroup's
// memory. Each source adds its own hostprobe_scrape_collector_success sample; a source that does
// not exist here (PSI off, memory.events on cgroup v1) adds no metric and no failure.
#pragma once

#include <prometheus/metric_family.h>

#include <vector>

#include "core/sysroot.hpp"
#include "host/host_facts.hpp"
#include "metrics/family_builder.hpp"

namespace hostprobe::metrics {

// Collectors: cgroup_cpu_usage, cpu_steal, cpu_modes, pressure, cgroup_pressure (cgroup v2),
// cgroup_memory, cgroup_memory_events (cgroup v2).
void add_usage_metrics(std::vector<prometheus::MetricFamily>& out, FamilyBuilder& success,
                       const SysRoot& root, const host::HostFacts& facts);

}  // namespace hostprobe::metrics
