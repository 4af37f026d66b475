#include "http/negotiation.hpp"

#include <doctest/doctest.h>

#include <string>

using namespace hostprobe::http;

namespace {

// What browsers send when they navigate to a page, and what scripts send.
constexpr const char* kChromeNavigation =
    "text/html,application/xhtml+xml,application/xml;q=0.9,image/avif,image/webp,image/apng,"
    "*/*;q=0.8,application/signed-exchange;v=b3;q=0.7";
constexpr const char* kFirefoxNavigation =
    "text/html,application/xhtml+xml,application/xml;q=0.9,image/avif,image/webp,*/*;q=0.8";
constexpr const char* kSafariNavigation =
    "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8";

}  // namespace

TEST_CASE("a browser's navigation prefers the page; curl, fetch() and JSON clients do not") {
    CHECK(prefers_html(kChromeNavigation));
    CHECK(prefers_html(kFirefoxNavigation));
    CHECK(prefers_html(kSafariNavigation));
    CHECK(prefers_html("text/html"));
    CHECK(prefers_html("text/*"));
    CHECK(prefers_html("TEXT/HTML; charset=utf-8"));

    CHECK_FALSE(prefers_html(""));     // no Accept: anything, so JSON as before
    CHECK_FALSE(prefers_html("*/*"));  // curl, fetch(): a tie keeps JSON
    CHECK_FALSE(prefers_html("application/json"));
    CHECK_FALSE(prefers_html("application/json, text/html;q=0.5"));
    CHECK_FALSE(prefers_html("text/html;q=0.5, application/json"));
    CHECK_FALSE(prefers_html("text/html, application/json"));  // equal: JSON
    CHECK_FALSE(prefers_html("text/html;q=0, */*"));
    CHECK_FALSE(prefers_html("text/plain"));
    CHECK(prefers_html("text/html;q=0.9, application/json;q=0.8"));
    CHECK(prefers_html("application/json;q=0.001, text/html;q=0.002"));
}

TEST_CASE("Accept q-values: the most specific range decides, three decimals at most") {
    CHECK(media_quality("", "text/html") == kFullQuality);
    CHECK(media_quality("*/*", "text/html") == kFullQuality);
    CHECK(media_quality("text/*;q=0.5, */*;q=0.1", "text/html") == 500);
    CHECK(media_quality("*/*;q=0.1, text/*;q=0.5, text/html;q=0.7", "text/html") == 700);
    CHECK(media_quality("text/html;q=0, */*", "text/html") == 0);
    CHECK(media_quality("text/html;q=0, */*", "application/json") == kFullQuality);
    CHECK(media_quality("application/json", "text/html") == 0);
    CHECK(media_quality("text/html;Q=0.25", "text/html") == 250);
    CHECK(media_quality("text/html; level=1; q=0.3", "text/html") == 300);
    CHECK(media_quality("text/html;q=1.000", "text/html") == 1000);
    CHECK(media_quality("text/html;q=0.", "text/html") == 0);
    CHECK(media_quality("text/html;q=1.", "text/html") == 1000);

    // A malformed element is skipped; the others still count.
    for (const char* bad : {"1.5", "1.001", "0.1234", ".5", "-0", "abc", "", "0x1", "2", "0 .5"}) {
        INFO(bad);
        CHECK(media_quality(std::string("text/html;q=") + bad + ", */*;q=0.2", "text/html") == 200);
    }
    CHECK(media_quality("*/html, text/*;q=0.4", "text/html") == 400);  // no such range
    CHECK(media_quality("html, */*;q=0.3", "text/html") == 300);
    // A quoted parameter may hold the separators.
    CHECK(media_quality("text/plain;x=\"a,text/html\", text/html;q=0.6", "text/html") == 600);
    CHECK(media_quality("text/plain;x=\"a\\\"b,c\";q=0.2, text/html;q=0.6", "text/plain") == 200);
}

TEST_CASE("hostile Accept headers: too many elements count as none, junk as nothing") {
    std::string many;
    for (size_t i = 0; i + 1 < kMaxNegotiationElements; ++i)
        many += "application/x-" + std::to_string(i) + ", ";
    CHECK(prefers_html(many + "text/html"));  // the 64th element still counts
    many += "text/x, text/html";
    CHECK(media_quality(many, "text/html") == kFullQuality);  // over the bound: as if absent
    CHECK_FALSE(prefers_html(many));

    CHECK_FALSE(prefers_html(std::string(8000, ',')));
    CHECK_FALSE(prefers_html(std::string(8000, ';')));
    CHECK_FALSE(prefers_html(std::string(8000, '"')));
    CHECK_FALSE(prefers_html("\"" + std::string(8000, 'a')));
    CHECK_FALSE(prefers_html(std::string(8000, '/')));
    CHECK(prefers_html("text/html;q=1;q=0"));  // the first q counts
    CHECK_FALSE(prefers_html("text/html;q=\"1\""));
    // A NUL ends no value early (the screen refuses NUL before any of this): the malformed
    // element is skipped and the next one counts.
    CHECK(prefers_html(std::string("text/html;q=0\0, text/html", 25)));
}

TEST_CASE("Accept-Encoding allows gzip by name or by *, never with q=0") {
    CHECK(accepts_gzip("gzip"));
    CHECK(accepts_gzip("gzip, deflate, br"));
    CHECK(accepts_gzip("br;q=1.0, gzip;q=0.8, *;q=0.1"));
    CHECK(accepts_gzip("GZIP"));
    CHECK(accepts_gzip("x-gzip"));
    CHECK(accepts_gzip("*"));
    CHECK(accepts_gzip("identity, *;q=0.5"));

    CHECK_FALSE(accepts_gzip(""));
    CHECK_FALSE(accepts_gzip("identity"));
    CHECK_FALSE(accepts_gzip("br, deflate"));
    CHECK_FALSE(accepts_gzip("gzip;q=0"));
    CHECK_FALSE(accepts_gzip("gzip;q=0.000, *"));  // named beats *
    CHECK_FALSE(accepts_gzip("*;q=0"));
    CHECK_FALSE(accepts_gzip("gzip;q=2"));  // malformed: skipped
    CHECK_FALSE(accepts_gzip("gzipped"));

    std::string many;
    for (size_t i = 0; i < kMaxNegotiationElements; ++i)
        many += "x" + std::to_string(i) + ",";
    CHECK_FALSE(accepts_gzip(many + "gzip"));  // over the bound: identity
    CHECK_FALSE(accepts_gzip(std::string(8000, ',') + "gzip"));
}
