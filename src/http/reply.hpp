// What a route handler returns: a reply, or an Error that the edge turns into a JSON error.
#pragma once

#include <nlohmann/json_fwd.hpp>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/result.hpp"

namespace hostprobe::http {

struct Reply {
    int status = 200;
    std::string content_type = "application/json";
    std::string body;
    // Instead of `body`: bytes in static storage (the embedded page), sent without a copy and
    // as they are (a `body` of text or JSON is gzip-compressed when the client accepts it).
    std::string_view static_body;
    std::vector<std::pair<std::string, std::string>> headers;

    static Reply json(const nlohmann::json& value, int status = 200);
    // JSON the caller has already printed (pretty, like json()); a newline is added.
    static Reply json_from_text(std::string text, int status = 200);
    static Reply text(std::string body, std::string content_type = "text/plain; charset=utf-8");
    // 304 to a matching If-None-Match: no body and no type, the validators' headers kept.
    static Reply not_modified(std::vector<std::pair<std::string, std::string>> headers);
};

// The one place status codes are spelled: success statuses by name, errors by their code.
inline constexpr int kOk = 200;
inline constexpr int kAccepted = 202;
inline constexpr int kNotModified = 304;
int status_for(ErrorCode code);
// {"error": "...", "status": N}
Reply error_reply(int status, const std::string& message);
Reply error_reply(const Error& error);

}  // namespace hostprobe::http
