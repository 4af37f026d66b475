// A probe's parameter table as JSON Schema (draft 2020-12, OpenAPI 3.1's dialect): types,
// defaults, limits, choices and list lengths, for the request bodies of GET /openapi.json. The
// table stays the one source: a new parameter appears in the document with no other edit.
#pragma once

#include <nlohmann/json.hpp>

#include "runs/param_table.hpp"

namespace hostprobe::runs {

nlohmann::json param_schema(const ParamSpec& spec);
// {"type": "object", "properties": {...}}: every parameter optional (defaults fill them in),
// no others (ParamTable::normalize refuses unknown names).
nlohmann::json params_schema(const ParamTable& table);
// The parameters of a run as the agent answers them (normalize()): every one present, defaults
// filled in.
nlohmann::json normalized_params_schema(const ParamTable& table);

}  // namespace hostprobe::runs
