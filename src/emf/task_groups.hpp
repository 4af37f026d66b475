// The ECS task's stats as EMF groups: the task as a whole (no dimension of its own) and one
// group per container (Container: its /task Name, at most 20). Pure.
#pragma once

#include <vector>

#include "ecs/task_stats_reader.hpp"
#include "emf/metric_group.hpp"

namespace hostprobe::emf {

// Task: TaskCpuCoresUsed (None), TaskCpuLimitUsed and TaskCpuSaturation (Percent, with a task
// CPU limit), TaskMemoryWorkingSet (Bytes), TaskMemoryLimitUsed (Percent, with a task memory
// limit), ContainersRunning and ContainersNotRunning (Count). Per running container:
// ContainerCpuCores (None), ContainerMemoryWorkingSet (Bytes), ContainerMemoryLimitUsed
// (Percent), and ContainerRestarts (Count) when ECS counts them.
std::vector<MetricGroup> task_stats_groups(const ecs::TaskStatsSnapshot& snapshot);

}  // namespace hostprobe::emf
