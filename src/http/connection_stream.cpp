#include "http/connection_stream.hpp"

#include <netdb.h>
#include <sys/socket.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <string_view>

#include "core/strings.hpp"
#include "http/reply.hpp"
#include "http/security_headers.hpp"

namespace hostprobe::http {

namespace {

using Clock = std::chrono::steady_clock;

bool address_text(const sockaddr_storage& address, socklen_t length, std::string& ip, int& port) {
    if (address.ss_family == AF_INET) {
        port = ntohs(reinterpret_cast<const sockaddr_in&>(address).sin_port);
    } else if (address.ss_family == AF_INET6) {
        port = ntohs(reinterpret_cast<const sockaddr_in6&>(address).sin6_port);
    } else {
        return false;
    }
    char text[NI_MAXHOST] = {};
    if (getnameinfo(reinterpret_cast<const sockaddr*>(&address), length, text, sizeof text, nullptr,
                    0, NI_NUMERICHOST) != 0) {
        return false;
    }
    ip = text;
    return true;
}

const char* status_text(int status) {
    switch (status) {
        case 400: return "Bad Request";
        case 408: return "Request Timeout";
        case 414: return "URI Too Long";
        case 431: return "Request Header Fields Too Large";
        default: return "Error";
    }
}

// Whether a response head says "Connection: close" (cpp-httplib writes the head in one go).
bool head_closes_connection(std::string_view head) {
    const size_t end = head.find("\r\n\r\n");
    head = head.substr(0, end);
    size_t at = head.find("\r\n");
    while (at != std::string_view::npos) {
        const size_t next = head.find("\r\n", at + 2);
        const std::string_view line = head.substr(
            at + 2, next == std::string_view::npos ? std::string_view::npos : next - at - 2);
        const size_t colon = line.find(':');
        if (colon != std::string_view::npos &&
            to_lower(std::string(line.substr(0, colon))) == "connection" &&
            to_lower(std::string(trim(line.substr(colon + 1)))) == "close") {
            return true;
        }
        at = next;
    }
    return false;
}

}  // namespace

ConnectionStream::ConnectionStream(std::unique_ptr<Transport> transport, StreamLimits limits)
    : transport_(std::move(transport)), limits_(limits) {}

bool ConnectionStream::wait_for_request(std::chrono::milliseconds idle) {
    if (refused_) return false;
    if (begin_ < end_ || transport_->has_buffered_input()) return true;
    return transport_->wait_readable(Clock::now() + idle);
}

void ConnectionStream::begin_request() {
    phase_ = Phase::request_line;
    request_deadline_ = Clock::now() + limits_.request_timeout;
    line_bytes_ = 0;
    header_bytes_ = 0;
    head_syntax_.reset();
    answer_closes_ = false;
}

bool ConnectionStream::is_readable() const {
    if (refused_) return false;
    if (begin_ < end_ || transport_->has_buffered_input()) return true;
    return transport_->wait_readable(phase_ == Phase::answer ? Clock::now() + limits_.write_timeout
                                                             : request_deadline_);
}

bool ConnectionStream::is_writable() const {
    // No peek for liveness (cpp-httplib's own check): a peer that half-closed after sending
    // its request still reads the answer.
    return !refused_ && transport_->wait_writable(Clock::now() + limits_.write_timeout);
}

ssize_t ConnectionStream::fill() {
    const Deadline deadline =
        phase_ == Phase::answer ? Clock::now() + limits_.write_timeout : request_deadline_;
    const IoResult received = transport_->receive(buffer_.data(), buffer_.size(), deadline);
    if (received.bytes > 0) {
        begin_ = 0;
        end_ = static_cast<size_t>(received.bytes);
        return received.bytes;
    }
    if (received.timed_out && phase_ != Phase::answer) {
        char seconds[32];
        std::snprintf(seconds, sizeof seconds, "%g", limits_.request_timeout.count() / 1000.0);
        refuse(408, std::string("the request did not arrive whole within ") + seconds +
                        " s (--request-timeout)");
    }
    return received.bytes;
}

ssize_t ConnectionStream::read(char* data, size_t size) {
    if (refused_) return -1;
    if (begin_ == end_) {
        const ssize_t filled = fill();
        if (filled <= 0) return refused_ ? -1 : filled;  // 0: the peer ended its side
    }
    const size_t count = std::min(size, end_ - begin_);
    std::memcpy(data, buffer_.data() + begin_, count);
    begin_ += count;
    watch_head(data, count);
    return refused_ ? -1 : static_cast<ssize_t>(count);
}

// Follows the request line and the header lines as cpp-httplib reads them, counting them
// against their bounds and checking their syntax, until the blank line that ends the head.
void ConnectionStream::watch_head(const char* data, size_t size) {
    for (size_t i = 0; i < size && !refused_; ++i) {
        if (phase_ == Phase::request_line) {
            if (++line_bytes_ > limits_.max_request_line_bytes) {
                refuse(414, "the request line is over " +
                                std::to_string(limits_.max_request_line_bytes) + " bytes");
                return;
            }
        } else if (phase_ == Phase::headers) {
            if (++header_bytes_ > limits_.max_header_bytes + 2) {  // + the blank line
                refuse(431, "the request's headers are over " +
                                std::to_string(limits_.max_header_bytes) + " bytes");
                return;
            }
        } else {
            return;  // the body, or an answer: not the head's bytes
        }
        if (auto malformed = head_syntax_.take(data[i])) {
            refuse(400, *malformed);
            return;
        }
        if (head_syntax_.complete()) {
            phase_ = Phase::body;
        } else if (head_syntax_.past_request_line()) {
            phase_ = Phase::headers;
        }
    }
}

void ConnectionStream::refuse(int status, const std::string& message) {
    refused_ = true;
    const Reply reply = error_reply(status, message);
    std::string answer = "HTTP/1.1 " + std::to_string(status) + " " + status_text(status) +
                         "\r\nConnection: close\r\nContent-Type: " + reply.content_type +
                         "\r\nContent-Length: " + std::to_string(reply.body.size()) + "\r\n";
    for (const auto& [name, value] : kSecurityHeaders)  // as on every other answer
        answer.append(name).append(": ").append(value).append("\r\n");
    answer += "\r\n" + reply.body;
    transport_->send(answer.data(), answer.size(), Clock::now() + limits_.write_timeout);
}

void ConnectionStream::note_answer_head(const char* data, size_t size) {
    const std::string_view text(data, size);
    // An interim "100 Continue" is followed by the body, not by the end of the request.
    if (text.rfind("HTTP/1.1 1", 0) == 0) return;
    phase_ = Phase::answer;
    answer_closes_ = head_closes_connection(text);
}

ssize_t ConnectionStream::write(const char* data, size_t size) {
    // After the stream answered on its own, cpp-httplib's answer goes nowhere.
    if (refused_) return static_cast<ssize_t>(size);
    if (phase_ != Phase::answer) note_answer_head(data, size);
    const IoResult sent = transport_->send(data, size, Clock::now() + limits_.write_timeout);
    return sent.bytes;
}

void ConnectionStream::get_remote_ip_and_port(std::string& ip, int& port) const {
    sockaddr_storage address{};
    socklen_t length = sizeof address;
    if (getpeername(transport_->fd(), reinterpret_cast<sockaddr*>(&address), &length) == 0)
        address_text(address, length, ip, port);
}

void ConnectionStream::get_local_ip_and_port(std::string& ip, int& port) const {
    sockaddr_storage address{};
    socklen_t length = sizeof address;
    if (getsockname(transport_->fd(), reinterpret_cast<sockaddr*>(&address), &length) == 0)
        address_text(address, length, ip, port);
}

socket_t ConnectionStream::socket() const {
    return transport_->fd();
}

}  // namespace hostprobe::http
