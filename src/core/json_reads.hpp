// Reads of parsed JSON that never throw and never convert out of range. nlohmann's get<T>()
// throws type_error for a string where a number was expected, converts 1e300 or -1 to size_t
// with undefined behaviour, and const operator[] on a missing key is undefined behaviour too:
// none of that may depend on what someone outside wrote.
#pragma once

#include <cmath>
#include <concepts>
#include <limits>
#include <nlohmann/json.hpp>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>

namespace hostprobe {

// The member, or null when `object` is not an object or lacks it.
inline const nlohmann::json* find_member(const nlohmann::json& object, std::string_view key) {
    if (!object.is_object()) return nullptr;
    const auto found = object.find(key);
    return found == object.end() ? nullptr : &*found;
}

inline std::optional<std::string> string_member(const nlohmann::json& object,
                                                std::string_view key) {
    const nlohmann::json* member = find_member(object, key);
    if (member == nullptr || !member->is_string()) return std::nullopt;
    return member->get<std::string>();
}

// Finite by construction: parse_untrusted_json refuses numbers beyond a double.
inline std::optional<double> number_member(const nlohmann::json& object, std::string_view key) {
    const nlohmann::json* member = find_member(object, key);
    if (member == nullptr || !member->is_number()) return std::nullopt;
    const double number = member->get<double>();
    return std::isfinite(number) ? std::optional(number) : std::nullopt;
}

// The value as T when it is a whole number T can hold exactly (2.0 counts, 2.5 and -1 for an
// unsigned T do not).
template <std::integral T>
std::optional<T> exact_integer(const nlohmann::json& value) {
    if (value.is_number_unsigned()) {
        const auto number = value.get<nlohmann::json::number_unsigned_t>();
        return std::in_range<T>(number) ? std::optional(static_cast<T>(number)) : std::nullopt;
    }
    if (value.is_number_integer()) {
        const auto number = value.get<nlohmann::json::number_integer_t>();
        return std::in_range<T>(number) ? std::optional(static_cast<T>(number)) : std::nullopt;
    }
    if (!value.is_number_float()) return std::nullopt;
    const double number = value.get<double>();
    if (!std::isfinite(number) || std::floor(number) != number) return std::nullopt;
    // [min, 2^digits): both bounds are exact doubles, unlike max().
    const double above_max = std::ldexp(1.0, std::numeric_limits<T>::digits);
    const double min = static_cast<double>(std::numeric_limits<T>::min());
    if (number < min || number >= above_max) return std::nullopt;
    return static_cast<T>(number);
}

// For readers that report a bad document by exception (their caller catches std::exception):
// exact_integer or std::out_of_range.
template <std::integral T>
T integer_or_throw(const nlohmann::json& value) {
    if (auto number = exact_integer<T>(value)) return *number;
    throw std::out_of_range("not a whole number in range: " + std::string(value.type_name()));
}

}  // namespace hostprobe
