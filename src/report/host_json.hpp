// The facts as the JSON of GET /v1/host (TaskFacts) and `hostprobe cpu --json` (HostFacts).
// Field names are a contract (docs in README.md); add freely, never rename.
#pragma once

#include <nlohmann/json.hpp>
#include <optional>

#include "host/host_facts.hpp"
#include "task/task_facts.hpp"

namespace hostprobe::report {

inline constexpr int kHostSchemaVersion = 1;

// `throttling` replaces the counters read at collection time when given (they move).
nlohmann::json host_json(const task::TaskFacts& facts,
                         const std::optional<host::ThrottlingCounters>& throttling = std::nullopt);
// The host alone: "ecs" and "cost" are null.
nlohmann::json host_json(const host::HostFacts& facts,
                         const std::optional<host::ThrottlingCounters>& throttling = std::nullopt);

}  // namespace hostprobe::report
