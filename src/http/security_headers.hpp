// Headers every answer carries. They matter for the page (issue 18): its script and style come
// only from its own files under /ui/ (no inline code, so an injected string cannot run), no
// other site may frame it, and a browser takes each answer as its Content-Type says. On JSON
// and text answers they are harmless, and they keep an answer opened in a tab inert.
#pragma once

#include <array>
#include <string_view>
#include <utility>

namespace hostprobe::http {

inline constexpr std::string_view kContentSecurityPolicy =
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
    "connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'self'";

inline constexpr std::array<std::pair<std::string_view, std::string_view>, 3> kSecurityHeaders = {{
    {"Content-Security-Policy", kContentSecurityPolicy},
    {"X-Content-Type-Options", "nosniff"},
    {"Referrer-Policy", "no-referrer"},
}};

}  // namespace hostprobe::http
