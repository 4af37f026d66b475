#include "core/json_shape.hpp"

#include <algorithm>
#include <cstdint>
#include <limits>
#include <set>

namespace hostprobe {

namespace {

using nlohmann::json;

constexpr int64_t kInt64Min = std::numeric_limits<int64_t>::min();
constexpr int64_t kInt64Max = std::numeric_limits<int64_t>::max();

bool is_decimal_key(const std::string& key) {
    return !key.empty() &&
           std::all_of(key.begin(), key.end(), [](char c) { return c >= '0' && c <= '9'; });
}

// Every example of a spot, sorted by JSON type.
struct Seen {
    bool null = false;
    bool boolean = false;
    bool floating = false;
    bool integer = false;
    bool negative = false;
    bool string = false;
    std::vector<const json*> arrays;
    std::vector<const json*> objects;
};

Seen sort_examples(const std::vector<const json*>& examples) {
    Seen seen;
    for (const json* value : examples) {
        switch (value->type()) {
            case json::value_t::null: seen.null = true; break;
            case json::value_t::boolean: seen.boolean = true; break;
            case json::value_t::number_float: seen.floating = true; break;
            case json::value_t::number_integer:
                seen.integer = true;
                if (value->get<int64_t>() < 0) seen.negative = true;
                break;
            case json::value_t::number_unsigned: seen.integer = true; break;
            case json::value_t::string: seen.string = true; break;
            case json::value_t::array: seen.arrays.push_back(value); break;
            case json::value_t::object: seen.objects.push_back(value); break;
            default: break;
        }
    }
    return seen;
}

json shape_of(const std::vector<const json*>& examples, const std::string& path,
              const ShapeHints& hints);

json items_shape(const std::vector<const json*>& arrays, const std::string& path,
                 const ShapeHints& hints) {
    std::vector<const json*> items;
    for (const json* array : arrays) {
        for (const auto& item : *array)
            items.push_back(&item);
    }
    return items.empty() ? json::object() : shape_of(items, path + "[]", hints);
}

// {"additionalProperties": <the values' schema>}: a map from keys to values of one kind.
void describe_map(json& schema, const std::vector<const json*>& objects, bool numeric_keys,
                  const std::string& path, const ShapeHints& hints) {
    std::vector<const json*> values;
    for (const json* object : objects) {
        for (const auto& [key, value] : object->items())
            values.push_back(&value);
    }
    schema["additionalProperties"] =
        values.empty() ? json::object() : shape_of(values, path + ".*", hints);
    if (numeric_keys) schema["propertyNames"] = {{"pattern", "^[0-9]+$"}};
}

void describe_members(json& schema, const std::vector<const json*>& objects,
                      const std::string& path, const ShapeHints& hints) {
    std::vector<std::string> names;  // in the first example's order, then new ones
    for (const json* object : objects) {
        for (const auto& [key, value] : object->items()) {
            if (std::find(names.begin(), names.end(), key) == names.end()) names.push_back(key);
        }
    }
    json properties = json::object();
    json required = json::array();
    for (const auto& name : names) {
        std::vector<const json*> values;
        for (const json* object : objects) {
            if (object->contains(name)) values.push_back(&(*object)[name]);
        }
        properties[name] = shape_of(values, path.empty() ? name : path + "." + name, hints);
        if (values.size() == objects.size()) required.push_back(name);
    }
    schema["properties"] = std::move(properties);
    if (!required.empty()) schema["required"] = std::move(required);
}

json object_shape(const std::vector<const json*>& objects, const std::string& path,
                  const ShapeHints& hints) {
    bool numeric_keys = true;
    bool any_key = false;
    for (const json* object : objects) {
        for (const auto& [key, value] : object->items()) {
            any_key = true;
            numeric_keys = numeric_keys && is_decimal_key(key);
        }
    }
    json schema = json::object();
    const bool named_map =
        std::find(hints.maps.begin(), hints.maps.end(), path) != hints.maps.end();
    if (named_map || (any_key && numeric_keys)) {
        describe_map(schema, objects, any_key && numeric_keys, path, hints);
    } else {
        describe_members(schema, objects, path, hints);
    }
    return schema;
}

json shape_of(const std::vector<const json*>& examples, const std::string& path,
              const ShapeHints& hints) {
    const Seen seen = sort_examples(examples);
    json types = json::array();
    json schema = json::object();
    if (!seen.objects.empty()) {
        types.push_back("object");
        schema.update(object_shape(seen.objects, path, hints));
    }
    if (!seen.arrays.empty()) {
        types.push_back("array");
        schema["items"] = items_shape(seen.arrays, path, hints);
    }
    if (seen.string) types.push_back("string");
    if (seen.floating) {
        types.push_back("number");  // a spot that held a double and an integer is a number
    } else if (seen.integer) {
        types.push_back("integer");
        schema["format"] = "int64";
        schema["minimum"] = seen.negative ? kInt64Min : 0;
        schema["maximum"] = kInt64Max;
    }
    if (seen.boolean) types.push_back("boolean");
    if (seen.null) types.push_back("null");
    if (types.empty()) return json::object();  // no example reached this spot
    schema["type"] = types.size() == 1 ? types[0] : types;
    return schema;
}

bool has_type(const json& schema, const char* type) {
    if (!schema.contains("type")) return false;
    const json& types = schema["type"];
    return types == type ||
           (types.is_array() && std::find(types.begin(), types.end(), type) != types.end());
}

void find_gaps(const json& schema, const std::string& path, std::vector<std::string>& gaps) {
    if (!schema.is_object()) return;
    if (schema.empty()) gaps.push_back(path + ": nothing is known");
    if (has_type(schema, "array")) {
        if (!schema.contains("items") || schema["items"].empty())
            gaps.push_back(path + ": a list without items (only ever empty?)");
        if (schema.contains("items") && !schema["items"].empty())
            find_gaps(schema["items"], path + "[]", gaps);
    }
    if (has_type(schema, "object") && !schema.contains("properties") &&
        !schema.contains("additionalProperties"))
        gaps.push_back(path + ": an object without members");
    if (schema.contains("properties")) {
        for (const auto& [name, member] : schema["properties"].items())
            find_gaps(member, path + "." + name, gaps);
    }
    if (schema.contains("additionalProperties") && schema["additionalProperties"].is_object())
        find_gaps(schema["additionalProperties"], path + ".*", gaps);
}

}  // namespace

const char* json_schema_type(const json& value) {
    switch (value.type()) {
        case json::value_t::number_integer:
        case json::value_t::number_unsigned: return "integer";
        case json::value_t::number_float: return "number";
        case json::value_t::string: return "string";
        case json::value_t::boolean: return "boolean";
        case json::value_t::array: return "array";
        case json::value_t::object: return "object";
        default: return "null";
    }
}

json schema_of_examples(const std::vector<json>& examples, const ShapeHints& hints) {
    std::vector<const json*> pointers;
    for (const auto& example : examples)
        pointers.push_back(&example);
    return shape_of(pointers, "", hints);
}

std::vector<std::string> schema_gaps(const json& schema) {
    std::vector<std::string> gaps;
    find_gaps(schema, "", gaps);
    return gaps;
}

}  // namespace hostprobe
