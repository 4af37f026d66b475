// The page (issue 18) as the real binary serves it: negotiation at /, the embedded files under
// /ui/ with gzip, ETags and 304s, the security headers, and the page public under --auth-reads.
#include <doctest/doctest.h>
#include <httplib.h>

#include <nlohmann/json.hpp>
#include <string>

#include "support/daemon.hpp"
#include "support/gunzip.hpp"
#include "support/page_files.hpp"
#include "support/temp_tree.hpp"

using namespace hostprobe::testing;

namespace {

constexpr const char* kNavigationAccept =
    "text/html,application/xhtml+xml,application/xml;q=0.9,image/avif,image/webp,*/*;q=0.8";
constexpr const char* kExpectedPolicy =
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
    "connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'self'";

void check_security_headers(const httplib::Response& reply) {
    CHECK(reply.get_header_value("Content-Security-Policy") == kExpectedPolicy);
    CHECK(reply.get_header_value("X-Content-Type-Options") == "nosniff");
    CHECK(reply.get_header_value("Referrer-Policy") == "no-referrer");
}

}  // namespace

TEST_CASE("GET / gives a browser the page with CSP and nosniff, and scripts the JSON index") {
    Daemon daemon;
    auto client = daemon.client();
    const auto sources = page_source_files();

    auto page = client.Get("/", {{"Accept", kNavigationAccept}});
    REQUIRE(page);
    CHECK(page->status == 200);
    CHECK(page->get_header_value("Content-Type") == "text/html; charset=utf-8");
    CHECK(page->body == sources.at("index.html"));
    CHECK(page->get_header_value("Vary") == "Accept, Accept-Encoding");
    CHECK(page->get_header_value("Cache-Control") == "no-cache");
    CHECK_FALSE(page->get_header_value("ETag").empty());
    check_security_headers(*page);

    // curl's */*, a JSON client and no Accept at all: the same index, as before the page.
    auto plain = client.Get("/");
    REQUIRE(plain);
    CHECK(plain->status == 200);
    CHECK(plain->get_header_value("Content-Type") == "application/json");
    CHECK(plain->get_header_value("Vary") == "Accept, Accept-Encoding");
    check_security_headers(*plain);
    for (const char* accept : {"*/*", "application/json", "application/json, text/html"}) {
        INFO(accept);
        auto index = client.Get("/", {{"Accept", accept}});
        REQUIRE(index);
        CHECK(index->status == 200);
        CHECK(index->body == plain->body);
    }
    const auto index = nlohmann::json::parse(plain->body);
    CHECK(index["name"] == "hostprobe");
    std::vector<std::string> paths;
    for (const auto& endpoint : index["endpoints"])
        paths.push_back(endpoint["method"].get<std::string>() + " " +
                        endpoint["path"].get<std::string>());
    for (const char* expected : {"GET /", "GET /healthz", "GET /v1/host", "GET /metrics",
                                 "GET /v1/probes", "POST /v1/runs", "GET /ui/{asset...}"}) {
        INFO(expected);
        CHECK(std::count(paths.begin(), paths.end(), expected) == 1);
    }
    CHECK(std::count_if(paths.begin(), paths.end(), [](const std::string& path) {
              return path.find(" /ui") != std::string::npos;
          }) == 1);

    // A data endpoint carries the same headers (harmless there, and inert in a tab).
    auto host = client.Get("/v1/host", {{"Accept", kNavigationAccept}});
    REQUIRE(host);
    CHECK(host->get_header_value("Content-Type") == "application/json");
    check_security_headers(*host);
}

