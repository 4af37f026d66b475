// fio's latency object, shared by the storage probes: `clat_ns` of a disk direction and `lat_ns`
// of a files operation ({N, min, max, mean, stddev, percentile {"1.000000": ns, ...},
// bins {"<ns>": count}}), made from a LatencyHistogram and read back from a result.
#pragma once

#include <array>
#include <cstdint>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <utility>
#include <vector>

#include "probes/storage/latency_histogram.hpp"

namespace hostprobe::probes {

struct LatencySummary {
    // How many of LatencyHistogram::fio_percentiles() there are.
    static constexpr size_t kPercentiles = 17;

    uint64_t count = 0;  // "N"
    uint64_t min = 0;
    uint64_t max = 0;
    double mean = 0;
    double stddev = 0;
    // Nanoseconds at each of LatencyHistogram::fio_percentiles(), in that order.
    std::array<uint64_t, kPercentiles> percentiles{};
    std::map<uint64_t, uint64_t> bins;  // bucket value (ns) -> count, non-empty buckets only

    // The value at `point`, one of LatencyHistogram::fio_percentiles() (std::logic_error else).
    uint64_t at_percentile(double point) const;
};

LatencySummary summarize(const LatencyHistogram& histogram);

// fio's percentile key: 99.5 -> "99.500000".
std::string percentile_key(double point);

// The quantiles hostprobe exports (0.5, 0.9, 0.99, 0.999), in seconds.
std::vector<std::pair<double, double>> exported_quantiles(const LatencySummary& latency);

// Reading throws on anything that is not a latency object as written (a missing key or
// percentile, a count that is negative, fractional or beyond 64 bits, a latency that is not a
// finite number of nanoseconds a 64-bit count can hold).
void to_json(nlohmann::json& out, const LatencySummary& latency);
void from_json(const nlohmann::json& in, LatencySummary& latency);

// A summary with every member set: an example for the result schemas (core/json_shape).
LatencySummary example_latency_summary();

}  // namespace hostprobe::probes
