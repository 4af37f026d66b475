#include "http/access_policy.hpp"

#include <doctest/doctest.h>

#include <string>

using namespace hostprobe::http;

TEST_CASE("CIDR ranges: IPv4, IPv6, bare addresses and IPv4 seen through IPv6") {
    auto loopback = parse_cidr("127.0.0.0/8");
    REQUIRE(loopback.ok());
    CHECK(loopback->contains("127.0.0.1"));
    CHECK(loopback->contains("127.255.0.9"));
    CHECK(loopback->contains("::ffff:127.0.0.2"));
    CHECK_FALSE(loopback->contains("128.0.0.1"));
    CHECK_FALSE(loopback->contains("::1"));
    CHECK_FALSE(loopback->contains("not an address"));

    auto one = parse_cidr("10.1.2.3");
    REQUIRE(one.ok());
    CHECK(one->to_string() == "10.1.2.3/32");
    CHECK(one->contains("10.1.2.3"));
    CHECK_FALSE(one->contains("10.1.2.4"));

    auto odd_prefix = parse_cidr("10.0.0.0/12");
    REQUIRE(odd_prefix.ok());
    CHECK(odd_prefix->contains("10.15.255.255"));
    CHECK_FALSE(odd_prefix->contains("10.16.0.0"));

    auto v6 = parse_cidr("fd00::/8");
    REQUIRE(v6.ok());
    CHECK(v6->contains("fd12:3456::1"));
    CHECK_FALSE(v6->contains("fe80::1"));
    CHECK(parse_cidr("::1")->contains("::1"));
    CHECK(parse_cidr("0.0.0.0/0")->contains("203.0.113.7"));

    CHECK_FALSE(parse_cidr("10.0.0.0/33").ok());
    CHECK_FALSE(parse_cidr("::/129").ok());
    CHECK_FALSE(parse_cidr("10.0.0/8").ok());
    CHECK_FALSE(parse_cidr("localhost").ok());
    CHECK_FALSE(parse_cidr("10.0.0.0/x").ok());
    auto list = parse_cidr_list("127.0.0.0/8, ::1,");
    REQUIRE(list.ok());
    CHECK(list->size() == 2);
    CHECK(parse_cidr_list("")->empty());
    CHECK_FALSE(parse_cidr_list("127.0.0.1,nope").ok());
}

TEST_CASE("without a token, only trusted peers may change anything; reads stay open") {
    const AccessPolicy policy;  // loopback only
    CHECK_FALSE(check_access(policy, "POST", "/v1/runs", "127.0.0.1", ""));
    CHECK_FALSE(check_access(policy, "DELETE", "/v1/runs/1", "::1", ""));
    auto denied = check_access(policy, "POST", "/v1/runs", "10.0.1.5", "");
    REQUIRE(denied);
    CHECK(denied->status == 403);
    CHECK(denied->message.find("--trusted-peers 127.0.0.0/8,::1") != std::string::npos);
    CHECK(denied->message.find("10.0.1.5") != std::string::npos);
    CHECK_FALSE(check_access(policy, "GET", "/v1/runs", "10.0.1.5", ""));
    CHECK_FALSE(check_access(policy, "GET", "/metrics", "10.0.1.5", ""));
}

TEST_CASE("with a token, POST and DELETE need it, from any peer") {
    AccessPolicy policy;
    policy.token = "s3cret-token";
    auto missing = check_access(policy, "POST", "/v1/runs", "127.0.0.1", "");
    REQUIRE(missing);
    CHECK(missing->status == 401);
    CHECK(missing->www_authenticate == "Bearer realm=\"hostprobe\"");
    auto wrong = check_access(policy, "POST", "/v1/runs", "127.0.0.1", "Bearer s3cret-tokeN");
    REQUIRE(wrong);
    CHECK(wrong->status == 401);
    CHECK(wrong->www_authenticate->find("invalid_token") != std::string::npos);
    CHECK(check_access(policy, "POST", "/v1/runs", "127.0.0.1", "Basic s3cret-token"));
    CHECK(check_access(policy, "POST", "/v1/runs", "127.0.0.1", "Bearer "));
    CHECK_FALSE(check_access(policy, "POST", "/v1/runs", "203.0.113.9", "Bearer s3cret-token"));
    CHECK_FALSE(check_access(policy, "DELETE", "/v1/runs/7", "203.0.113.9", "bearer s3cret-token"));
    CHECK_FALSE(check_access(policy, "GET", "/metrics", "203.0.113.9", ""));
}

