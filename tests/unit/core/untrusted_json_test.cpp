#include "core/untrusted_json.hpp"

#include <doctest/doctest.h>

#include <string>

#include "core/json_reads.hpp"

using namespace hostprobe;
using nlohmann::json;

namespace {

std::string nested(size_t depth, const std::string& inside = "") {
    return std::string(depth, '[') + inside + std::string(depth, ']');
}

std::string error_of(std::string_view text, const JsonLimits& limits = {}) {
    auto parsed = parse_untrusted_json(text, limits);
    REQUIRE_FALSE(parsed.ok());
    return parsed.error().message;
}

}  // namespace

TEST_CASE("well-formed JSON parses to what nlohmann's own parser builds") {
    for (const char* text :
         {R"({"probe": "cipher", "params": {"ciphers": ["aes-128-gcm"], "seconds": 0.5}})",
          R"([1, -2, 18446744073709551615, -9223372036854775808, 1.5e300, 1e-400, true, null])",
          R"("caf\u00e9 \ud83d\ude00")", R"({"a": 1, "a": 2})", "  {}  ", "0"}) {
        CAPTURE(text);
        auto parsed = parse_untrusted_json(text);
        REQUIRE(parsed.ok());
        CHECK(*parsed == json::parse(text));
    }
    CHECK(parse_untrusted_json(R"({"a": 1, "a": 2})")->at("a") == 2);  // the last one wins
}

