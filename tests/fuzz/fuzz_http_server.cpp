// The real HTTP edge: HttpServer (cpp-httplib's parser, chunked decoding, our pre-routing
// limits and access checks, the error handler) on a loopback port, fed raw bytes over a socket.
// fuzz_http_api covers what the routes do with a request; this covers how a request gets there.
//
// The input is sent as it is, then the write side is shut, so the server always sees the end.
// Invariants: every answer is an HTTP/1.1 status line; none is a 500; no body over the limit
// (1 KiB here) ever reaches a handler, however it is framed (Content-Length, chunked, ...); no
// partial content is served and the answers stay small whatever the input asks (ranges once
// multiplied a 600-byte request into 151 MB); at most 5 answers per connection (keep-alive's
// bound, set to 5 here: the daemon's 100 would let pipelined requests legitimately outgrow the
// size bound); and no answer says both "Connection: close" and "Keep-Alive".
#include <arpa/inet.h>
#include <httplib.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <memory>
#include <nlohmann/json.hpp>
#include <regex>
#include <string>
#include <thread>
#include <vector>

#include "fuzz_support.hpp"
#include "http/http_server.hpp"
#include "http/router.hpp"
#include "probes/system/pipe_io.hpp"

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
        options.keep_alive_max_requests = 5;
        options.max_body_bytes = kMaxBodyBytes;
        options.max_header_bytes = 2048;
        options.request_timeout_seconds = 1;
        options.access.token = "fuzz-token";
        // libFuzzer's SIGALRM watchdog belongs on this thread; the server's threads (they
        // inherit this mask) run as in the agent, where every handled signal is blocked in them.
        sigset_t alarm;
        sigemptyset(&alarm);
        sigaddset(&alarm, SIGALRM);
        pthread_sigmask(SIG_BLOCK, &alarm, nullptr);
        auto* server = new http::HttpServer(options, router);  // lives as long as the process
        if (!server->bind()) fuzz::fail("bind", "cannot listen on 127.0.0.1");
        std::thread([server] { (void)server->serve(); }).detach();
        pthread_sigmask(SIG_UNBLOCK, &alarm, nullptr);
        return server->port();
    }();
    return port;
}

// libFuzzer's -timeout watchdog is a SIGALRM on this thread, so any call here can see EINTR (a
// connect it interrupted failed a CI run). An interrupted connect goes on in the background:
// wait until the socket says how it ended.
bool connect_through_interrupts(int fd, const sockaddr_in& address) {
    if (connect(fd, reinterpret_cast<const sockaddr*>(&address), sizeof address) == 0) return true;
    if (errno != EINTR) return false;
    pollfd writable{fd, POLLOUT, 0};
    while (poll(&writable, 1, -1) != 1) {
        if (errno != EINTR) return false;
    }
    int error = 0;
    socklen_t length = sizeof error;
    if (getsockopt(fd, SOL_SOCKET, SO_ERROR, &error, &length) != 0) return false;
    errno = error;
    return error == 0;
}

std::string receive_until_closed(int fd) {
    std::string answer;
    char buffer[8192];
    pollfd readable{fd, POLLIN, 0};
    for (;;) {
        const int ready = poll(&readable, 1, 5000);
        if (ready < 0 && errno == EINTR) continue;
        if (ready != 1) return answer;
        const ssize_t n = recv(fd, buffer, sizeof buffer, 0);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) return answer;
        answer.append(buffer, static_cast<size_t>(n));
    }
}

std::string exchange(int port, std::string_view request) {
    const int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_in address{};
    address.sin_family = AF_INET;
    address.sin_port = htons(static_cast<uint16_t>(port));
    inet_pton(AF_INET, "127.0.0.1", &address.sin_addr);
    if (!connect_through_interrupts(fd, address)) {
        const int error = errno;
        close(fd);
        fuzz::fail("connect", std::string("the server stopped accepting: ") + std::strerror(error));
    }
    // The server may answer and close before it has read everything: EPIPE is fine.
    (void)probes::send_all(fd, request.data(), request.size());
    shutdown(fd, SHUT_WR);
    std::string answer = receive_until_closed(fd);
    close(fd);
    return answer;
}

struct Answer {
    std::string head;  // status line and headers, without the blank line
    size_t body_bytes = 0;
};

// The answers one after another, each framed by its Content-Length (every answer of ours has
// one); parsing stops at anything else. Searching the text instead would take an echoed
// header value in a body ("... HTTP/1.1 500 ...") for an answer.
std::vector<Answer> split_answers(const std::string& text) {
    static const std::regex length("\r\nContent-Length: ([0-9]{1,9})\r\n",
                                   std::regex_constants::icase);
    std::vector<Answer> answers;
    size_t at = 0;
    while (at < text.size()) {
        const size_t end = text.find("\r\n\r\n", at);
        if (end == std::string::npos) break;
        Answer answer{text.substr(at, end - at), 0};
        std::smatch match;
        const std::string head_with_end = answer.head + "\r\n";
        // An answer to HEAD names a length but has no body: the next answer follows at once.
        const bool next_follows =
            end + 4 == text.size() || text.compare(end + 4, 9, "HTTP/1.1 ") == 0;
        const bool has_length = std::regex_search(head_with_end, match, length);
        if (!has_length && answer.head.rfind("HTTP/1.1 1", 0) != 0) break;
        if (has_length && !next_follows) answer.body_bytes = std::stoull(match[1].str());
        answers.push_back(answer);
        at = end + 4 + answer.body_bytes;
    }
    return answers;
}

void check_answer(const std::string& text) {
    static const std::regex status_line("^HTTP/1\\.1 [1-5][0-9][0-9] ");
    static const std::regex received("\"received_bytes\": ([0-9]+)");
    if (text.empty()) return;  // closed without an answer: a bad or cut-off request
    // Five answers of a few hundred bytes each; an amplified one is far larger.
    FUZZ_CHECK(text.size() < 64 * 1024, text.substr(0, 400));
    const std::vector<Answer> answers = split_answers(text);
    FUZZ_CHECK(!answers.empty(), text.substr(0, 400));
    size_t final_answers = 0;
    size_t framed_bytes = 0;
    for (const Answer& answer : answers) {
        const std::string& head = answer.head;
        framed_bytes += head.size() + 4 + answer.body_bytes;
        FUZZ_CHECK(std::regex_search(head, status_line, std::regex_constants::match_continuous),
                   head.substr(0, 200));
        if (head.rfind("HTTP/1.1 100 ", 0) == 0) continue;  // interim
        ++final_answers;
        FUZZ_CHECK(head.rfind("HTTP/1.1 500", 0) != 0, text.substr(0, 400));
        FUZZ_CHECK(head.rfind("HTTP/1.1 206", 0) != 0, head);
        FUZZ_CHECK(head.find("multipart/byteranges") == std::string::npos, head);
        const bool closes = head.find("\r\nConnection: close") != std::string::npos;
        FUZZ_CHECK(!(closes && head.find("\r\nKeep-Alive") != std::string::npos), head);
    }
    FUZZ_CHECK(framed_bytes == text.size(), text.substr(0, 400));  // nothing unframed
    FUZZ_CHECK(final_answers <= 5, text.substr(0, 400));
    for (auto it = std::sregex_iterator(text.begin(), text.end(), received);
         it != std::sregex_iterator(); ++it) {
        FUZZ_CHECK(std::stoull((*it)[1].str()) <= kMaxBodyBytes, text.substr(0, 400));
    }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    check_answer(exchange(server_port(), fuzz::as_text(data, size)));
    return 0;
}