TEST_CASE("--auth-reads protects every endpoint but /healthz") {
    AccessPolicy policy;
    policy.token = "t";
    policy.protect_reads = true;
    CHECK(check_access(policy, "GET", "/metrics", "127.0.0.1", "")->status == 401);
    CHECK(check_access(policy, "GET", "/v1/host", "127.0.0.1", "")->status == 401);
    CHECK_FALSE(check_access(policy, "GET", "/metrics", "127.0.0.1", "Bearer t"));
    CHECK_FALSE(check_access(policy, "GET", "/healthz", "203.0.113.9", ""));
    CHECK_FALSE(check_access(policy, "HEAD", "/healthz", "203.0.113.9", ""));

    AccessPolicy peers_only;
    peers_only.protect_reads = true;
    CHECK(check_access(peers_only, "GET", "/metrics", "10.0.0.2", "")->status == 403);
    CHECK_FALSE(check_access(peers_only, "GET", "/metrics", "127.0.0.1", ""));
}

TEST_CASE("the page is public: GET / for a browser and /ui/*, even with --auth-reads") {
    constexpr std::string_view browser = "text/html,application/xhtml+xml,*/*;q=0.8";
    AccessPolicy policy;
    policy.token = "t";
    policy.protect_reads = true;
    CHECK_FALSE(check_access(policy, "GET", "/", "203.0.113.9", "", "203.0.113.1", browser));
    CHECK_FALSE(check_access(policy, "HEAD", "/", "203.0.113.9", "", "203.0.113.1", browser));
    CHECK_FALSE(check_access(policy, "GET", "/ui/app.js", "203.0.113.9", "", "evil.example"));
    CHECK_FALSE(check_access(policy, "GET", "/ui/vendor/uPlot.iife.min.js", "10.0.0.2", ""));
    // The JSON index and every data endpoint keep their protection, whatever Accept says.
    CHECK(check_access(policy, "GET", "/", "127.0.0.1", "", "127.0.0.1", "*/*")->status == 401);
    CHECK(check_access(policy, "GET", "/", "127.0.0.1", "")->status == 401);
    CHECK(check_access(policy, "GET", "/v1/host", "127.0.0.1", "", "", browser)->status == 401);
    CHECK(check_access(policy, "GET", "/ui", "127.0.0.1", "", "", browser)->status == 401);
    CHECK(check_access(policy, "GET", "//ui/x", "127.0.0.1", "", "", browser)->status == 401);
    CHECK(check_access(policy, "GET", "/v1/ui/x", "127.0.0.1", "")->status == 401);
    // Only reads: anything else under /ui/ needs the token as before.
    CHECK(check_access(policy, "POST", "/ui/app.js", "127.0.0.1", "")->status == 401);
    CHECK(check_access(policy, "OPTIONS", "/ui/app.js", "127.0.0.1", "")->status == 401);

    AccessPolicy peers_only;
    peers_only.protect_reads = true;
    CHECK_FALSE(check_access(peers_only, "GET", "/ui/app.js", "10.0.0.2", ""));
    CHECK_FALSE(check_access(peers_only, "GET", "/", "10.0.0.2", "", "10.0.0.1", browser));
    CHECK(check_access(peers_only, "GET", "/v1/runs", "10.0.0.2", "", "", browser)->status == 403);
    // DNS rebinding: the page is public, the data behind it still refuses a foreign name.
    CHECK(check_access(peers_only, "GET", "/v1/host", "127.0.0.1", "", "evil.example:9740", browser)
              ->status == 403);
    CHECK(is_public_page("GET", "/", browser));
    CHECK_FALSE(is_public_page("GET", "/", "application/json"));
    CHECK_FALSE(is_public_page("DELETE", "/ui/app.js", browser));
}

TEST_CASE("/healthz is open to reads only: a POST to it is judged like any other") {
    AccessPolicy policy;
    policy.token = "t";
    CHECK(check_access(policy, "POST", "/healthz", "203.0.113.9", "")->status == 401);
    AccessPolicy peers_only;
    CHECK(check_access(peers_only, "PUT", "/healthz", "203.0.113.9", "")->status == 403);
    CHECK_FALSE(check_access(peers_only, "GET", "/healthz", "203.0.113.9", ""));
}

