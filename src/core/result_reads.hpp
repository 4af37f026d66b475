// Reads for a result's from_json: a result restored from the journal is outside input (an older
// version or a damaged file), so a value of the wrong type, or out of its range, throws and the
// result fails to parse (TypedProbe::parse_result) instead of reaching a metric or a report.
#pragma once

#include <cmath>
#include <cstdint>
#include <limits>
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <string>

#include "core/json_reads.hpp"

namespace hostprobe {

// A field an older or smaller result may lack: read with `read` when present, else left as is.
template <typename Field, typename Read>
void read_if_present(const nlohmann::json& in, const char* key, Field& field, Read read) {
    const auto found = in.find(key);
    if (found != in.end()) field = read(*found);
}

// A finite number (get<double> alone would also take a boolean).
inline double number_or_throw(const nlohmann::json& value) {
    if (!value.is_number())
        throw std::invalid_argument("not a number: " + std::string(value.type_name()));
    const double number = value.get<double>();
    if (!std::isfinite(number)) throw std::out_of_range("not a finite number");
    return number;
}

// A finite number within [0, max].
inline double non_negative_or_throw(const nlohmann::json& value,
                                    double max = std::numeric_limits<double>::max()) {
    if (!value.is_number())
        throw std::invalid_argument("not a number: " + std::string(value.type_name()));
    const double number = value.get<double>();
    if (!std::isfinite(number) || number < 0 || number > max)
        throw std::out_of_range("number out of range: " + value.dump());
    return number;
}

// Readers for read_if_present. get<bool> and get<std::string> throw on any other type; numbers
// are checked as above, integers through integer_or_throw, since get<size_t> of -1 or 1e300 is
// undefined.
namespace result_reads {
inline constexpr auto as_number = [](const nlohmann::json& value) {
    return number_or_throw(value);
};
inline constexpr auto as_seconds = [](const nlohmann::json& value) {
    return non_negative_or_throw(value);
};
inline constexpr auto as_count = [](const nlohmann::json& value) {
    return integer_or_throw<uint64_t>(value);
};
inline constexpr auto as_size = [](const nlohmann::json& value) {
    return integer_or_throw<size_t>(value);
};
inline constexpr auto as_bool = [](const nlohmann::json& value) { return value.get<bool>(); };
inline constexpr auto as_string = [](const nlohmann::json& value) {
    return value.get<std::string>();
};
}  // namespace result_reads

}  // namespace hostprobe
