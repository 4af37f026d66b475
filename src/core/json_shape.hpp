// The JSON Schema of a kind of value, read off examples of it: what a type's to_json writes for
// a default instance and for a populated one (every optional set, every list and map with an
// entry). Members present in every example are required; a member null in one example and
// typed in another is nullable; list items and map values are described from their entries, so
// nested lists and objects are typed too. The schema follows the code that writes the JSON:
// a member added to a to_json is in the schema with no other edit (optional members once the
// populated example sets them).
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace hostprobe {

// Objects whose members are keys, not names (a histogram's buckets, the kernel's memory
// events): "live.memory.events_total", member names joined by '.', "[]" for a list's items.
// Objects whose every key is a number are maps without being named here.
struct ShapeHints {
    std::vector<std::string> maps;
};

// "integer", "number", "string", "boolean", "array", "object" or "null".
const char* json_schema_type(const nlohmann::json& value);

// The schema every example satisfies. Integers are int64 (those never negative in any example
// with minimum 0), as nlohmann writes C++ integers. A spot only ever null is {"type": "null"}
// (the cpu probe's "ecs": so the examples must set every optional member); a list only ever
// empty has untyped items ({}), which schema_gaps() reports.
nlohmann::json schema_of_examples(const std::vector<nlohmann::json>& examples,
                                  const ShapeHints& hints = {});

// Where a schema says nothing, each as "<path>: <why>": "{}" members, lists without items,
// objects without properties or a value schema. Empty when the examples typed every spot.
std::vector<std::string> schema_gaps(const nlohmann::json& schema);

}  // namespace hostprobe
