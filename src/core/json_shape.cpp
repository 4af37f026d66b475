#include "core/json_shape.hpp"

namespace hostprobe {

const char* json_schema_type(const nlohmann::json& value) {
    switch (value.type()) {
        case nlohmann::json::value_t::number_integer:
        case nlohmann::json::value_t::number_unsigned: return "integer";
        case nlohmann::json::value_t::number_float: return "number";
        case nlohmann::json::value_t::string: return "string";
        case nlohmann::json::value_t::boolean: return "boolean";
        case nlohmann::json::value_t::array: return "array";
        case nlohmann::json::value_t::object: return "object";
        default: return "null";
    }
}

nlohmann::json top_level_schema(const nlohmann::json& example) {
    if (!example.is_object()) return {{"type", json_schema_type(example)}};
    nlohmann::json required = nlohmann::json::array();
    nlohmann::json properties = nlohmann::json::object();
    for (const auto& [name, value] : example.items()) {
        required.push_back(name);
        // A null example member may hold anything in a real result (an optional that is set).
        properties[name] = value.is_null() ? nlohmann::json::object()
                                           : nlohmann::json{{"type", json_schema_type(value)}};
    }
    return {{"type", "object"},
            {"required", std::move(required)},
            {"properties", std::move(properties)},
            {"additionalProperties", true}};
}

}  // namespace hostprobe
