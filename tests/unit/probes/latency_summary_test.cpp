// fio's latency object: made from the histogram, written and read back, refused when damaged.
#include "probes/storage/latency_summary.hpp"

#include <doctest/doctest.h>

#include <functional>
#include <stdexcept>

using namespace hostprobe::probes;
using nlohmann::json;

TEST_CASE("fio's latency object: made from the histogram, read back, refused when damaged") {
    LatencyHistogram histogram;
    for (uint64_t ns : {1000, 2000, 3000, 100000})
        histogram.record(ns);
    const LatencySummary latency = summarize(histogram);
    CHECK(latency.count == 4);
    CHECK(latency.min == 1000);
    CHECK(latency.max == 100000);
    CHECK(latency.mean == doctest::Approx(26500));
    CHECK(latency.at_percentile(50) == histogram.percentiles({50})[0]);
    CHECK(latency.at_percentile(99.99) == histogram.percentiles({99.99})[0]);
    CHECK_THROWS_AS(latency.at_percentile(42), std::logic_error);
    uint64_t binned = 0;
    for (const auto& [value, count] : latency.bins)
        binned += count;
    CHECK(binned == 4);

    const json written = latency;
    CHECK(written.at("N") == 4);
    CHECK(written.at("percentile").size() == LatencySummary::kPercentiles);
    CHECK(written.at("percentile").at("99.900000") == latency.at_percentile(99.9));
    const auto read = written.get<LatencySummary>();
    CHECK(json(read) == written);

    const auto quantiles = exported_quantiles(latency);
    REQUIRE(quantiles.size() == 4);
    CHECK(quantiles[3].first == 0.999);
    CHECK(quantiles[3].second == static_cast<double>(latency.at_percentile(99.9)) / 1e9);

    for (const auto& damage : std::vector<std::function<void(json&)>>{
             [](json& j) { j.erase("N"); },
             [](json& j) { j["N"] = -1; },
             [](json& j) { j["N"] = 1e300; },
             [](json& j) { j["N"] = 2.5; },
             [](json& j) { j["mean"] = 1e300; },
             [](json& j) { j["stddev"] = -1.0; },
             [](json& j) { j["min"] = "1000"; },
             [](json& j) { j["percentile"].erase("50.000000"); },
             [](json& j) { j["bins"][" 7"] = 1; },
             [](json& j) { j["bins"] = json::array(); },
         }) {
        json damaged = written;
        damage(damaged);
        INFO(damaged.dump());
        CHECK_THROWS(damaged.get<LatencySummary>());
    }
}
