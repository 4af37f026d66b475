// Malformed request heads (issue 26, item 3): cpp-httplib 0.11 skips a header line that ends in
// a bare LF or has no colon, and folded lines, instead of refusing the request, so
// "Transfer-Encoding: chunked\nX: X" reached a handler framed by Content-Length (202) while a
// proxy taking the bare LF for a line end frames the same bytes as chunked: request smuggling.
// Every such head must be answered 400 and the connection closed, its body never read as a
// next request.
#include <doctest/doctest.h>

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "support/daemon.hpp"
#include "support/raw_http.hpp"

using namespace hostprobe::testing;
using namespace std::string_literals;
using namespace std::chrono_literals;

namespace {

struct MalformedHead {
    std::string what;
    std::string request_line;  // with its line end
    std::string bad_lines;     // put between Host and the rest of the head
};

// Every class the stream must refuse, each as the hostile tester sent it or close to it.
std::vector<MalformedHead> malformed_heads(const std::string& method_and_path) {
    const std::string line = method_and_path + " HTTP/1.1\r\n";
    return {
        {"bare LF ending a header line", line, "Transfer-Encoding: chunked\nX: X\r\n"},
        {"bare LF ending the last header line", line, "X-Note: a\n"},
        {"bare LF as the blank line", line, "X-Note: a\r\n\n"},
        {"bare CR inside the header block", line, "X-Note: a\rTransfer-Encoding: chunked\r\n"},
        {"header line without a colon", line, "Transfer-Encoding chunked\r\n"},
        {"header line of one word", line, "NoColonHere\r\n"},
        {"empty header name", line, ": chunked\r\n"},
        {"space before the colon", line, "Transfer-Encoding : chunked\r\n"},
        {"tab before the colon", line, "Transfer-Encoding\t: chunked\r\n"},
        {"obs-fold with a space", line, "X-Note: a\r\n Transfer-Encoding: chunked\r\n"},
        {"obs-fold with a tab", line, "X-Note: a\r\n\tb\r\n"},
        {"non-token name", line, "X(Note): a\r\n"},
        {"NUL in a name", line, "X\0Note: a\r\n"s},
        {"control byte in a name", line, "X\x01Note: a\r\n"},
        {"control byte in a value", line, "X-Note: a\x1b[2Jb\r\n"},
        {"bare LF ending the request line", method_and_path + " HTTP/1.1\n", ""},
        {"bare CR inside the request line", method_and_path + "\r HTTP/1.1\r\n", ""},
        {"tab inside the request line", method_and_path + "\tHTTP/1.1\r\n", ""},
    };
}

std::string malformed_request(const MalformedHead& head, const std::string& body) {
    std::string request = head.request_line + "Host: 127.0.0.1\r\n" + head.bad_lines;
    if (!body.empty()) {
        request +=
            "Content-Type: application/json\r\nContent-Length: " + std::to_string(body.size()) +
            "\r\n";
    }
    return request + "\r\n" + body;
}

size_t runs_on_record(const Daemon& daemon) {
    auto listing = daemon.client().Get("/v1/runs");
    REQUIRE(listing);
    return nlohmann::json::parse(listing->body)["runs"].size();
}

void check_refused_alone(const std::string& answer) {
    CHECK(answer.rfind("HTTP/1.1 400 Bad Request\r\n", 0) == 0);
    CHECK(status_codes(answer) == std::vector<int>{400});  // nothing after it was served
    const std::string head = answer.substr(0, answer.find("\r\n\r\n"));
    CHECK(head.find("\r\nConnection: close") != std::string::npos);
    CHECK(head.find("Keep-Alive") == std::string::npos);
}

}  // namespace

TEST_CASE("a malformed head is 400 and closes, with or without a body after it") {
    Daemon daemon;
    const std::string run = R"({"probe": "cpu"})";
    for (const std::string path : {"GET /healthz", "POST /v1/runs"}) {
        for (const MalformedHead& head : malformed_heads(path)) {
            CAPTURE(head.what);
            CAPTURE(path);
            check_refused_alone(raw_exchange(
                daemon.port, malformed_request(head, path[0] == 'P' ? run : ""), false, 1s));
        }
    }
    CHECK(runs_on_record(daemon) == 0);  // no run started on a guessed framing
    CHECK(healthy(daemon));
}

TEST_CASE("the body of a refused head is not taken for a next, pipelined request") {
    Daemon daemon;
    // The body is itself a request: served, it would answer 200 after the 400.
    const std::string smuggled =
        "GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"
        "POST /v1/runs HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
        "Content-Length: 16\r\n\r\n{\"probe\": \"cpu\"}";
    for (const MalformedHead& head : malformed_heads("POST /v1/runs")) {
        CAPTURE(head.what);
        check_refused_alone(
            raw_exchange(daemon.port, malformed_request(head, smuggled), false, 1s));
    }
    // The tester's desync: chunked to a proxy that takes the bare LF for a line end, 16 bytes
    // by Content-Length to cpp-httplib, which skipped the line; the rest, a second request.
    const std::string desync =
        "POST /v1/runs HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
        "Transfer-Encoding: chunked\nX: X\r\nContent-Length: 16\r\n\r\n"
        "{\"probe\": \"cpu\"}"
        "GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n";
    check_refused_alone(raw_exchange(daemon.port, desync, false, 1s));
    CHECK(runs_on_record(daemon) == 0);
    CHECK(healthy(daemon));
}

TEST_CASE("well-formed heads still pass: empty values, tabs and obs-text in values") {
    Daemon daemon;
    const std::string answer =
        raw_exchange(daemon.port,
                     "GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Empty:\r\nX-Tab:\ta\tb\r\n"
                     "X-Text: caf\xc3\xa9\r\n!#$%&'*+-.^_`|~: x\r\n\r\n"
                     "GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n",
                     false, 1s);
    CHECK(status_codes(answer) == std::vector<int>{200, 200});
}
