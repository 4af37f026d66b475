// Small string helpers shared by every parser. Parsers of numbers return Result so that a
// malformed file becomes a warning, never an exception.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/result.hpp"

namespace hostprobe {

std::string_view trim(std::string_view text);
std::vector<std::string_view> split(std::string_view text, char separator);
// Splits on runs of spaces and tabs, dropping empty fields.
std::vector<std::string_view> split_whitespace(std::string_view text);
std::vector<std::string_view> split_lines(std::string_view text);
std::string join(const std::vector<std::string>& parts, std::string_view separator);
std::string to_lower(std::string_view text);
bool contains(std::string_view haystack, std::string_view needle);
// A caller's text quoted in a message: at most `limit` bytes, "..." marking a cut.
std::string excerpt(std::string_view text, size_t limit = 80);

Result<int64_t> parse_int64(std::string_view text);
Result<uint64_t> parse_uint64(std::string_view text);
// Accepts decimal or 0x-prefixed hexadecimal.
Result<uint64_t> parse_uint64_auto_base(std::string_view text);
Result<double> parse_double(std::string_view text);

// printf's "%.*f": format_fixed(2.5, 2) == "2.50".
std::string format_fixed(double value, int decimals);
// A fraction as a whole percentage: format_percent(0.254) == "25%".
std::string format_percent(double fraction);

// fio-style sizes: "512", "512b", "16k", "256m", "1g", "2t", "1p" (powers of 1024, as fio's
// default kb_base; "16kb", "16KiB" and "16K" too).
Result<uint64_t> parse_byte_size(std::string_view text);
// The shortest fio-style spelling of a size: 16384 -> "16k", 1000 -> "1000".
std::string format_byte_size(uint64_t bytes);

// A 32-bit id from a cpuinfo value that may be absent: empty when missing, malformed or too
// large. `prefixed_hex` demands "0x..." (ARM implementer and part ids); `any` also takes decimal.
enum class IdBase { decimal, any, prefixed_hex };
std::optional<uint32_t> parse_id(const std::optional<std::string>& text, IdBase base);

}  // namespace hostprobe
