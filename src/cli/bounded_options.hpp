// Options whose value is a number within a range: one table per command instead of a parse and
// a range check written out for each. Errors name the option, what it must be and the range.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "cli/options.hpp"
#include "core/result.hpp"

namespace hostprobe::cli {

enum class ValueKind {
    count,    // a whole number: "16"
    size,     // bytes with an optional k/m/g suffix: "64k"
    seconds,  // a number of seconds, fractions allowed: "2.5"
    dollars,  // a price, fractions allowed: "0.04048"
};

template <typename Config>
struct BoundedOption {
    std::string name;  // without the leading "--"
    ValueKind kind;
    double low;
    double high;
    std::function<void(Config&, double)> apply;
    bool only_when_set = false;  // no default: applied only when given
};

// The value of option `name`, parsed as `kind` and within [low, high].
Result<double> bounded_value(const ParsedOptions& options, const std::string& name, ValueKind kind,
                             double low, double high);

// Reads and applies every option of the table; the first bad one is the error.
template <typename Config>
Status apply_bounded(const ParsedOptions& options, const std::vector<BoundedOption<Config>>& table,
                     Config& config) {
    for (const auto& option : table) {
        if (option.only_when_set && !options.has(option.name)) continue;
        auto value = bounded_value(options, option.name, option.kind, option.low, option.high);
        if (!value) return value.error();
        option.apply(config, *value);
    }
    return Ok{};
}

}  // namespace hostprobe::cli
