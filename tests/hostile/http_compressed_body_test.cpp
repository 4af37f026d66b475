// Compressed request bodies (issue 26, item 1): --max-body-bytes counts the bytes on the wire,
// and cpp-httplib (built with zlib and brotli) inflated a Content-Encoding body whole before any
// handler could stop it: a 61 KB gzip body became 60 MB of JSON, 77 MB peak for one request,
// 497 MB for eight at once (an OOM kill of a 512 MiB task). A body is now taken only as sent:
// any content coding but identity is 415 before a byte of the body is read.
#include <doctest/doctest.h>
#include <sys/socket.h>
#include <unistd.h>
#include <zlib.h>

#include <chrono>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "support/daemon.hpp"
#include "support/eventually.hpp"
#include "support/raw_http.hpp"

using namespace hostprobe::testing;
using namespace std::chrono_literals;

namespace {

// 60 MB of JSON ({"probe": "cpu", "note": "aaa...a"}) compressed at zlib's best: with
// `window_bits` 31 a gzip member, with 15 a zlib stream ("deflate" in HTTP). About 60 KB.
std::string compressed_json_bomb(int window_bits) {
    z_stream stream{};
    REQUIRE(deflateInit2(&stream, Z_BEST_COMPRESSION, Z_DEFLATED, window_bits, 9,
                         Z_DEFAULT_STRATEGY) == Z_OK);
    std::string out;
    char buffer[65536];
    auto feed = [&](const std::string& text, int flush) {
        stream.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(text.data()));
        stream.avail_in = static_cast<uInt>(text.size());
        do {
            stream.next_out = reinterpret_cast<Bytef*>(buffer);
            stream.avail_out = sizeof buffer;
            REQUIRE(deflate(&stream, flush) != Z_STREAM_ERROR);
            out.append(buffer, sizeof buffer - stream.avail_out);
        } while (stream.avail_out == 0);
    };
    feed(R"({"probe": "cpu", "note": ")", Z_NO_FLUSH);
    const std::string padding(1 << 20, 'a');
    for (int mebibyte = 0; mebibyte < 60; ++mebibyte)
        feed(padding, Z_NO_FLUSH);
    feed("\"}", Z_FINISH);
    deflateEnd(&stream);
    return out;
}

std::string coded_head(const std::string& headers, size_t body_bytes) {
    return "POST /v1/runs HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n" +
           headers + "Content-Length: " + std::to_string(body_bytes) + "\r\n\r\n";
}

std::string coded_post(const std::string& body, const std::string& headers) {
    return coded_head(headers, body.size()) + body;
}

// The daemon's peak resident memory (VmHWM) in KiB, from /proc/<pid>/status.
long peak_resident_kib(const Daemon& daemon) {
    std::ifstream in("/proc/" + std::to_string(daemon.process.pid()) + "/status");
    std::string line;
    while (std::getline(in, line)) {
        if (line.rfind("VmHWM:", 0) == 0) return std::stol(line.substr(6));
    }
    FAIL("no VmHWM in /proc/<pid>/status");
    return 0;
}

std::string answer_head(const std::string& answer) {
    return answer.substr(0, answer.find("\r\n\r\n") + 2);
}

void check_unsupported_coding(const std::string& answer) {
    CHECK(answer.rfind("HTTP/1.1 415", 0) == 0);
    CHECK(status_codes(answer).size() == 1);  // the compressed bytes are no next request
    const std::string head = answer_head(answer);
    CHECK(head.find("\r\nAccept-Encoding: identity\r\n") != std::string::npos);
    CHECK(head.find("\r\nConnection: close\r\n") != std::string::npos);
}

size_t runs_in_listing(const Daemon& daemon) {
    auto listing = daemon.client().Get("/v1/runs");
    REQUIRE(listing);
    return nlohmann::json::parse(listing->body)["runs"].size();
}

// How much the daemon's peak may grow over its peak after starting (about 11 MB): one inflated
// bomb alone is 60 MB. Sanitized builds allocate more per byte (redzones, shadow memory, ASan's
// quarantine of freed blocks: 64 bodies raised the peak by 51 MB under ASan+UBSan).
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
constexpr long kPeakGrowthKib = 8 * 16 * 1024;
#else
constexpr long kPeakGrowthKib = 16 * 1024;
#endif

}  // namespace

TEST_CASE("gzip bombs are 415 before any of them is read: one, then eight at once") {
    Daemon daemon;
    const long started = peak_resident_kib(daemon);
    const std::string bomb = compressed_json_bomb(31);
    REQUIRE(bomb.size() < 64 * 1024);  // within --max-body-bytes, as the tester's was
    MESSAGE("gzip bomb: " << bomb.size() << " bytes for 60 MiB of JSON");

    check_unsupported_coding(
        raw_exchange(daemon.port, coded_post(bomb, "Content-Encoding: gzip\r\n")));
    CHECK(peak_resident_kib(daemon) - started < kPeakGrowthKib);

    std::vector<int> connections;
    for (int i = 0; i < 8; ++i) {
        connections.push_back(connect_to_loopback(daemon.port));
        send_all(connections.back(), coded_post(bomb, "Content-Encoding: gzip\r\n"));
    }
    for (const int fd : connections) {
        check_unsupported_coding(read_until_quiet(fd, 3s));
        close(fd);
    }
    MESSAGE("daemon peak " << started << " KiB at start, " << peak_resident_kib(daemon)
                           << " KiB after nine bombs");
    CHECK(peak_resident_kib(daemon) - started < kPeakGrowthKib);
    CHECK(runs_in_listing(daemon) == 0);
    CHECK(healthy(daemon));
}

