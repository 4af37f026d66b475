// The facts as lscpu-style text (`hostprobe cpu`, GET /v1/host?format=text): lscpu's keys and
// order where lscpu has them, then hostprobe's own lines (cgroup, CPU budget, throttling, the
// ECS task and its cost, guesses).
#pragma once

#include <optional>
#include <string>

#include "host/host_facts.hpp"
#include "task/task_facts.hpp"

namespace hostprobe::report {

// `live` is the "Live:" row (report::live_summary); none in a stored probe result. `task_use`
// is the "Task use:" row (report::task_summary), in an ECS task once its stats were read.
std::string host_text(const task::TaskFacts& facts,
                      const std::optional<host::ThrottlingCounters>& throttling = std::nullopt,
                      const std::optional<std::string>& live = std::nullopt,
                      const std::optional<std::string>& task_use = std::nullopt);
// The host alone: no ECS task or cost rows.
std::string host_text(const host::HostFacts& facts,
                      const std::optional<host::ThrottlingCounters>& throttling = std::nullopt,
                      const std::optional<std::string>& live = std::nullopt);

}  // namespace hostprobe::report
