#include "core/stats.hpp"

#include <doctest/doctest.h>

using namespace hostprobe::core;

TEST_CASE("median: odd and even counts, order does not matter, empty has none") {
    const std::vector<double> odd = {5, 1, 3};
    CHECK(median(odd) == 3);
    const std::vector<double> even = {4, 1, 3, 2};
    CHECK(median(even) == 2.5);
    CHECK_FALSE(median(std::vector<double>{}).has_value());
}

TEST_CASE("spread: min, median and max of the values") {
    const std::vector<double> values = {7, 2, 9, 4};
    const auto summary = spread(values);
    REQUIRE(summary.has_value());
    CHECK(summary->min == 2);
    CHECK(summary->median == 5.5);
    CHECK(summary->max == 9);
    CHECK_FALSE(spread(std::vector<double>{}).has_value());
}

TEST_CASE("percentile: nearest rank, clamped to the values") {
    std::vector<double> values;
    for (int i = 100; i >= 1; --i)
        values.push_back(i);
    CHECK(percentile(values, 50) == 50);
    CHECK(percentile(values, 99) == 99);
    CHECK(percentile(values, 99.5) == 100);
    CHECK(percentile(values, 100) == 100);
    CHECK(percentile(values, 0) == 1);
    const std::vector<double> one = {42};
    CHECK(percentile(one, 99.9) == 42);
    CHECK_FALSE(percentile(std::vector<double>{}, 50).has_value());
}
