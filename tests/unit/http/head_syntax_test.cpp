#include "http/head_syntax.hpp"

#include <doctest/doctest.h>

#include <string>
#include <string_view>

using namespace hostprobe::http;
using namespace std::string_literals;

namespace {

struct HeadVerdict {
    bool complete = false;
    std::string refusal;  // empty: none
    size_t taken = 0;     // bytes read before the verdict (the refused byte included)
};

HeadVerdict judge_head(std::string_view head) {
    HeadSyntax syntax;
    HeadVerdict verdict;
    for (const char byte : head) {
        ++verdict.taken;
        if (auto refusal = syntax.take(byte)) {
            verdict.refusal = *refusal;
            return verdict;
        }
        if (syntax.complete()) break;
    }
    verdict.complete = syntax.complete();
    return verdict;
}

}  // namespace

TEST_CASE("well-formed heads pass, up to the blank line and no further") {
    for (const std::string& head :
         {"GET / HTTP/1.1\r\nHost: h\r\n\r\n"s, "GET / HTTP/1.0\r\n\r\n"s,
          "POST /v1/runs HTTP/1.1\r\nHost: 127.0.0.1:9740\r\nContent-Length: 2\r\n"
          "X-Empty:\r\nX-Tab:\ta\tb\t\r\nX-Obs-Text: caf\xc3\xa9\r\n"
          "!#$%&'*+-.^_`|~09azAZ: x\r\n\r\n"s}) {
        CAPTURE(head);
        const HeadVerdict verdict = judge_head(head + "body\nafter");
        CHECK(verdict.refusal.empty());
        CHECK(verdict.complete);
        CHECK(verdict.taken == head.size());
    }
}

TEST_CASE("each malformed head is refused at its first wrong byte, with the reason") {
    struct Case {
        std::string head;
        size_t wrong_byte;  // offset of the first byte that is wrong
        const char* reason;
    };
    const std::string line = "POST / HTTP/1.1\r\n";  // 17 bytes
    const Case cases[] = {
        {"GET / HTTP/1.1\nHost: h\r\n\r\n", 14, "request line ends in a bare LF"},
        {"GET /\r HTTP/1.1\r\n\r\n", 6, "bare CR"},
        {"GET /\0 HTTP/1.1\r\n\r\n"s, 5, "control byte 0x00"},
        {"GET /\t HTTP/1.1\r\n\r\n", 5, "control byte 0x09"},
        {line + "Transfer-Encoding: chunked\nX: X\r\n\r\n", 17 + 26, "bare LF"},
        {line + "Host: h\r\n\n", 17 + 9, "bare LF"},
        {line + "Host: h\rX: y\r\n\r\n", 17 + 8, "bare CR"},
        {line + "Host: h\r\n\rX", 17 + 10, "bare CR"},
        {line + "NoColon\r\n\r\n", 17 + 7, "no colon"},
        {line + "NoColon\n\r\n", 17 + 7, "no colon"},
        {line + ": empty name\r\n\r\n", 17, "empty field name"},
        {line + "Transfer-Encoding : chunked\r\n\r\n", 17 + 17, "between a header name and"},
        {line + "Host\t: h\r\n\r\n", 17 + 4, "between a header name and"},
        {line + "X-A: 1\r\n folded\r\n\r\n", 17 + 8, "obs-fold"},
        {line + "X-A: 1\r\n\tfolded\r\n\r\n", 17 + 8, "obs-fold"},
        {line + " Host: h\r\n\r\n", 17, "obs-fold"},
        {line + "X(A): 1\r\n\r\n", 17 + 1, "0x28"},
        {line + "X\0A: 1\r\n\r\n"s, 17 + 1, "0x00"},
        {line + "\x01X: 1\r\n\r\n", 17, "0x01"},
        {line + "X\xc3\xa9: 1\r\n\r\n", 17 + 1, "0xC3"},
        {line + "X: a\0b\r\n\r\n"s, 17 + 4, "control byte 0x00"},
        {line + "X: a\x7f\r\n\r\n", 17 + 4, "control byte 0x7F"},
        {line + "X: a\x1b[2J\r\n\r\n", 17 + 4, "control byte 0x1B"},
    };
    for (const Case& each : cases) {
        CAPTURE(each.head);
        const HeadVerdict verdict = judge_head(each.head);
        CHECK_FALSE(verdict.complete);
        CHECK(verdict.taken == each.wrong_byte + 1);
        CHECK(verdict.refusal.find(each.reason) != std::string::npos);
        CHECK(verdict.refusal.find("(byte " + std::to_string(each.wrong_byte) + " ") !=
              std::string::npos);
    }
}

TEST_CASE("a refused head stays refused; reset starts the next request") {
    HeadSyntax syntax;
    for (const char byte : "GET / HTTP/1.1\r\nHost: h\r\n\r"s)
        REQUIRE_FALSE(syntax.take(byte));
    const auto refusal = syntax.take('X');
    REQUIRE(refusal);
    CHECK(syntax.take('\n') == refusal);
    CHECK_FALSE(syntax.complete());
    syntax.reset();
    for (const char byte : "GET / HTTP/1.1\r\n\r\n"s)
        REQUIRE_FALSE(syntax.take(byte));
    CHECK(syntax.complete());
    CHECK(syntax.past_request_line());
}
