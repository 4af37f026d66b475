// Sends raw bytes to a server on 127.0.0.1 and reads what comes back, for hostile requests that
// httplib's client will not send (duplicate headers, pipelining, half-close, odd bytes).
#pragma once

#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <string>
#include <string_view>
#include <vector>

#include "support/loopback.hpp"

namespace hostprobe::testing {

// Everything the server sends until it closes or `quiet` passes with nothing new (bounded by
// `limit` bytes so that an amplifying answer cannot exhaust the test's memory).
inline std::string read_until_quiet(int fd, std::chrono::milliseconds quiet,
                                    size_t limit = 64 * 1024 * 1024) {
    std::string received;
    char buffer[65536];
    while (received.size() < limit) {
        pollfd ready{fd, POLLIN, 0};
        const int polled = poll(&ready, 1, static_cast<int>(quiet.count()));
        if (polled <= 0) break;
        const ssize_t n = recv(fd, buffer, sizeof buffer, 0);
        if (n <= 0) break;
        received.append(buffer, static_cast<size_t>(n));
    }
    return received;
}

// One connection: send `request`, optionally half-close (like `nc -N`), read the answer.
inline std::string raw_exchange(int port, std::string_view request, bool half_close = false,
                                std::chrono::milliseconds quiet = std::chrono::seconds(3)) {
    const int fd = connect_to_loopback(port);
    send_all(fd, request);
    if (half_close) shutdown(fd, SHUT_WR);
    std::string response = read_until_quiet(fd, quiet);
    close(fd);
    return response;
}

// The status codes of every response in `text`, in order ("HTTP/1.1 200 OK" -> 200).
inline std::vector<int> status_codes(std::string_view text) {
    std::vector<int> codes;
    size_t at = 0;
    while ((at = text.find("HTTP/1.1 ", at)) != std::string_view::npos) {
        codes.push_back(std::stoi(std::string(text.substr(at + 9, 3))));
        at += 12;
    }
    return codes;
}

// JSON nested `depth` arrays deep ("[[[]]]" for 3): the depth bomb every JSON reader must bound.
inline std::string nested_arrays(size_t depth) {
    return std::string(depth, '[') + std::string(depth, ']');
}

}  // namespace hostprobe::testing
