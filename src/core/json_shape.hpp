// The JSON Schema of an example value's top level: each member required with its JSON type.
// A typed result struct, default-constructed and written by its own to_json, gives the shape
// every result of its kind has, so a schema derived from it follows the code. Members may be
// added (results grow additively); a null member says nothing of its type.
#pragma once

#include <nlohmann/json.hpp>

namespace hostprobe {

// "integer", "number", "string", "boolean", "array", "object" or "null".
const char* json_schema_type(const nlohmann::json& value);
// An object: {"type": "object", "required": [...], "properties": {...}}; anything else: its type.
nlohmann::json top_level_schema(const nlohmann::json& example);

}  // namespace hostprobe
