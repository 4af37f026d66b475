#include "http/reply.hpp"

#include <nlohmann/json.hpp>

#include "core/json_text.hpp"

namespace hostprobe::http {

Reply Reply::json(const nlohmann::json& value, int status) {
    Reply reply;
    reply.status = status;
    reply.body = json_text(value, 2) + "\n";
    return reply;
}

Reply Reply::json_from_text(std::string text, int status) {
    Reply reply;
    reply.status = status;
    reply.body = std::move(text);
    reply.body += "\n";
    return reply;
}

Reply Reply::text(std::string body, std::string content_type) {
    Reply reply;
    reply.content_type = std::move(content_type);
    reply.body = std::move(body);
    return reply;
}

Reply Reply::not_modified(std::vector<std::pair<std::string, std::string>> headers) {
    Reply reply;
    reply.status = kNotModified;
    reply.content_type.clear();
    reply.headers = std::move(headers);
    return reply;
}

int status_for(ErrorCode code) {
    switch (code) {
        case ErrorCode::not_found: return 404;
        case ErrorCode::invalid_argument: return 400;
        case ErrorCode::parse_error: return 400;
        case ErrorCode::conflict: return 409;
        case ErrorCode::busy: return 429;
        case ErrorCode::too_large: return 413;
        case ErrorCode::unsupported_type: return 415;
        case ErrorCode::forbidden: return 403;
        case ErrorCode::unavailable: return 503;
        case ErrorCode::io_error: return 500;
        case ErrorCode::internal: return 500;
    }
    return 500;
}

Reply error_reply(int status, const std::string& message) {
    return Reply::json({{"error", message}, {"status", status}}, status);
}

Reply error_reply(const Error& error) {
    return error_reply(status_for(error.code), error.message);
}

}  // namespace hostprobe::http
