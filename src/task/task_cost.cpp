#include "task/task_cost.hpp"

namespace hostprobe::task {

std::optional<TaskCost> task_cost(const host::HostFacts& host,
                                  const std::optional<ecs::TaskMetadata>& ecs,
                                  const Prices& prices) {
    TaskCost cost;
    if (ecs && ecs->cpu_limit_cores && ecs->memory_limit_bytes) {
        cost.vcpus = *ecs->cpu_limit_cores;
        cost.memory_gib = static_cast<double>(*ecs->memory_limit_bytes) / (1024.0 * 1024 * 1024);
        cost.source = "ecs_task";
    } else if (host.cgroup.cpu_quota && host.cgroup.memory_limit_bytes) {
        cost.vcpus = host.cgroup.cpu_quota->cores();
        cost.memory_gib =
            static_cast<double>(*host.cgroup.memory_limit_bytes) / (1024.0 * 1024 * 1024);
        cost.source = "cgroup";
    } else {
        return std::nullopt;
    }
    cost.dollars_per_hour = cost.vcpus * prices.vcpu_hour + cost.memory_gib * prices.gb_hour;
    return cost;
}

}  // namespace hostprobe::task
