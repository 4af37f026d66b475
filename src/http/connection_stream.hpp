// The byte stream of one HTTP connection as cpp-httplib reads and writes it, owned by us for
// the connection's whole life rather than one request's (cpp-httplib 0.11 made a new stream
// per request and lost whatever its buffer held: pipelined requests vanished; and it refused
// to answer a peer that had half-closed). It also bounds what cpp-httplib would not:
// the request line's and the header block's size (it reads lines of any length, and any
// number of them, before a handler sees one), and the time a whole request may take to
// arrive (a client trickling a byte every few seconds used to hold a thread for as long as
// it liked). Past a bound the stream answers 414, 431 or 408 itself and closes. And it checks
// the head's syntax (head_syntax.hpp) before cpp-httplib parses it, since cpp-httplib skips
// malformed header lines rather than refusing them: a malformed head is answered 400 the same
// way.
#pragma once

#include <httplib.h>

#include <array>
#include <chrono>
#include <memory>
#include <string>

#include "http/head_syntax.hpp"
#include "http/transport.hpp"

namespace hostprobe::http {

struct StreamLimits {
    size_t max_request_line_bytes = 8192 + 32;        // cpp-httplib's URI limit, method and version
    size_t max_header_bytes = 16 * 1024;              // every header line, line ends included
    std::chrono::milliseconds request_timeout{5000};  // first byte to last byte of a request
    std::chrono::milliseconds write_timeout{5000};    // each write of the answer
};

class ConnectionStream final : public httplib::Stream {
  public:
    ConnectionStream(std::unique_ptr<Transport> transport, StreamLimits limits);

    // Between requests: whether the next request has begun to arrive within `idle`. Bytes
    // left over from the previous read (a pipelined request) count at once.
    bool wait_for_request(std::chrono::milliseconds idle);
    // Starts a request's clock and counters; call before handing the stream to cpp-httplib.
    void begin_request();
    // The stream answered on its own (a bound was passed) or the answer said
    // "Connection: close": either way the connection must end after this request.
    bool must_close() const { return refused_ || answer_closes_; }

    bool is_readable() const override;
    bool is_writable() const override;
    ssize_t read(char* data, size_t size) override;
    ssize_t write(const char* data, size_t size) override;
    void get_remote_ip_and_port(std::string& ip, int& port) const override;
    void get_local_ip_and_port(std::string& ip, int& port) const override;
    socket_t socket() const override;

  private:
    enum class Phase { request_line, headers, body, answer };

    // Reads more into the empty buffer: bytes read, 0 at the peer's end, -1 on failure.
    ssize_t fill();
    void watch_head(const char* data, size_t size);
    void refuse(int status, const std::string& message);
    void note_answer_head(const char* data, size_t size);

    std::unique_ptr<Transport> transport_;
    StreamLimits limits_;
    std::array<char, 16 * 1024> buffer_{};
    size_t begin_ = 0;
    size_t end_ = 0;
    Phase phase_ = Phase::answer;
    Deadline request_deadline_{};
    size_t line_bytes_ = 0;    // the request line so far
    size_t header_bytes_ = 0;  // the header lines so far
    HeadSyntax head_syntax_;
    bool refused_ = false;
    bool answer_closes_ = false;
};

}  // namespace hostprobe::http
