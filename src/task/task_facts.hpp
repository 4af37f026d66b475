// Everything hostprobe knows about where it runs: the machine (host::HostFacts), the ECS task
// when task metadata answered, and what the task costs. The model behind GET /v1/host and the
// host metrics. It is assembled here, above src/host and src/ecs, so that neither knows the
// other; probes are given only the host part.
#pragma once

#include <optional>

#include "ecs/task_metadata.hpp"
#include "host/host_facts.hpp"
#include "task/task_cost.hpp"

namespace hostprobe::task {

struct TaskFacts {
    host::HostFacts host;
    std::optional<ecs::TaskMetadata> ecs;  // when ECS task metadata v4 answered
    std::optional<TaskCost> cost;
};

// The host alone (outside ECS, or before its metadata arrives), with the cgroup's cost.
TaskFacts task_facts(host::HostFacts host, const Prices& prices);

// ECS limits fill in what the cgroup does not say: with no visible quota but a task CPU limit
// (on Fargate the quota may sit above our cgroup namespace) the budget follows the task. The
// cost follows the task's limits.
TaskFacts with_ecs(host::HostFacts host, const ecs::TaskMetadata& metadata, const Prices& prices);

}  // namespace hostprobe::task
