#include "cli/healthcheck.hpp"

#include <doctest/doctest.h>

using namespace hostprobe::cli;

TEST_CASE("health check URLs") {
    auto url = parse_http_url("http://127.0.0.1:9740/healthz");
    REQUIRE(url.ok());
    CHECK(url->host == "127.0.0.1");
    CHECK(url->port == 9740);
    CHECK(url->path == "/healthz");
    CHECK(parse_http_url("http://[::1]:81")->host == "::1");
    CHECK(parse_http_url("http://[::1]:81")->path == "/");
    CHECK(parse_http_url("http://example")->port == 80);
    CHECK_FALSE(parse_http_url("127.0.0.1:9740").ok());
    CHECK_FALSE(parse_http_url("ftp://x/").ok());
    CHECK_FALSE(parse_http_url("http://x:99999/").ok());
    CHECK_FALSE(parse_http_url("http://:80/").ok());
}

TEST_CASE("the default health check follows HOSTPROBE_LISTEN's port") {
    auto none = [](const std::string&) -> std::optional<std::string> { return std::nullopt; };
    CHECK(default_healthcheck_url(none) == "http://127.0.0.1:9740/healthz");
    auto moved = [](const std::string& key) -> std::optional<std::string> {
        if (key == "HOSTPROBE_LISTEN") return "0.0.0.0:9100";
        return std::nullopt;
    };
    CHECK(default_healthcheck_url(moved) == "http://127.0.0.1:9100/healthz");
}
