// The fio-style histogram against exact percentiles of synthetic samples: every percentile
// within 1% of the exact (nearest-rank) value.
#include "probes/storage/latency_histogram.hpp"

#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <random>

using namespace hostprobe::probes;

namespace {

// fio's rule on exact data: the smallest sample whose rank reaches p% of the count.
uint64_t exact_percentile(std::vector<uint64_t> sorted, double point) {
    const auto rank =
        static_cast<size_t>(std::ceil(point / 100.0 * static_cast<double>(sorted.size())));
    return sorted[std::max<size_t>(rank, 1) - 1];
}

void check_accuracy(std::vector<uint64_t> samples, const char* name) {
    LatencyHistogram histogram;
    for (uint64_t sample : samples)
        histogram.record(sample);
    std::sort(samples.begin(), samples.end());
    const auto& points = LatencyHistogram::fio_percentiles();
    const auto values = histogram.percentiles(points);
    for (size_t i = 0; i < points.size(); ++i) {
        const double exact = static_cast<double>(exact_percentile(samples, points[i]));
        INFO(name << " p" << points[i] << ": histogram " << values[i] << ", exact " << exact);
        CHECK(std::abs(static_cast<double>(values[i]) - exact) <= 0.01 * exact);
    }
    CHECK(histogram.count() == samples.size());
    CHECK(histogram.min() == samples.front());
    CHECK(histogram.max() == samples.back());
    double sum = 0;
    for (uint64_t sample : samples)
        sum += static_cast<double>(sample);
    CHECK(histogram.mean() == doctest::Approx(sum / static_cast<double>(samples.size())));
}

}  // namespace

TEST_CASE(
    "percentiles within 1% of exact: uniform, bimodal like seed 003's EFS reads, long-tailed") {
    std::mt19937_64 random(42);
    std::vector<uint64_t> uniform;
    std::uniform_int_distribution<uint64_t> spread(50'000, 5'000'000);
    for (int i = 0; i < 200000; ++i)
        uniform.push_back(spread(random));
    check_accuracy(uniform, "uniform");

    // 20% cache hits at 0.6-0.75 ms, the rest 2.4-4 ms (seed 003, randread on EFS).
    std::vector<uint64_t> bimodal;
    std::uniform_int_distribution<uint64_t> hits(600'000, 750'000), misses(2'400'000, 4'000'000);
    std::bernoulli_distribution hit(0.2);
    for (int i = 0; i < 200000; ++i)
        bimodal.push_back(hit(random) ? hits(random) : misses(random));
    check_accuracy(bimodal, "bimodal");

    // Lognormal around 8 ms with a heavy tail (seed 003's writes: p50 8.1 ms, max 259 ms).
    std::vector<uint64_t> tailed;
    std::lognormal_distribution<double> lognormal(std::log(8.1e6), 0.35);
    for (int i = 0; i < 200000; ++i)
        tailed.push_back(static_cast<uint64_t>(lognormal(random)));
    check_accuracy(tailed, "long-tailed");
}

TEST_CASE("buckets: exact below 128 ns, at most 1/64 wide above, midpoints") {
    for (uint64_t value : {0ull, 1ull, 63ull, 127ull})
        CHECK(LatencyHistogram::value_of(LatencyHistogram::bucket_of(value)) == value);
    for (uint64_t value = 128; value < (uint64_t{1} << 33); value = value * 3 / 2 + 7) {
        const uint64_t middle = LatencyHistogram::value_of(LatencyHistogram::bucket_of(value));
        CHECK(std::abs(static_cast<double>(middle) - static_cast<double>(value)) <=
              static_cast<double>(value) / 64);
    }
    CHECK(LatencyHistogram::bucket_of(UINT64_MAX) == LatencyHistogram::kBuckets - 1);
}

TEST_CASE("merging two histograms equals recording into one; bins count every sample") {
    LatencyHistogram a, b, both;
    std::mt19937_64 random(7);
    std::exponential_distribution<double> exponential(1.0 / 1e5);
    for (int i = 0; i < 10000; ++i) {
        const auto value = static_cast<uint64_t>(exponential(random));
        (i % 3 == 0 ? a : b).record(value);
        both.record(value);
    }
    a.merge(b);
    CHECK(a.count() == both.count());
    CHECK(a.mean() == doctest::Approx(both.mean()));
    CHECK(a.stddev() == doctest::Approx(both.stddev()));
    CHECK(a.percentiles({50, 99}) == both.percentiles({50, 99}));
    uint64_t binned = 0;
    for (const auto& [value, count] : a.bins())
        binned += count;
    CHECK(binned == 10000);
    CHECK(LatencyHistogram().percentiles({50}) == std::vector<uint64_t>{0});
}
