#include "cli/bounded_options.hpp"

#include <charconv>

#include "core/strings.hpp"

namespace hostprobe::cli {

namespace {

// The shortest text that reads back as `value`: "1000", "0.1".
std::string format_number(double value) {
    char buffer[32];
    const auto end = std::to_chars(buffer, buffer + sizeof buffer, value).ptr;
    return std::string(buffer, end);
}

Result<double> parse_as(ValueKind kind, const std::string& text) {
    switch (kind) {
        case ValueKind::count: {
            auto number = parse_uint64(text);
            if (!number) return number.error();
            return static_cast<double>(*number);
        }
        case ValueKind::size: {
            auto bytes = parse_byte_size(text);
            if (!bytes) return bytes.error();
            return static_cast<double>(*bytes);
        }
        case ValueKind::seconds:
        case ValueKind::dollars: return parse_double(text);
    }
    return make_error(ErrorCode::internal, "unknown value kind");
}

std::string describe_range(ValueKind kind, double low, double high) {
    switch (kind) {
        case ValueKind::count:
            return "a number from " + format_number(low) + " to " + format_number(high);
        case ValueKind::size:
            return "a size from " + format_byte_size(static_cast<uint64_t>(low)) + " to " +
                   format_byte_size(static_cast<uint64_t>(high));
        case ValueKind::seconds:
            return "seconds from " + format_number(low) + " to " + format_number(high);
        case ValueKind::dollars:
            return "dollars from " + format_number(low) + " to " + format_number(high) +
                   ", e.g. 0.04048";
    }
    return "";
}

}  // namespace

Result<double> bounded_value(const ParsedOptions& options, const std::string& name, ValueKind kind,
                             double low, double high) {
    auto value = parse_as(kind, options.get(name));
    if (!value || !(*value >= low && *value <= high))
        return make_error(ErrorCode::invalid_argument,
                          "--" + name + " must be " + describe_range(kind, low, high));
    return *value;
}

}  // namespace hostprobe::cli
