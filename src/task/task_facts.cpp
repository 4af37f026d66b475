#include "task/task_facts.hpp"

namespace hostprobe::task {

TaskFacts task_facts(host::HostFacts host, const Prices& prices) {
    TaskFacts facts{std::move(host), std::nullopt, std::nullopt};
    facts.cost = task_cost(facts.host, facts.ecs, prices);
    return facts;
}

TaskFacts with_ecs(host::HostFacts host, const ecs::TaskMetadata& metadata, const Prices& prices) {
    if (!host.cgroup.cpu_quota && metadata.cpu_limit_source == "task" && metadata.cpu_limit_cores &&
        *metadata.cpu_limit_cores > 0) {
        const auto period = 100000;
        const host::CpuQuota task_quota{static_cast<int64_t>(*metadata.cpu_limit_cores * period),
                                        period, "ecs task limit"};
        host.cpu_budget = host::compute_cpu_budget(task_quota, host.cpu_budget.visible_cpus);
        host.cpu_budget.source = "ecs_task";
    }
    TaskFacts facts{std::move(host), metadata, std::nullopt};
    facts.cost = task_cost(facts.host, facts.ecs, prices);
    return facts;
}

}  // namespace hostprobe::task