TEST_CASE("nesting deeper than the limit is refused at the bracket that goes too deep") {
    CHECK(parse_untrusted_json(nested(kMaxJsonDepth)).ok());
    CHECK(error_of(nested(kMaxJsonDepth + 1)) == "JSON nested deeper than 32 levels at byte 33");
    CHECK(error_of(R"({"a": [{"b": 1}]})", {.max_depth = 2}) ==
          "JSON nested deeper than 2 levels at byte 8");
    // The reported crash: 100,000 levels. Refused before any tree exists.
    CHECK(error_of(nested(100'000)).find("nested deeper than 32 levels at byte 33") !=
          std::string::npos);
    CHECK(error_of(std::string(100'000, '{')).find("nested deeper") != std::string::npos);
    // Brackets inside strings, escaped quotes included, are not nesting.
    const std::string in_string = "[\"\\\"" + std::string(1000, '[') + "\"]";
    auto parsed = parse_untrusted_json(in_string);
    REQUIRE(parsed.ok());
    CHECK((*parsed)[0].get<std::string>().size() == 1001);
}

TEST_CASE("numbers beyond a double are an error that names them, wherever they are") {
    CHECK(error_of("1e400") == "number out of range at byte 1: 1e400");
    CHECK(error_of(R"({"probe": "cpu", "params": {"seconds": -1e400}})") ==
          "number out of range at byte 40: -1e400");
    CHECK(error_of("[" + std::string(400, '9') + "]").find("number out of range at byte") == 0);
    CHECK(error_of(std::string(1000, '9') + ".0").size() < 100);  // the number is quoted short
    // Below a double's range is zero, as strtod and nlohmann have it; integers past 2^64 are
    // doubles.
    CHECK(*parse_untrusted_json("1e-400") == 0.0);
    CHECK(parse_untrusted_json("18446744073709551616")->is_number_float());
}

TEST_CASE("malformed JSON says where, with the line and column in text of several lines") {
    CHECK(error_of(R"({"probe": )").rfind("malformed JSON at byte 11: syntax error", 0) == 0);
    CHECK(error_of("{\n  \"a\": 1,\n  \"b\" 2\n}")
              .rfind("malformed JSON at byte 19 (line 3, column 7): syntax error", 0) == 0);
    CHECK(error_of("{} x").rfind("malformed JSON at byte 4", 0) == 0);  // one value only
    CHECK(error_of("[\"\xff\"]").find("ill-formed UTF-8") != std::string::npos);
    CHECK(error_of("").rfind("malformed JSON at byte 1", 0) == 0);
    CHECK(error_of("[1] // comment").rfind("malformed JSON", 0) == 0);
    CHECK(error_of("[NaN]").rfind("malformed JSON", 0) == 0);
}

TEST_CASE("size and value-count limits") {
    auto large = parse_untrusted_json("[1,2,3]", {.max_bytes = 6});
    REQUIRE_FALSE(large.ok());
    CHECK(large.error().code == ErrorCode::too_large);
    CHECK(large.error().message == "JSON of 7 bytes; at most 6 are accepted");
    CHECK(parse_untrusted_json("[1,2,3]", {.max_values = 4}).ok());  // the array and 3 numbers
    CHECK(error_of("[1,2,3,4]", {.max_values = 4}) == "JSON with more than 4 values");
    CHECK(error_of(R"({"a": 1, "b": 2})", {.max_values = 4}) == "JSON with more than 4 values");
}

TEST_CASE("hostile text is an error value, never an exception") {
    for (const std::string& text :
         {nested(1'000'000), std::string(1 << 20, '['), std::string(1 << 20, ']'),
          std::string("{\"a\":") + std::string(200'000, '-'), std::string("\"\\u"),
          std::string("\"\\ud800\""), std::string("[1e400, -1e400]"), std::string("\0", 1)}) {
        CHECK_NOTHROW((void)parse_untrusted_json(text, {.max_bytes = 2 << 20}));
        CHECK_FALSE(parse_untrusted_json(text, {.max_bytes = 2 << 20}).ok());
    }
}

TEST_CASE("checked reads: a wrong type or a number out of range is nullopt, not UB or a throw") {
    const json document = json::parse(
        R"({"name": "x", "count": 3, "negative": -1, "huge": 1e300, "half": 2.5, "whole": 2.0,
            "max": 18446744073709551615, "text": "5"})");
    CHECK(string_member(document, "name") == "x");
    CHECK_FALSE(string_member(document, "count").has_value());
    CHECK_FALSE(string_member(json::array(), "name").has_value());
    CHECK(number_member(document, "huge") == 1e300);
    CHECK_FALSE(number_member(document, "text").has_value());
    CHECK(find_member(document, "missing") == nullptr);
    CHECK(find_member(json(5), "name") == nullptr);

    CHECK(exact_integer<size_t>(document["count"]) == 3u);
    CHECK_FALSE(exact_integer<size_t>(document["negative"]).has_value());
    CHECK(exact_integer<int>(document["negative"]) == -1);
    CHECK_FALSE(exact_integer<size_t>(document["huge"]).has_value());
    CHECK_FALSE(exact_integer<int64_t>(document["huge"]).has_value());
    CHECK_FALSE(exact_integer<int>(document["half"]).has_value());
    CHECK(exact_integer<int>(document["whole"]) == 2);
    CHECK(exact_integer<uint64_t>(document["max"]) == UINT64_MAX);
    CHECK_FALSE(exact_integer<int64_t>(document["max"]).has_value());
    CHECK_FALSE(exact_integer<uint32_t>(json(4294967296)).has_value());
    CHECK_FALSE(exact_integer<uint64_t>(json(18446744073709551616.0)).has_value());
    CHECK(exact_integer<int64_t>(json(-9223372036854775808.0)) == INT64_MIN);
    CHECK_FALSE(exact_integer<int>(document["text"]).has_value());
    CHECK_THROWS_AS((void)integer_or_throw<size_t>(document["negative"]), std::out_of_range);
    CHECK(integer_or_throw<size_t>(document["count"]) == 3u);
}

TEST_CASE("messages stay short whatever the text quotes") {
    // nlohmann quotes the last token read: here a megabyte of unterminated string.
    const std::string message = error_of("[\"" + std::string(1 << 20, 'x'), {.max_bytes = 2 << 20});
    CHECK(message.rfind("malformed JSON at byte", 0) == 0);
    CHECK(message.size() < 300);
}

TEST_CASE("dropped members are left out at any depth, and still counted and bounded") {
    constexpr std::string_view dropped[] = {"big", "skip"};
    const std::string text =
        R"({"keep": 1, "big": {"a": [1, 2, {"b": 3}]}, "inner": {"skip": [4, 5], "x": "y"},
            "skip": null, "list": [{"big": 6, "z": 7}]})";
    auto tree = parse_untrusted_json(text, {}, dropped);
    REQUIRE(tree.ok());
    CHECK(*tree ==
          nlohmann::json::parse(R"({"keep": 1, "inner": {"x": "y"}, "list": [{"z": 7}]})"));
    // What is dropped still counts: 20 values here.
    CHECK_FALSE(parse_untrusted_json(text, {.max_values = 10}, dropped).ok());
    // and a dropped value cannot hide depth or a malformed tail.
    const std::string deep = R"({"big": )" + std::string(40, '[') + std::string(40, ']') + "}";
    CHECK_FALSE(parse_untrusted_json(deep, {}, dropped).ok());
    CHECK_FALSE(parse_untrusted_json(R"({"big": [1, 2)", {}, dropped).ok());
    CHECK_FALSE(parse_untrusted_json(R"({"big": 1e400})", {}, dropped).ok());
}
