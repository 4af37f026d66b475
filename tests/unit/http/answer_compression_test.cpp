#include "http/answer_compression.hpp"

#include <doctest/doctest.h>

#include <string>

#include "support/gunzip.hpp"

using namespace hostprobe::http;

TEST_CASE("gzip_compress makes one gzip member that zlib decodes to the same bytes") {
    std::string listing = "{\"runs\":[";
    for (int i = 0; i < 2000; ++i)
        listing += "{\"id\":\"" + std::to_string(i * 7919) + "\",\"state\":\"succeeded\"},";
    listing += "{}]}";
    std::string noise;
    for (unsigned i = 0, x = 12345; i < 300000; ++i) {
        x = x * 1103515245 + 12345;
        noise.push_back(static_cast<char>(x >> 16));
    }
    for (const std::string& input : {std::string(), std::string("{}"), listing, noise}) {
        INFO("input of " << input.size() << " bytes");
        const auto compressed = gzip_compress(input);
        REQUIRE(compressed.has_value());
        REQUIRE(compressed->size() > 10);
        CHECK(compressed->substr(0, 2) == "\x1f\x8b");  // the gzip magic
        CHECK(hostprobe::testing::gunzip(*compressed) == input);
    }
    CHECK(gzip_compress(listing)->size() * 5 < listing.size());  // repetitive JSON shrinks a lot
}

TEST_CASE("only text and JSON answers of at least kMinCompressedBytes vary with Accept-Encoding") {
    for (const char* type : {"application/json", "text/plain; version=0.0.4; charset=utf-8",
                             "TEXT/HTML", "application/problem+json", " application/json ;x=1"}) {
        INFO(type);
        CHECK(compressible_type(type));
        CHECK(varies_with_encoding(type, kMinCompressedBytes));
        CHECK_FALSE(varies_with_encoding(type, kMinCompressedBytes - 1));
    }
    for (const char* type : {"", "application/octet-stream", "image/png", "application/jsonx",
                             "application/javascriptx"}) {
        INFO(type);
        CHECK_FALSE(compressible_type(type));
        CHECK_FALSE(varies_with_encoding(type, 1 << 20));
    }
}
