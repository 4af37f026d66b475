#include "http/request_screen.hpp"

#include <doctest/doctest.h>
#include <httplib.h>

#include <initializer_list>
#include <string>
#include <utility>
#include <vector>

using namespace hostprobe::http;

namespace {

httplib::Request request_with(std::string method,
                              std::initializer_list<std::pair<std::string, std::string>> headers) {
    httplib::Request request;
    request.method = std::move(method);
    request.version = "HTTP/1.1";
    request.path = "/v1/runs";
    request.remote_addr = "127.0.0.1";
    for (const auto& [name, value] : headers)
        request.headers.emplace(name, value);
    return request;
}

int status_of(const httplib::Request& request, const ScreenRules& rules = {}) {
    auto refusal = screen_request(request, rules);
    return refusal ? refusal->status : 0;
}

}  // namespace

TEST_CASE("a well-formed request passes the screen") {
    CHECK(status_of(request_with("POST", {{"Host", "127.0.0.1:9740"}, {"Content-Length", "12"}})) ==
          0);
    CHECK(status_of(request_with("GET", {{"Host", "localhost"}})) == 0);
    httplib::Request old = request_with("GET", {});
    old.version = "HTTP/1.0";  // HTTP/1.0 may omit Host
    CHECK(status_of(old) == 0);
}

TEST_CASE("Content-Length must be one decimal number (RFC 9112 6.3)") {
    for (const char* value : {"abc", "0x0f", "-1", "+5", "1 2", "", "99999999999999999999999"}) {
        CAPTURE(value);
        CHECK(status_of(request_with("POST", {{"Host", "h:1"}, {"Content-Length", value}})) == 400);
    }
    CHECK(status_of(request_with(
              "POST", {{"Host", "h:1"}, {"Content-Length", "5"}, {"Content-Length", "6"}})) == 400);
    CHECK(status_of(request_with(
              "POST", {{"Host", "h:1"}, {"Content-Length", "5"}, {"content-length", "5"}})) == 400);
}

TEST_CASE("header values with NUL, CR or LF, and names that are not tokens, are 400") {
    using namespace std::string_literals;
    for (const std::string& value : {"a\0b"s, "a\rb"s, "a\nb"s, "\r"s}) {
        CHECK(status_of(request_with("GET", {{"Host", "h:1"}, {"X-Note", value}})) == 400);
    }
    CHECK(status_of(request_with("GET", {{"Host", "h:1"}, {"Bad Name", "x"}})) == 400);
    CHECK(status_of(request_with("GET", {{"Host", "h:1"}, {"Bad\x01", "x"}})) == 400);
}

TEST_CASE("Host: exactly one for HTTP/1.1 (RFC 9112 3.2)") {
    CHECK(status_of(request_with("GET", {})) == 400);
    CHECK(status_of(request_with("GET", {{"Host", "a"}, {"Host", "b"}})) == 400);
}

TEST_CASE("methods nothing serves are 501, before anything else is judged") {
    for (const char* method : {"TRACE", "CONNECT", "PRI"}) {
        CAPTURE(method);
        CHECK(status_of(request_with(method, {})) == 501);
    }
}

TEST_CASE("the refusals that must come before a body is read or 100 Continue is sent") {
    ScreenRules rules;
    rules.max_body_bytes = 100;
    CHECK(status_of(request_with("POST", {{"Host", "127.0.0.1:9740"}, {"Content-Length", "101"}}),
                    rules) == 413);
    CHECK(status_of(request_with("POST", {{"Host", "127.0.0.1:9740"}, {"Content-Length", "100"}}),
                    rules) == 0);
    CHECK(status_of(
              request_with("POST", {{"Host", "127.0.0.1:9740"}, {"Transfer-Encoding", "chunked"}}),
              rules) == 411);
    rules.access.token = "secret";
    CHECK(status_of(request_with("POST", {{"Host", "127.0.0.1:9740"}, {"Content-Length", "101"}}),
                    rules) == 401);
    CHECK(status_of(request_with("POST", {{"Host", "127.0.0.1:9740"},
                                          {"Authorization", "Bearer secret"},
                                          {"Origin", "http://evil.example"}}),
                    rules) == 403);
}

TEST_CASE("declared_body_length") {
    CHECK(declared_body_length(request_with("POST", {})) == 0u);
    CHECK(declared_body_length(request_with("POST", {{"Content-Length", "42"}})) == 42u);
    CHECK_FALSE(declared_body_length(request_with("POST", {{"Content-Length", "4 2"}})));
}

