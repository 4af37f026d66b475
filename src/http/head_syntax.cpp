#include "http/head_syntax.hpp"

#include <cstdio>
#include <string_view>

namespace hostprobe::http {

namespace {

// RFC 5234 B.1: CTL, the control bytes; HTAB is one, but field values may hold it.
bool is_control(unsigned char byte) {
    return byte < 0x20 || byte == 0x7f;
}

std::string byte_name(unsigned char byte) {
    char text[8];
    std::snprintf(text, sizeof text, "0x%02X", byte);
    return text;
}

}  // namespace

bool is_token_char(unsigned char byte) {
    return (byte >= '0' && byte <= '9') || (byte >= 'a' && byte <= 'z') ||
           (byte >= 'A' && byte <= 'Z') ||
           (byte != 0 && std::string_view("!#$%&'*+-.^_`|~").find(static_cast<char>(byte)) !=
                             std::string_view::npos);
}

void HeadSyntax::reset() {
    state_ = State::request_line;
    position_ = 0;
    reason_.clear();
}

std::optional<std::string> HeadSyntax::refuse(std::string reason) {
    state_ = State::refused;
    reason_ = std::move(reason) + " (byte " + std::to_string(position_) + " of the request)";
    return reason_;
}

std::optional<std::string> HeadSyntax::take(char signed_byte) {
    const auto byte = static_cast<unsigned char>(signed_byte);
    const bool is_cr = byte == '\r';
    const bool is_lf = byte == '\n';
    const bool is_blank = byte == ' ' || byte == '\t';
    std::optional<std::string> verdict;
    switch (state_) {
        case State::request_line:
            if (is_cr) {
                state_ = State::request_line_cr;
            } else if (is_lf) {
                verdict = refuse(
                    "the request line ends in a bare LF; lines end with CRLF "
                    "(RFC 9112 2.2)");
            } else if (is_control(byte)) {
                verdict = refuse("the request line holds the control byte " + byte_name(byte) +
                                 " (RFC 9112 3)");
            }
            break;
        case State::request_line_cr:
        case State::value_cr:
            if (is_lf) {
                state_ = State::line_start;
            } else {
                verdict = refuse("a bare CR not followed by LF (RFC 9112 2.2)");
            }
            break;
        case State::line_start:
            if (is_cr) {
                state_ = State::blank_cr;
            } else if (is_blank) {
                verdict = refuse(
                    "a header line starts with whitespace: line folding (obs-fold) "
                    "is not accepted (RFC 9112 5.2)");
            } else if (byte == ':') {
                verdict = refuse("a header line has an empty field name (RFC 9112 5.1)");
            } else if (is_token_char(byte)) {
                state_ = State::name;
            } else if (is_lf) {
                verdict = refuse(
                    "a bare LF where a header line should start; lines end with "
                    "CRLF (RFC 9112 2.2)");
            } else {
                verdict = refuse("a header name holds the byte " + byte_name(byte) +
                                 ", which is not a token character (RFC 9110 5.1)");
            }
            break;
        case State::name:
            if (byte == ':') {
                state_ = State::value;
            } else if (is_blank) {
                verdict = refuse("whitespace between a header name and its colon (RFC 9112 5.1)");
            } else if (is_cr || is_lf) {
                verdict = refuse("a header line has no colon (RFC 9112 5)");
            } else if (!is_token_char(byte)) {
                verdict = refuse("a header name holds the byte " + byte_name(byte) +
                                 ", which is not a token character (RFC 9110 5.1)");
            }
            break;
        case State::value:
            if (is_cr) {
                state_ = State::value_cr;
            } else if (is_lf) {
                verdict = refuse(
                    "a header line ends in a bare LF; lines end with CRLF "
                    "(RFC 9112 2.2)");
            } else if (is_control(byte) && byte != '\t') {
                verdict = refuse("a header value holds the control byte " + byte_name(byte) +
                                 " (RFC 9110 5.5)");
            }
            break;
        case State::blank_cr:
            if (is_lf) {
                state_ = State::complete;
            } else {
                verdict = refuse("a bare CR not followed by LF (RFC 9112 2.2)");
            }
            break;
        case State::complete: break;
        case State::refused: verdict = reason_; break;
    }
    ++position_;
    return verdict;
}

}  // namespace hostprobe::http
