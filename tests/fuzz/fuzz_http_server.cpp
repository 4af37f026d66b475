// The real HTTP edge: HttpServer (cpp-httplib's parser, chunked decoding, our pre-routing
// limits and access checks, the error handler) on a loopback port, fed raw bytes over a socket.
// fuzz_http_api covers what the routes do with a request; this covers how a request gets there.
//
// The input is sent as it is, then the write side is shut, so the server always sees the end.
// Invariants: every answer is an HTTP/1.1 status line; none is a 500; and no body over the
// limit (1 KiB here) ever reaches a handler, however it is framed (Content-Length, chunked, ...).
#include <arpa/inet.h>
#include <httplib.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <memory>
#include <nlohmann/json.hpp>
#include <regex>
#include <string>
#include <thread>

#include "fuzz_support.hpp"
#include "http/http_server.hpp"
#include "http/router.hpp"

using namespace hostprobe;

namespace {

constexpr size_t kMaxBodyBytes = 1024;

// Started once and never stopped: inputs share it as a daemon's clients do.
int server_port() {
    static const int port = [] {
        auto router = std::make_shared<http::Router>();
        router->add("GET", "/healthz", "health",
                    [](const http::RouteRequest&) -> Result<http::Reply> {
                        return http::Reply::json({{"status", "ok"}});
                    });
        // What a handler received: the body that got through the limits.
        router->add("POST", "/echo", "body size",
                    [](const http::RouteRequest& request) -> Result<http::Reply> {
                        return http::Reply::json({{"received_bytes", request.http.body.size()}});
                    });
        http::ServerOptions options;
        options.address = {"127.0.0.1", 0};
        options.threads = 2;
        options.max_body_bytes = kMaxBodyBytes;
        options.max_header_bytes = 2048;
        options.request_timeout_seconds = 1;
        options.access.token = "fuzz-token";
        auto* server = new http::HttpServer(options, router);  // lives as long as the process
        if (!server->bind()) fuzz::fail("bind", "cannot listen on 127.0.0.1");
        std::thread([server] { (void)server->serve(); }).detach();
        return server->port();
    }();
    return port;
}

std::string exchange(int port, std::string_view request) {
    const int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_in address{};
    address.sin_family = AF_INET;
    address.sin_port = htons(static_cast<uint16_t>(port));
    inet_pton(AF_INET, "127.0.0.1", &address.sin_addr);
    if (connect(fd, reinterpret_cast<sockaddr*>(&address), sizeof address) != 0) {
        close(fd);
        fuzz::fail("connect", "the server stopped accepting");
    }
    // The server may answer and close before it has read everything: EPIPE is fine.
    for (size_t sent = 0; sent < request.size();) {
        const ssize_t n = send(fd, request.data() + sent, request.size() - sent, MSG_NOSIGNAL);
        if (n <= 0) break;
        sent += static_cast<size_t>(n);
    }
    shutdown(fd, SHUT_WR);
    std::string answer;
    char buffer[8192];
    pollfd ready{fd, POLLIN, 0};
    while (poll(&ready, 1, 5000) == 1) {
        const ssize_t n = recv(fd, buffer, sizeof buffer, 0);
        if (n <= 0) break;
        answer.append(buffer, static_cast<size_t>(n));
    }
    close(fd);
    return answer;
}

void check_answer(const std::string& answer) {
    static const std::regex status_line("^HTTP/1\\.1 [1-5][0-9][0-9] ");
    static const std::regex received("\"received_bytes\": ([0-9]+)");
    if (answer.empty()) return;  // closed without an answer: a bad or cut-off request
    FUZZ_CHECK(std::regex_search(answer, status_line, std::regex_constants::match_continuous),
               answer.substr(0, 200));
    FUZZ_CHECK(answer.find("HTTP/1.1 500") == std::string::npos, answer.substr(0, 400));
    for (auto it = std::sregex_iterator(answer.begin(), answer.end(), received);
         it != std::sregex_iterator(); ++it) {
        FUZZ_CHECK(std::stoull((*it)[1].str()) <= kMaxBodyBytes, answer.substr(0, 400));
    }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    check_answer(exchange(server_port(), fuzz::as_text(data, size)));
    return 0;
}
