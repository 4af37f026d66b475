// JSON as text, whatever its strings hold: text from /proc, /sys, request paths or ECS metadata
// may carry bytes that are not UTF-8, and nlohmann::json::dump throws on those by default.
// Here they become U+FFFD, so a report or reply is never lost to one odd byte.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

namespace hostprobe {

// indent -1: one line; otherwise pretty-printed with that many spaces.
std::string json_text(const nlohmann::json& value, int indent = -1);

}  // namespace hostprobe
