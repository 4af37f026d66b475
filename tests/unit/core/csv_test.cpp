#include "core/csv.hpp"

#include <doctest/doctest.h>

using namespace hostprobe;

TEST_CASE("CSV fields may be quoted") {
    const auto rows = parse_csv("a,b,c\n1,\"x, \"\"y\"\"\",\n\n2,,z");
    REQUIRE(rows.size() == 3);
    CHECK(rows[1] == CsvRow{"1", "x, \"y\"", ""});
    CHECK(rows[2] == CsvRow{"2", "", "z"});
}
