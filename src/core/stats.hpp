// Summaries of repeated measurements, one definition for every probe: the median of the
// repetitions a probe reports, their min and max, and percentiles of raw samples.
// (Latency percentiles of a fio-style histogram live with the histogram, in fio's arithmetic.)
#pragma once

#include <optional>
#include <span>
#include <vector>

namespace hostprobe::core {

struct Spread {
    double min = 0;
    double median = 0;
    double max = 0;
};

// The middle value, or the mean of the two middle values of an even count; empty: nullopt.
std::optional<double> median(std::span<const double> values);
// min, median and max; empty: nullopt.
std::optional<Spread> spread(std::span<const double> values);
// The nearest-rank percentile (0 < point <= 100): the smallest value with at least `point`%
// of the values at or below it, as fio and most load tools report; empty: nullopt.
std::optional<double> percentile(std::span<const double> values, double point);

}  // namespace hostprobe::core
