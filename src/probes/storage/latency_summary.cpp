#include "probes/storage/latency_summary.hpp"

#include <stdexcept>

#include "core/json_reads.hpp"
#include "core/result_reads.hpp"
#include "core/strings.hpp"

namespace hostprobe::probes {

namespace {

// Latencies are whole nanoseconds in 64 bits; their mean and spread cannot exceed that.
constexpr double kMaxNanoseconds = 18446744073709551616.0;  // 2^64

const std::vector<double>& fio_points() {
    const auto& points = LatencyHistogram::fio_percentiles();
    if (points.size() != LatencySummary::kPercentiles)
        throw std::logic_error("LatencySummary::kPercentiles differs from fio's list");
    return points;
}

uint64_t bin_value(const std::string& key) {
    // Only the key to_json writes: " 5" or "05" would be a second key for the same bucket.
    auto value = parse_uint64(key);
    if (!value || std::to_string(*value) != key)
        throw std::invalid_argument("bin '" + key + "' is not a bucket value");
    return *value;
}

}  // namespace

uint64_t LatencySummary::at_percentile(double point) const {
    const auto& points = fio_points();
    for (size_t i = 0; i < points.size(); ++i) {
        if (points[i] == point) return percentiles[i];
    }
    throw std::logic_error("not one of fio's percentiles: " + percentile_key(point));
}

LatencySummary summarize(const LatencyHistogram& histogram) {
    LatencySummary latency;
    latency.count = histogram.count();
    latency.min = histogram.min();
    latency.max = histogram.max();
    latency.mean = histogram.mean();
    latency.stddev = histogram.stddev();
    const auto values = histogram.percentiles(fio_points());
    for (size_t i = 0; i < latency.percentiles.size(); ++i)
        latency.percentiles[i] = values[i];
    latency.bins = histogram.bins();
    return latency;
}

std::string percentile_key(double point) {
    return format_fixed(point, 6);
}

std::vector<std::pair<double, double>> exported_quantiles(const LatencySummary& latency) {
    // The quantile label and fio's percentile it is read from, written out: 0.999 * 100 is not
    // exactly 99.9 in binary.
    static constexpr std::pair<double, double> kExported[] = {
        {0.5, 50}, {0.9, 90}, {0.99, 99}, {0.999, 99.9}};
    std::vector<std::pair<double, double>> quantiles;
    for (const auto& [quantile, point] : kExported) {
        quantiles.emplace_back(quantile, static_cast<double>(latency.at_percentile(point)) / 1e9);
    }
    return quantiles;
}

void to_json(nlohmann::json& out, const LatencySummary& latency) {
    nlohmann::json percentile = nlohmann::json::object();
    const auto& points = fio_points();
    for (size_t i = 0; i < points.size(); ++i)
        percentile[percentile_key(points[i])] = latency.percentiles[i];
    nlohmann::json bins = nlohmann::json::object();
    for (const auto& [value, count] : latency.bins)
        bins[std::to_string(value)] = count;
    out = {{"min", latency.min},   {"max", latency.max},
           {"mean", latency.mean}, {"stddev", latency.stddev},
           {"N", latency.count},   {"percentile", percentile},
           {"bins", bins}};
}

void from_json(const nlohmann::json& in, LatencySummary& latency) {
    latency.count = integer_or_throw<uint64_t>(in.at("N"));
    latency.min = integer_or_throw<uint64_t>(in.at("min"));
    latency.max = integer_or_throw<uint64_t>(in.at("max"));
    latency.mean = non_negative_or_throw(in.at("mean"), kMaxNanoseconds);
    latency.stddev = non_negative_or_throw(in.at("stddev"), kMaxNanoseconds);
    const nlohmann::json& percentile = in.at("percentile");
    const auto& points = fio_points();
    for (size_t i = 0; i < points.size(); ++i)
        latency.percentiles[i] =
            integer_or_throw<uint64_t>(percentile.at(percentile_key(points[i])));
    const nlohmann::json& bins = in.at("bins");
    if (!bins.is_object()) throw std::invalid_argument("bins is not an object");
    latency.bins.clear();
    for (const auto& [key, count] : bins.items())
        latency.bins[bin_value(key)] = integer_or_throw<uint64_t>(count);
}

LatencySummary example_latency_summary() {
    LatencySummary latency{.count = 2, .min = 1000, .max = 3000, .mean = 2000, .stddev = 1000};
    latency.percentiles.fill(2000);
    latency.bins = {{1000, 1}, {3008, 1}};
    return latency;
}

}  // namespace hostprobe::probes
