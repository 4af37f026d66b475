#include "http/request_screen.hpp"

#include <httplib.h>

#include <charconv>
#include <string_view>
#include <vector>

#include "core/strings.hpp"
#include "http/head_syntax.hpp"

namespace hostprobe::http {

namespace {

bool is_token(std::string_view text) {
    if (text.empty()) return false;
    for (const unsigned char c : text) {
        if (!is_token_char(c)) return false;
    }
    return true;
}

// cpp-httplib has already percent-decoded header values, so "%00" arrives as a NUL too.
bool has_forbidden_byte(std::string_view value) {
    return value.find_first_of(std::string_view("\0\r\n", 3)) != std::string_view::npos;
}

std::optional<Reply> check_header_syntax(const httplib::Request& request) {
    for (const auto& [name, value] : request.headers) {
        if (!is_token(name)) return error_reply(400, "a header name is not a token (RFC 9110 5.1)");
        if (has_forbidden_byte(value))
            return error_reply(400, "header " + excerpt(name) +
                                        " holds a NUL, CR or LF byte, which no value may hold "
                                        "(RFC 9110 5.5)");
    }
    const size_t hosts = request.headers.count("Host");
    if (hosts > 1) return error_reply(400, "the request has more than one Host header");
    if (hosts == 0 && request.version == "HTTP/1.1")
        return error_reply(400, "an HTTP/1.1 request needs a Host header (RFC 9112 3.2)");
    if (request.headers.count("Content-Length") > 1)
        return error_reply(400, "the request has more than one Content-Length header");
    if (request.has_header("Content-Length") && !declared_body_length(request))
        return error_reply(400, "Content-Length must be a decimal number of bytes, not '" +
                                    excerpt(request.get_header_value("Content-Length")) + "'");
    return std::nullopt;
}

// Every coding listed in every field named `name`, lower case, without the empty list elements
// a recipient must skip (RFC 9110 5.6.1).
std::vector<std::string> listed_codings(const httplib::Request& request, const std::string& name) {
    std::vector<std::string> codings;
    const auto [first, last] = request.headers.equal_range(name);
    for (auto field = first; field != last; ++field) {
        for (const std::string_view element : split(field->second, ',')) {
            if (const std::string_view coding = trim(element); !coding.empty())
                codings.push_back(to_lower(coding));
        }
    }
    return codings;
}

// A body is taken only as sent. cpp-httplib inflates a gzip, deflate or br body whole, after
// --max-body-bytes has counted the compressed bytes and before any handler can stop it: a
// 61 KB gzip body became 60 MB in memory. No client of ours compresses a request.
std::optional<Reply> check_content_coding(const httplib::Request& request) {
    for (const std::string& coding : listed_codings(request, "Content-Encoding")) {
        if (coding == "identity") continue;
        Reply reply =
            error_reply(415, "request bodies are taken as sent: Content-Encoding '" +
                                 excerpt(coding) + "' is not accepted, only identity (or none)");
        reply.headers.emplace_back("Accept-Encoding", "identity");  // RFC 9110 15.5.16
        return reply;
    }
    return std::nullopt;
}

// cpp-httplib 0.11 applies the body limit to Content-Length only: a chunked body would be read
// whole into memory, however large. So no transfer coding is taken, and the status says why.
std::optional<Reply> check_transfer_coding(const httplib::Request& request) {
    if (!request.has_header("Transfer-Encoding")) return std::nullopt;
    const std::vector<std::string> codings = listed_codings(request, "Transfer-Encoding");
    // RFC 9112 6.3: without chunked last, the body's length cannot be known.
    if (codings.empty() || codings.back() != "chunked") {
        return error_reply(400,
                           "Transfer-Encoding must end with chunked (RFC 9112 6.3), and "
                           "is not accepted here: send the body with Content-Length");
    }
    if (codings.size() > 1) {
        return error_reply(501,
                           "transfer codings other than chunked are not implemented; send "
                           "the body with Content-Length");
    }
    return error_reply(411,
                       "send the body with Content-Length; chunked transfer encoding is "
                       "not accepted");
}

// Sec-Fetch-Site as sent: each field on its own, so that two cannot hide one in a list.
std::optional<AccessDenial> check_fetch_sites(const httplib::Request& request) {
    const auto [first, last] = request.headers.equal_range("Sec-Fetch-Site");
    for (auto field = first; field != last; ++field) {
        if (auto denial = check_fetch_site(request.method, field->second)) return denial;
    }
    return std::nullopt;
}

std::optional<Reply> check_who(const httplib::Request& request, const AccessPolicy& access) {
    const std::string host = request.get_header_value("Host");
    auto denial = check_origin(request.method, host, request.get_header_value("Origin"));
    if (!denial) denial = check_fetch_sites(request);
    if (!denial) {
        denial = check_access(access, request.method, request.path, request.remote_addr,
                              request.get_header_value("Authorization"), host,
                              request.get_header_value("Accept"));
    }
    if (!denial) return std::nullopt;
    Reply reply = error_reply(denial->status, denial->message);
    if (denial->www_authenticate)
        reply.headers.emplace_back("WWW-Authenticate", *denial->www_authenticate);
    return reply;
}

}  // namespace

std::optional<uint64_t> declared_body_length(const httplib::Request& request) {
    if (!request.has_header("Content-Length")) return 0;
    const std::string text = request.get_header_value("Content-Length");
    uint64_t length = 0;
    const char* end = text.data() + text.size();
    auto [rest, error] = std::from_chars(text.data(), end, length);
    if (text.empty() || error != std::errc{} || rest != end || text.front() == '+')
        return std::nullopt;
    return length;
}

bool is_routed_method(std::string_view method) {
    return method == "GET" || method == "HEAD" || method == "POST" || method == "PUT" ||
           method == "PATCH" || method == "DELETE" || method == "OPTIONS";
}

std::optional<Reply> screen_request(const httplib::Request& request, const ScreenRules& rules) {
    // TRACE, CONNECT and PRI, which cpp-httplib parses but nothing here serves (RFC 9110 15.6.2).
    if (!is_routed_method(request.method)) {
        return error_reply(
            501, "method " + request.method + " is not implemented (see GET / for the endpoints)");
    }
    if (auto refusal = check_header_syntax(request)) return refusal;
    if (auto refusal = check_who(request, rules.access)) return refusal;
    if (auto refusal = check_transfer_coding(request)) return refusal;
    if (auto refusal = check_content_coding(request)) return refusal;
    if (*declared_body_length(request) > rules.max_body_bytes) {
        return error_reply(413, "the request body is over " + std::to_string(rules.max_body_bytes) +
                                    " bytes (--max-body-bytes)");
    }
    return std::nullopt;
}

}  // namespace hostprobe::http
