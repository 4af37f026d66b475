// What the task costs per hour: its CPU and memory limits (from ECS task metadata, else from
// the cgroup) at per-unit prices.
#pragma once

#include <optional>
#include <string>

#include "ecs/task_metadata.hpp"
#include "host/host_facts.hpp"

namespace hostprobe::task {

struct TaskCost {
    double dollars_per_hour = 0;
    double vcpus = 0;
    double memory_gib = 0;
    std::string source;  // "ecs_task" or "cgroup"
};

// Fargate Linux/x86 on-demand prices in us-east-1 (aws.amazon.com/fargate/pricing).
struct Prices {
    double vcpu_hour = 0.04048;
    double gb_hour = 0.004445;
};

// Empty when neither the task nor the cgroup limits both CPU and memory.
std::optional<TaskCost> task_cost(const host::HostFacts& host,
                                  const std::optional<ecs::TaskMetadata>& ecs,
                                  const Prices& prices);

}  // namespace hostprobe::task
