// UTF-8 repair for text from outside (/proc, /sys, ECS metadata, paths) on its way into output
// that must be UTF-8, such as Prometheus' text format, where one invalid byte makes the
// scraper reject the whole page. Each maximal ill-formed subpart becomes one U+FFFD (Unicode's
// recommended practice, also what json_text's nlohmann::json replacement gives), so a label
// value reads the same in /metrics as in the JSON.
#pragma once

#include <string>
#include <string_view>

namespace hostprobe {

bool is_valid_utf8(std::string_view text);
// The text with every ill-formed sequence replaced by U+FFFD; valid text comes back unchanged.
std::string valid_utf8(std::string_view text);

}  // namespace hostprobe
