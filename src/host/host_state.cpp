#include "host/host_state.hpp"

namespace hostprobe::host {

HostFacts with_ecs(HostFacts facts, const ecs::TaskMetadata& metadata) {
    if (!facts.cgroup.cpu_quota && metadata.cpu_limit_source == "task" &&
        metadata.cpu_limit_cores && *metadata.cpu_limit_cores > 0) {
        const auto period = 100000;
        const CpuQuota task_quota{static_cast<int64_t>(*metadata.cpu_limit_cores * period), period,
                                  "ecs task limit"};
        facts.cpu_budget = compute_cpu_budget(task_quota, facts.cpu_budget.visible_cpus);
        facts.cpu_budget.source = "ecs_task";
    }
    facts.ecs = metadata;
    return facts;
}

std::optional<TaskCost> task_cost(const HostFacts& facts, const Prices& prices) {
    TaskCost cost;
    if (facts.ecs && facts.ecs->cpu_limit_cores && facts.ecs->memory_limit_bytes) {
        cost.vcpus = *facts.ecs->cpu_limit_cores;
        cost.memory_gib =
            static_cast<double>(*facts.ecs->memory_limit_bytes) / (1024.0 * 1024 * 1024);
        cost.source = "ecs_task";
    } else if (facts.cgroup.cpu_quota && facts.cgroup.memory_limit_bytes) {
        cost.vcpus = facts.cgroup.cpu_quota->cores();
        cost.memory_gib =
            static_cast<double>(*facts.cgroup.memory_limit_bytes) / (1024.0 * 1024 * 1024);
        cost.source = "cgroup";
    } else {
        return std::nullopt;
    }
    cost.dollars_per_hour = cost.vcpus * prices.vcpu_hour + cost.memory_gib * prices.gb_hour;
    return cost;
}

HostState::HostState(HostFacts facts, Prices prices) : prices_(prices), base_(std::move(facts)) {
    HostFacts current = base_;
    current.cost = task_cost(current, prices_);
    current_ = std::make_shared<const HostFacts>(std::move(current));
}

std::shared_ptr<const HostFacts> HostState::snapshot() const {
    std::lock_guard<std::mutex> lock(mutex_);
    return current_;
}

void HostState::set_ecs(ecs::TaskMetadata metadata) {
    std::lock_guard<std::mutex> lock(mutex_);
    HostFacts updated = with_ecs(base_, metadata);  // always from the start-up facts
    updated.cost = task_cost(updated, prices_);
    current_ = std::make_shared<const HostFacts>(std::move(updated));
}

}  // namespace hostprobe::host