TEST_CASE("a request body with any content coding but identity is 415, naming identity") {
    const ScreenRules rules;
    for (const std::string coding :
         {"gzip", "x-gzip", "deflate", "br", "zstd", "compress", "GZip", "gzip, identity",
          "identity, gzip", " identity,br ", "identity;q=1", "bogus"}) {
        CAPTURE(coding);
        auto refusal = screen_request(request_with("POST", {{"Host", "127.0.0.1:9740"},
                                                            {"Content-Length", "61000"},
                                                            {"Content-Encoding", coding}}),
                                      rules);
        REQUIRE(refusal);
        CHECK(refusal->status == 415);
        CHECK(refusal->headers ==
              std::vector<std::pair<std::string, std::string>>{{"Accept-Encoding", "identity"}});
    }
    // Several fields: any one is enough; names are case-insensitive.
    CHECK(status_of(request_with("POST", {{"Host", "127.0.0.1:9740"},
                                          {"Content-Encoding", "identity"},
                                          {"content-encoding", "gzip"}})) == 415);
    CHECK(status_of(request_with("GET",
                                 {{"Host", "127.0.0.1:9740"}, {"CONTENT-ENCODING", "br"}})) == 415);
    // identity alone is no coding at all.
    for (const std::string coding :
         {"identity", "Identity", " IDENTITY ", "identity, identity", ","}) {
        CAPTURE(coding);
        CHECK(status_of(request_with("POST", {{"Host", "127.0.0.1:9740"},
                                              {"Content-Length", "2"},
                                              {"Content-Encoding", coding}})) == 0);
    }
    // Who may ask is judged first: an untrusted caller learns nothing about codings.
    httplib::Request foreign =
        request_with("POST", {{"Host", "127.0.0.1:9740"}, {"Content-Encoding", "gzip"}});
    foreign.remote_addr = "192.0.2.1";
    CHECK(status_of(foreign) == 403);
}

TEST_CASE("transfer codings: chunked alone is 411, others 501, without chunked last 400") {
    auto status_with = [](const std::string& codings) {
        return status_of(
            request_with("POST", {{"Host", "127.0.0.1:9740"}, {"Transfer-Encoding", codings}}));
    };
    CHECK(status_with("chunked") == 411);
    CHECK(status_with("Chunked") == 411);
    CHECK(status_with("gzip, chunked") == 501);
    CHECK(status_with("x-gzip, chunked") == 501);
    CHECK(status_with("identity, chunked") == 501);
    for (const char* codings : {"gzip", "deflate", "br", "zstd", "identity", "chunked, gzip",
                                "chunked, identity", "chunkedx", ","}) {
        CAPTURE(codings);
        CHECK(status_with(codings) == 400);
    }
    // Two fields make one list: "gzip" then "chunked".
    CHECK(status_of(request_with("POST", {{"Host", "127.0.0.1:9740"},
                                          {"Transfer-Encoding", "gzip"},
                                          {"Transfer-Encoding", "chunked"}})) == 501);
}

TEST_CASE("a mutation a browser marks as cross-site or same-site is 403, token or not") {
    for (const char* site : {"cross-site", "same-site", "Cross-Site", "bogus"}) {
        CAPTURE(site);
        CHECK(status_of(request_with("POST", {{"Host", "127.0.0.1:9740"},
                                              {"Content-Length", "2"},
                                              {"Sec-Fetch-Site", site}})) == 403);
        CHECK(status_of(request_with(
                  "DELETE", {{"Host", "127.0.0.1:9740"}, {"Sec-Fetch-Site", site}})) == 403);
        CHECK(status_of(request_with("GET",
                                     {{"Host", "127.0.0.1:9740"}, {"Sec-Fetch-Site", site}})) == 0);
    }
    CHECK(status_of(request_with("POST", {{"Host", "127.0.0.1:9740"},
                                          {"Sec-Fetch-Site", "same-origin"},
                                          {"Sec-Fetch-Site", "cross-site"}})) == 403);
    for (const char* site : {"same-origin", "none"}) {
        CAPTURE(site);
        CHECK(status_of(request_with("POST", {{"Host", "127.0.0.1:9740"},
                                              {"Content-Length", "2"},
                                              {"Sec-Fetch-Site", site}})) == 0);
    }
    ScreenRules with_token;
    with_token.access.token = "secret";
    CHECK(status_of(request_with("POST", {{"Host", "127.0.0.1:9740"},
                                          {"Authorization", "Bearer secret"},
                                          {"Sec-Fetch-Site", "cross-site"}}),
                    with_token) == 403);
}
