// GET of a JSON document from the ECS metadata endpoint, bounded like every outside input: its
// size, its nesting, its number of values, and the whole request's time (a server trickling
// bytes, in the head or the body, is cut off at the deadline, not after a timeout per read).
#pragma once

#include <chrono>
#include <cstddef>
#include <nlohmann/json.hpp>
#include <span>
#include <string_view>

#include "core/result.hpp"
#include "http/url.hpp"

namespace hostprobe::ecs {

struct GetLimits {
    size_t max_bytes = size_t{1} << 20;
    std::chrono::milliseconds deadline{2000};  // the whole request, connection to last byte
    size_t max_values = 100'000;
    // Members whose values the reader never looks at, left out of the tree as it is built.
    std::span<const std::string_view> dropped_keys = {};
};

// Errors: unavailable (unreachable, an HTTP status other than 200, a redirect, which is not
// followed, the deadline passed) or parse_error (too large, too deep, malformed, a number
// beyond a double). Never throws.
Result<nlohmann::json> get_bounded_json(const http::HttpUrl& url, const GetLimits& limits = {});

// `base` with `suffix` appended to its path ("/task", "/task/stats").
http::HttpUrl with_path_suffix(http::HttpUrl base, const char* suffix);

}  // namespace hostprobe::ecs
