#include "runs/param_table.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>

#include "core/strings.hpp"

namespace hostprobe::runs {

namespace {

using nlohmann::json;

Error invalid(const std::string& message) {
    return make_error(ErrorCode::invalid_argument, message);
}

// The shortest text that reads back as the same double: a value just below a limit never
// prints as the limit ("is 0.1; it must be from 0.1").
std::string number_text(double value) {
    char buffer[64];
    const auto [end, error] = std::to_chars(buffer, buffer + sizeof buffer, value);
    return error == std::errc() ? std::string(buffer, end) : std::string("?");
}

std::string range_text(const ParamSpec& spec) {
    if (spec.type == ParamType::byte_size && spec.min && spec.max) {
        return "from " + format_byte_size(static_cast<uint64_t>(*spec.min)) + " to " +
               format_byte_size(static_cast<uint64_t>(*spec.max));
    }
    std::string text;
    if (spec.min && spec.max) {
        text = "from " + number_text(*spec.min) + " to " + number_text(*spec.max);
    } else if (spec.min) {
        text = "at least " + number_text(*spec.min);
    } else if (spec.max) {
        text = "at most " + number_text(*spec.max);
    }
    if (!spec.unit.empty()) text += " " + spec.unit;
    return text;
}

Status check_range(const ParamSpec& spec, double value, const std::string& what) {
    if ((spec.min && value < *spec.min) || (spec.max && value > *spec.max)) {
        return invalid(what + " is " + number_text(value) + "; it must be " + range_text(spec));
    }
    return Ok{};
}

Result<json> check_integer(const ParamSpec& spec, const json& value, const std::string& what) {
    if (!value.is_number_integer() &&
        !(value.is_number_float() && std::floor(value.get<double>()) == value.get<double>())) {
        return invalid(what + " must be an integer");
    }
    // Checked as a double first: 1e30 or 2^64-1 would not fit an int64 (a float one is
    // undefined behaviour to convert), and no parameter needs more than 2^53.
    const double approximate = value.get<double>();
    if (auto range = check_range(spec, approximate, what); !range) return range.error();
    if (std::fabs(approximate) > kLargestParamInteger) {
        return invalid(what + " is " + number_text(approximate) + "; it must be at most 2^53");
    }
    return json(value.get<int64_t>());
}

Result<json> check_choice(const ParamSpec& spec, const json& value, const std::string& what) {
    if (!value.is_string())
        return invalid(what + " must be a string, one of: " + join(spec.choices, ", "));
    const std::string text = value.get<std::string>();
    if (std::find(spec.choices.begin(), spec.choices.end(), text) == spec.choices.end()) {
        return invalid(what + " '" + text + "' is not valid; valid: " + join(spec.choices, ", "));
    }
    return json(text);
}

template <typename Check>
Result<json> check_list(const ParamSpec& spec, const json& value, Check check_item) {
    if (!value.is_array()) return invalid("'" + spec.name + "' must be a list");
    if (value.empty()) return invalid("'" + spec.name + "' must not be empty");
    if (value.size() > spec.max_items) {
        return invalid("'" + spec.name + "' has " + std::to_string(value.size()) +
                       " items; at most " + std::to_string(spec.max_items) + " are allowed");
    }
    json items = json::array();
    for (const auto& item : value) {
        auto checked = check_item(spec, item, "an item of '" + spec.name + "'");
        if (!checked) return checked.error();
        if (std::find(items.begin(), items.end(), *checked) == items.end())
            items.push_back(*checked);
    }
    return items;
}

// Text is bounded by the spec's max_length, and holds no NUL (a path would end there).
Status check_text(const ParamSpec& spec, const json& text, const std::string& what) {
    const std::string& value = text.get_ref<const std::string&>();
    if (value.size() > spec.max_length) {
        return invalid(what + " is " + std::to_string(value.size()) + " bytes long; at most " +
                       std::to_string(spec.max_length) + " are allowed");
    }
    if (value.find('\0') != std::string::npos) return invalid(what + " must not hold a NUL");
    return Ok{};
}

Result<json> check_value(const ParamSpec& spec, const json& value) {
    const std::string what = "'" + spec.name + "'";
    switch (spec.type) {
        case ParamType::integer: return check_integer(spec, value, what);
        case ParamType::number: {
            if (!value.is_number()) return invalid(what + " must be a number");
            const double number = value.get<double>();
            if (auto range = check_range(spec, number, what); !range) return range.error();
            return json(number);
        }
        case ParamType::boolean:
            if (!value.is_boolean()) return invalid(what + " must be true or false");
            return value;
        case ParamType::string:
            if (!value.is_string()) return invalid(what + " must be a string");
            if (auto text = check_text(spec, value, what); !text) return text.error();
            return value;
        case ParamType::choice: return check_choice(spec, value, what);
        case ParamType::integer_list: return check_list(spec, value, check_integer);
        case ParamType::choice_list: return check_list(spec, value, check_choice);
        case ParamType::auto_or_integer:
            if (value.is_string() && value.get<std::string>() == "auto") return value;
            if (!value.is_number())
                return invalid(what + " must be \"auto\" or an integer " + range_text(spec));
            return check_integer(spec, value, what);
        case ParamType::auto_or_integer_list:
            if (value.is_string() && value.get<std::string>() == "auto") return value;
            if (!value.is_array())
                return invalid(what + " must be \"auto\" or a list of integers " +
                               range_text(spec));
            return check_list(spec, value, check_integer);
        case ParamType::auto_sweep_or_counts:
            if (value.is_string() &&
                (value.get<std::string>() == "auto" || value.get<std::string>() == "sweep"))
                return value;
            if (value.is_array()) return check_list(spec, value, check_integer);
            if (!value.is_number()) {
                return invalid(what + " must be \"auto\" or an integer " + range_text(spec) +
                               ", \"sweep\", or a list of at most " +
                               std::to_string(spec.max_items) + " such integers");
            }
            return check_integer(spec, value, what);
        case ParamType::byte_size: {
            if (value.is_string()) {
                if (auto text = check_text(spec, value, what); !text) return text.error();
                auto bytes = parse_byte_size(value.get<std::string>());
                if (!bytes) return invalid(what + ": " + bytes.error().message);
                return check_integer(spec, json(*bytes), what);
            }
            if (!value.is_number())
                return invalid(what + " must be a size such as 16k or a number of bytes");
            return check_integer(spec, value, what);
        }
    }
    return invalid(what + " has an unknown type");
}

// Converts command-line text to the JSON the type expects.
Result<json> from_text(const ParamSpec& spec, const std::string& text) {
    const std::string what = "--" + spec.name;
    auto number = [&](const std::string& item) -> Result<json> {
        if (auto integer = parse_int64(item)) return json(*integer);
        if (auto real = parse_double(item)) return json(*real);
        return invalid(what + ": '" + item + "' is not a number");
    };
    switch (spec.type) {
        case ParamType::integer:
        case ParamType::number: return number(text);
        case ParamType::boolean: {
            const std::string lower = to_lower(trim(text));
            if (lower == "true" || lower == "1" || lower == "yes") return json(true);
            if (lower == "false" || lower == "0" || lower == "no") return json(false);
            return invalid(what + ": '" + text + "' is not true or false");
        }
        case ParamType::string:
        case ParamType::choice:
        case ParamType::byte_size: return json(text);
        case ParamType::auto_or_integer:
            if (trim(text) == "auto") return json("auto");
            return number(text);
        case ParamType::auto_sweep_or_counts:
            if (trim(text) == "auto" || trim(text) == "sweep") return json(std::string(trim(text)));
            // "4" is one count, as before; "1,2,4" (or "4,") a list.
            if (text.find(',') == std::string::npos) return number(text);
            [[fallthrough]];
        case ParamType::auto_or_integer_list:
            if (trim(text) == "auto") return json("auto");
            [[fallthrough]];
        case ParamType::integer_list:
        case ParamType::choice_list: {
            json items = json::array();
            for (std::string_view item : split(text, ',')) {
                const std::string value(trim(item));
                if (value.empty()) continue;
                if (spec.type == ParamType::choice_list) {
                    items.push_back(value);
                } else {
                    auto parsed = number(value);
                    if (!parsed) return parsed.error();
                    items.push_back(*parsed);
                }
            }
            return items;
        }
    }
    return invalid(what + " has an unknown type");
}

std::string normalized_name(std::string name) {
    std::replace(name.begin(), name.end(), '-', '_');
    return name;
}

}  // namespace

const char* to_string(ParamType type) {
    switch (type) {
        case ParamType::integer: return "integer";
        case ParamType::number: return "number";
        case ParamType::boolean: return "boolean";
        case ParamType::string: return "string";
        case ParamType::choice: return "choice";
        case ParamType::integer_list: return "integer list";
        case ParamType::choice_list: return "choice list";
        case ParamType::auto_or_integer: return "\"auto\" or integer";
        case ParamType::auto_or_integer_list: return "\"auto\" or integer list";
        case ParamType::auto_sweep_or_counts: return "\"auto\", \"sweep\", integer or integer list";
        case ParamType::byte_size: return "size";
    }
    return "unknown";
}

const ParamSpec* ParamTable::find(const std::string& name) const {
    for (const auto& spec : specs_) {
        if (spec.name == name) return &spec;
    }
    return nullptr;
}

Result<json> ParamTable::normalize(const json& input) const {
    if (input.is_null()) return normalize(json::object());
    if (!input.is_object()) return invalid("params must be a JSON object");
    for (const auto& [name, value] : input.items()) {
        if (find(name) == nullptr) {
            if (specs_.empty())
                return invalid("unknown parameter '" + name + "'; this probe takes no parameters");
            std::vector<std::string> names;
            for (const auto& spec : specs_)
                names.push_back(spec.name);
            return invalid("unknown parameter '" + name + "'; parameters: " + join(names, ", "));
        }
    }
    json normalized = json::object();
    for (const auto& spec : specs_) {
        if (!input.contains(spec.name)) {
            normalized[spec.name] = spec.default_value;
            continue;
        }
        auto value = check_value(spec, input.at(spec.name));
        if (!value) return value.error();
        normalized[spec.name] = *value;
    }
    return normalized;
}

Result<json> ParamTable::normalize_text(
    const std::vector<std::pair<std::string, std::string>>& input) const {
    json object = json::object();
    for (const auto& [raw_name, text] : input) {
        const std::string name = normalized_name(raw_name);
        const ParamSpec* spec = find(name);
        if (spec == nullptr) return normalize(json{{name, text}});  // reports the unknown name
        auto value = from_text(*spec, text);
        if (!value) return value.error();
        object[name] = *value;
    }
    return normalize(object);
}

json ParamTable::describe() const {
    json described = json::array();
    for (const auto& spec : specs_) {
        json entry = {{"name", spec.name},
                      {"type", to_string(spec.type)},
                      {"default", spec.default_value},
                      {"description", spec.description}};
        if (spec.min) entry["min"] = *spec.min;
        if (spec.max) entry["max"] = *spec.max;
        if (!spec.choices.empty()) entry["choices"] = spec.choices;
        if (spec.type == ParamType::integer_list || spec.type == ParamType::choice_list ||
            spec.type == ParamType::auto_or_integer_list ||
            spec.type == ParamType::auto_sweep_or_counts) {
            entry["max_items"] = spec.max_items;
        }
        if (spec.type == ParamType::string || spec.type == ParamType::byte_size)
            entry["max_length"] = spec.max_length;
        if (!spec.unit.empty()) entry["unit"] = spec.unit;
        if (!spec.examples.empty()) entry["examples"] = spec.examples;
        described.push_back(std::move(entry));
    }
    return described;
}

}  // namespace hostprobe::runs
