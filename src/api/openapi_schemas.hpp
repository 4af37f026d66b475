// The shared schemas of GET /openapi.json (components/schemas): the error object, the host, the
// probes, and per probe its request body, parameters, result and run. Probe schemas come from
// each probe's parameter table and result struct, so a new probe needs no edit here.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "runs/probe.hpp"
#include "runs/run.hpp"

namespace hostprobe::api {

// "#/components/schemas/<name>"
std::string schema_ref(const std::string& name);
// Names in components/schemas for one probe: "RunRequest.cipher", "Params.cipher", ...
std::string probe_schema_name(const std::string& kind, const std::string& probe);

// Every RunState's name, in the enum's order.
nlohmann::json run_state_names();

nlohmann::json component_schemas(const runs::ProbeRegistry& registry);

}  // namespace hostprobe::api
