#include "emf/probe_groups.hpp"

namespace hostprobe::emf {

void add_host_metrics(const task::TaskFacts& facts, MetricGroup& group) {
    const host::HostFacts& host = facts.host;
    group.add("VisibleCpus", Unit::count, host.cpu_budget.visible_cpus);
    group.add("CpuBudgetCores", Unit::none, host.cpu_budget.cores);
    if (host.cgroup.cpu_quota)
        group.add("CpuQuotaCores", Unit::none, host.cgroup.cpu_quota->cores());
    if (facts.ecs && facts.ecs->cpu_limit_cores)
        group.add("EcsCpuLimitCores", Unit::none, *facts.ecs->cpu_limit_cores);
    if (facts.cost) group.add("TaskCostPerHour", Unit::none, facts.cost->dollars_per_hour);
}

}  // namespace hostprobe::emf
