// Reads of a storage probe's result restored from the journal (outside input): a number that is
// not one, or is out of its range, throws, so a damaged result fails to parse instead of
// reaching a metric.
#pragma once

#include <cmath>
#include <limits>
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <string>

namespace hostprobe::probes {

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

}  // namespace hostprobe::probes
