#include "http/connection_stream.hpp"

#include <doctest/doctest.h>
#include <sys/socket.h>
#include <unistd.h>

#include <string>

using namespace hostprobe::http;
using namespace std::chrono_literals;

namespace {

// A stream over one end of a socket pair; the test writes and reads the other end.
struct Pair {
    explicit Pair(StreamLimits limits = {}) {
        int ends[2];
        REQUIRE(socketpair(AF_UNIX, SOCK_STREAM, 0, ends) == 0);
        peer = ends[1];
        stream =
            std::make_unique<ConnectionStream>(std::make_unique<PlainTransport>(ends[0]), limits);
    }
    ~Pair() { close(peer); }
    void send(const std::string& text) const {
        REQUIRE(::send(peer, text.data(), text.size(), 0) == static_cast<ssize_t>(text.size()));
    }
    std::string received() const {
        std::string text;
        char buffer[4096];
        ssize_t n;
        while ((n = recv(peer, buffer, sizeof buffer, MSG_DONTWAIT)) > 0)
            text.append(buffer, static_cast<size_t>(n));
        return text;
    }
    // What cpp-httplib does with a head: one byte at a time until the blank line.
    std::string read_head() const {
        std::string head;
        char byte;
        while (head.size() < 4 || head.substr(head.size() - 4) != "\r\n\r\n") {
            if (stream->read(&byte, 1) != 1) break;
            head += byte;
        }
        return head;
    }
    int peer = -1;
    std::unique_ptr<ConnectionStream> stream;
};

}  // namespace

TEST_CASE("bytes of a pipelined request stay buffered for the next request") {
    Pair pair;
    pair.send("GET /a HTTP/1.1\r\nHost: h\r\n\r\nGET /b HTTP/1.1\r\nHost: h\r\n\r\n");
    REQUIRE(pair.stream->wait_for_request(1s));
    pair.stream->begin_request();
    CHECK(pair.read_head() == "GET /a HTTP/1.1\r\nHost: h\r\n\r\n");
    CHECK(pair.stream->write("HTTP/1.1 200 OK\r\n\r\n", 19) == 19);
    CHECK_FALSE(pair.stream->must_close());
    // Nothing more arrives on the socket, yet the second request is there at once.
    CHECK(pair.stream->wait_for_request(0ms));
    pair.stream->begin_request();
    CHECK(pair.read_head() == "GET /b HTTP/1.1\r\nHost: h\r\n\r\n");
}

TEST_CASE("a half-closed peer is still writable, and its end reads as 0") {
    Pair pair;
    pair.send("GET / HTTP/1.1\r\n\r\n");
    shutdown(pair.peer, SHUT_WR);
    pair.stream->begin_request();
    CHECK(pair.read_head() == "GET / HTTP/1.1\r\n\r\n");
    CHECK(pair.stream->is_writable());
    CHECK(pair.stream->write("HTTP/1.1 200 OK\r\n\r\n", 19) == 19);
    char byte;
    CHECK(pair.stream->read(&byte, 1) == 0);
    CHECK(pair.received() == "HTTP/1.1 200 OK\r\n\r\n");
}

TEST_CASE("past the header limit the stream answers 431 itself and swallows the rest") {
    StreamLimits limits;
    limits.max_header_bytes = 64;
    Pair pair(limits);
    pair.stream->begin_request();
    pair.send("GET / HTTP/1.1\r\n" + std::string("X: ") + std::string(100, 'a') + "\r\n\r\n");
    pair.read_head();
    CHECK(pair.stream->must_close());
    const std::string answer = pair.received();
    CHECK(answer.rfind("HTTP/1.1 431", 0) == 0);
    CHECK(answer.find("Connection: close") != std::string::npos);
    CHECK(pair.stream->write("HTTP/1.1 400 Bad Request\r\n\r\n", 28) == 28);
    CHECK(pair.received().empty());  // cpp-httplib's own answer goes nowhere
}

TEST_CASE("exactly the header limit passes; the blank line does not count") {
    StreamLimits limits;
    limits.max_header_bytes = 10;
    Pair pair(limits);
    pair.stream->begin_request();
    pair.send("GET / HTTP/1.1\r\nX: 123456\r\n\r\n");  // "X: 123456\r\n" is 11 bytes
    pair.read_head();
    CHECK(pair.received().rfind("HTTP/1.1 431", 0) == 0);
    Pair exact(limits);
    exact.stream->begin_request();
    exact.send("GET / HTTP/1.1\r\nX: 12345\r\n\r\n");  // 10 bytes
    CHECK(exact.read_head() == "GET / HTTP/1.1\r\nX: 12345\r\n\r\n");
    CHECK_FALSE(exact.stream->must_close());
}

