// Content negotiation (RFC 9110 12.5): which of our representations a client's Accept and
// Accept-Encoding headers prefer. Outside input, parsed with bounds: a header of more than
// kMaxNegotiationElements elements counts as absent, and a malformed element (a bad media
// range, a q outside 0..1 or with more than three decimals) is skipped.
#pragma once

#include <cstddef>
#include <string_view>

namespace hostprobe::http {

inline constexpr size_t kMaxNegotiationElements = 64;

// RFC 9110 12.4.2's qvalue in thousandths: 0 (not acceptable) to 1000.
using Quality = int;
inline constexpr Quality kFullQuality = 1000;

// The quality Accept gives `media_type` ("text/html"): the most specific range that matches
// decides (type/subtype, then type/*, then */*); 0 when none does. No Accept: kFullQuality.
Quality media_quality(std::string_view accept, std::string_view media_type);

// Whether the client prefers the page (text/html) to JSON: a browser's navigation does; curl's
// "*/*", "application/json" and no Accept do not (a tie keeps JSON, so scripts are unaffected).
bool prefers_html(std::string_view accept);

// Whether Accept-Encoding allows gzip: "gzip" (or "x-gzip") with q > 0, or "*" with q > 0 when
// gzip is not named. No Accept-Encoding: identity only.
bool accepts_gzip(std::string_view accept_encoding);

}  // namespace hostprobe::http
