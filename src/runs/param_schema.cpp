#include "runs/param_schema.hpp"

#include <cmath>

namespace hostprobe::runs {

namespace {

using nlohmann::json;

// 4096, not 4096.0, where the limit is a whole number.
json limit_value(double limit) {
    if (std::floor(limit) == limit && std::fabs(limit) <= kLargestParamInteger)
        return json(static_cast<int64_t>(limit));
    return json(limit);
}

json bounded_number_schema(const ParamSpec& spec, const char* type) {
    json schema = {{"type", type}};
    const bool integer = std::string_view(type) == "integer";
    if (integer) schema["format"] = "int64";
    if (spec.min) {
        schema["minimum"] = limit_value(*spec.min);
    } else if (integer) {
        schema["minimum"] = limit_value(-kLargestParamInteger);
    }
    if (spec.max) {
        schema["maximum"] = limit_value(*spec.max);
    } else if (integer) {
        schema["maximum"] = limit_value(kLargestParamInteger);
    }
    return schema;
}

json one_of_choices(const ParamSpec& spec) {
    return {{"type", "string"}, {"enum", spec.choices}};
}

// Lists refuse to be empty, and repeated items count once.
json list_schema(const ParamSpec& spec, json item) {
    return {{"type", "array"},
            {"items", std::move(item)},
            {"minItems", 1},
            {"maxItems", spec.max_items}};
}

json literal_schema(const char* word) {
    return {{"const", word}};
}

json param_value_schema(const ParamSpec& spec) {
    switch (spec.type) {
        case ParamType::integer: return bounded_number_schema(spec, "integer");
        case ParamType::number: return bounded_number_schema(spec, "number");
        case ParamType::boolean: return {{"type", "boolean"}};
        case ParamType::string:  // ParamTable refuses a NUL
            return {
                {"type", "string"}, {"maxLength", spec.max_length}, {"pattern", "^[^\\u0000]*$"}};
        case ParamType::choice: return one_of_choices(spec);
        case ParamType::integer_list:
            return list_schema(spec, bounded_number_schema(spec, "integer"));
        case ParamType::choice_list: return list_schema(spec, one_of_choices(spec));
        case ParamType::auto_or_integer:
            return {{"oneOf", {literal_schema("auto"), bounded_number_schema(spec, "integer")}}};
        case ParamType::auto_or_integer_list:
            return {{"oneOf",
                     {literal_schema("auto"),
                      list_schema(spec, bounded_number_schema(spec, "integer"))}}};
        case ParamType::auto_sweep_or_counts:
            return {{"oneOf",
                     {{{"enum", {"auto", "sweep"}}},
                      bounded_number_schema(spec, "integer"),
                      list_schema(spec, bounded_number_schema(spec, "integer"))}}};
        case ParamType::byte_size:
            // The text's limits are checked once it is read as bytes; a schema cannot say so.
            return {{"oneOf",
                     {bounded_number_schema(spec, "integer"),
                      {{"type", "string"},
                       {"maxLength", spec.max_length},
                       {"pattern", "^\\s*[0-9]+([bB]|[kKmMgGtTpP]([bB]|[iI][bB])?)?\\s*$"},
                       {"description", "a size such as 512b, 4096, 16k, 256m or 1g"}}}}};
    }
    return json::object();
}

}  // namespace

json param_schema(const ParamSpec& spec) {
    json schema = param_value_schema(spec);
    std::string description = spec.description;
    if (!spec.unit.empty()) description += " (" + spec.unit + ")";
    schema["description"] = description;
    schema["default"] = spec.default_value;
    return schema;
}

json params_schema(const ParamTable& table) {
    json properties = json::object();
    for (const auto& spec : table.specs())
        properties[spec.name] = param_schema(spec);
    return {{"type", "object"},
            {"properties", properties},
            {"additionalProperties", false},
            {"maxProperties", table.specs().size()}};
}

json normalized_params_schema(const ParamTable& table) {
    json schema = params_schema(table);
    json required = json::array();
    for (const auto& spec : table.specs())
        required.push_back(spec.name);
    if (!required.empty()) schema["required"] = std::move(required);
    return schema;
}

}  // namespace hostprobe::runs
