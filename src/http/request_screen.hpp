// The checks every request passes before any of its body is read, and before cpp-httplib
// would send "100 Continue" for it: framing that must be exact (RFC 9112: one numeric
// Content-Length, one Host, no transfer codings here, no NUL, CR or LF inside a header value),
// who may ask (tokens, trusted peers, DNS rebinding, cross-site requests), no content coding
// (a compressed body would be inflated past every bound: 415), and the body limit.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "http/access_policy.hpp"
#include "http/reply.hpp"

namespace httplib {
struct Request;
}

namespace hostprobe::http {

struct ScreenRules {
    AccessPolicy access;
    size_t max_body_bytes = 64 * 1024;
};

// Nothing when the request may go on; otherwise the answer to give it instead.
std::optional<Reply> screen_request(const httplib::Request& request, const ScreenRules& rules);

// The methods some route may take; cpp-httplib parses a few more (TRACE, CONNECT, PRI).
bool is_routed_method(std::string_view method);

// The request's Content-Length when it has exactly one valid one; 0 when it has none.
std::optional<uint64_t> declared_body_length(const httplib::Request& request);

}  // namespace hostprobe::http
