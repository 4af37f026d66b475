#include "http/static_asset.hpp"

#include <doctest/doctest.h>

#include <array>
#include <string>

using namespace hostprobe::http;

namespace {

constexpr std::array<StaticAsset, 2> kTwoAssets = {{
    {"app.js", "text/javascript; charset=utf-8", "\"js1\"", "let x = 1;", "\"js1-gzip\"",
     "GZIPPED"},
    {"logo.png", "image/png", "\"png1\"", "PNGBYTES", "", ""},  // gzip would not be smaller
}};

std::string asset_header(const Reply& reply, const std::string& name) {
    for (const auto& [key, value] : reply.headers) {
        if (key == name) return value;
    }
    return "";
}

}  // namespace

TEST_CASE("an embedded file is found by its exact path only") {
    CHECK(find_asset(kTwoAssets, "app.js") == &kTwoAssets[0]);
    CHECK(find_asset(kTwoAssets, "logo.png") == &kTwoAssets[1]);
    CHECK(find_asset(kTwoAssets, "APP.JS") == nullptr);
    CHECK(find_asset(kTwoAssets, "./app.js") == nullptr);
    CHECK(find_asset(kTwoAssets, "../app.js") == nullptr);
    CHECK(find_asset(kTwoAssets, "") == nullptr);
}

TEST_CASE("asset answers: gzip when accepted, the bytes otherwise, each with its own ETag") {
    const StaticAsset& script = kTwoAssets[0];
    const Reply zipped = asset_reply(script, {"gzip, deflate, br", ""});
    CHECK(zipped.status == 200);
    CHECK(zipped.static_body == "GZIPPED");
    CHECK(zipped.body.empty());
    CHECK(zipped.content_type == "text/javascript; charset=utf-8");
    CHECK(asset_header(zipped, "Content-Encoding") == "gzip");
    CHECK(asset_header(zipped, "ETag") == "\"js1-gzip\"");
    CHECK(asset_header(zipped, "Vary") == "Accept-Encoding");
    CHECK(asset_header(zipped, "Cache-Control") == "no-cache");

    for (const char* identity_only : {"", "identity", "gzip;q=0", "br", "*;q=0"}) {
        INFO(identity_only);
        const Reply plain = asset_reply(script, {identity_only, ""});
        CHECK(plain.status == 200);
        CHECK(plain.static_body == "let x = 1;");
        CHECK(asset_header(plain, "Content-Encoding") == "");
        CHECK(asset_header(plain, "ETag") == "\"js1\"");
        CHECK(asset_header(plain, "Vary") == "Accept-Encoding");
    }

    const Reply image = asset_reply(kTwoAssets[1], {"gzip", ""});
    CHECK(image.static_body == "PNGBYTES");
    CHECK(asset_header(image, "Content-Encoding") == "");
    CHECK(asset_header(image, "ETag") == "\"png1\"");
}

TEST_CASE("If-None-Match naming either copy's tag is a 304 with no body") {
    const StaticAsset& script = kTwoAssets[0];
    for (const char* tags : {"\"js1\"", "W/\"js1-gzip\"", "\"old\", \"js1\"", "*"}) {
        INFO(tags);
        const Reply unchanged = asset_reply(script, {"gzip", tags});
        CHECK(unchanged.status == 304);
        CHECK(unchanged.static_body.empty());
        CHECK(unchanged.body.empty());
        CHECK(unchanged.content_type.empty());
        CHECK(asset_header(unchanged, "ETag") == "\"js1-gzip\"");
        CHECK(asset_header(unchanged, "Content-Encoding") == "");
    }
    CHECK(asset_reply(script, {"", "\"js1\""}).status == 304);
    CHECK(asset_reply(script, {"", "\"js2\""}).status == 200);
    CHECK(asset_reply(script, {"", "\"png1\""}).status == 200);
    CHECK(asset_reply(kTwoAssets[1], {"", "\"\""}).status == 200);
}
