#include "core/cpu_set.hpp"

#include <doctest/doctest.h>

using namespace hostprobe;

TEST_CASE("CPU lists parse like the kernel writes them") {
    auto set = CpuSet::parse_list("0-3,8,10-11\n");
    REQUIRE(set.ok());
    CHECK(set->count() == 7);
    CHECK(set->contains(8));
    CHECK_FALSE(set->contains(9));
    CHECK(CpuSet::parse_list("0-62:2")->count() == 32);
    CHECK(CpuSet::parse_list("")->empty());
    CHECK_FALSE(CpuSet::parse_list("3-1").ok());
    CHECK_FALSE(CpuSet::parse_list("a").ok());
    CHECK_FALSE(CpuSet::parse_list("0-99999999").ok());
}

TEST_CASE("CPU masks read the rightmost digit as CPUs 0-3") {
    auto set = CpuSet::parse_mask("00000000,00000003\n");
    REQUIRE(set.ok());
    CHECK(set->members() == std::vector<size_t>{0, 1});
    CHECK(CpuSet::parse_mask("ff,00000000")->members().front() == 32);
    CHECK_FALSE(CpuSet::parse_mask("xyz").ok());
    CHECK_FALSE(CpuSet::parse_mask("").ok());
}

TEST_CASE("lists print the way lscpu prints them") {
    CHECK(CpuSet::parse_list("0,1")->to_list() == "0,1");
    CHECK(CpuSet::parse_list("0-3")->to_list() == "0-3");
    CHECK(CpuSet::parse_list("1-5,8-19")->to_list() == "1-5,8-19");
    CHECK(CpuSet::parse_list("6,7,10,11,14,15")->to_list() == "6,7,10,11,14,15");
    CHECK(CpuSet::parse_list("0-62:2")->to_list() == "0-62:2");
    CHECK(CpuSet::parse_list("1,3,6,7,9,11,14,15,16,18,19,21,23,24,25,27")->to_list() ==
          "1,3,6,7-11:2,14-16,18,19-23:2,24,25,27");
    CHECK(CpuSet().to_list() == "");
}
