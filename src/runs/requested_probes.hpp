// Probes that configuration names (serve's --run-on-start and --schedule, survey's --probes)
// and the params it gives them, checked before anything runs: a typo fails at start-up rather
// than silently every hour, or after a survey task has been paid for.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "core/result.hpp"
#include "runs/probe.hpp"

namespace hostprobe::runs {

// Every name in `names` and every key of `params` ({"cipher": {...}}) must be a probe of the
// registry, and each named probe's params (or its defaults) valid for it.
Status check_requested_probes(const std::vector<std::string>& names, const nlohmann::json& params,
                              const ProbeRegistry& registry);

}  // namespace hostprobe::runs
