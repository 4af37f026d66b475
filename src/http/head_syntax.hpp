// The syntax of a request's head (request line and header lines) checked byte by byte as the
// bytes arrive, before cpp-httplib parses them. cpp-httplib 0.11 silently skips a header line
// that ends in a bare LF or has no colon, so "Transfer-Encoding: chunked\nX: X" reached a
// handler framed by Content-Length, while a proxy that takes a bare LF for a line end would
// frame it as chunked: a request-smuggling desync. RFC 9112 2.2, 5.1 and 5.2 make each of
// these a message to refuse with 400, and so this does, naming the first byte that is wrong.
#pragma once

#include <cstddef>
#include <optional>
#include <string>

namespace hostprobe::http {

// RFC 9110 5.6.2: a tchar, the bytes a method or a header name is made of.
bool is_token_char(unsigned char byte);

class HeadSyntax {
  public:
    // Reads one more byte of the head. Nothing while the head is well formed so far; once it
    // is not, why (and every later byte gets the same answer).
    std::optional<std::string> take(char byte);
    // Whether the request line, its CRLF included, has been read.
    bool past_request_line() const {
        return state_ != State::request_line && state_ != State::request_line_cr;
    }
    // Whether the blank line that ends the head has been read.
    bool complete() const { return state_ == State::complete; }
    // Back to the start of a request line, for the next request on the connection.
    void reset();

  private:
    enum class State {
        request_line,
        request_line_cr,
        line_start,  // the first byte of a header line, or of the blank line
        name,
        value,
        value_cr,
        blank_cr,
        complete,
        refused,
    };

    std::optional<std::string> refuse(std::string reason);

    State state_ = State::request_line;
    size_t position_ = 0;  // of the byte being read, from the head's first byte
    std::string reason_;
};

}  // namespace hostprobe::http
