// GET /v1/task's JSON and text, and GET /v1/host's `live.task`: every container of the ECS task
// from the last /task/stats snapshot, the task against its CPU and memory limits, the derived
// CPU saturation, and beside it the sidecar's own cgroup throttling (the one throttling figure
// that is real: ECS's throttling_data stays 0). Field names are a contract (README).
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "ecs/task_stats_reader.hpp"
#include "host/cgroup.hpp"

namespace hostprobe::report {

// `sidecar_throttling`: this container's own CFS counters, when its cgroup has them.
nlohmann::json task_json(const ecs::TaskStatsSnapshot& snapshot,
                         const std::optional<host::ThrottlingCounters>& sidecar_throttling);

// The same as text: a summary line, one line per container, then the warnings.
std::string task_text(const ecs::TaskStatsSnapshot& snapshot,
                      const std::optional<host::ThrottlingCounters>& sidecar_throttling);

// One line for the host report's "Task use:" row: "0.21 of 0.25 vCPU (84%), CPU-saturated 50%
// of the last minute, 3 containers (1 stopped)".
std::string task_summary(const ecs::TaskStatsSnapshot& snapshot);

}  // namespace hostprobe::report
