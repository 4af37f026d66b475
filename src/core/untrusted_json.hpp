// The one way JSON from outside the process becomes a value: request bodies, --params and
// --params-file, the ECS metadata documents and the run journal all go through
// parse_untrusted_json. nlohmann's own parser is iterative, but copying, comparing, printing
// and destroying a tree recurse once per level, and pretty-printing indents every line by its
// depth, so 100,000 nested arrays overflow the stack and 10,000 print as 100 MB. Limits on
// size, depth and the number of values keep every tree we hold small and shallow, and every
// failure (malformed text, a number out of range such as 1e400, a limit) is an Error value,
// never an exception.
#pragma once

#include <cstddef>
#include <nlohmann/json.hpp>
#include <span>
#include <string_view>

#include "core/result.hpp"

namespace hostprobe {

// Deep enough for every document we read (a journal record is about 8 levels, ECS task
// metadata about 7), shallow enough that a pretty-printed line is indented at most 64 spaces.
inline constexpr size_t kMaxJsonDepth = 32;

struct JsonLimits {
    size_t max_bytes = 1 << 20;
    // Arrays and objects inside one another: `[]` is depth 1, `{"a": [1]}` depth 2.
    size_t max_depth = kMaxJsonDepth;
    // Every value (arrays, objects, scalars) and object key: bounds the tree's memory, which
    // for `[[],[],...]` is about 20 times the text.
    size_t max_values = 100'000;
};

// The value, or an Error (parse_error; too_large past max_bytes) whose message says what is
// wrong and where: "malformed JSON at byte 12: ...", "JSON nested deeper than 32 levels at
// byte 33", "number out of range at byte 6: 1e400". Bytes count from 1, as nlohmann's do; text
// of several lines adds "(line 2, column 3)".
Result<nlohmann::json> parse_untrusted_json(std::string_view text, const JsonLimits& limits = {});

// The same, leaving out of the tree the value of every member named in `dropped_keys`, at any
// depth (still counted against max_values and max_depth): a reader that needs a tenth of a large
// document does not hold the rest in memory while it reads it.
Result<nlohmann::json> parse_untrusted_json(std::string_view text, const JsonLimits& limits,
                                            std::span<const std::string_view> dropped_keys);

}  // namespace hostprobe
