// Snapshots of the ECS task stats with every member set (full) or every optional one unset
// (sparse): the examples the schemas of GET /v1/task and /v1/host's live.task are read off
// (core/json_shape), and what tests of the report, metrics and EMF start from.
#pragma once

#include "ecs/task_stats_reader.hpp"

namespace hostprobe::ecs {

// A Fargate task (0.25 vCPU, 512 MiB): "app" running with every counter, a health check, a
// restart and an interface, near its memory limit; "init" stopped with exit code 1; rates,
// saturation, warnings and a failed newest read.
TaskStatsSnapshot example_full_task_stats();
// An EC2 task without task limits: one running container with only its CPU counter, read once.
TaskStatsSnapshot example_sparse_task_stats();

}  // namespace hostprobe::ecs
