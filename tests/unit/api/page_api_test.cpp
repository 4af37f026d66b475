#include "api/page_api.hpp"

#include <doctest/doctest.h>
#include <httplib.h>
#include <openssl/evp.h>

#include <map>
#include <nlohmann/json.hpp>
#include <string>

#include "api/host_api.hpp"
#include "api/page_assets.hpp"
#include "support/gunzip.hpp"
#include "support/page_files.hpp"

using namespace hostprobe;
using hostprobe::testing::gunzip;

namespace {

std::string sha256_hex(std::string_view bytes) {
    unsigned char digest[EVP_MAX_MD_SIZE];
    unsigned int length = 0;
    REQUIRE(EVP_Digest(bytes.data(), bytes.size(), digest, &length, EVP_sha256(), nullptr) == 1);
    static constexpr char kHexDigits[] = "0123456789abcdef";
    std::string hex;
    for (unsigned int i = 0; i < length; ++i) {
        hex += kHexDigits[digest[i] >> 4];
        hex += kHexDigits[digest[i] & 0xf];
    }
    return hex;
}

std::string page_header(const http::Reply& reply, const std::string& name) {
    for (const auto& [key, value] : reply.headers) {
        if (key == name) return value;
    }
    return "";
}

http::Router page_router() {
    http::Router router;
    router.add("GET", "/v1/host", "data", [](const http::RouteRequest&) -> Result<http::Reply> {
        return http::Reply::json({{"cpu", "x"}});
    });
    api::add_page_routes(router, api::page_assets());
    api::add_index_route(router, api::page_assets());
    return router;
}

http::Reply page_get(const http::Router& router, const std::string& path,
                     const std::map<std::string, std::string>& headers = {}) {
    httplib::Request request;
    request.method = "GET";
    request.path = path;
    for (const auto& [name, value] : headers)
        request.headers.emplace(name, value);
    return router.dispatch(request);
}

constexpr const char* kBrowserAccept =
    "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8";

}  // namespace

TEST_CASE("the binary embeds every file of src/ui byte for byte (the copy cannot go stale)") {
    const auto sources = testing::page_source_files();
    REQUIRE(sources.count("index.html") == 1);
    std::map<std::string, std::string> embedded;
    for (const http::StaticAsset& asset : api::page_assets())
        embedded[std::string(asset.path)] = std::string(asset.body);
    CHECK(embedded.size() == api::page_assets().size());  // no path twice
    for (const auto& [path, content] : sources) {
        INFO(path);
        REQUIRE(embedded.count(path) == 1);
        CHECK(embedded[path] == content);
    }
    CHECK(embedded.size() == sources.size());
}

TEST_CASE(
    "each embedded file: its ETag from its SHA-256, a Content-Type, a gzip copy that "
    "decodes to it") {
    const std::map<std::string, std::string> types = {{".html", "text/html; charset=utf-8"},
                                                      {".js", "text/javascript; charset=utf-8"},
                                                      {".css", "text/css; charset=utf-8"},
                                                      {".svg", "image/svg+xml"},
                                                      {".png", "image/png"},
                                                      {".txt", "text/plain; charset=utf-8"},
                                                      {"", "text/plain; charset=utf-8"}};
    for (const http::StaticAsset& asset : api::page_assets()) {
        INFO(asset.path);
        const std::string tag = sha256_hex(asset.body).substr(0, 20);
        CHECK(asset.etag == "\"" + tag + "\"");
        const std::string name(asset.path.substr(asset.path.rfind('/') + 1));
        const size_t dot = name.rfind('.');
        const std::string extension = dot == std::string::npos ? "" : name.substr(dot);
        if (types.count(extension)) CHECK(asset.content_type == types.at(extension));
        CHECK_FALSE(asset.content_type.empty());
        if (asset.gzip_body.empty()) {
            CHECK(asset.gzip_etag.empty());
            continue;
        }
        CHECK(asset.gzip_etag == "\"" + tag + "-gzip\"");
        CHECK(asset.gzip_body.size() < asset.body.size());
        REQUIRE(asset.gzip_body.size() > 10);
        CHECK(asset.gzip_body.substr(4, 4) == std::string_view("\0\0\0\0", 4));  // no time
        const auto decoded = gunzip(asset.gzip_body);
        REQUIRE(decoded.has_value());
        CHECK(*decoded == asset.body);
    }
    const http::StaticAsset* document = http::find_asset(api::page_assets(), "index.html");
    REQUIRE(document != nullptr);
    CHECK_FALSE(document->gzip_body.empty());  // HTML compresses
}

TEST_CASE("GET /: the page for a browser, the JSON index for everyone else, Vary: Accept") {
    const http::Router router = page_router();
    const http::StaticAsset* document = http::find_asset(api::page_assets(), "index.html");
    REQUIRE(document != nullptr);

    const http::Reply page = page_get(router, "/", {{"Accept", kBrowserAccept}});
    CHECK(page.status == 200);
    CHECK(page.content_type == "text/html; charset=utf-8");
    CHECK(page.static_body == document->body);
    CHECK(page_header(page, "Vary") == "Accept, Accept-Encoding");
    CHECK(page_header(page, "ETag") == document->etag);
    const http::Reply zipped =
        page_get(router, "/", {{"Accept", kBrowserAccept}, {"Accept-Encoding", "gzip"}});
    CHECK(zipped.static_body == document->gzip_body);
    CHECK(page_header(zipped, "Content-Encoding") == "gzip");
    CHECK(page_get(router, "/",
                   {{"Accept", kBrowserAccept}, {"If-None-Match", std::string(document->etag)}})
              .status == 304);

    const http::Reply no_accept = page_get(router, "/");
    CHECK(no_accept.content_type == "application/json");
    CHECK(page_header(no_accept, "Vary") == "Accept, Accept-Encoding");
    for (const char* accept : {"*/*", "application/json", "text/html, application/json"}) {
        INFO(accept);
        const http::Reply index = page_get(router, "/", {{"Accept", accept}});
        CHECK(index.status == 200);
        CHECK(index.body == no_accept.body);
        CHECK(index.static_body.empty());
    }

    // The index lists the page's files as one route, not one line per file.
    const auto endpoints = nlohmann::json::parse(no_accept.body)["endpoints"];
    size_t ui_lines = 0;
    for (const auto& endpoint : endpoints) {
        if (endpoint["path"].get<std::string>().rfind("/ui", 0) == 0) ++ui_lines;
    }
    CHECK(ui_lines == 1);
    CHECK(endpoints.size() == 3);  // "/", "/v1/host", "/ui/{asset...}"
}

TEST_CASE("GET /ui/<path> serves embedded files only; anything else is a JSON 404") {
    const http::Router router = page_router();
    for (const http::StaticAsset& asset : api::page_assets()) {
        INFO(asset.path);
        const http::Reply reply = page_get(router, "/ui/" + std::string(asset.path));
        CHECK(reply.status == 200);
        CHECK(reply.static_body == asset.body);
        CHECK(reply.content_type == asset.content_type);
    }
    for (const char* missing : {"/ui/nope.js", "/ui/../v1/host", "/ui/%2e%2e/v1/host",
                                "/ui/index.html/x", "/ui/vendor"}) {
        INFO(missing);
        const http::Reply reply = page_get(router, missing);
        CHECK(reply.status == 404);
        CHECK(reply.content_type == "application/json");
        CHECK(nlohmann::json::parse(reply.body)["status"] == 404);
    }
}