TEST_CASE("every content coding but identity is 415, however it is spelled or split") {
    Daemon daemon;
    const long started = peak_resident_kib(daemon);
    const std::string gzip_bomb = compressed_json_bomb(31);
    const std::string zlib_bomb = compressed_json_bomb(15);
    struct Coded {
        std::string headers;
        const std::string& body;
    };
    const Coded variants[] = {
        {"Content-Encoding: gzip\r\n", gzip_bomb},
        {"Content-Encoding: x-gzip\r\n", gzip_bomb},
        {"Content-Encoding: GZip\r\n", gzip_bomb},
        {"content-encoding: gzip\r\n", gzip_bomb},
        {"Content-Encoding: deflate\r\n", zlib_bomb},
        {"Content-Encoding: br\r\n", gzip_bomb},
        {"Content-Encoding: zstd\r\n", gzip_bomb},
        {"Content-Encoding: gzip, identity\r\n", gzip_bomb},
        {"Content-Encoding: identity, gzip\r\n", gzip_bomb},
        {"Content-Encoding: identity\r\nContent-Encoding: gzip\r\n", gzip_bomb},
        {"Content-Encoding: g%7Aip\r\n", gzip_bomb},  // cpp-httplib percent-decodes values
    };
    for (const Coded& variant : variants) {
        CAPTURE(variant.headers);
        check_unsupported_coding(
            raw_exchange(daemon.port, coded_post(variant.body, variant.headers)));
        // Asked first with Expect: 100-continue, the answer is the refusal, not an invitation.
        const std::string asked = raw_exchange(
            daemon.port,
            coded_head(variant.headers + "Expect: 100-continue\r\n", variant.body.size()), false,
            1s);
        CHECK(asked.rfind("HTTP/1.1 415", 0) == 0);
        CHECK(asked.find("100 Continue") == std::string::npos);
    }
    CHECK(peak_resident_kib(daemon) - started < kPeakGrowthKib);
    CHECK(runs_in_listing(daemon) == 0);
    // identity is no coding at all: the run starts.
    const std::string run = R"({"probe": "cpu"})";
    const std::string identity = raw_exchange(
        daemon.port, coded_post(run, "Content-Encoding: identity\r\nConnection: close\r\n"));
    CHECK(identity.rfind("HTTP/1.1 202", 0) == 0);
}

TEST_CASE("bodies read at once are bounded: HTTP threads x --max-body-bytes, never inflated") {
    // 64 threads and 64 connections, each holding a body of --max-body-bytes (64 KiB) whole but
    // its last byte: the sum of bodies in memory at once is 64 x 64 KiB = 4 MiB (8 MiB of
    // string capacity at most), whatever the bodies say.
    Daemon daemon({"--http-threads", "64", "--max-connections", "64", "--request-timeout", "60"});
    const long before = peak_resident_kib(daemon);
    const std::string body = "[\"" + std::string(64 * 1024 - 4, 'a') + "\"]";
    REQUIRE(body.size() == 64 * 1024);
    const std::string request = coded_post(body, "Connection: close\r\n");
    std::vector<int> connections;
    for (int i = 0; i < 64; ++i) {
        connections.push_back(connect_to_loopback(daemon.port));
        send_all(connections.back(), request.substr(0, request.size() - 1));
    }
    // Every byte sent so far has been read by a server thread: 64 bodies held at once.
    CHECK(eventually([&] {
        const ServerSideConnections seen = server_side_connections(daemon.port);
        return seen.established == 64 && seen.unread == 0;
    }));
    for (const int fd : connections)
        send_all(fd, request.substr(request.size() - 1));
    for (const int fd : connections) {
        const std::string answer = read_until_quiet(fd, 5s);
        CHECK(answer.rfind("HTTP/1.1 4", 0) == 0);  // not a run: refused by the handler
        close(fd);
    }
    const long after = peak_resident_kib(daemon);
    MESSAGE("daemon peak " << before << " KiB before, " << after << " KiB after 64 bodies");
#if defined(__SANITIZE_THREAD__)
    // ThreadSanitizer's shadow of 64 threads busy at once outweighs the bodies (+292 MiB seen):
    // the bound is held by the native and ASan suites, which run this same case.
    CHECK(after > 0);
#else
    CHECK(after - before < kPeakGrowthKib);  // about 6 MiB measured
#endif
}
