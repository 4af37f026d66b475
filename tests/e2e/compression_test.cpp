// Answers made at request time are gzip-compressed by the agent itself when the client's
// Accept-Encoding allows gzip (q-values honoured), never brotli: a browser's "br" no longer
// makes cpp-httplib spend tens of milliseconds and megabytes on one /v1/runs listing.
#include <doctest/doctest.h>

#include <nlohmann/json.hpp>
#include <string>

#include "support/daemon.hpp"
#include "support/gunzip.hpp"
#include "support/raw_http.hpp"

using namespace hostprobe::testing;

namespace {

struct RawAnswer {
    int status = 0;
    std::string headers;  // lower-cased, for lookups
    std::string body;
    std::string header(const std::string& name) const {
        const std::string key = "\r\n" + name + ": ";
        const size_t at = headers.find(key);
        if (at == std::string::npos) return "";
        const size_t start = at + key.size();
        return headers.substr(start, headers.find("\r\n", start) - start);
    }
};

RawAnswer raw_get(int port, const std::string& method, const std::string& path,
                  const std::string& accept_encoding) {
    std::string request = method + " " + path + " HTTP/1.1\r\nHost: 127.0.0.1\r\n";
    if (!accept_encoding.empty()) request += "Accept-Encoding: " + accept_encoding + "\r\n";
    request += "Connection: close\r\n\r\n";
    const std::string text = raw_exchange(port, request);
    RawAnswer answer;
    const size_t end = text.find("\r\n\r\n");
    REQUIRE(end != std::string::npos);
    const auto codes = status_codes(text.substr(0, end));
    REQUIRE(codes.size() == 1);
    answer.status = codes.front();
    for (char c : text.substr(0, end + 2))
        answer.headers.push_back(static_cast<char>(std::tolower(static_cast<unsigned char>(c))));
    answer.body = text.substr(end + 4);
    return answer;
}

}  // namespace

TEST_CASE("JSON and metrics answers: gzip when Accept-Encoding allows it, never brotli") {
    Daemon daemon;
    const RawAnswer identity = raw_get(daemon.port, "GET", "/v1/probes", "");
    REQUIRE(identity.status == 200);
    REQUIRE(identity.body.size() >= 1400);
    CHECK(identity.header("content-encoding").empty());
    CHECK(identity.header("vary").find("accept-encoding") != std::string::npos);
    CHECK(identity.header("content-length") == std::to_string(identity.body.size()));
    const auto probes = nlohmann::json::parse(identity.body);

    // Chromium's header: gzip, although "br" comes first in cpp-httplib's reading of it.
    const RawAnswer browser = raw_get(daemon.port, "GET", "/v1/probes", "gzip, deflate, br, zstd");
    REQUIRE(browser.status == 200);
    CHECK(browser.header("content-encoding") == "gzip");
    CHECK(browser.header("content-length") == std::to_string(browser.body.size()));
    CHECK(browser.body.size() < identity.body.size() / 3);
    const auto decoded = gunzip(browser.body);
    REQUIRE(decoded.has_value());
    CHECK(nlohmann::json::parse(*decoded) == probes);

    // Refused or unknown codings leave the answer as it is.
    for (const char* refusing : {"br", "gzip;q=0, br", "identity", "zstd, br;q=1, *;q=0"}) {
        INFO(refusing);
        const RawAnswer plain = raw_get(daemon.port, "GET", "/v1/probes", refusing);
        CHECK(plain.status == 200);
        CHECK(plain.header("content-encoding").empty());
        CHECK(plain.body == identity.body);
    }
    CHECK(raw_get(daemon.port, "GET", "/v1/probes", "*").header("content-encoding") == "gzip");

    // Prometheus asks for gzip; a small answer is not worth it.
    const RawAnswer metrics = raw_get(daemon.port, "GET", "/metrics", "gzip");
    CHECK(metrics.header("content-encoding") == "gzip");
    const auto metrics_text = gunzip(metrics.body);
    REQUIRE(metrics_text.has_value());
    CHECK(metrics_text->find("# TYPE hostprobe_build_info gauge") != std::string::npos);
    const RawAnswer health = raw_get(daemon.port, "GET", "/healthz", "gzip, br");
    CHECK(health.status == 200);
    CHECK(health.header("content-encoding").empty());

    // HEAD: the same headers as the GET would have, no body.
    const RawAnswer head = raw_get(daemon.port, "HEAD", "/v1/probes", "gzip");
    CHECK(head.status == 200);
    CHECK(head.header("content-encoding") == "gzip");
    CHECK(head.body.empty());
}
