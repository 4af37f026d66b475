#include "http/connection_closer.hpp"

#include <arpa/inet.h>
#include <doctest/doctest.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <initializer_list>
#include <utility>

#include "support/loopback.hpp"

using namespace hostprobe::http;

namespace {

struct Listener {
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    int port = 0;
    Listener() {
        sockaddr_in address{};
        address.sin_family = AF_INET;
        inet_pton(AF_INET, "127.0.0.1", &address.sin_addr);
        REQUIRE(bind(fd, reinterpret_cast<sockaddr*>(&address), sizeof address) == 0);
        REQUIRE(listen(fd, 4) == 0);
        socklen_t length = sizeof address;
        getsockname(fd, reinterpret_cast<sockaddr*>(&address), &length);
        port = ntohs(address.sin_port);
    }
    ~Listener() { close(fd); }
    // (client side, server side) of a new connection.
    std::pair<int, int> connection() const {
        const int client = hostprobe::testing::connect_to_loopback(port);
        const int served = accept(fd, nullptr, nullptr);
        REQUIRE(served >= 0);
        return {client, served};
    }
};

// Whether a read on `fd` would return at once (data, end of stream or an error).
bool readable_now(int fd) {
    pollfd ready{fd, POLLIN, 0};
    return poll(&ready, 1, 0) == 1;
}

}  // namespace

TEST_CASE("only the accepted connections of the given port are shut down") {
    Listener ours;
    Listener other;
    auto [client, served] = ours.connection();
    auto [other_client, other_served] = other.connection();
    CHECK_FALSE(readable_now(served));

    CHECK(shut_down_connections_on_port(ours.port) == 1);
    CHECK(readable_now(served));  // a blocked read would have returned
    char byte = 0;
    CHECK(read(served, &byte, 1) == 0);
    CHECK(read(client, &byte, 1) == 0);  // the peer sees the end too
    CHECK_FALSE(readable_now(other_served));
    CHECK_FALSE(readable_now(other_client));
    // The listening socket still accepts: it is not a connection.
    auto [late_client, late_served] = ours.connection();
    CHECK_FALSE(readable_now(late_served));
    for (int fd : {client, served, other_client, other_served, late_client, late_served})
        close(fd);
}
