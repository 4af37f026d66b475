// Conditional requests by entity tag (RFC 9110 8.8.3, 13.1.2): whether a client's
// If-None-Match names what we would send, so that a 304 without a body can answer it.
#pragma once

#include <cstddef>
#include <initializer_list>
#include <string_view>

namespace hostprobe::http {

// Tags looked at in one If-None-Match; a longer list does not match (a full answer is safe).
inline constexpr size_t kMaxEntityTags = 64;

// Whether `if_none_match` is "*" or lists one of `current` (quoted tags, '"abc"'), compared
// weakly (a "W/" prefix is ignored). A malformed list matches nothing.
bool if_none_match_hits(std::string_view if_none_match,
                        std::initializer_list<std::string_view> current);

}  // namespace hostprobe::http
