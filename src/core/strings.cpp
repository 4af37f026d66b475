#include "core/strings.hpp"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstdlib>

namespace hostprobe {

namespace {

bool is_blank(char c) {
    return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v';
}

template <typename Int>
Result<Int> parse_integer(std::string_view text, int base, const char* what) {
    std::string_view digits = trim(text);
    if (digits.empty()) {
        return make_error(ErrorCode::parse_error, std::string("empty ") + what);
    }
    if (digits.front() == '+') {
        digits.remove_prefix(1);
    }
    Int value{};
    auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), value, base);
    if (ec == std::errc::result_out_of_range) {
        return make_error(ErrorCode::parse_error,
                          std::string(what) + " out of range: '" + std::string(text) + "'");
    }
    if (ec != std::errc() || end != digits.data() + digits.size()) {
        return make_error(ErrorCode::parse_error,
                          std::string("not ") + what + ": '" + std::string(text) + "'");
    }
    return value;
}

}  // namespace

std::string_view trim(std::string_view text) {
    while (!text.empty() && is_blank(text.front())) {
        text.remove_prefix(1);
    }
    while (!text.empty() && is_blank(text.back())) {
        text.remove_suffix(1);
    }
    return text;
}

std::vector<std::string_view> split(std::string_view text, char separator) {
    std::vector<std::string_view> parts;
    size_t start = 0;
    while (true) {
        size_t end = text.find(separator, start);
        if (end == std::string_view::npos) {
            parts.push_back(text.substr(start));
            return parts;
        }
        parts.push_back(text.substr(start, end - start));
        start = end + 1;
    }
}

std::vector<std::string_view> split_whitespace(std::string_view text) {
    std::vector<std::string_view> parts;
    size_t i = 0;
    while (i < text.size()) {
        while (i < text.size() && is_blank(text[i])) {
            ++i;
        }
        size_t start = i;
        while (i < text.size() && !is_blank(text[i])) {
            ++i;
        }
        if (i > start) {
            parts.push_back(text.substr(start, i - start));
        }
    }
    return parts;
}

std::vector<std::string_view> split_lines(std::string_view text) {
    std::vector<std::string_view> lines = split(text, '\n');
    if (!lines.empty() && lines.back().empty()) {
        lines.pop_back();
    }
    for (auto& line : lines) {
        if (!line.empty() && line.back() == '\r') {
            line.remove_suffix(1);
        }
    }
    return lines;
}

std::string join(const std::vector<std::string>& parts, std::string_view separator) {
    std::string out;
    for (size_t i = 0; i < parts.size(); ++i) {
        if (i > 0) {
            out += separator;
        }
        out += parts[i];
    }
    return out;
}

std::string to_lower(std::string_view text) {
    std::string out(text);
    std::transform(out.begin(), out.end(), out.begin(),
                   [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    return out;
}

bool contains(std::string_view haystack, std::string_view needle) {
    return haystack.find(needle) != std::string_view::npos;
}

Result<int64_t> parse_int64(std::string_view text) {
    return parse_integer<int64_t>(text, 10, "an integer");
}

Result<uint64_t> parse_uint64(std::string_view text) {
    std::string_view digits = trim(text);
    if (!digits.empty() && digits.front() == '-') {
        return make_error(ErrorCode::parse_error, "negative value: '" + std::string(text) + "'");
    }
    return parse_integer<uint64_t>(text, 10, "an unsigned integer");
}

Result<uint64_t> parse_uint64_auto_base(std::string_view text) {
    std::string_view digits = trim(text);
    if (digits.size() > 2 && digits[0] == '0' && (digits[1] == 'x' || digits[1] == 'X')) {
        return parse_integer<uint64_t>(digits.substr(2), 16, "a hexadecimal integer");
    }
    return parse_uint64(digits);
}

Result<double> parse_double(std::string_view text) {
    std::string digits(trim(text));
    if (digits.empty()) {
        return make_error(ErrorCode::parse_error, "empty number");
    }
    char* end = nullptr;
    double value = std::strtod(digits.c_str(), &end);
    if (end != digits.c_str() + digits.size() || !std::isfinite(value)) {
        return make_error(ErrorCode::parse_error, "not a number: '" + digits + "'");
    }
    return value;
}

std::optional<uint32_t> parse_id(const std::optional<std::string>& text, IdBase base) {
    if (!text) return std::nullopt;
    if (base == IdBase::prefixed_hex && text->rfind("0x", 0) != 0) return std::nullopt;
    auto value = base == IdBase::decimal ? parse_uint64(*text) : parse_uint64_auto_base(*text);
    if (!value || *value > 0xffffffffu) return std::nullopt;
    return static_cast<uint32_t>(*value);
}

std::string format_fixed(double value, int decimals) {
    char buffer[64];
    std::snprintf(buffer, sizeof buffer, "%.*f", decimals, value);
    return buffer;
}

std::string format_percent(double fraction) {
    return format_fixed(fraction * 100, 0) + "%";
}

namespace {

// fio's units (its default kb_base=1024): a bare number or "b" is bytes; k, m, g, t and p, each
// also spelt with "b" or "ib" after it, are powers of 1024. Case does not matter.
std::optional<unsigned> byte_size_shift(std::string_view unit) {
    if (unit.empty() || unit == "b") return 0u;
    const std::string_view prefixes = "kmgtp";
    const size_t prefix = prefixes.find(unit.front());
    if (prefix == std::string_view::npos) return std::nullopt;
    unit.remove_prefix(1);
    if (!unit.empty() && unit != "b" && unit != "ib") return std::nullopt;
    return static_cast<unsigned>(10 * (prefix + 1));
}

}  // namespace

Result<uint64_t> parse_byte_size(std::string_view text) {
    const std::string value = to_lower(trim(text));
    size_t unit_start = value.size();
    while (unit_start > 0 && std::isalpha(static_cast<unsigned char>(value[unit_start - 1])))
        --unit_start;
    const std::string_view digits = std::string_view(value).substr(0, unit_start);
    const auto shift = byte_size_shift(std::string_view(value).substr(unit_start));
    auto number = parse_uint64(digits);
    if (!shift || !number) {
        return make_error(
            ErrorCode::invalid_argument,
            "'" + std::string(text) + "' is not a size such as 512b, 4096, 16k, 256m or 1g");
    }
    if (*number > (UINT64_MAX >> *shift)) {
        return make_error(ErrorCode::invalid_argument,
                          "'" + std::string(text) + "' is out of range (at most 2^64-1 bytes)");
    }
    return *number << *shift;
}

std::string format_byte_size(uint64_t bytes) {
    const char* units = "kmgt";
    std::string suffix;
    for (int i = 0; i < 4 && bytes >= 1024 && bytes % 1024 == 0; ++i) {
        bytes /= 1024;
        suffix = std::string(1, units[i]);
    }
    return std::to_string(bytes) + suffix;
}

}  // namespace hostprobe

namespace hostprobe {

std::string excerpt(std::string_view text, size_t limit) {
    if (text.size() <= limit) return std::string(text);
    return std::string(text.substr(0, limit)) + "...";
}

}  // namespace hostprobe