TEST_CASE("tokens are compared whole") {
    CHECK(equal_in_constant_time("abc", "abc"));
    CHECK_FALSE(equal_in_constant_time("abc", "abd"));
    CHECK_FALSE(equal_in_constant_time("abc", "abcd"));
    CHECK_FALSE(equal_in_constant_time("", "a"));
}

TEST_CASE("DNS rebinding: only an address, localhost or an allowed name vouches for the peer") {
    AccessPolicy policy;
    policy.allowed_hosts = {"hostprobe.internal"};
    for (const char* host : {"127.0.0.1:9740", "127.0.0.1", "[::1]:9740", "[::1]", "localhost:9740",
                             "LOCALHOST", "app.localhost:9740", "10.0.3.7:9740", "",
                             "hostprobe.internal:9740", "HostProbe.Internal"}) {
        CAPTURE(host);
        CHECK(host_may_vouch_for_peer(policy, host));
        CHECK_FALSE(check_access(policy, "POST", "/v1/runs", "127.0.0.1", "", host));
    }
    for (const char* host : {"evil.example:9740", "evil.example", "localhost.evil.example",
                             "127.0.0.1.nip.io:9740", "hostprobe.internal.evil.example"}) {
        CAPTURE(host);
        CHECK_FALSE(host_may_vouch_for_peer(policy, host));
        auto denial = check_access(policy, "POST", "/v1/runs", "127.0.0.1", "", host);
        REQUIRE(denial);
        CHECK(denial->status == 403);
        CHECK(denial->message.find("--allowed-hosts") != std::string::npos);
        // Reads stay open without --auth-reads, as for any peer.
        CHECK_FALSE(check_access(policy, "GET", "/v1/host", "127.0.0.1", "", host));
    }
    // With the token the name does not matter: a browser cannot add it for a foreign page.
    policy.token = "secret";
    CHECK_FALSE(
        check_access(policy, "POST", "/v1/runs", "127.0.0.1", "Bearer secret", "evil.example"));
}

TEST_CASE("cross-site requests: a mutating request's Origin must be the agent's own") {
    CHECK_FALSE(check_origin("POST", "127.0.0.1:9740", ""));  // curl sends no Origin
    CHECK_FALSE(check_origin("POST", "127.0.0.1:9740", "http://127.0.0.1:9740"));
    CHECK_FALSE(check_origin("POST", "Agent.Example", "http://agent.example"));
    CHECK_FALSE(check_origin("POST", "agent.example", "https://agent.example"));
    CHECK_FALSE(check_origin("DELETE", "[::1]:9740", "http://[::1]:9740"));
    CHECK_FALSE(check_origin("GET", "127.0.0.1:9740", "http://evil.example"));  // reads
    for (const char* origin : {"http://evil.example", "http://127.0.0.1:9741",
                               "https://127.0.0.1:9740x", "null", "127.0.0.1:9740", "http://"}) {
        CAPTURE(origin);
        auto denial = check_origin("POST", "127.0.0.1:9740", origin);
        REQUIRE(denial);
        CHECK(denial->status == 403);
        CHECK(denial->message.find("another origin") != std::string::npos);
    }
}

TEST_CASE("fetch metadata: a mutation from another site or origin is refused, reads are not") {
    for (const std::string method : {"POST", "DELETE", "PUT", "PATCH"}) {
        for (const std::string site : {"cross-site", "same-site", " CROSS-SITE ", "unknown"}) {
            CAPTURE(method);
            CAPTURE(site);
            auto denial = check_fetch_site(method, site);
            REQUIRE(denial);
            CHECK(denial->status == 403);
            CHECK(denial->message.find("Sec-Fetch-Site") != std::string::npos);
        }
        CHECK_FALSE(check_fetch_site(method, "same-origin"));
        CHECK_FALSE(check_fetch_site(method, "none"));
        CHECK_FALSE(check_fetch_site(method, ""));  // curl and scripts send none
    }
    for (const std::string method : {"GET", "HEAD", "OPTIONS"})
        CHECK_FALSE(check_fetch_site(method, "cross-site"));
}
