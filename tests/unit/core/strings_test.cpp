#include "core/strings.hpp"

#include <doctest/doctest.h>

using namespace hostprobe;

TEST_CASE("trim and split") {
    CHECK(trim("  a b \t\n") == "a b");
    CHECK(trim("") == "");
    CHECK(split("a,,b", ',') == std::vector<std::string_view>{"a", "", "b"});
    CHECK(split_whitespace(" a \t b  ") == std::vector<std::string_view>{"a", "b"});
    CHECK(split_lines("x\r\ny\n") == std::vector<std::string_view>{"x", "y"});
    CHECK(join({"a", "b"}, ", ") == "a, b");
}

TEST_CASE("integers parse strictly") {
    CHECK(*parse_int64(" -1\n") == -1);
    CHECK(*parse_uint64("100000") == 100000u);
    CHECK_FALSE(parse_uint64("-5").ok());
    CHECK_FALSE(parse_int64("12abc").ok());
    CHECK_FALSE(parse_int64("").ok());
    CHECK_FALSE(parse_uint64("99999999999999999999999").ok());
    CHECK(parse_int64("x").error().code == ErrorCode::parse_error);
    CHECK(*parse_uint64_auto_base("0xd0c") == 0xd0cu);
    CHECK(*parse_uint64_auto_base("12") == 12u);
    CHECK(*parse_double("2400.060") == doctest::Approx(2400.06));
    CHECK_FALSE(parse_double("nan").ok());
    CHECK_FALSE(parse_double("1.5x").ok());
}

TEST_CASE("cpuinfo ids") {
    CHECK(parse_id(std::string("0xd0c"), IdBase::prefixed_hex) == 0xd0cu);
    CHECK_FALSE(parse_id(std::string("3340"), IdBase::prefixed_hex).has_value());
    CHECK(parse_id(std::string("0x3"), IdBase::any) == 3u);
    CHECK(parse_id(std::string("79"), IdBase::decimal) == 79u);
    CHECK_FALSE(parse_id(std::string("0x4f"), IdBase::decimal).has_value());
    CHECK_FALSE(parse_id(std::string("0x100000000"), IdBase::any).has_value());
    CHECK_FALSE(parse_id(std::nullopt, IdBase::any).has_value());
}