TEST_CASE(
    "every file of src/ui is served at /ui/, gzip-compressed when accepted, 304 when "
    "unchanged") {
    Daemon daemon;
    auto client = daemon.client();
    client.set_decompress(false);  // the bytes as sent
    const auto sources = page_source_files();
    REQUIRE_FALSE(sources.empty());
    size_t compressed_total = 0;
    for (const auto& [path, content] : sources) {
        INFO(path);
        const std::string url = "/ui/" + path;
        auto identity = client.Get(url);
        REQUIRE(identity);
        CHECK(identity->status == 200);
        CHECK(identity->body == content);
        CHECK(identity->get_header_value("Content-Encoding") == "");
        CHECK(identity->get_header_value("Vary") == "Accept-Encoding");
        check_security_headers(*identity);

        auto zipped = client.Get(url, {{"Accept-Encoding", "gzip, deflate, br"}});
        REQUIRE(zipped);
        CHECK(zipped->status == 200);
        if (zipped->get_header_value("Content-Encoding") == "gzip") {
            const auto decoded = gunzip(zipped->body);
            REQUIRE(decoded.has_value());
            CHECK(*decoded == content);
            CHECK(zipped->body.size() < content.size());
            CHECK(zipped->get_header_value("ETag") != identity->get_header_value("ETag"));
        } else {
            CHECK(zipped->body == content);  // gzip would not have been smaller
        }
        compressed_total += zipped->body.size();
        auto refused = client.Get(url, {{"Accept-Encoding", "gzip;q=0, br"}});
        REQUIRE(refused);
        CHECK(refused->body == content);

        for (const auto* answer : {&identity, &zipped}) {
            const std::string tag = (*answer)->get_header_value("ETag");
            REQUIRE_FALSE(tag.empty());
            auto unchanged = client.Get(url, {{"If-None-Match", tag}});
            REQUIRE(unchanged);
            CHECK(unchanged->status == 304);
            CHECK(unchanged->body.empty());
            CHECK(unchanged->get_header_value("ETag") == identity->get_header_value("ETag"));
            CHECK_FALSE(unchanged->has_header("Content-Length"));
        }
        auto changed = client.Get(url, {{"If-None-Match", "\"an-older-page\""}});
        REQUIRE(changed);
        CHECK(changed->status == 200);

        auto head = client.Head(url);
        REQUIRE(head);
        CHECK(head->status == 200);
        CHECK(head->body.empty());
        CHECK(head->get_header_value("Content-Length") == std::to_string(content.size()));
    }
    MESSAGE("the page's files as sent to a browser: " << compressed_total << " bytes");
    CHECK(sources.at("index.html") == client.Get("/ui/index.html")->body);

    for (const char* missing : {"/ui/x", "/ui/vendor/nothing.js", "/ui/../v1/host", "/ui/"}) {
        INFO(missing);
        auto reply = client.Get(missing);
        REQUIRE(reply);
        CHECK(reply->status == 404);
        CHECK(reply->get_header_value("Content-Type") == "application/json");
        CHECK(nlohmann::json::parse(reply->body)["status"] == 404);
    }
}

TEST_CASE("with --auth-reads and a token, the page is public and the data is not") {
    TempTree files;
    files.write("token", "page-token\n");
    Daemon daemon({"--auth-reads", "--token-file", files.root() + "/token"});
    auto client = daemon.client();
    auto page = client.Get("/", {{"Accept", kNavigationAccept}});
    REQUIRE(page);
    CHECK(page->status == 200);
    CHECK(page->get_header_value("Content-Type") == "text/html; charset=utf-8");
    auto asset = client.Get("/ui/index.html");
    REQUIRE(asset);
    CHECK(asset->status == 200);
    CHECK(client.Head("/ui/index.html")->status == 200);
    CHECK(client.Get("/ui/x")->status == 404);

    for (const char* data : {"/v1/host", "/v1/runs", "/metrics", "/"}) {
        INFO(data);
        auto refused =
            client.Get(data, {{"Accept", data == std::string("/") ? "*/*" : kNavigationAccept}});
        REQUIRE(refused);
        CHECK(refused->status == 401);
        check_security_headers(*refused);
    }
    auto allowed = client.Get("/v1/host", {{"Authorization", "Bearer page-token"}});
    REQUIRE(allowed);
    CHECK(allowed->status == 200);
    // Writes under /ui/ are judged like any other write.
    CHECK(client.Post("/ui/index.html", "x", "text/plain")->status == 401);
}

TEST_CASE("hostile negotiation headers get an answer, never a crash") {
    Daemon daemon;
    auto client = daemon.client();
    // Each near the 8 KiB a header line may hold, one at a time (together they would be 431).
    for (const std::string& value :
         {std::string(7000, ','), std::string(7000, ';'), std::string(7000, '"'),
          "text/html;q=" + std::string(7000, '9'), std::string(7000, '/')}) {
        for (const char* name : {"Accept", "Accept-Encoding", "If-None-Match"}) {
            INFO(name << ": " << value.substr(0, 16) << "...");
            auto index = client.Get("/", {{name, value}});
            REQUIRE(index);
            CHECK(index->status == 200);
            CHECK(index->get_header_value("Content-Type") == "application/json");
            auto asset = client.Get("/ui/index.html", {{name, value}});
            REQUIRE(asset);
            CHECK(asset->status == 200);
            CHECK(asset->get_header_value("Content-Encoding") == "");
        }
    }
    CHECK(healthy(daemon));
}
