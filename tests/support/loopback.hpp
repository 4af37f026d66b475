// Raw TCP clients of a server on 127.0.0.1, for requests httplib's client will not send (half a
// request, a trickle, a chunked body without end).
#pragma once

#include <arpa/inet.h>
#include <doctest/doctest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <string_view>

namespace hostprobe::testing {

inline int connect_to_loopback(int port) {
    const int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_in server{};
    server.sin_family = AF_INET;
    server.sin_port = htons(static_cast<uint16_t>(port));
    inet_pton(AF_INET, "127.0.0.1", &server.sin_addr);
    REQUIRE(connect(fd, reinterpret_cast<sockaddr*>(&server), sizeof server) == 0);
    return fd;
}

inline void send_all(int fd, std::string_view text) {
    REQUIRE(send(fd, text.data(), text.size(), MSG_NOSIGNAL) == static_cast<ssize_t>(text.size()));
}

}  // namespace hostprobe::testing
