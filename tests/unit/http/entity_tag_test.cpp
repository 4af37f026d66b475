#include "http/entity_tag.hpp"

#include <doctest/doctest.h>

#include <string>

using namespace hostprobe::http;

TEST_CASE("If-None-Match names a current tag: strong, weak, in a list, or *") {
    const std::string_view tag = "\"abc123\"";
    const std::string_view gzip_tag = "\"abc123-gzip\"";
    CHECK(if_none_match_hits("\"abc123\"", {tag, gzip_tag}));
    CHECK(if_none_match_hits("W/\"abc123\"", {tag, gzip_tag}));
    CHECK(if_none_match_hits("\"abc123-gzip\"", {tag, gzip_tag}));
    CHECK(if_none_match_hits("\"old\", W/\"abc123-gzip\"", {tag, gzip_tag}));
    CHECK(if_none_match_hits("\"old\" ,\t\"abc123\"", {tag, gzip_tag}));
    CHECK(if_none_match_hits("  *  ", {tag}));
    CHECK(if_none_match_hits("\"a,b\", \"abc123\"", {tag}));  // a comma inside a tag

    CHECK_FALSE(if_none_match_hits("", {tag}));
    CHECK_FALSE(if_none_match_hits("\"abc12\"", {tag}));
    CHECK_FALSE(if_none_match_hits("\"ABC123\"", {tag}));
    CHECK_FALSE(if_none_match_hits("abc123", {tag}));        // not quoted
    CHECK_FALSE(if_none_match_hits("w/\"abc123\"", {tag}));  // W/ is case-sensitive
    CHECK_FALSE(if_none_match_hits("\"abc123", {tag}));
    CHECK_FALSE(if_none_match_hits("\"x\" \"abc123\"", {tag}));     // no comma: malformed
    CHECK_FALSE(if_none_match_hits("\"a b\", \"abc123\"", {tag}));  // a space in a tag
    CHECK_FALSE(if_none_match_hits("*, \"abc123\"", {tag}));
    CHECK_FALSE(if_none_match_hits("\"\"", {tag, ""}));  // the empty tag of a missing copy
}

TEST_CASE("hostile If-None-Match: long lists stop at the bound, junk matches nothing") {
    std::string list;
    for (size_t i = 0; i + 1 < kMaxEntityTags; ++i)
        list += "\"t" + std::to_string(i) + "\", ";
    CHECK(if_none_match_hits(list + "\"hit\"", {"\"hit\""}));  // the 64th tag is looked at
    CHECK_FALSE(if_none_match_hits(list + "\"t\", \"hit\"", {"\"hit\""}));  // the 65th is not
    CHECK_FALSE(if_none_match_hits(std::string(8000, ','), {"\"x\""}));
    CHECK_FALSE(if_none_match_hits(std::string(8000, '"'), {"\"x\""}));
    CHECK_FALSE(if_none_match_hits("\"" + std::string(8000, 'x'), {"\"x\""}));
    CHECK_FALSE(if_none_match_hits(std::string("\"\0\"", 3), {std::string_view("\"\0\"", 3)}));
}