TEST_CASE("a request line over its limit is 414; a lone LF in the header block is 400") {
    StreamLimits limits;
    limits.max_request_line_bytes = 32;
    Pair pair(limits);
    pair.stream->begin_request();
    pair.send("GET /" + std::string(40, 'a') + " HTTP/1.1\r\n\r\n");
    pair.read_head();
    CHECK(pair.received().rfind("HTTP/1.1 414", 0) == 0);

    StreamLimits small;
    small.max_header_bytes = 16;
    Pair lone(small);
    lone.stream->begin_request();
    lone.send("GET / HTTP/1.1\r\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n");
    lone.read_head();
    CHECK(lone.received().rfind("HTTP/1.1 400", 0) == 0);  // at the first lone LF
}

TEST_CASE("a malformed head is answered 400 by the stream, which then reads no further") {
    // What cpp-httplib 0.11 skipped: a header line ending in a bare LF, so that Content-Length
    // framed a body a proxy would have read as chunked.
    Pair pair;
    pair.stream->begin_request();
    const std::string head =
        "POST / HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\nX: X\r\n"
        "Content-Length: 31\r\n\r\n";
    pair.send(head + "GET /next HTTP/1.1\r\nHost: h\r\n\r\n");
    CHECK(pair.read_head().size() < head.size());
    CHECK(pair.stream->must_close());
    CHECK_FALSE(pair.stream->wait_for_request(0ms));  // the body is no next request
    char byte;
    CHECK(pair.stream->read(&byte, 1) == -1);
    const std::string answer = pair.received();
    CHECK(answer.rfind("HTTP/1.1 400 Bad Request\r\n", 0) == 0);
    CHECK(answer.find("Connection: close") != std::string::npos);
    CHECK(answer.find("bare LF") != std::string::npos);
    CHECK(answer.find("(byte 52 of the request)") != std::string::npos);
    CHECK(pair.stream->write("HTTP/1.1 400 Bad Request\r\n\r\n", 28) == 28);
    CHECK(pair.received().empty());  // cpp-httplib's own answer goes nowhere
}

TEST_CASE("every request on a connection has its head checked from its first byte") {
    Pair pair;
    pair.send("GET /a HTTP/1.1\r\nHost: h\r\n\r\nGET /b HTTP/1.1\r\nHost: h\r\nNoColon\r\n\r\n");
    pair.stream->begin_request();
    CHECK(pair.read_head() == "GET /a HTTP/1.1\r\nHost: h\r\n\r\n");
    CHECK(pair.stream->write("HTTP/1.1 200 OK\r\n\r\n", 19) == 19);
    CHECK_FALSE(pair.stream->must_close());
    REQUIRE(pair.stream->wait_for_request(0ms));
    pair.stream->begin_request();
    pair.read_head();
    CHECK(pair.stream->must_close());
    const std::string answers = pair.received();
    CHECK(answers.find("HTTP/1.1 400 Bad Request") == 19);
    CHECK(answers.find("no colon") != std::string::npos);
}

TEST_CASE("a request that does not arrive whole in time is answered 408") {
    StreamLimits limits;
    limits.request_timeout = 200ms;
    Pair pair(limits);
    pair.stream->begin_request();
    pair.send("GET / HTTP/1.1\r\nHost:");
    pair.read_head();
    CHECK(pair.stream->must_close());
    CHECK(pair.received().rfind("HTTP/1.1 408", 0) == 0);
}

TEST_CASE("an answer that says Connection: close ends the connection; 100 Continue does not") {
    Pair pair;
    pair.stream->begin_request();
    pair.send("POST / HTTP/1.1\r\nContent-Length: 1\r\n\r\nx");
    pair.read_head();
    pair.stream->write("HTTP/1.1 100 Continue\r\n\r\n", 25);
    CHECK_FALSE(pair.stream->must_close());
    char byte;
    CHECK(pair.stream->read(&byte, 1) == 1);
    const std::string head = "HTTP/1.1 411 Length Required\r\nconnection: Close\r\n\r\n";
    pair.stream->write(head.data(), head.size());
    CHECK(pair.stream->must_close());
}
