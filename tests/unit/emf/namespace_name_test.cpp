// --emf-namespace: CloudWatch's namespace rules.
#include "emf/namespace_name.hpp"

#include <doctest/doctest.h>

using hostprobe::emf::parse_namespace;

TEST_CASE("EMF namespaces: CloudWatch's characters and length, not AWS/, not blank") {
    CHECK(parse_namespace("hostprobe").value() == "hostprobe");
    CHECK(parse_namespace("Team/host probe:v1#2_x.y-z").ok());
    CHECK(parse_namespace(std::string(255, 'a')).ok());
    CHECK_FALSE(parse_namespace(std::string(256, 'a')).ok());
    CHECK_FALSE(parse_namespace("").ok());
    CHECK_FALSE(parse_namespace("   ").ok());
    CHECK_FALSE(parse_namespace("AWS/EC2").ok());
    CHECK_FALSE(parse_namespace("host\"probe").ok());
    CHECK_FALSE(parse_namespace("h\xC3\xA9").ok());
    CHECK_FALSE(parse_namespace("a\nb").ok());
}
