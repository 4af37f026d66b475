// The limits on what one caller can make the agent do, against the real daemon.
#include <arpa/inet.h>
#include <doctest/doctest.h>
#include <httplib.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <string>

#include "support/daemon.hpp"
#include "support/loopback.hpp"

using namespace hostprobe::testing;
using namespace std::chrono_literals;

namespace {

// What arrives within `deadline`: "" when nothing did, "<closed>" when the peer closed first.
std::string read_within(int fd, std::chrono::milliseconds deadline) {
    pollfd ready{fd, POLLIN, 0};
    if (poll(&ready, 1, static_cast<int>(deadline.count())) <= 0) return "";
    char buffer[4096];
    const ssize_t got = read(fd, buffer, sizeof buffer);
    return got <= 0 ? "<closed>" : std::string(buffer, static_cast<size_t>(got));
}

// Everything until the peer closes, or what came before `deadline`.
std::string read_until_closed(int fd, std::chrono::milliseconds deadline) {
    std::string all;
    const auto end = std::chrono::steady_clock::now() + deadline;
    while (true) {
        const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
            end - std::chrono::steady_clock::now());
        pollfd ready{fd, POLLIN, 0};
        if (left.count() <= 0 || poll(&ready, 1, static_cast<int>(left.count())) <= 0) return all;
        char buffer[4096];
        const ssize_t got = read(fd, buffer, sizeof buffer);
        if (got <= 0) return all + "<closed>";
        all.append(buffer, static_cast<size_t>(got));
    }
}

const std::string kRun = R"({"probe": "cpu"})";

}  // namespace

TEST_CASE("bodies and header blocks over the limits get 413 and 431") {
    Daemon daemon({"--max-body-bytes", "2k", "--max-header-bytes", "2k"});
    auto client = daemon.client();
    auto big_body = client.Post("/v1/runs", std::string(3000, ' ') + kRun, "application/json");
    REQUIRE(big_body);
    CHECK(big_body->status == 413);
    httplib::Headers many;
    for (int i = 0; i < 40; ++i)
        many.emplace("X-Filler-" + std::to_string(i), std::string(60, 'x'));
    auto big_headers = client.Get("/v1/host", many);
    REQUIRE(big_headers);
    CHECK(big_headers->status == 431);
    CHECK(client.Get("/v1/host")->status == 200);
    CHECK(run_to_end(binary(), {"serve", "--max-body-bytes", "1"}).status.code == 2);
    CHECK(run_to_end(binary(), {"serve", "--request-timeout", "0"}).status.code == 2);
}

TEST_CASE("a chunked body (which the body limit cannot bound) is refused with 411 unread") {
    Daemon daemon({"--max-body-bytes", "2k"});
    const int fd = connect_to_loopback(daemon.port);
    send_all(fd,
             "POST /v1/runs HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
             "Transfer-Encoding: chunked\r\n\r\n");
    const std::string answer = read_until_closed(fd, 10s);
    close(fd);
    CHECK(answer.rfind("HTTP/1.1 411", 0) == 0);
    CHECK(answer.find("Content-Length") != std::string::npos);
    CHECK(answer.find("HTTP/1.1", 1) == std::string::npos);  // one answer, then closed
    CHECK(answer.size() >= 8);
    CHECK(answer.substr(answer.size() - 8) == "<closed>");
    CHECK(daemon.client().Get("/v1/runs")->body.find("\"cpu\"") == std::string::npos);
}

TEST_CASE("a POST to /healthz from an untrusted peer is refused before its body is read") {
    Daemon daemon({"--trusted-peers", "10.0.0.0/8"});
    auto client = daemon.client();
    CHECK(client.Get("/healthz")->status == 200);
    auto posted = client.Post("/healthz", std::string(1000, 'x'), "application/json");
    REQUIRE(posted);
    CHECK(posted->status == 403);
}

TEST_CASE("a client that stalls mid-request is cut off after --request-timeout") {
    Daemon daemon({"--request-timeout", "1"});
    const int fd = connect_to_loopback(daemon.port);
    send_all(fd, "GET /v1/host HTTP/1.1\r\nHost: 127.0.0.1\r\n");  // and never the blank line
    const auto start = std::chrono::steady_clock::now();
    const std::string answer = read_within(fd, 10s);
    const auto waited = std::chrono::steady_clock::now() - start;
    close(fd);
    CHECK((answer == "<closed>" || answer.rfind("HTTP/1.1 4", 0) == 0));
    CHECK(waited < 5s);
}

TEST_CASE("runs per client per minute: 429 with Retry-After past the limit") {
    Daemon daemon({"--max-runs-per-minute", "2"});
    auto client = daemon.client();
    CHECK(client.Post("/v1/runs", kRun, "application/json")->status == 202);
    CHECK(client.Post("/v1/runs", kRun, "application/json")->status == 202);
    auto limited = client.Post("/v1/runs", kRun, "application/json");
    REQUIRE(limited);
    CHECK(limited->status == 429);
    CHECK(std::stoi(limited->get_header_value("Retry-After")) >= 1);
    CHECK(limited->body.find("--max-runs-per-minute") != std::string::npos);
    CHECK(client.Get("/v1/runs")->status == 200);  // reads are not counted
}

TEST_CASE("past --max-connections, a new connection waits for a slot") {
    Daemon daemon({"--max-connections", "1", "--request-timeout", "30"});
    const int holder = connect_to_loopback(daemon.port);  // takes the only slot and sends nothing
    const int waiter = connect_to_loopback(daemon.port);
    send_all(waiter, "GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n");
    CHECK(read_within(waiter, 300ms).empty());  // not served while the slot is held
    close(holder);
    CHECK(read_within(waiter, 10s).rfind("HTTP/1.1 200", 0) == 0);
    close(waiter);
}
