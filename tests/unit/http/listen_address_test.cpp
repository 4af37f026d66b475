#include "http/listen_address.hpp"

#include <doctest/doctest.h>

using namespace hostprobe::http;

TEST_CASE("listen addresses") {
    CHECK(parse_listen_address("0.0.0.0:9740")->port == 9740);
    CHECK(parse_listen_address(":9740")->host == "0.0.0.0");
    CHECK(parse_listen_address("[::1]:0")->host == "::1");
    CHECK(parse_listen_address("[::1]:0")->to_string() == "[::1]:0");
    CHECK_FALSE(parse_listen_address("9740").ok());
    CHECK_FALSE(parse_listen_address("::1:9740").ok());
    CHECK_FALSE(parse_listen_address("localhost:65536").ok());
    CHECK_FALSE(parse_listen_address("localhost:http").ok());
}
